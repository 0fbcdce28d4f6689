package ovni

import (
	"container/heap"
	"io"
	"slices"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/render"
)

// mergeGen renders events.txt: all streams merged by clock, ties broken by
// stream order (loom name, pid, tid). Its state is the offset of the next
// event of every stream. A stream that turns out malformed ends there and
// is reported; the others go on.
type mergeGen struct {
	t *trace
}

// mergeBufferTotal bounds the read-ahead buffers of one merge cursor.
const mergeBufferTotal = 4 << 20

type head struct {
	idx int
	ev  ovni.Event
}

type mergeCursor struct {
	g       *mergeGen
	readers []*ovni.Reader // nil for streams that ended or cannot be read
	heads   []head         // heap of streams with a pending event
}

func (g *mergeGen) Start(state any) (render.Cursor, error) {
	n := len(g.t.threads)
	offs, _ := state.([]int64)
	bufSize := max(4096, min(256<<10, mergeBufferTotal/max(n, 1)))
	c := &mergeCursor{g: g, readers: make([]*ovni.Reader, n)}
	for i, th := range g.t.threads {
		s, err := th.open()
		if err != nil {
			g.t.errors.Report(th.Name(), err)
		}
		if s == nil {
			continue
		}
		off := s.Start()
		if offs != nil {
			off = offs[i]
		}
		c.readers[i] = s.NewReader(off, bufSize)
		c.advance(i)
	}
	heap.Init(c)
	return c, nil
}

// advance reads the next event of stream i onto the heap's tail (not yet
// sifted), or retires the stream.
func (c *mergeCursor) advance(i int) bool {
	r := c.readers[i]
	h := head{idx: i}
	if err := r.Next(&h.ev); err != nil {
		if err != io.EOF {
			c.g.t.errors.Report(c.g.t.threads[i].Name(), err)
		}
		return false
	}
	c.heads = append(c.heads, h)
	return true
}

func (c *mergeCursor) Len() int { return len(c.heads) }
func (c *mergeCursor) Less(a, b int) bool {
	ha, hb := &c.heads[a], &c.heads[b]
	if ha.ev.Clock != hb.ev.Clock {
		return ha.ev.Clock < hb.ev.Clock
	}
	return ha.idx < hb.idx
}
func (c *mergeCursor) Swap(a, b int) { c.heads[a], c.heads[b] = c.heads[b], c.heads[a] }
func (c *mergeCursor) Push(x any)    { c.heads = append(c.heads, x.(head)) }
func (c *mergeCursor) Pop() any {
	h := c.heads[len(c.heads)-1]
	c.heads = c.heads[:len(c.heads)-1]
	return h
}

// State is, for every stream, the offset of its next unwritten event.
func (c *mergeCursor) State() any {
	offs := make([]int64, len(c.readers))
	for i, r := range c.readers {
		if r != nil {
			offs[i] = r.Offset()
		}
	}
	for _, h := range c.heads {
		offs[h.idx] = h.ev.Off
	}
	return slices.Clip(offs)
}

// step removes the earliest event from the heap, calls emit with it and
// replaces it with its stream's next event.
func (c *mergeCursor) step(emit func(i int, ev *ovni.Event)) bool {
	if len(c.heads) == 0 {
		return false
	}
	top := &c.heads[0]
	emit(top.idx, &top.ev)
	i := top.idx
	// Put the stream's next event in place of the top and sift it down.
	last := len(c.heads) - 1
	c.heads[0], c.heads[last] = c.heads[last], c.heads[0]
	c.heads = c.heads[:last]
	if len(c.heads) > 0 {
		heap.Fix(c, 0)
	}
	if c.advance(i) {
		heap.Fix(c, len(c.heads)-1)
	}
	return true
}

func (c *mergeCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	threads := c.g.t.threads
	for len(dst)-start < batchBytes {
		if !c.step(func(i int, ev *ovni.Event) { dst = appendDumpLine(dst, threads[i].prefix, ev) }) {
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
	}
	return dst, nil
}

func (c *mergeCursor) NextLen() (int64, error) {
	var n int64
	threads := c.g.t.threads
	for n < batchBytes {
		if !c.step(func(i int, ev *ovni.Event) { n += dumpLineLen(threads[i].prefix, ev.Clock, int64(len(ev.Payload))) }) {
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
	}
	return n, nil
}
