package callgrind

import (
	"encoding/binary"
	"errors"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/render"
)

var errBadState = errors.New("callgrind: bad index state")

// linesGen is lines.csv's generator; its states (decoder states, which
// hold name numbers of the file's deterministic name table) go to the
// on-disk index, so a second mount knows the size of lines.csv at once.
type linesGen struct{ p *profile }

func (g linesGen) Start(state any) (render.Cursor, error) { return g.p.linesCSV(state) }

func (g linesGen) EncodeState(state any) []byte {
	st, ok := state.(cg.State)
	if !ok {
		return []byte{0}
	}
	b := []byte{1}
	for _, v := range []int64{st.Off, int64(st.Obj), int64(st.FnFile), int64(st.File), int64(st.Fn),
		int64(st.CObj), int64(st.CFile), int64(st.CFn), int64(st.Instr), st.Line, bit(st.NoInstr), bit(st.NoLine)} {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func bit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (g linesGen) DecodeState(b []byte) (any, error) {
	if len(b) == 1 && b[0] == 0 {
		return nil, nil
	}
	if len(b) == 0 || b[0] != 1 {
		return nil, errBadState
	}
	b = b[1:]
	var v [12]int64
	for i := range v {
		x, n := binary.Varint(b)
		if n <= 0 {
			return nil, errBadState
		}
		v[i], b = x, b[n:]
	}
	if len(b) != 0 {
		return nil, errBadState
	}
	return cg.State{Off: v[0], Obj: int32(v[1]), FnFile: int32(v[2]), File: int32(v[3]), Fn: int32(v[4]),
		CObj: int32(v[5]), CFile: int32(v[6]), CFn: int32(v[7]), Instr: uint64(v[8]), Line: v[9],
		NoInstr: v[10] == 1, NoLine: v[11] == 1}, nil
}

// indexKey names a view of the file at path in the on-disk index; ""
// (no index) when the file cannot be identified.
func indexKey(view, path string) string {
	key, err := render.SourceKey(path)
	if err != nil {
		return ""
	}
	return "callgrind/" + view + "/" + key
}
