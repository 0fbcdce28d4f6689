package dcpi

import (
	"math"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/render"
)

// The cursor states of samples.txt, samples.csv and top.csv are written to
// the on-disk index, so a second mount of the same profile neither sizes
// nor sorts again before serving a read.

func (g *samplesGen) EncodeState(state any) []byte {
	st := state.(samplesState)
	b, _ := st.pos.AppendBinary(nil)
	w := (&render.StateWriter{}).Raw(b)
	return w.Uint(st.cum).Bool(st.started).Bytes()
}

func (g *samplesGen) DecodeState(b []byte) (any, error) {
	pos, rest, err := dcpi.DecodePos(b)
	if err != nil {
		return nil, err
	}
	r := render.NewStateReader(rest)
	st := samplesState{pos: pos, cum: r.Uint(math.MaxUint64), started: r.Bool()}
	return st, r.Err()
}

func (g *topGen) EncodeState(state any) []byte {
	st := state.(topState)
	b, _ := st.pos.AppendBinary(nil)
	w := (&render.StateWriter{}).Raw(b)
	return w.Uint(uint64(st.band)).Uint(uint64(st.row)).Uint(st.cum).Bool(st.started).Bytes()
}

func (g *topGen) DecodeState(b []byte) (any, error) {
	pos, rest, err := dcpi.DecodePos(b)
	if err != nil {
		return nil, err
	}
	r := render.NewStateReader(rest)
	st := topState{pos: pos, band: int(r.Uint(1 << 31)), row: int(r.Uint(1 << 40)), cum: r.Uint(math.MaxUint64), started: r.Bool()}
	return st, r.Err()
}

var (
	_ render.StateCodec = (*samplesGen)(nil)
	_ render.StateCodec = (*topGen)(nil)
)

// stream returns the view of gen, indexed on disk under the profile's
// identity and the view's name when the file can be identified.
func (p *profile) stream(gen render.Generator, view string) render.View {
	return render.IndexedStream(gen, render.IndexKey("dcpi", view, append([]string{p.path}, p.symbolFiles()...)...), nil)
}
