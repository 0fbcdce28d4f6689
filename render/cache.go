package render

import (
	"container/list"
	"sync"
)

// segmentBudget bounds the bytes of rendered output held by all views. A
// sequential reader needs about three segments (one read, two prefetched);
// a larger cache only makes the garbage collector work harder under the
// command's memory limit (measured: 24 MiB halved trace throughput).
const segmentBudget = 8 << 20

type segmentKey struct {
	view any
	seg  int
}

type lru struct {
	mu       sync.Mutex
	budget   int
	used     int
	order    *list.List // front = most recent; values are *lruEntry
	entries  map[segmentKey]*list.Element
	inflight map[segmentKey]chan struct{} // closed when the segment is put or released
}

type lruEntry struct {
	key  segmentKey
	data []byte
}

var segments = newLRU(segmentBudget)

func newLRU(budget int) *lru {
	return &lru{budget: budget, order: list.New(), entries: map[segmentKey]*list.Element{}, inflight: map[segmentKey]chan struct{}{}}
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
}

func (c *lru) put(k segmentKey, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endInflight(k)
	if e, ok := c.entries[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	if len(data) > c.budget {
		return
	}
	c.entries[k] = c.order.PushFront(&lruEntry{k, data})
	c.used += len(data)
	for c.used > c.budget {
		e := c.order.Back()
		ent := e.Value.(*lruEntry)
		c.order.Remove(e)
		delete(c.entries, ent.key)
		c.used -= len(ent.data)
	}
}
