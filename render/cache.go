package render

import (
	"container/list"
	"sync"
)

// segmentBudget bounds the bytes of rendered output held by all views.
const segmentBudget = 24 << 20

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
	inflight map[segmentKey]bool
}

type lruEntry struct {
	key  segmentKey
	data []byte
}

var segments = newLRU(segmentBudget)

func newLRU(budget int) *lru {
	return &lru{budget: budget, order: list.New(), entries: map[segmentKey]*list.Element{}, inflight: map[segmentKey]bool{}}
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

// claim marks k as being rendered in the background; it fails when k is
// cached or already claimed.
func (c *lru) claim(k segmentKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[k]; ok || c.inflight[k] {
		return false
	}
	c.inflight[k] = true
	return true
}

func (c *lru) release(k segmentKey) {
	c.mu.Lock()
	delete(c.inflight, k)
	c.mu.Unlock()
}

func (c *lru) put(k segmentKey, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.inflight, k)
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
