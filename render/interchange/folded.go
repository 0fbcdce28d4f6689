package interchange

import (
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/render"
)

// batchBytes is how much output one Next call renders at most (it always
// renders at least one record).
const batchBytes = 8 << 10

// foldedGen renders flame/<metric>.folded: one line per node with a
// positive exclusive value, in preorder; its state is the preorder index.
type foldedGen struct {
	p *Profile
	m int
}

type foldedCursor struct {
	t    *Tree
	m    int
	i    int
	path []int32
}

func (g *foldedGen) Start(state any) (render.Cursor, error) {
	t, err := g.p.tree()
	if err != nil {
		return nil, err
	}
	i, _ := state.(int)
	return &foldedCursor{t: t, m: g.m, i: i}, nil
}

func (c *foldedCursor) State() any { return c.i }

func (c *foldedCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	for len(dst)-start < batchBytes {
		if c.i >= len(c.t.order) {
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
		x := c.t.order[c.i]
		c.i++
		v := c.t.self(x, c.m)
		if v <= 0 {
			continue
		}
		dst = c.t.appendStack(dst, x, ';', &c.path)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v, 10)
		dst = append(dst, '\n')
	}
	return dst, nil
}

// appendStack appends the labels from the root's child down to x,
// separated by sep; scratch is reused for the path.
func (t *Tree) appendStack(dst []byte, x int32, sep byte, scratch *[]int32) []byte {
	if x == Root {
		return append(dst, rootLabel...)
	}
	path := (*scratch)[:0]
	for y := x; y != Root; y = t.parent[y] {
		path = append(path, y)
	}
	*scratch = path
	for i := len(path) - 1; i >= 0; i-- {
		dst = append(dst, t.labelBytes(path[i])...)
		if i > 0 {
			dst = append(dst, sep)
		}
	}
	return dst
}
