package render

import (
	"io"
	"sync"
)

// A Part is a run of N records of a line-oriented view: a header, a block
// of rows, a closing line. Render appends records [from, from+count).
type Part struct {
	N      int64
	Render func(dst []byte, from, count int64) ([]byte, error)
}

// TextPart is one record holding s.
func TextPart(s string) Part {
	return Part{1, func(dst []byte, _, _ int64) ([]byte, error) { return append(dst, s...), nil }}
}

// ErrPart ends a view with err (a decode error found while planning it).
func ErrPart(err error) Part {
	return Part{1, func(dst []byte, _, _ int64) ([]byte, error) { return dst, err }}
}

// RowPart is n records rendered one at a time by row.
func RowPart(n int64, row func(dst []byte, i int64) ([]byte, error)) Part {
	return Part{n, func(dst []byte, from, count int64) ([]byte, error) {
		var err error
		for i := from; i < from+count && err == nil; i++ {
			dst, err = row(dst, i)
		}
		return dst, err
	}}
}

// Rows is the Generator of every "header + N rows" view: it serves the
// parts that plan returns (called once, on first use) in order, up to
// batch records per Cursor.Next. Its states are RowPos values, and it is a
// StateCodec, so its views can be indexed.
type Rows struct {
	plan  func() []Part
	batch int64

	once  sync.Once
	parts []Part
}

// NewRows returns the generator of the parts plan returns; batch (at least
// 1) records are rendered per Next.
func NewRows(batch int64, plan func() []Part) *Rows {
	return &Rows{plan: plan, batch: max(batch, 1)}
}

// HeaderRows is NewRows of a header record followed by n rows.
func HeaderRows(header string, n, batch int64, row func(dst []byte, i int64) ([]byte, error)) *Rows {
	return NewRows(batch, func() []Part { return []Part{TextPart(header), RowPart(n, row)} })
}

// A RowPos is a position of a Rows view: record Rec of part Part.
type RowPos struct {
	Part int
	Rec  int64
}

// Start returns a cursor at state (a RowPos), or at the beginning.
func (g *Rows) Start(state any) (Cursor, error) {
	g.once.Do(func() { g.parts = g.plan() })
	c := &rowsCursor{g: g}
	if state != nil {
		c.pos = state.(RowPos)
	}
	return c, nil
}

// EncodeState writes a RowPos.
func (g *Rows) EncodeState(state any) []byte {
	p := state.(RowPos)
	var w StateWriter
	return w.Uint(uint64(p.Part)).Uint(uint64(p.Rec)).Bytes()
}

// DecodeState reads a RowPos.
func (g *Rows) DecodeState(b []byte) (any, error) {
	r := NewStateReader(b)
	p := RowPos{Part: int(r.Uint(1 << 31)), Rec: int64(r.Uint(1 << 62))}
	return p, r.Err()
}

type rowsCursor struct {
	g   *Rows
	pos RowPos
}

func (c *rowsCursor) State() any { return c.pos }

func (c *rowsCursor) Next(dst []byte) ([]byte, error) {
	parts := c.g.parts
	for c.pos.Part < len(parts) && c.pos.Rec >= parts[c.pos.Part].N {
		c.pos = RowPos{c.pos.Part + 1, 0}
	}
	if c.pos.Part >= len(parts) {
		return dst, io.EOF
	}
	p := parts[c.pos.Part]
	count := min(p.N-c.pos.Rec, c.g.batch)
	dst, err := p.Render(dst, c.pos.Rec, count)
	if err != nil {
		return dst, err
	}
	c.pos.Rec += count
	return dst, nil
}

var _ StateCodec = (*Rows)(nil)
