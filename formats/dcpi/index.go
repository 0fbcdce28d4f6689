package dcpi

import (
	"encoding/binary"
	"errors"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/render"
)

// The cursor states of samples.txt, samples.csv and top.csv are written to
// the on-disk index, so a second mount of the same profile neither sizes
// nor sorts again before serving a read.

var errBadState = errors.New("dcpi: bad index state")

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (g *samplesGen) EncodeState(state any) []byte {
	st := state.(samplesState)
	b, _ := st.pos.AppendBinary(nil)
	b = binary.AppendUvarint(b, st.cum)
	return binary.AppendUvarint(b, flag(st.started))
}

func (g *samplesGen) DecodeState(b []byte) (any, error) {
	pos, rest, err := dcpi.DecodePos(b)
	if err != nil {
		return nil, err
	}
	v, err := uvarints(rest, 2)
	if err != nil || v[1] > 1 {
		return nil, errBadState
	}
	return samplesState{pos: pos, cum: v[0], started: v[1] == 1}, nil
}

func (g *topGen) EncodeState(state any) []byte {
	st := state.(topState)
	b, _ := st.pos.AppendBinary(nil)
	b = binary.AppendUvarint(b, uint64(st.band))
	b = binary.AppendUvarint(b, uint64(st.row))
	b = binary.AppendUvarint(b, st.cum)
	return binary.AppendUvarint(b, flag(st.started))
}

func (g *topGen) DecodeState(b []byte) (any, error) {
	pos, rest, err := dcpi.DecodePos(b)
	if err != nil {
		return nil, err
	}
	v, err := uvarints(rest, 4)
	if err != nil || v[0] > 1<<31 || v[1] > 1<<40 || v[3] > 1 {
		return nil, errBadState
	}
	return topState{pos: pos, band: int(v[0]), row: int(v[1]), cum: v[2], started: v[3] == 1}, nil
}

func uvarints(b []byte, n int) ([]uint64, error) {
	out := make([]uint64, n)
	for i := range out {
		x, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errBadState
		}
		out[i], b = x, b[k:]
	}
	if len(b) != 0 {
		return nil, errBadState
	}
	return out, nil
}

var (
	_ render.StateCodec = (*samplesGen)(nil)
	_ render.StateCodec = (*topGen)(nil)
)

// stream returns the view of gen, indexed on disk under the profile's
// identity and the view's name when the file can be identified.
func (p *profile) stream(gen render.Generator, view string) render.View {
	key, err := render.SourceKey(p.path)
	if err != nil {
		return render.Stream(gen, nil)
	}
	return render.IndexedStream(gen, key+"\x00dcpi\x00"+view, nil)
}
