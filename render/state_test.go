package render_test

import (
	"errors"
	"io"
	"math"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

func TestStateRoundTrip(t *testing.T) {
	var w render.StateWriter
	b := w.Uint(7).Int(-3).Bool(true).Uint(math.MaxUint64).Bytes()
	r := render.NewStateReader(b)
	if u, i, ok, m := r.Uint(10), r.Int(-5, 5), r.Bool(), r.Uint(math.MaxUint64); u != 7 || i != -3 || !ok || m != math.MaxUint64 || r.Err() != nil {
		t.Fatalf("read back %d %d %v %d %v", u, i, ok, m, r.Err())
	}
	for name, bad := range map[string][]byte{"empty": nil, "cut": {0x80}, "too big": {11}, "extra": {1, 1}} {
		r := render.NewStateReader(bad)
		r.Uint(10)
		if !errors.Is(r.Err(), render.ErrBadState) {
			t.Errorf("%s: got %v, want ErrBadState", name, r.Err())
		}
	}
}

// Rows renders its parts in order, resumes from any state it returned,
// and its states survive the codec.
func TestRowsResume(t *testing.T) {
	g := render.HeaderRows("h\n", 5, 2, func(dst []byte, i int64) ([]byte, error) {
		return append(dst, byte('a'+i), '\n'), nil
	})
	var all []byte
	var states []any
	c, _ := g.Start(nil)
	for {
		states = append(states, c.State())
		var err error
		if all, err = c.Next(all); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if string(all) != "h\na\nb\nc\nd\ne\n" {
		t.Fatalf("got %q", all)
	}
	var lens []int
	c, _ = g.Start(nil)
	var out []byte
	for err := error(nil); err == nil; out, err = c.Next(out) {
		lens = append(lens, len(out))
	}
	for k, st := range states {
		dec, err := g.DecodeState(g.EncodeState(st))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := g.Start(dec)
		var rest []byte
		for err := error(nil); err == nil; rest, err = c.Next(rest) {
		}
		if got := string(all[lens[k]:]); string(rest) != got {
			t.Errorf("from state %v: got %q, want %q", st, rest, got)
		}
	}
}
