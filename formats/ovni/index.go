package ovni

import (
	"math"

	"github.com/hpcfs/hpcfs/render"
)

// EncodeState writes a stream offset (nil = before the CSV header).
func (g *streamGen) EncodeState(state any) []byte {
	var w render.StateWriter
	return w.Int(state.(int64)).Bytes()
}

func (g *streamGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	v := r.Int(math.MinInt64, math.MaxInt64)
	return v, r.Err()
}

// EncodeState writes the per-stream offsets.
func (g *mergeGen) EncodeState(state any) []byte {
	var w render.StateWriter
	for _, off := range state.([]int64) {
		w.Int(off)
	}
	return w.Bytes()
}

func (g *mergeGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	offs := make([]int64, 0, len(g.t.threads))
	for r.More() && len(offs) < len(g.t.threads) {
		offs = append(offs, r.Int(math.MinInt64, math.MaxInt64))
	}
	if len(offs) != len(g.t.threads) {
		r.Fail()
	}
	return offs, r.Err()
}

var (
	_ render.StateCodec = (*streamGen)(nil)
	_ render.StateCodec = (*mergeGen)(nil)
)
