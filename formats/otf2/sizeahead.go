package otf2

import (
	"runtime"

	"github.com/hpcfs/hpcfs/decode/otf2"
)

// Sizing events.txt reads every event twice as fast by the wall when the
// locations are read on other goroutines than the merge: a goroutine per
// location decodes its events and counts their lines (what costs), in
// blocks of (time, position, length), and the sizing cursor merges those
// by time, adding lengths, as its own step would. Batches, checkpoints and
// states stay those of the merge, so rendering from any checkpoint is
// unchanged. Only sizing uses it: NextLen, from the start of the events.
const (
	aheadBlock = 1024 // events in a block
	aheadMax   = 64   // more locations than this are sized in place (memory: 4 blocks of 32 KiB each)
)

// A lenEntry is one event as sizing needs it.
type lenEntry struct {
	time uint64
	pos  otf2.Pos
	n    int64 // the length of its line(s)
}

// A lenBlock is the next events of a location; end says that the location
// ends after them, err why (nil: at its end).
type lenBlock struct {
	ents []lenEntry
	end  bool
	err  error
}

// sizeAhead is the merge's side of the goroutines reading ahead.
type sizeAhead struct {
	next []chan lenBlock   // per location, blocks in file order
	free []chan []lenEntry // per location, blocks to fill again
	cur  []lenBlock        // the block of each location's pending event
	at   []int             // its index in cur
	quit chan struct{}
}

// startAhead hands the readers of the pending events' locations to
// goroutines, when that pays (two cores, 2 to aheadMax locations).
func (c *mergeCursor) startAhead() {
	live := 0
	for i := range c.readers {
		if c.readers[i] != nil && !c.done[i] {
			live++
		}
	}
	if live < 2 || live > aheadMax || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	n := len(c.readers)
	a := &sizeAhead{next: make([]chan lenBlock, n), free: make([]chan []lenEntry, n), cur: make([]lenBlock, n), at: make([]int, n), quit: make(chan struct{})}
	for i, r := range c.readers {
		if r == nil || c.done[i] {
			a.cur[i].end = true
			continue
		}
		loc, col := c.t.ar.Locations[i].ID, c.t.locCols[i]
		a.cur[i].ents = []lenEntry{{c.pending[i].Time, c.pos[i], int64(c.printer.lineLen(loc, col, &c.pending[i], &c.scratch))}}
		a.next[i], a.free[i] = make(chan lenBlock, 2), make(chan []lenEntry, 3)
		go c.readAhead(i, r, a.next[i], a.free[i], a.quit)
	}
	c.ahead = a
}

// readAhead sends the events of location i, read from r, in blocks.
func (c *mergeCursor) readAhead(i int, r *otf2.EventReader, next chan<- lenBlock, free <-chan []lenEntry, quit <-chan struct{}) {
	loc, col, p := c.t.ar.Locations[i].ID, c.t.locCols[i], c.printer
	var ev otf2.Event
	var scratch []byte
	for {
		var b lenBlock
		select {
		case b.ents = <-free:
		default:
			b.ents = make([]lenEntry, 0, aheadBlock)
		}
		for len(b.ents) < aheadBlock {
			pos := r.Tell()
			if !r.Next(&ev) {
				b.end, b.err = true, r.Err()
				break
			}
			b.ents = append(b.ents, lenEntry{ev.Time, pos, int64(p.lineLen(loc, col, &ev, &scratch))})
		}
		select {
		case next <- b:
		case <-quit:
			return
		}
		if b.end {
			return
		}
	}
}

// aheadLen is the length of location i's pending event.
func (a *sizeAhead) aheadLen(i int) int64 { return a.cur[i].ents[a.at[i]].n }

// aheadLoad moves location i to its next event, as load does: false when
// the location ended (its error reported).
func (c *mergeCursor) aheadLoad(i int) bool {
	a := c.ahead
	a.at[i]++
	for a.at[i] >= len(a.cur[i].ents) {
		if a.cur[i].end {
			if err := a.cur[i].err; err != nil {
				c.t.errors.Report(c.t.ar.EventFileName(c.t.ar.Locations[i]), err)
			}
			c.done[i] = true
			return false
		}
		if cap(a.cur[i].ents) == aheadBlock {
			select {
			case a.free[i] <- a.cur[i].ents[:0]:
			default:
			}
		}
		a.cur[i], a.at[i] = <-a.next[i], 0
	}
	e := &a.cur[i].ents[a.at[i]]
	c.pos[i] = e.pos
	c.h.fixTop(e.time)
	return true
}

// stopAhead ends the goroutines reading ahead; a cursor that renders after
// sizing with them goes on from its state with readers of its own.
func (c *mergeCursor) stopAhead() {
	if c.ahead == nil {
		return
	}
	close(c.ahead.quit)
	c.ahead = nil
}
