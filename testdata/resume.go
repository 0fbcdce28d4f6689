package testdata

import (
	"bytes"
	"io"
	"testing"
)

// A Cursor is what render.Cursor is, named here without importing it.
type Cursor interface {
	Next(dst []byte) ([]byte, error)
	State() any
}

// CheckResume renders a view from its start (start(nil), a Generator's
// Start), then resumes it from every state its cursor passed, each first
// through roundTrip (the generator's EncodeState and DecodeState), and
// checks that each gives the rest of the same bytes. It returns the bytes.
func CheckResume[C Cursor](t testing.TB, start func(state any) (C, error), roundTrip func(any) (any, error)) []byte {
	t.Helper()
	c, err := start(nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	var states []any
	var lens []int
	for {
		states, lens = append(states, c.State()), append(lens, len(all))
		if all, err = c.Next(all); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	for k, st := range states {
		dec, err := roundTrip(st)
		if err != nil {
			t.Fatal(err)
		}
		c, err := start(dec)
		if err != nil {
			t.Fatal(err)
		}
		var rest []byte
		for err := error(nil); err == nil; rest, err = c.Next(rest) {
		}
		if !bytes.Equal(rest, all[lens[k]:]) {
			t.Fatalf("from state %+v: got %q, want %q", st, rest, all[lens[k]:])
		}
	}
	return all
}
