package render

import (
	"math/rand"
	"testing"
)

// unit is the granularity of the capacities buffer hands out.
const unit = 64 << 10

// TestHeldSegmentNotReused: a segment evicted while a reader copies from
// it keeps its bytes until the reader is done; only then does its buffer
// serve a new segment.
func TestHeldSegmentNotReused(t *testing.T) {
	c := newLRU(4 * unit)
	a := append(c.buffer(unit), "aaaaaaaaaa"...)
	held := c.putHeld(segmentKey{"v", 0}, a, nil)
	c.putPooled(segmentKey{"v", 1}, append(c.buffer(3*unit+1), 'b'), nil) // evicts segment 0
	if _, ok := c.get(segmentKey{"v", 0}); ok {
		t.Fatal("segment 0 still cached over the budget")
	}
	c.claim(segmentKey{"v", 2})
	b := c.buffer(unit)
	if &b[:1][0] == &a[0] {
		t.Fatal("a held segment's buffer was handed out")
	}
	c.release(segmentKey{"v", 2}) // rendering failed: b is dropped
	if string(held.data) != "aaaaaaaaaa" {
		t.Fatalf("held bytes changed: %q", held.data)
	}
	c.done(held)
	b = c.buffer(unit)
	if &b[:1][0] != &a[0] {
		t.Error("the released buffer was not reused")
	}
}

// TestBudgetCountsCapacity: the budget counts the buffers segments sit
// in, not their lengths: four one-byte segments in 64 KiB buffers fill a
// 256 KiB cache, and the fifth evicts the first.
func TestBudgetCountsCapacity(t *testing.T) {
	c := newLRU(4 * unit)
	for seg := range 5 {
		c.putPooled(segmentKey{"v", seg}, append(make([]byte, 0, unit), 'x'), nil)
	}
	if _, ok := c.get(segmentKey{"v", 0}); ok {
		t.Error("five 64 KiB buffers cached under a 256 KiB budget")
	}
	if c.used != 4*unit {
		t.Errorf("used %d, want %d", c.used, 4*unit)
	}
	// A kept segment sits inside a larger buffer (base): the base counts.
	base := make([]byte, 0, 4*unit)
	c.putPooled(segmentKey{"kept", 0}, base[10:20], base)
	if c.order.Len() != 1 || c.used != 4*unit {
		t.Errorf("%d entries using %d after a 256 KiB base, want 1 using %d", c.order.Len(), c.used, 4*unit)
	}
}

// TestSpareBuffersCounted: spare buffers count in the budget; a new
// segment's buffer takes their room before any cached segment's, and a
// full cache read sequentially reuses its least recent segment's buffer.
func TestSpareBuffersCounted(t *testing.T) {
	c := newLRU(4 * unit)
	for seg := range 3 {
		c.putPooled(segmentKey{"v", seg}, append(c.buffer(unit), 'x'), nil)
	}
	e, _ := c.acquire(segmentKey{"v", 2})
	c.done(e)
	c.dropLarge(e) // not large: stays
	c.evict(c.entries[segmentKey{"v", 2}])
	if len(c.spare) != 1 || c.used != 3*unit {
		t.Fatalf("%d spares, used %d; want 1 and %d", len(c.spare), c.used, 3*unit)
	}
	c.putPooled(segmentKey{"v", 3}, append(c.buffer(2*unit), 'x'), nil) // the spare is too small: it goes
	if len(c.spare) != 0 || c.used != 4*unit || c.order.Len() != 3 {
		t.Errorf("%d spares, %d entries, used %d; want 0, 3, %d", len(c.spare), c.order.Len(), c.used, 4*unit)
	}
	least := c.order.Back().Value.(*lruEntry) // segment 0
	old := &least.data[:1][0]
	b := c.buffer(unit)
	if &b[:1][0] != old {
		t.Error("a full cache allocated instead of reusing its least recent segment's buffer")
	}
	if _, ok := c.get(segmentKey{"v", 0}); ok {
		t.Error("the least recent segment is still cached after its buffer was handed out")
	}
}

// TestCacheHoldsWithinBudget: whatever the reads, the memory the cache
// holds (its entries' buffers and its spares) stays within the budget,
// and used says how much it is.
func TestCacheHoldsWithinBudget(t *testing.T) {
	const budget = 16 * unit
	c := newLRU(budget)
	rng := rand.New(rand.NewSource(1))
	var held []*lruEntry
	for i := range 5000 {
		k := segmentKey{"v", rng.Intn(40)}
		switch op := rng.Intn(10); {
		case op < 5:
			if _, ok := c.acquire(k); ok {
				c.done(c.entries[k].Value.(*lruEntry))
				break
			}
			if claimed, _ := c.claim(k); !claimed {
				break
			}
			n := 1 + rng.Intn(6*unit)
			buf := c.buffer(n)
			data := append(buf, make([]byte, n)...)
			if rng.Intn(2) == 0 {
				held = append(held, c.putHeld(k, data[:rng.Intn(n)+1], data))
			} else {
				c.putPooled(k, data, nil)
			}
		case op < 7 && len(held) > 0:
			j := rng.Intn(len(held))
			c.done(held[j])
			c.dropLarge(held[j])
			held = append(held[:j], held[j+1:]...)
		case op < 8:
			c.put(k, make([]byte, rng.Intn(unit), unit+rng.Intn(unit)))
		default:
			if e, ok := c.acquire(k); ok {
				c.done(e)
				c.dropLarge(e)
			}
		}
		real := 0
		for e := c.order.Front(); e != nil; e = e.Next() {
			ent := e.Value.(*lruEntry)
			if ent.base != nil {
				real += cap(ent.base)
			} else {
				real += cap(ent.data)
			}
		}
		for _, b := range c.spare {
			real += cap(b)
		}
		if real != c.used || real > budget {
			t.Fatalf("op %d: the cache holds %d bytes, counts %d, budget %d", i, real, c.used, budget)
		}
	}
}

// TestOneLargeSegment: the cache keeps one segment over a quarter of its
// budget (an ovni jumbo line's) at a time, beside the small ones, and
// drops it once read to its end.
func TestOneLargeSegment(t *testing.T) {
	c := newLRU(16 * unit)
	c.put(segmentKey{"v", 0}, make([]byte, unit))
	c.put(segmentKey{"v", 1}, make([]byte, 5*unit))
	c.put(segmentKey{"v", 2}, make([]byte, 6*unit)) // evicts segment 1, not 0
	for seg, want := range []bool{true, false, true} {
		if _, ok := c.get(segmentKey{"v", seg}); ok != want {
			t.Errorf("segment %d cached: %v, want %v", seg, ok, want)
		}
	}
	held := c.putHeld(segmentKey{"v", 3}, make([]byte, unit), nil)
	c.dropLarge(held) // small: stays
	if _, ok := c.get(segmentKey{"v", 3}); !ok {
		t.Error("a small segment was dropped")
	}
	c.done(held)
	e, ok := c.acquire(segmentKey{"v", 2})
	if !ok {
		t.Fatal("segment 2 gone")
	}
	c.done(e)
	c.dropLarge(e)
	if _, ok := c.get(segmentKey{"v", 2}); ok {
		t.Error("a large segment read to its end is still cached")
	}
	if c.used != 2*unit {
		t.Errorf("used %d bytes, want %d", c.used, 2*unit)
	}
}
