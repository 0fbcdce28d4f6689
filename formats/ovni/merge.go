package ovni

import (
	"io"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/render"
)

// mergeGen renders events.txt: all streams merged by clock, ties broken by
// stream order (loom name, pid, tid). Its state is the offset of the next
// event of every stream, then the clock of every stream's previous event. A stream that turns out malformed ends there and
// is reported through the view's binding (a line naming the view, the
// stream and the byte); the others go on.
type mergeGen struct {
	t      *trace
	desc   *ovni.Describer // events-described.txt: plain ovnidump's lines; nil for events.txt
	report func(error)     // the tree's Binding.Report; nil drops
}

// Bind takes the view's error report from the tree (render.Stream passes
// the view's Binding on).
func (g *mergeGen) Bind(b render.Binding) { g.report = b.Report }

// damaged reports stream i's error through the view's binding.
func (g *mergeGen) damaged(i int, err error) {
	if g.report != nil {
		g.report(g.t.threads[i].streamErr(err))
	}
}

// mergeBufferTotal bounds the read-ahead buffers of one merge cursor: a
// cursor renders about one segment (1 MiB of text, some 350 KB of input),
// so larger buffers would only read ahead what the next cursor reads again.
const mergeBufferTotal = 512 << 10

// A heapItem is a stream with a pending event and that event's clock,
// kept beside it so that comparisons stay within the heap.
type heapItem struct {
	clock  uint64
	stream int32
}

type mergeCursor struct {
	g       *mergeGen
	readers []*ovni.Reader // nil for streams that cannot be read
	pending []ovni.Event   // the next event of each stream in the heap
	last    []int64        // the clock of each stream's previous event
	heap    []heapItem     // streams with a pending event, by (clock, stream)
	scratch []byte         // a described line while sizing
}

func (g *mergeGen) Start(state any) (render.Cursor, error) {
	n := len(g.t.threads)
	offs, _ := state.([]int64)
	bufSize := max(4096, min(64<<10, mergeBufferTotal/max(n, 1)))
	c := &mergeCursor{g: g, readers: make([]*ovni.Reader, n), pending: make([]ovni.Event, n), last: make([]int64, n), heap: make([]heapItem, 0, n)}
	if offs != nil {
		copy(c.last, offs[n:])
	}
	for i, th := range g.t.threads {
		s, err := th.open()
		if err != nil {
			g.damaged(i, err)
		}
		if s == nil {
			continue
		}
		off := s.Start()
		if offs != nil {
			off = offs[i]
		}
		c.readers[i] = s.NewReader(off, bufSize)
		if c.load(i) {
			c.heap = append(c.heap, heapItem{c.pending[i].Clock, int32(i)})
			c.up(len(c.heap) - 1)
		}
	}
	return c, nil
}

// load reads stream i's next event into pending[i]; false when the stream
// has ended (a malformed rest is reported).
func (c *mergeCursor) load(i int) bool {
	if err := c.readers[i].Next(&c.pending[i]); err != nil {
		if err != io.EOF {
			c.g.damaged(i, err)
		}
		return false
	}
	return true
}

func less(a, b heapItem) bool {
	return a.clock < b.clock || a.clock == b.clock && a.stream < b.stream
}

func (c *mergeCursor) up(j int) {
	h := c.heap
	for j > 0 {
		p := (j - 1) / 2
		if !less(h[j], h[p]) {
			break
		}
		h[j], h[p] = h[p], h[j]
		j = p
	}
}

func (c *mergeCursor) down(j int) {
	h := c.heap
	for {
		l := 2*j + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && less(h[r], h[l]) {
			m = r
		}
		if !less(h[m], h[j]) {
			return
		}
		h[j], h[m] = h[m], h[j]
		j = m
	}
}

// State is, for every stream, the offset of its next unwritten event,
// then the clock of its last written one.
func (c *mergeCursor) State() any {
	offs := make([]int64, 2*len(c.readers))
	copy(offs[len(c.readers):], c.last)
	for i, r := range c.readers {
		if r != nil {
			offs[i] = r.Offset()
		}
	}
	for _, it := range c.heap {
		offs[it.stream] = c.pending[it.stream].Off
	}
	return offs
}

// top is the stream whose pending event comes next, or -1.
func (c *mergeCursor) top() int {
	if len(c.heap) == 0 {
		return -1
	}
	return int(c.heap[0].stream)
}

// advance replaces the top stream's pending event with its next one.
func (c *mergeCursor) advance() {
	i := int(c.heap[0].stream)
	if c.load(i) {
		c.heap[0].clock = c.pending[i].Clock
	} else {
		last := len(c.heap) - 1
		c.heap[0] = c.heap[last]
		c.heap = c.heap[:last]
	}
	c.down(0)
}

func (c *mergeCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	threads := c.g.t.threads
	for len(dst)-start < batchBytes {
		i := c.top()
		if i < 0 {
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
		if c.g.desc != nil {
			dst = threads[i].appendDescribed(dst, &c.pending[i], c.g.desc)
		} else {
			dst = threads[i].appendLine(dst, &c.pending[i], c.last[i])
		}
		c.last[i] = int64(c.pending[i].Clock)
		c.advance()
	}
	return dst, nil
}

func (c *mergeCursor) NextLen() (int64, error) {
	var n int64
	threads := c.g.t.threads
	for n < batchBytes {
		i := c.top()
		if i < 0 {
			if n > 0 {
				return n, nil
			}
			return 0, io.EOF
		}
		ev := &c.pending[i]
		if c.g.desc != nil {
			c.scratch = threads[i].appendDescribed(c.scratch[:0], ev, c.g.desc)
			n += int64(len(c.scratch))
		} else {
			n += threads[i].lineLen(ev.Clock, c.last[i], int64(len(ev.Payload)))
		}
		c.last[i] = int64(ev.Clock)
		c.advance()
	}
	return n, nil
}
