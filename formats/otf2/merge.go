package otf2

import (
	"container/heap"
	"io"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// mergeGen renders events.txt: the events of every location merged by
// (corrected time, location id), each location in file order, as the
// reference global event reader delivers them. Its state is the position
// of every location's next event. A location whose file is damaged ends
// there (reported once); the others go on.
type mergeGen struct{ t *trace }

// mergeBatch is how much text one Next call renders at least.
const mergeBatch = 8 << 10

// mergeState is the position of every location's next event (Off -1 for
// a location that has ended), whether the section's header was written,
// and the section: 0 events, 1 snapshots.
type mergeState struct {
	pos     []otf2.Pos
	started bool
	phase   int
}

type mergeCursor struct {
	t       *trace
	readers []*otf2.EventReader
	pending []otf2.Event
	pos     []otf2.Pos // position of each pending event
	done    []bool
	h       locHeap
	started bool
	phase   int
	printer *eventPrinter
}

// locHeap orders the locations with a pending event.
type locHeap struct {
	idx []int
	c   *mergeCursor
}

func (h *locHeap) Len() int { return len(h.idx) }
func (h *locHeap) Less(i, j int) bool {
	a, b := h.idx[i], h.idx[j]
	ta, tb := h.c.pending[a].Time, h.c.pending[b].Time
	return ta < tb || ta == tb && a < b
}
func (h *locHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *locHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *locHeap) Pop() any {
	n := len(h.idx) - 1
	x := h.idx[n]
	h.idx = h.idx[:n]
	return x
}

func (g *mergeGen) Start(state any) (render.Cursor, error) {
	st, _ := state.(*mergeState)
	c := &mergeCursor{t: g.t}
	c.h.c = c
	if st != nil {
		c.open(st.phase, st)
	} else {
		c.open(0, nil)
	}
	return c, nil
}

// open starts section phase at st (nil: at its beginning).
func (c *mergeCursor) open(phase int, st *mergeState) {
	t := c.t
	n := len(t.ar.Locations)
	c.readers, c.pending, c.pos, c.done = make([]*otf2.EventReader, n), make([]otf2.Event, n), make([]otf2.Pos, n), make([]bool, n)
	c.phase, c.started, c.h.idx = phase, st != nil && st.started, c.h.idx[:0]
	files := t.files
	c.printer = t.printer
	if phase == 1 {
		files, c.printer = t.snaps, t.snapPrinter
	}
	for i, l := range t.ar.Locations {
		f, size, err := files[i].open()
		if err != nil {
			if phase == 0 {
				t.errors.Report(t.ar.EventFileName(l), err)
			}
			c.done[i] = true
			continue
		}
		r := t.ar.NewEventReaderAt(f, size, l)
		if phase == 1 {
			r = t.ar.NewSnapReaderAt(f, size, l)
		}
		if st != nil {
			if st.pos[i].Off < 0 {
				continue
			}
			r.Seek(st.pos[i])
		}
		c.readers[i] = r
		if c.load(i) {
			c.h.idx = append(c.h.idx, i)
		}
	}
	heap.Init(&c.h)
}

func (c *mergeCursor) load(i int) bool {
	r := c.readers[i]
	c.pos[i] = r.Tell()
	if r.Next(&c.pending[i]) {
		return true
	}
	if err := r.Err(); err != nil {
		c.t.errors.Report(c.t.ar.EventFileName(c.t.ar.Locations[i]), err)
	}
	c.done[i] = true
	return false
}

func (c *mergeCursor) State() any {
	st := &mergeState{pos: make([]otf2.Pos, len(c.readers)), started: c.started, phase: c.phase}
	for i := range st.pos {
		switch {
		case c.readers[i] == nil || c.done[i]:
			st.pos[i].Off = -1
		default:
			st.pos[i] = c.pos[i]
		}
	}
	return st
}

func (c *mergeCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	if !c.started {
		c.started = true
		if c.phase == 0 {
			dst = append(dst, "\n=== OTF2-PRINT ===\n=== Events =====================================================================\n"...)
			dst = appendPadRight(dst, "Event", eventColumn)
		} else {
			dst = append(dst, "=== Snapshots ==================================================================\n"...)
			dst = appendPadRight(dst, "Snapshot", eventColumn)
		}
		dst = append(dst, "        Location            Timestamp  Attributes\n"...)
		dst = append(dst, "--------------------------------------------------------------------------------\n"...)
	}
	for len(dst)-start < mergeBatch {
		if c.h.Len() == 0 {
			if c.phase == 0 && c.t.snaps != nil {
				c.open(1, nil)
				return dst, nil
			}
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
		i := c.h.idx[0]
		dst = c.printer.appendEvent(dst, c.t.ar.Locations[i].ID, &c.pending[i])
		if c.load(i) {
			heap.Fix(&c.h, 0)
		} else {
			heap.Pop(&c.h)
		}
	}
	return dst, nil
}
