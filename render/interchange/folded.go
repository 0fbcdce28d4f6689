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
// positive exclusive value of metric m, in preorder; with b ≥ 0, diff/'s
// differential folded stacks: "stack A B", the exclusive values of
// metrics m and b, for every node but the root where either is not 0.
// Its state is the preorder index.
type foldedGen struct {
	tree func() (*Tree, error)
	m, b int
}

type foldedCursor struct {
	t    *Tree
	m, b int
	i    int
	path pathCache
}

func (g *foldedGen) Start(state any) (render.Cursor, error) {
	t, err := g.tree()
	if err != nil {
		return nil, err
	}
	i, _ := state.(int)
	return &foldedCursor{t: t, m: g.m, b: g.b, i: i}, nil
}

func (c *foldedCursor) State() any { return c.i }

func (c *foldedCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	for len(dst)-start < batchBytes {
		if c.i >= c.t.Len() {
			if err := c.t.Err(); err != nil {
				return dst, err
			}
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
		x := int32(c.i)
		c.i++
		v := c.t.self(x, c.m)
		if c.b < 0 && v <= 0 {
			continue
		}
		var vb int64
		if c.b >= 0 {
			if vb = c.t.self(x, c.b); x == Root || v == 0 && vb == 0 {
				continue
			}
		}
		dst = append(dst, c.t.stackOf(&c.path, x)...)
		dst = append(dst, ' ')
		dst = strconv.AppendInt(dst, v, 10)
		if c.b >= 0 {
			dst = append(dst, ' ')
			dst = strconv.AppendInt(dst, vb, 10)
		}
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
	for y := x; y != Root; y = t.parentOf(y) {
		path = append(path, y)
	}
	*scratch = path
	for i := len(path) - 1; i >= 0; i-- {
		dst = t.appendLabel(dst, path[i])
		if i > 0 {
			dst = append(dst, sep)
		}
	}
	return dst
}

// A pathCache is the path from the root to the node a preorder walk is
// at, as nodes, frames and folded text, so that each next node costs its
// own label, not a walk up its ancestors and a copy of their labels.
type pathCache struct {
	nodes  []int32 // nodes[d]: the node at depth d+1
	frames []int32 // frames[d]: its frame
	ends   []int   // ends[d]: the length of text through nodes[d]
	text   []byte  // the labels joined by ';'
}

// moveTo makes x the last node of the path: it keeps the path to x's
// parent when that is on the current one (as for the next node in
// preorder), and walks up the parents otherwise.
func (t *Tree) moveTo(c *pathCache, x int32) {
	if x == Root {
		c.truncate(0)
		return
	}
	keep := int(t.depthOf(x)) - 1 // the ancestors below the root
	if keep > len(c.nodes) || (keep > 0 && c.nodes[keep-1] != t.parentOf(x)) {
		c.truncate(0)
		var up []int32
		for y := t.parentOf(x); y != Root; y = t.parentOf(y) {
			up = append(up, y)
		}
		for i := len(up) - 1; i >= 0; i-- {
			c.push(t, up[i])
		}
	}
	c.truncate(keep)
	c.push(t, x)
}

func (c *pathCache) truncate(k int) {
	c.nodes, c.frames, c.ends = c.nodes[:k], c.frames[:k], c.ends[:k]
	c.text = c.text[:0]
	if k > 0 {
		c.text = c.text[:c.ends[k-1]]
	}
}

// push appends node y to the path.
func (c *pathCache) push(t *Tree, y int32) {
	if len(c.nodes) > 0 {
		c.text = append(c.text, ';')
	}
	c.text = t.appendLabel(c.text, y)
	c.nodes = append(c.nodes, y)
	c.frames = append(c.frames, t.frameOf(y))
	c.ends = append(c.ends, len(c.text))
}

// stackOf is x's folded stack, "root;...;x" (rootLabel for the root);
// valid until the next call.
func (t *Tree) stackOf(c *pathCache, x int32) []byte {
	t.moveTo(c, x)
	if x == Root {
		return append(c.text[:0], rootLabel...)
	}
	return c.text
}
