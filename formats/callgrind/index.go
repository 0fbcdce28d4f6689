package callgrind

import (
	"math"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/render"
)

// linesGen is lines.csv's generator; its states (decoder states, which
// hold name numbers of the file's deterministic name table) go to the
// on-disk index, so a second mount knows the size of lines.csv at once.
type linesGen struct{ p *profile }

func (g linesGen) Start(state any) (render.Cursor, error) { return g.p.linesCSV(state) }

func (g linesGen) EncodeState(state any) []byte {
	var w render.StateWriter
	st, ok := state.(cg.State)
	if !ok {
		return w.Bool(false).Bytes()
	}
	w.Bool(true)
	for _, v := range []int64{st.Off, int64(st.Obj), int64(st.FnFile), int64(st.File), int64(st.Fn),
		int64(st.CObj), int64(st.CFile), int64(st.CFn), int64(st.Instr), st.Line} {
		w.Int(v)
	}
	return w.Int(bit(st.NoInstr)).Int(bit(st.NoLine)).Bytes()
}

func bit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (g linesGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	if !r.Bool() {
		return nil, r.Err()
	}
	var v [10]int64
	for i := range v {
		v[i] = r.Int(math.MinInt64, math.MaxInt64)
	}
	noInstr, noLine := r.Int(0, 1) == 1, r.Int(0, 1) == 1
	return cg.State{Off: v[0], Obj: int32(v[1]), FnFile: int32(v[2]), File: int32(v[3]), Fn: int32(v[4]),
		CObj: int32(v[5]), CFile: int32(v[6]), CFn: int32(v[7]), Instr: uint64(v[8]), Line: v[9],
		NoInstr: noInstr, NoLine: noLine}, r.Err()
}
