package ovni

import (
	"encoding/binary"
	"errors"

	"github.com/hpcfs/hpcfs/render"
)

var errBadState = errors.New("ovni: bad index state")

// EncodeState writes a stream offset (nil = before the CSV header).
func (g *streamGen) EncodeState(state any) []byte {
	return binary.AppendVarint(nil, state.(int64))
}

func (g *streamGen) DecodeState(b []byte) (any, error) {
	v, n := binary.Varint(b)
	if n <= 0 || n != len(b) {
		return nil, errBadState
	}
	return v, nil
}

// EncodeState writes the per-stream offsets.
func (g *mergeGen) EncodeState(state any) []byte {
	var b []byte
	for _, off := range state.([]int64) {
		b = binary.AppendVarint(b, off)
	}
	return b
}

func (g *mergeGen) DecodeState(b []byte) (any, error) {
	offs := make([]int64, 0, len(g.t.threads))
	for len(b) > 0 {
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, errBadState
		}
		offs = append(offs, v)
		b = b[n:]
	}
	if len(offs) != len(g.t.threads) {
		return nil, errBadState
	}
	return offs, nil
}

var (
	_ render.StateCodec = (*streamGen)(nil)
	_ render.StateCodec = (*mergeGen)(nil)
)
