package render

import "testing"

// TestHeldSegmentNotReused: a segment evicted while a reader copies from
// it keeps its bytes until the reader is done; only then does its buffer
// serve a new segment.
func TestHeldSegmentNotReused(t *testing.T) {
	c := newLRU(100)
	a := append(c.buffer(60), "aaaaaaaaaa"...)
	held := c.putHeld(segmentKey{"v", 0}, a)
	c.putPooled(segmentKey{"v", 1}, append(c.buffer(95), make([]byte, 95)...)) // evicts segment 0
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
