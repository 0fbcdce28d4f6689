package render

import "testing"

// TestHeldSegmentNotReused: a segment evicted while a reader copies from
// it keeps its bytes until the reader is done; only then does its buffer
// serve a new segment.
func TestHeldSegmentNotReused(t *testing.T) {
	c := newLRU(100)
	a := append(c.buffer(60), "aaaaaaaaaa"...)
	held := c.putHeld(segmentKey{"v", 0}, a, nil)
	c.putPooled(segmentKey{"v", 1}, append(c.buffer(95), make([]byte, 95)...), nil) // evicts segment 0
	if _, ok := c.get(segmentKey{"v", 0}); ok {
		t.Fatal("segment 0 still cached over the budget")
	}
	b := c.buffer(60)
	if &b[:1][0] == &a[0] {
		t.Fatal("a held segment's buffer was handed out")
	}
	if string(held.data) != "aaaaaaaaaa" {
		t.Fatalf("held bytes changed: %q", held.data)
	}
	c.done(held)
	b = c.buffer(60)
	if &b[:1][0] != &a[0] {
		t.Error("the released buffer was not reused")
	}
	c.put(segmentKey{"small", 0}, make([]byte, 90)) // not pooled: evicts segment 1
	if len(c.spare) != 1 {
		t.Errorf("%d spare buffers, want 1 (segment 1's)", len(c.spare))
	}
}

// TestOneLargeSegment: the cache keeps one segment over a quarter of its
// budget (an ovni jumbo line's) at a time, beside the small ones, and
// drops it once read to its end.
func TestOneLargeSegment(t *testing.T) {
	c := newLRU(100)
	c.put(segmentKey{"v", 0}, make([]byte, 10))
	c.put(segmentKey{"v", 1}, make([]byte, 30))
	c.put(segmentKey{"v", 2}, make([]byte, 40)) // evicts segment 1, not 0
	for seg, want := range []bool{true, false, true} {
		if _, ok := c.get(segmentKey{"v", seg}); ok != want {
			t.Errorf("segment %d cached: %v, want %v", seg, ok, want)
		}
	}
	held := c.putHeld(segmentKey{"v", 3}, make([]byte, 5), nil)
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
	if c.used != 15 {
		t.Errorf("used %d bytes, want 15", c.used)
	}
}
