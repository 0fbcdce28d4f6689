package render

import (
	"encoding/binary"
	"errors"
)

// The cursor states of indexed views are written with StateWriter and read
// back with StateReader: a sequence of varints, so that every format
// encodes its states the same way and rejects a damaged index the same way.

// ErrBadState is the error of DecodeState for bytes that are not a state
// the view could have written.
var ErrBadState = errors.New("bad index state")

// A StateWriter appends the fields of a cursor state. The zero value is
// ready to use; Bytes returns what was written.
type StateWriter struct{ b []byte }

// Uint appends v.
func (w *StateWriter) Uint(v uint64) *StateWriter {
	w.b = binary.AppendUvarint(w.b, v)
	return w
}

// Int appends v.
func (w *StateWriter) Int(v int64) *StateWriter {
	w.b = binary.AppendVarint(w.b, v)
	return w
}

// Bool appends v as the Uint 0 or 1.
func (w *StateWriter) Bool(v bool) *StateWriter {
	if v {
		return w.Uint(1)
	}
	return w.Uint(0)
}

// Raw appends b as it is (a state field with its own encoding).
func (w *StateWriter) Raw(b []byte) *StateWriter {
	w.b = append(w.b, b...)
	return w
}

// String appends s: its length, then its bytes.
func (w *StateWriter) String(s string) *StateWriter {
	w.Uint(uint64(len(s)))
	w.b = append(w.b, s...)
	return w
}

// Bytes returns the encoded state.
func (w *StateWriter) Bytes() []byte { return w.b }

// A StateReader reads back the fields a StateWriter wrote, in order. A
// field that cannot be read, or is out of the bounds its reader gives,
// makes Err report ErrBadState; later fields then read as zero.
type StateReader struct {
	b   []byte
	bad bool
}

// NewStateReader returns a reader of the state in b.
func NewStateReader(b []byte) *StateReader { return &StateReader{b: b} }

// Uint reads a field written by StateWriter.Uint; values above max are bad.
func (r *StateReader) Uint(max uint64) uint64 {
	if r.bad {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 || v > max {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Int reads a field written by StateWriter.Int; values outside [lo, hi]
// are bad.
func (r *StateReader) Int(lo, hi int64) int64 {
	if r.bad {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 || v < lo || v > hi {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

// Bool reads a field written by StateWriter.Bool.
func (r *StateReader) Bool() bool { return r.Uint(1) == 1 }

// String reads a field written by StateWriter.String; a length beyond
// the bytes left is bad.
func (r *StateReader) String() string {
	n := r.Uint(uint64(len(r.b)))
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return ""
	}
	v := string(r.b[:n])
	r.b = r.b[n:]
	return v
}

// More reports whether bytes remain.
func (r *StateReader) More() bool { return !r.bad && len(r.b) > 0 }

// Rest returns the unread bytes, for a field with its own decoder (then
// Skip the bytes it read).
func (r *StateReader) Rest() []byte { return r.b }

// Skip steps over the first n unread bytes.
func (r *StateReader) Skip(n int) {
	if n < 0 || n > len(r.b) {
		r.bad = true
		return
	}
	r.b = r.b[n:]
}

// Fail marks the state bad (a check across fields failed).
func (r *StateReader) Fail() { r.bad = true }

// Err returns ErrBadState when a field was bad or bytes remain unread,
// else nil.
func (r *StateReader) Err() error {
	if r.bad || len(r.b) != 0 {
		return ErrBadState
	}
	return nil
}
