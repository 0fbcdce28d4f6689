package render

import (
	"container/list"
	"sync"
	"weak"
)

// RetainBudget is the most bytes that the values of every Retained of
// the process keep at once. Listing a folder sizes each of its views,
// and a view whose rows are results of a whole pass over the input
// (summary/'s sums, imbalance.csv's statistics) used to keep them for
// the mount's life: after sizing every view of a 250,000-node hpcrun
// profile, 48 MB of them stayed live. Past the budget the least recently
// used are let go, and made again (from the on-disk index when the view
// saved them there, else from the input) by the next read that needs
// them.
const RetainBudget = 16 << 20

// A Retained holds a value made by a whole pass (a view's rows), made on
// first use like a sync.Once, but released under the process's budget
// (RetainBudget) and made again when used after that. The zero value is
// ready to use; a Retained must not be copied after first use.
type Retained[T any] struct {
	mu   sync.Mutex
	v    T
	ok   bool
	gen  uint64        // counts the values made, so that a late release spares a newer one
	elem *list.Element // in retained.lru while ok
}

// Get returns the value, calling build for it (with the Retained locked:
// concurrent callers wait for it) when there is none; build returns the
// value and about how many bytes it keeps. A caller keeps the value it
// was given for as long as it needs it: a release only drops the
// Retained's own reference.
func (r *Retained[T]) Get(build func() (T, int64)) T {
	r.mu.Lock()
	if r.ok {
		v, e := r.v, r.elem
		r.mu.Unlock()
		retained.touch(e)
		return v
	}
	v, size := build()
	r.v, r.ok = v, true
	r.gen++
	gen := r.gen
	// The process's list holds r weakly: a closed source's views, which
	// the list alone would keep alive with everything they reach until the
	// budget pushed their entries out, go with their last user (a process
	// that opens many sources, as the fault tests do, grew by each one).
	wr := weak.Make(r)
	e := retained.add(size, func() {
		if r := wr.Value(); r != nil {
			r.release(gen)
		}
	})
	r.elem = e
	r.mu.Unlock()
	retained.trim(e)
	return v
}

func (r *Retained[T]) release(gen uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ok && r.gen == gen {
		var zero T
		r.v, r.ok, r.elem = zero, false, nil
	}
}

// retained is the process's list of held values, the most recently used
// first.
var retained = &retainList{lru: list.New()}

type retainList struct {
	mu    sync.Mutex
	lru   *list.List // of *retainEntry
	bytes int64
}

type retainEntry struct {
	size    int64
	release func()
}

func (l *retainList) add(size int64, release func()) *list.Element {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bytes += size
	return l.lru.PushFront(&retainEntry{size, release})
}

func (l *retainList) touch(e *list.Element) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e != nil && e.Value.(*retainEntry).release != nil {
		l.lru.MoveToFront(e)
	}
}

// trim releases the least recently used values until the rest fit the
// budget, sparing keep (the value just made, which its caller holds
// anyway). Releases run without the list's lock.
func (l *retainList) trim(keep *list.Element) {
	var out []func()
	l.mu.Lock()
	for e := l.lru.Back(); e != nil && l.bytes > RetainBudget; {
		prev := e.Prev()
		if e != keep {
			x := e.Value.(*retainEntry)
			l.lru.Remove(e)
			l.bytes -= x.size
			out = append(out, x.release)
			x.release = nil
		}
		e = prev
	}
	l.mu.Unlock()
	for _, f := range out {
		f()
	}
}

// retainedBytes is what the held values keep, for tests.
func retainedBytes() int64 {
	retained.mu.Lock()
	defer retained.mu.Unlock()
	return retained.bytes
}
