package render

import (
	"bytes"
	"io"
	"testing"
)

// TestNewReader: read in order from any offset, a stream's bytes are its
// ReadAt bytes, also when a data error ends it; the reader starts one
// cursor and leaves the segment cache alone.
func TestNewReader(t *testing.T) {
	for _, failAt := range []int{-1, 30000} {
		g := &lines{n: 50000, failAt: failAt}
		v := Stream(g, func(error) {})
		size, err := v.Size()
		if err != nil {
			t.Fatal(err)
		}
		full := make([]byte, size)
		if n, err := v.ReadAt(full, 0); n != len(full) || err != nil && err != io.EOF {
			t.Fatal(n, err)
		}
		for _, off := range []int64{0, 1, 65535, 65536, size / 3, size - 1, size} {
			starts := g.starts
			r, err := NewReader(v, off)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(r)
			if err != nil || !bytes.Equal(b, full[off:]) {
				t.Fatalf("fail at %d, from %d: %d bytes (%v), want %d", failAt, off, len(b), err, size-off)
			}
			if g.starts != starts+1 {
				t.Errorf("from %d: %d cursors", off, g.starts-starts)
			}
		}
	}
	r, err := NewReader(Static([]byte("abc")), 1)
	if b, _ := io.ReadAll(r); err != nil || string(b) != "bc" {
		t.Errorf("static view from 1: %q %v", b, err)
	}
}

// TestReaderLetsLongRecordGo: a record longer than longRecord (an ovni
// jumbo line) is not kept by the reader once handed out whole, and the
// slice ReadSlice gave stays the record's after the next read.
func TestReaderLetsLongRecordGo(t *testing.T) {
	g := &bigRecords{n: 3, size: 2 << 20}
	r, err := NewReader(Stream(g, nil), 0)
	if err != nil {
		t.Fatal(err)
	}
	cr := r.(*cursorReader)
	first, err := cr.ReadSlice('\n')
	if err != nil || len(first) != g.size {
		t.Fatalf("first record: %d bytes, %v", len(first), err)
	}
	if cr.store != nil {
		t.Errorf("the reader keeps the %d-byte record it handed out", cap(cr.store))
	}
	second, err := cr.ReadSlice('\n')
	if err != nil || len(second) != g.size || second[0] != 'b' {
		t.Fatalf("second record: %d bytes, %v", len(second), err)
	}
	if first[0] != 'a' || first[len(first)-2] != 'a' {
		t.Error("the first record's slice was overwritten by the second")
	}
}
