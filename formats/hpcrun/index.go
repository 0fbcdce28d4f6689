package hpcrun

import (
	"math"

	"github.com/hpcfs/hpcfs/render"
)

// The big views are render.Stream views: their cursor states are written
// to the on-disk index so that a second mount sizes them at once.

// posGen is a generator whose states are cctPos values (cct.txt);
// its rows name functions from the binaries that inputs lists.
type posGen struct {
	start  func(state any) (render.Cursor, error)
	inputs func() []string
}

func (g posGen) Start(state any) (render.Cursor, error) { return g.start(state) }

// ExtraInputs are the binaries the rows take names from: their identity
// joins the view's index key.
func (g posGen) ExtraInputs() []string { return g.inputs() }

func (posGen) EncodeState(state any) []byte {
	s := state.(cctPos)
	var w render.StateWriter
	return w.Bool(s.started).Uint(uint64(s.epoch)).Uint(s.node).Bytes()
}

func (posGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	s := cctPos{started: r.Bool(), epoch: int(r.Uint(1 << 31)), node: r.Uint(math.MaxUint64)}
	return s, r.Err()
}

// ptGen is the generator of hpcproftt.txt (ptPos states).
type ptGen func(state any) (render.Cursor, error)

func (g ptGen) Start(state any) (render.Cursor, error) { return g(state) }

func (ptGen) EncodeState(state any) []byte {
	s := state.(ptPos)
	var w render.StateWriter
	return w.Uint(uint64(s.part)).Uint(s.node).Bytes()
}

func (ptGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	s := ptPos{part: int(r.Uint(1 << 31)), node: r.Uint(math.MaxUint64)}
	return s, r.Err()
}

var (
	_ render.StateCodec  = posGen{}
	_ render.ExtraInputs = posGen{}
	_ render.StateCodec  = ptGen(nil)
)
