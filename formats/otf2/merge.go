package otf2

import (
	"io"
	"math"
	"math/bits"

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

// A packedMerge is a mergeState as a checkpoint keeps it: a view of
// gigabytes keeps tens of thousands, so it is packed as varints, each
// location's time as the difference from the previous location's (the
// pending events of a merge are close in time): about 100 bytes for 16
// locations instead of 300.
type packedMerge string

func (st *mergeState) pack() packedMerge {
	var w render.StateWriter
	w.Bool(st.started).Uint(uint64(st.phase))
	prev := uint64(0)
	for _, p := range st.pos {
		w.Int(p.Off)
		if p.Off >= 0 {
			w.Int(int64(p.Time - prev))
			prev = p.Time
		}
	}
	return packedMerge(w.Bytes())
}

// unpack decodes the state of n locations (nil if it is not one).
func (s packedMerge) unpack(n int) *mergeState {
	r := render.NewStateReader([]byte(s))
	st := &mergeState{pos: make([]otf2.Pos, n), started: r.Bool(), phase: int(r.Uint(1))}
	prev := uint64(0)
	for i := range st.pos {
		st.pos[i].Off = r.Int(-1, math.MaxInt64)
		if st.pos[i].Off >= 0 {
			prev += uint64(r.Int(math.MinInt64, math.MaxInt64))
			st.pos[i].Time = prev
		}
	}
	if r.Err() != nil || r.More() {
		return nil
	}
	return st
}

type mergeCursor struct {
	t       *trace
	readers []*otf2.EventReader
	pending []otf2.Event
	pos     []otf2.Pos // position of each pending event
	done    []bool
	h       locTree
	started bool
	phase   int
	printer *eventPrinter
	scratch []byte // NextLen's rendering of values of unknown length
	times   render.DecimalPrefix
	ahead   *sizeAhead // while NextLen sizes with goroutines reading ahead
}

// locTree orders the locations with a pending event by the time of the
// event, then by location (index): a tournament tree of losers over the
// locations, padded to a power of two, whose keys are kept side by side so
// that a comparison reads no event. Replacing the first location's key
// replays one path from its leaf to the root, one comparison a level
// (4 for 16 locations, where a binary heap makes up to 8).
type locTree struct {
	time  []uint64 // a leaf's key: the time of its location's pending event
	rank  []int    // the leaf's index, or its index + size once it has ended
	loser []int    // loser[k] is the leaf that lost at inner node k (1 <= k < size)
	win   int      // the first leaf
	live  int      // locations with a pending event
}

// reset makes a tree of n ended locations.
func (h *locTree) reset(n int) {
	size := 1
	for size < n {
		size *= 2
	}
	h.time, h.rank, h.loser = h.time[:0], h.rank[:0], h.loser[:0]
	for i := range size {
		h.time, h.rank = append(h.time, math.MaxUint64), append(h.rank, i+size)
	}
	h.loser = append(h.loser, make([]int, size)...)
	h.live, h.win = 0, 0
}

func (h *locTree) Len() int { return h.live }

func (h *locTree) less(a, b int) bool {
	return h.time[a] < h.time[b] || h.time[a] == h.time[b] && h.rank[a] < h.rank[b]
}

// push gives location i the time t of its pending event; init orders the
// locations pushed.
func (h *locTree) push(i int, t uint64) {
	h.time[i], h.rank[i] = t, i
	h.live++
}

func (h *locTree) init() {
	size := len(h.time)
	if size == 1 {
		return
	}
	// winner[k] of the inner nodes, leaves at size+i.
	winner := make([]int, 2*size)
	for i := range size {
		winner[size+i] = i
	}
	for k := size - 1; k >= 1; k-- {
		a, b := winner[2*k], winner[2*k+1]
		if h.less(b, a) {
			a, b = b, a
		}
		winner[k], h.loser[k] = a, b
	}
	h.win = winner[1]
}

// top is the first location.
func (h *locTree) top() int { return h.win }

// fixTop gives the first location the time t of its next event.
func (h *locTree) fixTop(t uint64) {
	h.time[h.win] = t
	h.replay()
}

// popTop ends the first location.
func (h *locTree) popTop() {
	w := h.win
	h.time[w], h.rank[w] = math.MaxUint64, w+len(h.time)
	h.live--
	h.replay()
}

// replay finds the first location again after the first one's key
// changed. It selects without branches: the order of the keys is as good
// as random, and a mispredicted branch a level cost more than the rest.
func (h *locTree) replay() {
	w := h.win
	wt, wr := h.time[w], uint64(h.rank[w])
	for k := (w + len(h.time)) >> 1; k >= 1; k >>= 1 {
		l := h.loser[k]
		lt, lr := h.time[l], uint64(h.rank[l])
		// b is 1 when (lt, lr) < (wt, wr).
		_, b := bits.Sub64(lr, wr, 0)
		_, b = bits.Sub64(lt, wt, b)
		m := -b
		h.loser[k] = int(uint64(l) ^ (uint64(l^w) & m))
		w = int(uint64(w) ^ (uint64(l^w) & m))
		wt ^= (wt ^ lt) & m
		wr ^= (wr ^ lr) & m
	}
	h.win = w
}

func (g *mergeGen) Start(state any) (render.Cursor, error) {
	var st *mergeState
	if s, ok := state.(packedMerge); ok {
		if st = s.unpack(len(g.t.ar.Locations)); st == nil {
			return nil, render.ErrBadState
		}
	}
	c := &mergeCursor{t: g.t}
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
	c.phase, c.started = phase, st != nil && st.started
	c.h.reset(n)
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
			c.h.push(i, c.pending[i].Time)
		}
	}
	c.h.init()
}

// Release gives the readers' buffers back (render.Releaser); those of
// readers still reading ahead are left to them.
func (c *mergeCursor) Release() {
	if c.ahead != nil {
		return
	}
	for _, r := range c.readers {
		if r != nil {
			r.Release()
		}
	}
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
	return st.pack()
}

// Headers of events.txt's sections.
var (
	eventsTxtHeader = "\n=== OTF2-PRINT ===\n=== Events =====================================================================\n" +
		string(appendPadRight(nil, "Event", eventColumn)) + sectionColumns
	snapshotsTxtHeader = "=== Snapshots ==================================================================\n" +
		string(appendPadRight(nil, "Snapshot", eventColumn)) + sectionColumns
)

const sectionColumns = "        Location            Timestamp  Attributes\n" +
	"--------------------------------------------------------------------------------\n"

func (c *mergeCursor) Next(dst []byte) ([]byte, error) {
	if c.ahead != nil {
		st := c.State().(packedMerge).unpack(len(c.readers))
		c.stopAhead()
		c.open(st.phase, st)
	}
	dst, _, err := c.step(dst, false)
	return dst, err
}

// NextLen is the length of what Next would append, counted without
// rendering what has a known length (render.Lengther). From the start of
// the events, it reads the locations ahead on other goroutines (sizeAhead).
func (c *mergeCursor) NextLen() (int64, error) {
	if c.ahead == nil && c.phase == 0 && !c.started {
		c.startAhead()
	}
	_, n, err := c.step(nil, true)
	return n, err
}

// step appends at least mergeBatch bytes of events to dst, or with
// measure appends nothing and counts them.
func (c *mergeCursor) step(dst []byte, measure bool) ([]byte, int64, error) {
	start, n := len(dst), 0
	if !c.started {
		c.started = true
		h := eventsTxtHeader
		if c.phase == 1 {
			h = snapshotsTxtHeader
		}
		if measure {
			n += len(h)
		} else {
			dst = append(dst, h...)
		}
	}
	for len(dst)-start+n < mergeBatch {
		if c.h.Len() == 0 {
			c.stopAhead()
			if c.phase == 0 && c.t.snaps != nil {
				c.open(1, nil)
				return dst, int64(n), nil
			}
			if len(dst)-start+n > 0 {
				return dst, int64(n), nil
			}
			return dst, 0, io.EOF
		}
		i := c.h.top()
		if c.ahead != nil {
			n += int(c.ahead.aheadLen(i))
			if !c.aheadLoad(i) {
				c.h.popTop()
			}
			continue
		}
		loc, col := c.t.ar.Locations[i].ID, c.t.locCols[i]
		if measure {
			n += c.printer.lineLen(loc, col, &c.pending[i], &c.scratch)
		} else {
			dst = c.printer.appendEventTimes(dst, loc, col, &c.pending[i], &c.times)
		}
		if c.load(i) {
			c.h.fixTop(c.pending[i].Time)
		} else {
			c.h.popTop()
		}
	}
	return dst, int64(n), nil
}
