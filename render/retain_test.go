package render

import (
	"runtime"
	"sync"
	"testing"
	"weak"
)

// Held values stay within RetainBudget, least recently used let go
// first; a released value is made again on its next use, and its caller
// keeps what it was given.
func TestRetained(t *testing.T) {
	const n, size = 5, RetainBudget / 3
	var rs [n]Retained[[]byte]
	made := make([]int, n)
	get := func(i int) []byte {
		return rs[i].Get(func() ([]byte, int64) {
			made[i]++
			return make([]byte, 8), size
		})
	}
	base := retainedBytes()
	first := get(0)
	for i := 1; i < n; i++ {
		get(i)
		get(0) // 0 stays the most recently used
		if b := retainedBytes() - base; b > RetainBudget {
			t.Fatalf("after %d values: %d bytes held", i+1, b)
		}
	}
	if made[0] != 1 || first == nil {
		t.Errorf("the value in use was made %d times", made[0])
	}
	if get(1); made[1] != 2 {
		t.Errorf("a released value was made %d times, want 2", made[1])
	}
	for i := range n {
		rs[i].release(rs[i].gen) // leave the list to the other tests
	}
	retained.trim(nil)
}

// Concurrent users of one Retained share one making of it.
func TestRetainedOnce(t *testing.T) {
	var r Retained[int]
	var mu sync.Mutex
	made := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if v := r.Get(func() (int, int64) { mu.Lock(); made++; mu.Unlock(); return 7, 1 }); v != 7 {
				t.Errorf("got %d", v)
			}
		})
	}
	wg.Wait()
	if made != 1 {
		t.Errorf("made %d times", made)
	}
}

// A Retained whose owner is no longer used (a closed source's view) does
// not keep the owner alive through the process's list: a process that
// opened and closed many sources kept every one of them.
func TestRetainedLetsOwnerGo(t *testing.T) {
	type owner struct {
		big []byte
		r   Retained[int]
	}
	o := &owner{big: make([]byte, 1<<20)}
	o.r.Get(func() (int, int64) { return 1, 1 })
	w := weak.Make(o)
	o = nil
	runtime.GC()
	runtime.GC()
	if w.Value() != nil {
		t.Error("the process's list keeps a Retained's owner alive")
	}
	retained.trim(nil)
}
