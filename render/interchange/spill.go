package interchange

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"
	"unsafe"
)

// SpillValues is how many values a column of a tree (its nodes' parents,
// frames and values, its frames' fields, its strings' bytes, ...) keeps in
// memory: past it the column moves to an unlinked temporary file, read and
// written through a small page cache with pread and pwrite (not mmap:
// mapped pages count in the server's RSS). The file goes to SpillDir. A
// variable so that tests can set it small; 0 never spills.
var SpillValues = 1 << 16

// SpillDir is where spilled columns' files go: the mount's on-disk index
// folder when it has one (set by the command), "" for $TMPDIR. /tmp is
// often memory, which the files are meant to leave.
var SpillDir = ""

// spillPageBytes is the size of one page of a spilled column; spillPage
// is the int64 values of one page; spillPages is how many pages a
// column's cache holds (direct-mapped: page k in slot k%spillPages), 512
// KiB in all (a variable for tests).
const (
	spillPageBytes = 4096
	spillPage      = spillPageBytes / 8
)

var spillPages = 128

// word is what a column holds: fixed-size integers.
type word interface {
	~uint8 | ~int32 | ~uint32 | ~int64 | ~uint64
}

// A column is a growable array that moves to a file once longer than
// SpillValues. Safe for concurrent get and row once no longer grown or
// written; writes are for one goroutine.
type column[T word] struct {
	mem []T // the values, until spilled
	n   int

	mu    sync.Mutex
	f     *os.File // once spilled
	cache []spilled
	err   error // the first failure of the file: values read as 0 after it
}

// int64s are a tree's and bottom-up's metric values.
type int64s = column[int64]

type spilled struct {
	no    int // page number, -1 for none
	dirty bool
	b     [spillPageBytes]byte // little-endian
}

// width is the bytes of one T.
func width[T word]() int {
	var z T
	return int(unsafe.Sizeof(z))
}

// perPage is the values of one page.
func (a *column[T]) perPage() int { return spillPageBytes / width[T]() }

func (a *column[T]) at(p *spilled, i int) T {
	w := width[T]()
	o := w * (i % (spillPageBytes / w))
	switch w {
	case 1:
		return T(p.b[o])
	case 4:
		return T(int32(binary.LittleEndian.Uint32(p.b[o:]))) // the bits, signed or not
	}
	return T(binary.LittleEndian.Uint64(p.b[o:]))
}

func (a *column[T]) put(p *spilled, i int, v T) {
	w := width[T]()
	o := w * (i % (spillPageBytes / w))
	switch w {
	case 1:
		p.b[o] = byte(v)
	case 4:
		binary.LittleEndian.PutUint32(p.b[o:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(p.b[o:], uint64(v))
	}
	p.dirty = true
}

// Len is the number of values.
func (a *column[T]) Len() int { return a.n }

// grow appends k zeros.
func (a *column[T]) grow(k int) {
	a.n += k
	if a.f != nil {
		return
	}
	for range k {
		a.mem = append(a.mem, 0)
	}
	a.maybeSpill()
}

// append appends v.
func (a *column[T]) append(v T) {
	if a.f == nil {
		a.mem = append(a.mem, v)
		a.n++
		a.maybeSpill()
		return
	}
	a.n++
	a.set(a.n-1, v)
}

func (a *column[T]) maybeSpill() {
	if SpillValues > 0 && a.n > SpillValues {
		a.spill()
	}
}

// truncate keeps the first n values.
func (a *column[T]) truncate(n int) {
	a.n = n
	if a.f == nil {
		a.mem = a.mem[:n]
		return
	}
	per := a.perPage()
	for i := range a.cache {
		p := &a.cache[i]
		switch {
		case p.no < 0 || (p.no+1)*per <= n:
		case p.no*per >= n:
			p.no, p.dirty = -1, false
		default:
			clear(p.b[width[T]()*(n%per):])
			p.dirty = true
		}
	}
	if err := a.f.Truncate(int64(n) * int64(width[T]())); err != nil {
		a.fail(err)
	}
}

// spill moves the values to a temporary file.
func (a *column[T]) spill() {
	f, err := os.CreateTemp(SpillDir, "hpcfs-tree-*")
	if err != nil && SpillDir != "" { // not made yet, or not writable
		f, err = os.CreateTemp("", "hpcfs-tree-*")
	}
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
	per := a.perPage()
	for no := 0; no*per < len(a.mem); no++ {
		p := &a.cache[no%spillPages]
		a.flush(p)
		p.no = no
		p.b = [spillPageBytes]byte{}
		for i, v := range a.mem[no*per : min(len(a.mem), (no+1)*per)] {
			a.put(p, i, v)
		}
	}
	a.mem = nil
}

func (a *column[T]) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// flush writes p back when dirty.
func (a *column[T]) flush(p *spilled) {
	if p.no < 0 || !p.dirty {
		return
	}
	if _, err := a.f.WriteAt(p.b[:], int64(p.no)*spillPageBytes); err != nil {
		a.fail(err)
	}
	p.dirty = false
}

// page is the cached page holding value i (a.mu held).
func (a *column[T]) page(i int) *spilled {
	no := i / a.perPage()
	p := &a.cache[no%spillPages]
	if p.no == no {
		return p
	}
	a.flush(p)
	p.no = no
	k, err := a.f.ReadAt(p.b[:], int64(no)*spillPageBytes)
	if err != nil && !errors.Is(err, io.EOF) { // past the end: not written yet, zeros
		a.fail(err)
	}
	clear(p.b[k:])
	return p
}

func (a *column[T]) get(i int) T {
	if a.f == nil {
		return a.mem[i]
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.at(a.page(i), i)
}

func (a *column[T]) set(i int, v T) {
	if a.f == nil {
		a.mem[i] = v
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.put(a.page(i), i, v)
}

func (a *column[T]) add(i int, v T) {
	if a.f == nil {
		a.mem[i] += v
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	p := a.page(i)
	a.put(p, i, a.at(p, i)+v)
}

// row appends values [i, i+n) to dst.
func (a *column[T]) appendRow(dst []T, i, n int) []T {
	if a.f == nil {
		return append(dst, a.mem[i:i+n]...)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for j := i; j < i+n; j++ {
		dst = append(dst, a.at(a.page(j), j))
	}
	return dst
}

// row is values [i, i+n) in dst (reused).
func (a *column[T]) row(dst []T, i, n int) []T { return a.appendRow(dst[:0], i, n) }

// setRow writes vals at [i, i+len(vals)).
func (a *column[T]) setRow(i int, vals []T) {
	if a.f == nil {
		copy(a.mem[i:], vals)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for j, v := range vals {
		a.put(a.page(i+j), i+j, v)
	}
}

// Err is the first failure of the file.
func (a *column[T]) Err() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// take makes a hold what b held, and b nothing.
func (a *column[T]) take(b *column[T]) {
	a.reset(nil)
	a.mem, a.n, a.f, a.cache, a.err = b.mem, b.n, b.f, b.cache, b.err
	b.mem, b.n, b.f, b.cache, b.err = nil, 0, nil, nil, nil
}

// reset makes the column hold vals (spilled when longer than
// SpillValues), dropping what it held.
func (a *column[T]) reset(vals []T) {
	if a.f != nil {
		a.f.Close()
	}
	*a = column[T]{mem: vals, n: len(vals)}
	a.maybeSpill()
}
