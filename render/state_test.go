package render_test

import (
	"errors"
	"math"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
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
	all := testdata.CheckResume(t, g.Start, func(st any) (any, error) { return g.DecodeState(g.EncodeState(st)) })
	if string(all) != "h\na\nb\nc\nd\ne\n" {
		t.Fatalf("got %q", all)
	}
}
