package render

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"sync"
	"testing"
)

// countedLines is lines whose cursor counts (a Lengther), as the formats'
// big views do.
type countedLines struct{ lines }

type countedCursor struct {
	linesCursor
	scratch []byte
}

func (g *countedLines) Start(state any) (Cursor, error) {
	c, err := g.lines.Start(state)
	if err != nil {
		return nil, err
	}
	return &countedCursor{linesCursor: *c.(*linesCursor)}, nil
}

func (c *countedCursor) NextLen() (int64, error) {
	var err error
	c.scratch, err = c.Next(c.scratch[:0])
	return int64(len(c.scratch)), err
}

// useKeeper makes kp the process's keeper for the rest of the test.
func useKeeper(t *testing.T, kp *keeper) *keeper {
	old := keeps
	keeps = kp
	t.Cleanup(func() { keeps = old })
	return kp
}

func keptOf(v View) *kept { return v.(*stream).lay.Load().kept }

// TestKeptBytesEqualRendered: a view sized by a pass that keeps (one that
// counts and one that renders) reads back the bytes rendered, at random
// offsets from concurrent readers too, without starting a cursor; a view
// smaller than keepFrom that counts is counted, not kept.
func TestKeptBytesEqualRendered(t *testing.T) {
	useKeeper(t, newKeeper(KeepBudget))
	const n = 300000
	want := reference(n)
	for _, g := range []interface {
		Generator
		count() int
	}{&countedLines{lines: lines{n: n, failAt: -1}}, &lines{n: n, failAt: -1}} {
		v := Stream(g, nil)
		if size, err := v.Size(); err != nil || size != int64(len(want)) {
			t.Fatalf("%T: Size = %d, %v; want %d", g, size, err, len(want))
		}
		k := keptOf(v)
		if k == nil || k.end != int64(len(want)) {
			t.Fatalf("%T: kept %+v, want the whole view", g, k)
		}
		starts := g.count()
		if got := readAll(t, v); !bytes.Equal(got, want) {
			t.Fatalf("%T: kept bytes differ from the rendered ones", g)
		}
		var wg sync.WaitGroup
		for seed := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewSource(int64(seed)))
				for range 50 {
					off := rng.Int63n(int64(len(want)))
					buf := make([]byte, rng.Intn(1<<20))
					k, err := v.ReadAt(buf, off)
					if err != nil && err != io.EOF || !bytes.Equal(buf[:k], want[off:off+int64(k)]) {
						t.Errorf("ReadAt(%d, %d): %d bytes, %v", off, len(buf), k, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if g.count() != starts {
			t.Errorf("%T: reading the kept view started %d cursors", g, g.count()-starts)
		}
	}
	small := Stream(&countedLines{lines: lines{n: 1000, failAt: -1}}, nil)
	if _, err := small.Size(); err != nil || keptOf(small) != nil {
		t.Errorf("a view of %d bytes was kept (%v)", len(reference(1000)), err)
	}
}

func (g *lines) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.starts
}

// TestKeptDamagedRendered: kept bytes changed or cut under the process
// are found by the segment that reads them, reported once, dropped, and
// the view's bytes are rendered instead.
func TestKeptDamagedRendered(t *testing.T) {
	useKeeper(t, newKeeper(KeepBudget))
	const n = 200000
	want := reference(n)
	for _, damage := range []func(k *kept) error{
		func(k *kept) error { // a byte changed in the middle
			setDirect(k.f, false)
			_, err := k.f.WriteAt([]byte{'#'}, k.end/2)
			return err
		},
		func(k *kept) error { return k.f.Truncate(k.end / 3) }, // cut short
	} {
		var reported []error
		var mu sync.Mutex
		v := Stream(&countedLines{lines: lines{n: n, failAt: -1}}, func(err error) {
			mu.Lock()
			reported = append(reported, err)
			mu.Unlock()
		})
		if _, err := v.Size(); err != nil {
			t.Fatal(err)
		}
		k := keptOf(v)
		if k == nil {
			t.Fatal("nothing kept")
		}
		if err := damage(k); err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, v); !bytes.Equal(got, want) {
			t.Fatal("a view whose kept bytes were damaged reads otherwise than rendered")
		}
		if got := readAll(t, v); !bytes.Equal(got, want) {
			t.Fatal("a second read differs")
		}
		mu.Lock()
		if len(reported) != 1 || !errors.Is(reported[0], errKeptDamaged) {
			t.Errorf("reported %v, want one errKeptDamaged", reported)
		}
		mu.Unlock()
		if k.mu.Lock(); !k.dropped {
			t.Error("the damaged kept file is still read")
		}
		k.mu.Unlock()
	}
}

// miscounted is countedLines whose NextLen counts one byte more at line
// 100 than Next renders.
type miscounted struct{ countedLines }

type miscountedCursor struct{ *countedCursor }

func (g *miscounted) Start(state any) (Cursor, error) {
	c, err := g.countedLines.Start(state)
	if err != nil {
		return nil, err
	}
	return miscountedCursor{c.(*countedCursor)}, nil
}

func (c miscountedCursor) NextLen() (int64, error) {
	i := c.i
	n, err := c.countedCursor.NextLen()
	if i == 100 {
		n++
	}
	return n, err
}

// TestKeptNotFromMiscount: a pass whose counts disagree with the
// rendering keeps nothing (its bytes would not be the view it sized),
// and reads fail as for a stale sizing.
func TestKeptNotFromMiscount(t *testing.T) {
	useKeeper(t, newKeeper(KeepBudget))
	v := Stream(&miscounted{countedLines{lines: lines{n: 200000, failAt: -1}}}, nil)
	if _, err := v.Size(); err != nil {
		t.Fatal(err)
	}
	if keptOf(v) != nil {
		t.Fatal("kept the bytes of a miscounted pass")
	}
	if _, err := v.ReadAt(make([]byte, 100), 0); !errors.Is(err, ErrChanged) {
		t.Fatalf("reading a miscounted view: %v, want ErrChanged", err)
	}
}

// TestKeepBudget: past the budget, the least recently read kept view is
// dropped for the next; a view larger than what is left keeps its first
// whole spans and renders the rest. Every view reads as rendered.
func TestKeepBudget(t *testing.T) {
	const n = 100000
	want := reference(n)
	size := int64(len(want))
	kp := useKeeper(t, newKeeper(size*3/2))
	a := Stream(&lines{n: n, failAt: -1}, nil)
	readAll(t, a)
	b := Stream(&lines{n: n, failAt: -1}, nil)
	readAll(t, b)
	ka, kb := keptOf(a), keptOf(b)
	if ka == nil || kb == nil || !ka.dropped || kb.dropped || kb.end != size {
		t.Fatalf("a kept %v (dropped %v), b kept %v; want a dropped for b", ka != nil, ka != nil && ka.dropped, kb != nil)
	}
	for _, v := range []View{a, b} {
		if got := readAll(t, v); !bytes.Equal(got, want) {
			t.Fatal("a view reads otherwise than rendered")
		}
	}
	kp.mu.Lock()
	if kp.used > kp.budget || kp.lru.Len() != 1 {
		t.Errorf("%d bytes in %d files kept, budget %d", kp.used, kp.lru.Len(), kp.budget)
	}
	kp.mu.Unlock()

	const budget = 2 * keepFrom
	useKeeper(t, newKeeper(budget))
	c := Stream(&countedLines{lines: lines{n: 3 * n, failAt: -1}}, nil)
	if got := readAll(t, c); !bytes.Equal(got, reference(3*n)) {
		t.Fatal("a view kept in part reads otherwise than rendered")
	}
	if kc := keptOf(c); kc == nil || kc.end <= keepFrom || kc.end > budget {
		t.Fatalf("kept %+v, want a prefix past keepFrom, within the budget", kc)
	}
}
