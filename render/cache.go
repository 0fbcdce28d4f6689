package render

import (
	"container/list"
	"sync"
)

// segmentBudget bounds the memory the segment cache holds for all views:
// the capacity of the buffers its segments sit in (a segment may fill a
// fraction of its buffer) and of its spare buffers. A sequential reader
// needs about three segments (one read, two prefetched); a larger cache
// only makes the garbage collector work harder under the command's memory
// limit (measured: 24 MiB halved trace throughput). Buffers handed out by
// buffer and not yet put are the renderers' working memory, not counted.
const segmentBudget = 8 << 20

type segmentKey struct {
	view any
	seg  int
}

type lru struct {
	mu       sync.Mutex
	budget   int
	used     int        // capacity held: cached entries' buffers and spare
	order    *list.List // front = most recent; values are *lruEntry
	entries  map[segmentKey]*list.Element
	inflight map[segmentKey]chan struct{} // closed when the segment is put or released
	spare    [][]byte                     // evicted segment buffers, for buffer
	// transit is the capacity handed out by buffer for segments being
	// rendered (each under a claim), reserved so that their puts evict
	// the least recent entries into spares instead of dropping buffers.
	// It is approximate (a buffer may grow or be dropped on an error) and
	// reset when no segment is in flight; it is not in used.
	transit int
}

// held is the memory an entry keeps while cached: its whole buffer.
func (e *lruEntry) held() int {
	if e.base != nil {
		return cap(e.base)
	}
	return cap(e.data)
}

type lruEntry struct {
	key    segmentKey
	data   []byte
	base   []byte // the buffer data is in, when it does not start it (a kept segment's)
	refs   int    // holders that copy from data (acquire, done)
	pooled bool   // data came from buffer: it is reused once evicted and unheld
	gone   bool   // evicted while held: the last done reuses data
}

// spareBuffers bounds the evicted segment buffers kept for reuse. Reusing
// them spares the allocator the clearing of a fresh MiB per segment and the
// collector about one byte of garbage per byte served.
const spareBuffers = 4

var segments = newLRU(segmentBudget)

func newLRU(budget int) *lru {
	return &lru{budget: budget, order: list.New(), entries: map[segmentKey]*list.Element{}, inflight: map[segmentKey]chan struct{}{}}
}

// buffer returns an empty slice of capacity at least n for a segment that
// will be put with pooled set: the smallest spare buffer large enough.
// When there is none and a fresh buffer would not fit in the budget, the
// spares (too small) go, then the least recent entries, as putting the
// segment would evict them, so that a full cache read sequentially reuses their buffers
// instead of allocating. Capacities are rounded up to 64 KiB so that
// segments of nearly equal size share buffers.
func (c *lru) buffer(n int) []byte {
	size := (n + 64<<10 - 1) &^ (64<<10 - 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if b, ok := c.takeSpare(n); ok {
			return b
		}
		switch {
		case c.used+c.transit+size <= c.budget:
			c.transit += size
			return make([]byte, 0, size)
		case len(c.spare) > 0:
			c.dropSpare() // too small for n: a fresh buffer takes its room
		case c.order.Len() > 0:
			c.evict(c.order.Back()) // its buffer may become a spare
		default:
			c.transit += size
			return make([]byte, 0, size) // all held by readers
		}
	}
}

// takeSpare removes and returns the smallest spare buffer of capacity at
// least n. Called with c.mu held.
func (c *lru) takeSpare(n int) ([]byte, bool) {
	best := -1
	for i, b := range c.spare {
		if cap(b) >= n && (best < 0 || cap(b) < cap(c.spare[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil, false
	}
	b := c.spare[best]
	c.removeSpare(best)
	c.transit += cap(b)
	return b, true
}

// dropSpare lets the largest spare buffer go. Called with c.mu held.
func (c *lru) dropSpare() {
	largest := 0
	for i, b := range c.spare {
		if cap(b) > cap(c.spare[largest]) {
			largest = i
		}
	}
	c.removeSpare(largest)
}

func (c *lru) removeSpare(i int) {
	c.used -= cap(c.spare[i])
	last := len(c.spare) - 1
	c.spare[i] = c.spare[last]
	c.spare[last] = nil
	c.spare = c.spare[:last]
}

// recycle keeps the buffer of an evicted, unheld entry for reuse, when it
// fits in the budget. Called with c.mu held.
func (c *lru) recycle(e *lruEntry) {
	if !e.pooled || e.refs > 0 {
		e.gone = true
		return
	}
	b := e.data
	if e.base != nil {
		b = e.base
	}
	if len(c.spare) < spareBuffers && cap(b) <= 2*segmentSpan && c.used+c.transit+cap(b) <= c.budget {
		c.spare = append(c.spare, b[:0])
		c.used += cap(b)
	}
	e.data, e.base = nil, nil
}

// acquire is get for a caller that copies from the bytes after the call:
// they stay unchanged until it calls done with the entry.
func (c *lru) acquire(k segmentKey) (*lruEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		c.order.MoveToFront(e)
		ent := e.Value.(*lruEntry)
		ent.refs++
		return ent, true
	}
	return nil, false
}

// done ends a holder's use of an entry from acquire or putHeld.
func (c *lru) done(e *lruEntry) {
	c.mu.Lock()
	e.refs--
	if e.gone && e.refs == 0 {
		e.gone = false
		c.recycle(e)
	}
	c.mu.Unlock()
}

func (c *lru) get(k segmentKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.entries[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry).data, true
	}
	return nil, false
}

// claim marks k as being rendered by the caller, who must then put or
// release it. It fails when k is cached or already being rendered; wait is
// then the channel that closes when that rendering ends (nil if cached).
func (c *lru) claim(k segmentKey) (ok bool, wait chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, cached := c.entries[k]; cached {
		return false, nil
	}
	if ch, busy := c.inflight[k]; busy {
		return false, ch
	}
	c.inflight[k] = make(chan struct{})
	return true, nil
}

func (c *lru) release(k segmentKey) {
	c.mu.Lock()
	c.endInflight(k)
	c.mu.Unlock()
}

func (c *lru) endInflight(k segmentKey) {
	if ch, ok := c.inflight[k]; ok {
		close(ch)
		delete(c.inflight, k)
	}
	if len(c.inflight) == 0 {
		c.transit = 0
	}
}

func (c *lru) put(k segmentKey, data []byte) {
	c.mu.Lock()
	c.insert(k, data, nil, false, 0)
	c.mu.Unlock()
}

// putHeld puts a segment rendered into a buffer from c.buffer (base,
// when the segment does not start it; else nil) and returns its entry
// held by the caller, who calls done when it has copied from it.
func (c *lru) putHeld(k segmentKey, data, base []byte) *lruEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.insert(k, data, base, true, 1)
}

// putPooled puts a segment rendered into a buffer from c.buffer, unheld.
func (c *lru) putPooled(k segmentKey, data, base []byte) {
	c.mu.Lock()
	c.insert(k, data, base, true, 0)
	c.mu.Unlock()
}

// insert adds k with refs holders and evicts the least recent entries
// over the budget; it returns the entry (not cached when larger than the
// budget). Called with c.mu held.
func (c *lru) insert(k segmentKey, data, base []byte, pooled bool, refs int) *lruEntry {
	c.endInflight(k)
	if e, ok := c.entries[k]; ok {
		c.order.MoveToFront(e)
		ent := e.Value.(*lruEntry)
		ent.refs += refs
		return ent
	}
	ent := &lruEntry{key: k, data: data, base: base, refs: refs, pooled: pooled}
	if pooled {
		c.transit = max(c.transit-ent.held(), 0)
	}
	if ent.held() > c.budget {
		ent.gone = true // never cached: done lets it go
		return ent
	}
	if c.large(len(data)) {
		// One large segment at a time (an ovni jumbo line's, MBs): the
		// one a sequential reader left is garbage to it, and two of them
		// were half the live heap of a mount reading a view after them.
		for e := c.order.Front(); e != nil; {
			next := e.Next()
			if c.large(len(e.Value.(*lruEntry).data)) {
				c.evict(e)
			}
			e = next
		}
	}
	c.entries[k] = c.order.PushFront(ent)
	c.used += ent.held()
	for c.used > c.budget {
		if len(c.spare) > 0 {
			c.dropSpare() // spares go before segments a reader may want again
		} else {
			c.evict(c.order.Back())
		}
	}
	return ent
}

// dropLarge evicts the entry if it is a large one still cached.
func (c *lru) dropLarge(ent *lruEntry) {
	c.mu.Lock()
	if e, ok := c.entries[ent.key]; ok && e.Value == ent && c.large(len(ent.data)) {
		c.evict(e)
	}
	c.mu.Unlock()
}

// large tells a segment of which the cache keeps one at a time.
func (c *lru) large(n int) bool { return n > c.budget/4 }

// evict removes an entry. Called with c.mu held.
func (c *lru) evict(e *list.Element) {
	old := e.Value.(*lruEntry)
	c.order.Remove(e)
	delete(c.entries, old.key)
	c.used -= old.held()
	c.recycle(old)
}
