package render

import (
	"container/list"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// Keeping. Sizing a view measures every record, and a read of the sized
// view renders its records again: when a read follows the stat (cat,
// less, cp, a table loaded by DuckDB), every record was decoded twice.
// So the sizing pass renders instead of counting (Next, not NextLen), and
// writes what it renders to an unlinked file (in the index folder when
// the mount has one, else in the temporary folder); the view's segments
// are then read back from it with pread instead of being rendered again
// (issue 26: the sizing pass of an ovni events.txt was a third of the
// server's CPU; issue 22: as much as the read for OTF2's events.csv).
//
// The bytes live on disk, never in memory beyond the segment cache: the
// pass writes them 1 MiB at a time. All kept views of the process share
// one budget of disk bytes (KeepBudget, and at most half of what the
// folder's file system has free when a file is made) and of files
// (keepFiles); past it the least recently read are dropped, and their
// views render again from their checkpoints. A view whose pass cannot
// keep more (budget, a failing write) keeps the checkpoints it has
// written whole and measures the rest as before.
//
// Each span between two checkpoints is stored with its CRC-32C, checked
// when a segment is read back: a kept file damaged under the process (a
// failing disk, a write through /proc/PID/fd) is dropped, reported, and
// its segments are rendered again. The file holds the bytes of one
// layout only: a layout measured again (a bad index) keeps its own. A
// changed input is vfs's to find, as for rendered bytes.
const (
	// KeepBudget is the most bytes that the kept views of the process
	// hold on disk at once.
	KeepBudget = 4 << 30
	// keepFiles is the most kept views (open files) at once.
	keepFiles = 256
	// keepChunk is how many rendered bytes the sizing pass gathers
	// before it writes them; a view smaller than that is not kept (its
	// segment renders in less time than a file takes to make).
	keepChunk = 1 << 20
	// keepFrom is how far a pass that can count (Lengther) counts before
	// it keeps: smaller views (a listing sizes many) are counted as
	// before, and a larger one renders what it counted once, from its
	// first checkpoint, when keeping begins.
	keepFrom = 4 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// A kept file holds the first end bytes of a layout's view.
type kept struct {
	kp     *keeper
	dir    string // where the file is made, at the first write
	f      *os.File
	direct bool  // f is written with O_DIRECT
	room   int64 // the most bytes this file may grow to (free space)

	mu      sync.Mutex
	refs    int  // preads in flight
	dropped bool // no longer read; the file closes with the last pread
	end     int64
	sums    []uint32 // CRC-32C of checkpoint i's span, for the spans wholly in [0, end)

	written int64         // bytes in the file, counted in the budget (the keeper's mutex)
	elem    *list.Element // in the keeper's list once finished (the keeper's mutex)
}

// A keeper is the process's budget of kept bytes and files.
type keeper struct {
	mu     sync.Mutex
	budget int64
	used   int64
	lru    *list.List // *kept, front = most recently read
}

// keeps is the process's keeper; tests replace it.
var keeps = newKeeper(KeepBudget)

func newKeeper(budget int64) *keeper { return &keeper{budget: budget, lru: list.New()} }

// newKept starts keeping a view in dir ("" for the temporary folder);
// nil when the keeper keeps nothing.
func (kp *keeper) newKept(dir string) *kept {
	if kp.budget <= 0 {
		return nil
	}
	if dir == "" {
		dir = os.TempDir()
	}
	return &kept{kp: kp, dir: dir}
}

// write appends b to k's file, within the budget (dropping the least
// recently read kept views for room); false when it cannot, and k is
// then not written to again.
func (k *kept) write(b []byte) bool {
	if k.f == nil && !k.open() {
		return false
	}
	kp, n := k.kp, int64(len(b))
	kp.mu.Lock()
	if k.written+n > k.room {
		kp.mu.Unlock()
		return false
	}
	for kp.used+n > kp.budget {
		e := kp.lru.Back()
		if e == nil {
			kp.mu.Unlock()
			return false
		}
		kp.dropLocked(e.Value.(*kept))
	}
	kp.used += n
	at := k.written
	k.written += n
	kp.mu.Unlock()
	_, err := k.f.WriteAt(b, at)
	if err != nil && k.direct && setDirect(k.f, false) == nil {
		k.direct = false // the file system refused a direct write (alignment)
		_, err = k.f.WriteAt(b, at)
	}
	return err == nil
}

// setDirect turns O_DIRECT on or off for f.
func setDirect(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
		if e != 0 {
			ferr = e
			return
		}
		if on {
			flags |= syscall.O_DIRECT
		} else {
			flags &^= syscall.O_DIRECT
		}
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETFL, flags); e != 0 {
			ferr = e
		}
	})
	if err != nil {
		return err
	}
	return ferr
}

// open makes k's unlinked file.
func (k *kept) open() bool {
	var st syscall.Statfs_t
	if syscall.Statfs(k.dir, &st) != nil {
		return false
	}
	k.room = int64(st.Bavail) * int64(st.Bsize) / 2
	f, err := os.CreateTemp(k.dir, ".kept-*")
	if err != nil {
		return false
	}
	os.Remove(f.Name()) // its space goes with the last descriptor
	k.f, k.direct = f, setDirect(f, true) == nil
	k.kp.mu.Lock()
	for k.kp.lru.Len() >= keepFiles {
		k.kp.dropLocked(k.kp.lru.Back().Value.(*kept))
	}
	k.kp.mu.Unlock()
	return true
}

// finish makes k readable up to end, with the CRCs of its spans, or
// gives its space back when it holds nothing.
func (k *kept) finish(end int64, sums []uint32) {
	kp := k.kp
	kp.mu.Lock()
	defer kp.mu.Unlock()
	if end == 0 || k.f == nil {
		kp.dropLocked(k)
		return
	}
	k.mu.Lock()
	k.end, k.sums = end, sums
	k.mu.Unlock()
	k.elem = kp.lru.PushFront(k)
}

// drop stops reading k (evicted, damaged, or its layout gone); false
// when it was dropped already.
func (k *kept) drop() bool {
	k.kp.mu.Lock()
	defer k.kp.mu.Unlock()
	return k.kp.dropLocked(k)
}

func (kp *keeper) dropLocked(k *kept) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.dropped {
		return false
	}
	k.dropped = true
	if k.elem != nil {
		kp.lru.Remove(k.elem)
		k.elem = nil
	}
	kp.used -= k.written
	if k.refs == 0 && k.f != nil {
		k.f.Close()
	}
	return true
}

// errKeptDamaged is a kept span whose bytes are not those written.
var errKeptDamaged = errors.New("kept bytes damaged")

// read returns the kept bytes from cps[0].off to end: the spans of
// checkpoints first, first+1, ... (cps), in base, a buffer from the
// segment cache; data is nil when they are not (or no longer) kept. Bytes that
// cannot be read, or a span that does not match its CRC, drop k and give
// errKeptDamaged. It reads whole blocks into an aligned buffer, as
// O_DIRECT needs: the file is read as it was written, past the page cache.
func (k *kept) read(cps []checkpoint, end int64, first int) (data, base []byte, err error) {
	from := cps[0].off
	k.kp.mu.Lock()
	if k.elem != nil {
		k.kp.lru.MoveToFront(k.elem)
	}
	k.kp.mu.Unlock()
	k.mu.Lock()
	if k.dropped || end > k.end || first+len(cps) > len(k.sums) {
		k.mu.Unlock()
		return nil, nil, nil
	}
	k.refs++
	sums := k.sums[first : first+len(cps)]
	k.mu.Unlock()
	lo, hi := from&^(keepAlign-1), (end+keepAlign-1)&^(keepAlign-1)
	raw := segments.buffer(int(hi-lo) + keepAlign)
	skip := (keepAlign - int(uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%keepAlign)) % keepAlign
	area := raw[skip : skip+int(hi-lo)]
	n, rerr := k.f.ReadAt(area, lo)
	if errors.Is(rerr, syscall.EINVAL) && k.direct && setDirect(k.f, false) == nil {
		n, rerr = k.f.ReadAt(area, lo) // the file system refused a direct read
	}
	k.mu.Lock()
	k.refs--
	if k.dropped && k.refs == 0 {
		k.f.Close()
	}
	k.mu.Unlock()
	if int64(n) < end-lo {
		if !k.drop() {
			return nil, nil, nil // reported by who dropped it
		}
		return nil, nil, fmt.Errorf("%w: %d of %d bytes at %d (%v)", errKeptDamaged, max(int64(n)-(from-lo), 0), end-from, from, rerr)
	}
	data = area[from-lo : end-lo]
	for i, cp := range cps {
		stop := end
		if i+1 < len(cps) {
			stop = cps[i+1].off
		}
		if crc32.Checksum(data[cp.off-from:stop-from], crcTable) != sums[i] {
			if !k.drop() {
				return nil, nil, nil
			}
			return nil, nil, fmt.Errorf("%w: the %d bytes at %d do not match their checksum", errKeptDamaged, stop-cp.off, cp.off)
		}
	}
	return data, raw, nil
}

// NotKept is implemented by a Generator whose bytes are kept elsewhere
// (a Parquet twin keeps its encoded row groups): its sizing pass counts
// with NextLen and keeps nothing.
type NotKept interface {
	NotKept()
}

// The pass writes with O_DIRECT when the file system takes it: the
// bytes go to disk without passing through the page cache, which made
// writing cost the server more than the counting it replaces (256 MB to
// ext4 in 1 MiB writes: 85-365 ms of system time through the page cache,
// 16-24 ms direct; read back through the page cache, 40-55 ms). A
// goroutine writes while the pass renders the next chunk. Direct writes
// need lengths, offsets and buffers aligned to the device's blocks: the
// pass writes whole blocks of keepAlign and pads the last.
const keepAlign = 4096

// A keepPass is a sizing pass's side of keeping; nil keeps nothing.
type keepPass struct {
	k       *kept
	buf     []byte   // rendered, not yet handed to the writer; buf[0] is at sent
	sent    int64    // the bytes handed to the writer
	sums    []uint32 // the CRC-32C of each checkpoint's span that ended
	crc     uint32   // of the current span so far
	begun   bool     // renders and keeps
	stopped bool     // keeps no more: end and sums are final
	end     int64

	full chan []byte // to the writer
	free chan []byte // from the writer, to fill again
	done chan struct{}
	good atomic.Int64 // the bytes written
	fail atomic.Bool  // a write failed: the writer writes no more
}

func newKeepPass(k *kept) *keepPass {
	if k == nil {
		return nil
	}
	return &keepPass{k: k}
}

// begin starts keeping at the pass's last checkpoint of cps: the bytes
// before it, counted, are rendered from the first (by gen; nil when there
// are none). Each checkpoint must fall between two of those renderings'
// records, as it did between two counts; when one does not (a Lengther
// that counts otherwise than it renders), nothing is kept, and the
// segment that holds it fails its reads as the view's rendering
// disagreeing with its sizing.
func (p *keepPass) begin(gen Generator, cps []checkpoint) {
	if p == nil {
		return
	}
	p.begun = true
	if gen == nil {
		return
	}
	c, err := gen.Start(cps[0].state)
	if err != nil {
		p.stopped = true
		return
	}
	if r, ok := c.(Releaser); ok {
		defer r.Release()
	}
	next, at := 1, int64(0) // the next checkpoint; the bytes rendered
	for next < len(cps) {
		n, err := p.next(c, cps[:next])
		if p.stopped {
			return // a write failed: what was written whole stays
		}
		at += n
		switch {
		case at == cps[next].off:
			p.checkpoint()
			next++
		case at > cps[next].off || err != nil:
			p.stop(cps[:next])
			p.sums, p.end = nil, 0
			return
		}
	}
}

// waiting tells whether the pass may begin keeping.
func (p *keepPass) waiting() bool { return p != nil && !p.begun }

// alignedBuffer is an empty slice of capacity n whose first byte is at
// an address that is a multiple of keepAlign.
func alignedBuffer(n int) []byte {
	b := make([]byte, n+keepAlign)
	skip := (keepAlign - int(uintptr(unsafe.Pointer(&b[0]))%keepAlign)) % keepAlign
	return b[skip : skip : skip+n]
}

// write is the writer goroutine: it writes what the pass hands it, in
// order, and gives the buffers back.
func (p *keepPass) write() {
	defer close(p.done)
	for b := range p.full {
		if !p.fail.Load() {
			if uintptr(unsafe.Pointer(&b[0]))%keepAlign != 0 {
				b = append(alignedBuffer(len(b)), b...) // it grew past its buffer (a long record)
			}
			if p.k.write(b) {
				p.good.Add(int64(len(b)))
			} else {
				p.fail.Store(true)
			}
		}
		if cap(b) > 4<<20 {
			b = alignedBuffer(keepChunk + keepChunk/4) // after an ovni jumbo line
		}
		p.free <- b[:0]
	}
}

// on tells whether the pass renders and keeps.
func (p *keepPass) on() bool { return p != nil && p.begun && !p.stopped }

// checkpoint ends the current span: the pass recorded a checkpoint.
func (p *keepPass) checkpoint() {
	if p.on() {
		p.sums = append(p.sums, p.crc)
		p.crc = 0
	}
}

// next renders c's next records into the pass's buffer, handing it to
// the writer once it holds keepChunk bytes; cps are the pass's
// checkpoints so far.
func (p *keepPass) next(c Cursor, cps []checkpoint) (int64, error) {
	before := len(p.buf)
	var err error
	p.buf, err = c.Next(p.buf)
	added := p.buf[before:]
	p.crc = crc32.Update(p.crc, crcTable, added)
	if len(p.buf) >= keepChunk {
		if p.fail.Load() {
			p.stop(cps)
		} else {
			p.hand(len(p.buf) &^ (keepAlign - 1))
		}
	}
	return int64(len(added)), err
}

// hand gives the writer the first n bytes of the buffer (whole blocks,
// or the padded end) and goes on in the other buffer.
func (p *keepPass) hand(n int) {
	if p.full == nil { // the first: the writer starts
		p.full, p.free, p.done = make(chan []byte, 1), make(chan []byte, 1), make(chan struct{})
		p.free <- alignedBuffer(keepChunk + keepChunk/4)
		go p.write()
	}
	next := append(<-p.free, p.buf[n:]...)
	p.full <- p.buf[:n]
	p.buf, p.sent = next, p.sent+int64(n)
}

// stop ends keeping; the spans written whole stay kept.
func (p *keepPass) stop(cps []checkpoint) {
	p.stopped, p.buf = true, nil
	if p.full != nil {
		close(p.full)
		<-p.done
	}
	good := p.good.Load()
	n := 0 // checkpoint n's span ends at cps[n+1].off
	for n < len(p.sums) && cps[n+1].off <= good {
		n++
	}
	p.sums, p.end = p.sums[:n], cps[n].off
}

// finish ends the pass, which found size bytes and checkpoints cps, or
// failed with err: it returns the kept bytes, nil when none are.
func (p *keepPass) finish(size int64, cps []checkpoint, err error) *kept {
	if p == nil {
		return nil
	}
	if !p.begun {
		return nil
	}
	if !p.stopped {
		small := p.sent == 0 // not worth a file
		if err == nil && !small && len(p.buf) > 0 {
			n := (len(p.buf) + keepAlign - 1) &^ (keepAlign - 1)
			p.buf = append(p.buf, make([]byte, n-len(p.buf))...)
			p.hand(n)
		}
		p.stop(cps)
		switch {
		case err != nil || small:
			p.sums, p.end = nil, 0
		case p.good.Load() >= size:
			p.sums, p.end = append(p.sums, p.crc), size
		}
	}
	p.k.finish(p.end, p.sums)
	if p.end == 0 {
		return nil
	}
	return p.k
}
