package interchange

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"
)

// SpillValues is how many values a tree keeps in memory (nodes times
// metrics): past it they move to an unlinked temporary file ($TMPDIR),
// read and written through a small page cache with pread and pwrite (not
// mmap: mapped pages count in the server's RSS). A variable so that tests
// can set it small; 0 never spills.
var SpillValues = 1 << 20

// spillPage is the values of one page of a spilled int64s (4 KiB);
// spillPages is how many pages its cache holds (direct-mapped: page k in
// slot k%spillPages), 512 KiB in all (a variable for tests).
const spillPage = 512

var spillPages = 128

// int64s is a growable array of int64 that moves to a file once longer
// than SpillValues. Safe for concurrent get once no longer grown or
// written.
type int64s struct {
	mem []int64 // the values, until spilled
	n   int

	mu    sync.Mutex
	f     *os.File // once spilled
	cache []spilled
	err   error // the first failure of the file: values read as 0 after it
}

type spilled struct {
	no    int // page number, -1 for none
	dirty bool
	b     [spillPage * 8]byte // little-endian
}

func (p *spilled) at(i int) int64 { return int64(binary.LittleEndian.Uint64(p.b[8*(i%spillPage):])) }

func (p *spilled) set(i int, v int64) {
	binary.LittleEndian.PutUint64(p.b[8*(i%spillPage):], uint64(v))
	p.dirty = true
}

// Len is the number of values.
func (a *int64s) Len() int { return a.n }

// grow appends k zeros.
func (a *int64s) grow(k int) {
	a.n += k
	if a.f != nil {
		return
	}
	for range k {
		a.mem = append(a.mem, 0)
	}
	if SpillValues > 0 && a.n > SpillValues {
		a.spill()
	}
}

// truncate keeps the first n values.
func (a *int64s) truncate(n int) {
	a.n = n
	if a.f == nil {
		a.mem = a.mem[:n]
		return
	}
	for i := range a.cache {
		p := &a.cache[i]
		switch {
		case p.no < 0 || (p.no+1)*spillPage <= n:
		case p.no*spillPage >= n:
			p.no, p.dirty = -1, false
		default:
			clear(p.b[8*(n%spillPage):])
			p.dirty = true
		}
	}
	if err := a.f.Truncate(int64(n) * 8); err != nil {
		a.fail(err)
	}
}

// spill moves the values to a temporary file.
func (a *int64s) spill() {
	f, err := os.CreateTemp("", "hpcfs-tree-*")
	if err != nil {
		a.fail(err)
		return
	}
	os.Remove(f.Name())
	a.f = f
	a.cache = make([]spilled, spillPages)
	for i := range a.cache {
		a.cache[i].no = -1
	}
	for no := 0; no*spillPage < len(a.mem); no++ {
		p := &a.cache[no%spillPages]
		a.flush(p)
		p.no = no
		p.b = [spillPage * 8]byte{}
		for i, v := range a.mem[no*spillPage : min(len(a.mem), (no+1)*spillPage)] {
			p.set(i, v)
		}
	}
	a.mem = nil
}

func (a *int64s) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// flush writes p back when dirty.
func (a *int64s) flush(p *spilled) {
	if p.no < 0 || !p.dirty {
		return
	}
	if _, err := a.f.WriteAt(p.b[:], int64(p.no)*int64(len(p.b))); err != nil {
		a.fail(err)
	}
	p.dirty = false
}

// page is the cached page holding value i (a.mu held).
func (a *int64s) page(i int) *spilled {
	no := i / spillPage
	p := &a.cache[no%spillPages]
	if p.no == no {
		return p
	}
	a.flush(p)
	p.no = no
	k, err := a.f.ReadAt(p.b[:], int64(no)*int64(len(p.b)))
	if err != nil && !errors.Is(err, io.EOF) { // past the end: not written yet, zeros
		a.fail(err)
	}
	clear(p.b[k:])
	return p
}

func (a *int64s) get(i int) int64 {
	if a.f == nil {
		return a.mem[i]
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.page(i).at(i)
}

func (a *int64s) add(i int, v int64) {
	if a.f == nil {
		a.mem[i] += v
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.page(i)
	p.set(i, p.at(i)+v)
}

// row is values [i, i+n) in dst (reused).
func (a *int64s) row(dst []int64, i, n int) []int64 {
	dst = dst[:0]
	if a.f == nil {
		return append(dst, a.mem[i:i+n]...)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for j := i; j < i+n; j++ {
		dst = append(dst, a.page(j).at(j))
	}
	return dst
}

// Err is the first failure of the file.
func (a *int64s) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}
