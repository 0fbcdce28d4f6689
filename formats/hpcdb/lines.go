package hpcdb

import (
	"io"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/render"
)

// A part is a run of n records of a line-oriented view; render appends
// records [from, from+count).
type part struct {
	n      int64
	render func(dst []byte, from, count int64) ([]byte, error)
}

func textPart(s string) part {
	return part{1, func(dst []byte, _, _ int64) ([]byte, error) { return append(dst, s...), nil }}
}

// errPart ends a view with err (a decode error found while planning it).
func errPart(err error) part {
	return part{1, func(dst []byte, _, _ int64) ([]byte, error) { return dst, err }}
}

// partsGen serves a sequence of parts as a render.Generator whose state is
// a (part, record) position. The parts are planned once, on first use.
type partsGen struct {
	plan  func() []part
	batch int64 // records rendered per Next

	once  sync.Once
	parts []part
}

type partPos struct {
	part int
	rec  int64
}

func (g *partsGen) Start(state any) (render.Cursor, error) {
	g.once.Do(func() { g.parts = g.plan() })
	c := &partCursor{g: g}
	if state != nil {
		c.pos = state.(partPos)
	}
	return c, nil
}

type partCursor struct {
	g   *partsGen
	pos partPos
}

func (c *partCursor) State() any { return c.pos }

func (c *partCursor) Next(dst []byte) ([]byte, error) {
	for c.pos.part < len(c.g.parts) && c.pos.rec >= c.g.parts[c.pos.part].n {
		c.pos = partPos{c.pos.part + 1, 0}
	}
	if c.pos.part >= len(c.g.parts) {
		return dst, io.EOF
	}
	p := c.g.parts[c.pos.part]
	count := min(p.n-c.pos.rec, max(c.g.batch, 1))
	dst, err := p.render(dst, c.pos.rec, count)
	if err != nil {
		return dst, err
	}
	c.pos.rec += count
	return dst, nil
}

// appendI64 appends v as C's %ld of an unsigned value.
func appendI64(dst []byte, v uint64) []byte { return strconv.AppendInt(dst, int64(v), 10) }

// appendI32 appends v as C's %d of an unsigned 32-bit value.
func appendI32(dst []byte, v uint32) []byte { return strconv.AppendInt(dst, int64(int32(v)), 10) }
