package render

import (
	"bytes"
	"io"
	"sort"
)

// NewReader reads v in order from off to its end. For a view made by
// Stream it renders with a cursor of its own from the checkpoint at or
// before off, without the shared segment cache, so that a long
// sequential reader of a view (a Parquet twin reading its CSV) neither
// evicts the segments other readers use nor renders each segment twice.
// The view ends where a data error ended it, as its reads do.
func NewReader(v View, off int64) (io.Reader, error) {
	size, err := v.Size()
	if err != nil {
		return nil, err
	}
	s, ok := v.(*stream)
	if !ok {
		return io.NewSectionReader(v, off, size-off), nil
	}
	l, err := s.ensureSized()
	if err != nil {
		return nil, err
	}
	i := sort.Search(len(l.cps), func(i int) bool { return l.cps[i].off > off }) - 1
	c, err := s.gen.Start(l.cps[max(i, 0)].state)
	if err != nil {
		return nil, err
	}
	return &cursorReader{c: c, skip: off - l.cps[max(i, 0)].off, left: size - off}, nil
}

// cursorReader hands out a cursor's records as a byte stream.
type cursorReader struct {
	c     Cursor
	store []byte // the last records rendered
	buf   []byte // what is left of them to read
	skip  int64  // bytes still to drop before off
	left  int64  // bytes up to the view's size
	err   error
}

func (r *cursorReader) Read(p []byte) (int, error) {
	if err := r.fill(); err != nil {
		return 0, err
	}
	n := copy(p, r.buf[:min(int64(len(r.buf)), r.left)])
	r.take(n)
	return n, nil
}

// ReadSlice is bufio.Reader's without a copy: the rendered bytes up to
// and including the next delim, or all those rendered when none is
// there. The slice holds until the next call (a reader of long records,
// a CSV twin's, does not copy a multi-MB line into a buffer of its own).
func (r *cursorReader) ReadSlice(delim byte) ([]byte, error) {
	if err := r.fill(); err != nil {
		return nil, err
	}
	b := r.buf[:min(int64(len(r.buf)), r.left)]
	if i := bytes.IndexByte(b, delim); i >= 0 {
		b = b[:i+1]
	}
	r.take(len(b))
	return b, nil
}

// take consumes n bytes of buf. A long record's store (an ovni jumbo
// line, MBs) is let go as soon as it is all handed out, not when the
// next records are rendered: a ReadSlice caller (a Parquet twin) encodes
// the record meanwhile, and its slice stays valid, as nothing renders
// into that store again.
func (r *cursorReader) take(n int) {
	r.buf, r.left = r.buf[n:], r.left-int64(n)
	if len(r.buf) == 0 && cap(r.store) > longRecord {
		r.store, r.buf = nil, nil
	}
}

// longRecord is the capacity above which a cursorReader does not keep its
// store for the next records.
const longRecord = 1 << 20

// Peek returns the next byte without reading it (n is 1: a ReadSlice
// reader's look past a '\r').
func (r *cursorReader) Peek(n int) ([]byte, error) {
	if err := r.fill(); err != nil {
		return nil, err
	}
	return r.buf[:min(int64(n), int64(len(r.buf)), r.left)], nil
}

// fill renders records until some are left to read; io.EOF at the end.
func (r *cursorReader) fill() error {
	for len(r.buf) == 0 || r.left <= 0 {
		if r.err != nil || r.left <= 0 {
			return io.EOF
		}
		if cap(r.store) > longRecord {
			r.store = nil // a long record skipped whole: not kept for the short ones after it
		}
		var err error
		r.store, err = r.c.Next(r.store[:0])
		r.buf = r.store
		if d := min(r.skip, int64(len(r.buf))); d > 0 {
			r.buf, r.skip = r.buf[d:], r.skip-d
		}
		if err != nil {
			if err != io.EOF && !IsDataError(err) {
				return err
			}
			r.err = err
		}
	}
	return nil
}
