package ovni

import (
	"math"

	"github.com/hpcfs/hpcfs/render"
)

// EncodeState writes a stream position (nil = before the CSV header).
func (g *streamGen) EncodeState(state any) []byte {
	pos := state.(streamPos)
	var w render.StateWriter
	return w.Int(pos.off).Int(pos.last).Bytes()
}

func (g *streamGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	off := r.Int(math.MinInt64, math.MaxInt64)
	last := r.Int(math.MinInt64, math.MaxInt64)
	if r.More() {
		r.Fail()
	}
	return streamPos{off, last}, r.Err()
}

// EncodeState writes the per-stream offsets and previous clocks.
func (g *mergeGen) EncodeState(state any) []byte {
	var w render.StateWriter
	for _, off := range state.([]int64) {
		w.Int(off)
	}
	return w.Bytes()
}

func (g *mergeGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	n := 2 * len(g.t.threads)
	offs := make([]int64, 0, n)
	for r.More() && len(offs) < n {
		offs = append(offs, r.Int(math.MinInt64, math.MaxInt64))
	}
	if len(offs) != n || r.More() {
		r.Fail()
	}
	return offs, r.Err()
}

var (
	_ render.StateCodec = (*streamGen)(nil)
	_ render.StateCodec = (*mergeGen)(nil)
)
