// Package decode holds what every binary decoder in decode/<format> shares:
// the FormatError type that carries format, section and byte offset (made
// by ErrAt), the Problems list of partial failures, the sentinel errors
// callers test with errors.Is, and bounded reads that never
// allocate more than the input holds.
//
// Decoders under decode/ are pure: no FUSE, no logging, no globals. They
// never panic on malformed input and never allocate from an untrusted
// length more than the bytes that remain in the input.
package decode

import (
	"errors"
	"fmt"
	"io"
	"os"
)

var (
	// ErrFormat is wrapped by every *FormatError that is not more specific.
	ErrFormat = errors.New("malformed input")
	// ErrTruncated reports input that ends inside a record.
	ErrTruncated = fmt.Errorf("truncated input: %w", io.ErrUnexpectedEOF)
	// ErrUnsupportedVersion reports a well-formed input of a version no decoder reads.
	ErrUnsupportedVersion = errors.New("unsupported version")
)

// A FormatError reports malformed input at a byte offset.
type FormatError struct {
	Format  string // "ovni", "hpcrun", ...
	Section string // file or section name; "" if none
	Off     int64  // byte offset in the file
	Msg     string
	Val     any   // offending value; nil if none
	Err     error // ErrTruncated, ErrUnsupportedVersion or nil (ErrFormat)
}

func (e *FormatError) Error() string {
	s := e.Format + ": "
	if e.Section != "" {
		s += e.Section + " "
	}
	s += fmt.Sprintf("at byte %d (0x%x): %s", e.Off, e.Off, e.Msg)
	if e.Val != nil {
		s += fmt.Sprintf(" '%v'", e.Val)
	}
	return s
}

// ErrAt is the one constructor of decode errors: malformed input of format
// in section at byte off. kind is nil (ErrFormat), ErrTruncated or
// ErrUnsupportedVersion; val is the offending value or nil. Each decoder
// wraps it as errAt(section, off, msg, val, kind) with its format name.
func ErrAt(format, section string, off int64, msg string, val any, kind error) *FormatError {
	return &FormatError{Format: format, Section: section, Off: off, Msg: msg, Val: val, Err: kind}
}

// Problems are the partial failures of an input that still decodes: each
// is something malformed that was skipped or cut, while the rest was read
// on. Decoders keep them in a Problems field; formats report them all to
// _errors.txt through vfs.Errors.ReportAll. The zero value holds none.
type Problems []error

// Add appends err unless it is nil.
func (p *Problems) Add(err error) {
	if err != nil {
		*p = append(*p, err)
	}
}

// Err returns nil when there is no problem, the problem when there is
// one, and all of them joined otherwise.
func (p Problems) Err() error {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return p[0]
	}
	return errors.Join(p...)
}

func (e *FormatError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return ErrFormat
}

// chunk bounds each allocation of ReadAt so that a corrupt length field
// fails at end of input before it can allocate much.
const chunk = 1 << 20

// ReadAt reads n bytes at off from r, whose total size is size. A length
// that runs past size is reported as io.ErrUnexpectedEOF without allocating
// for it; large reads grow the buffer chunk by chunk.
func ReadAt(r io.ReaderAt, size, off, n int64) ([]byte, error) {
	if n < 0 || off < 0 || off > size || n > size-off {
		return nil, io.ErrUnexpectedEOF
	}
	if n <= chunk {
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, off); err != nil && !(err == io.EOF && n > 0) {
			return nil, err
		}
		return buf, nil
	}
	var buf []byte
	for done := int64(0); done < n; {
		k := min(n-done, chunk)
		buf = append(buf, make([]byte, k)...)
		if _, err := r.ReadAt(buf[done:done+k], off+done); err != nil && err != io.EOF {
			return nil, err
		}
		done += k
	}
	return buf, nil
}

// SliceCap returns a capacity for a slice of count elements of elemSize
// bytes each that is safe to preallocate when at most remaining bytes of
// input describe them.
func SliceCap(count uint64, elemSize, remaining int64) int {
	if elemSize <= 0 {
		elemSize = 1
	}
	limit := uint64(max(remaining, 0) / elemSize)
	limit = min(limit, 1<<20)
	return int(min(count, limit))
}

// OpenFile opens the file at path and calls decode with it and its size.
// It returns the file as the Closer to keep, or closes it when decode
// fails.
func OpenFile(path string, decode func(r io.ReaderAt, size int64) error) (io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := decode(f, fi.Size()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
