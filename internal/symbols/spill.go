package symbols

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/render"
)

// A spilled table is a table written to the on-disk index and answered
// from there, for binaries whose DWARF is over the in-memory limit: its
// rows sorted in fixed-size records, then its strings, read with pread.
// It keeps in memory the address of every spillBlock-th record of each
// section (a 30-million-row line table keeps 940 KB) and a bounded cache
// of strings, so a lookup reads one block of each section and the
// records of the enclosing functions.
//
// The file (little-endian): spillMagic; the counts of line rows,
// function ranges, symbols and strings, and the bytes of the strings
// (uint64 each); the length (uint32) and text of what the table was
// built from (the Source parts, NUL-separated); the line rows (address
// uint64, file and line int32), the function ranges (lo, hi uint64,
// parent, name, call file, call line int32), the symbols (lo, hi uint64,
// name int32, 4 bytes of padding), the string offsets (uint64, one more
// than the strings), the strings; then the CRC-32 of all that. It is
// input like any other: openSpill checks the checksum, the size the
// counts give, and every record (addresses in order, indexes in range,
// string offsets in order) before use.
type spilled struct {
	f                     *os.File
	nLines, nFuncs, nSyms int64
	nStrs, strBytes       int64
	lineOff, funcOff      int64
	symOff, strOffOff     int64
	strOff                int64
	lineKeys              []uint64 // the address of every spillBlock-th record
	funcKeys, symKeys     []uint64
	size                  int64 // bytes held in memory (keys, cache)

	mu     sync.Mutex
	names  map[int32]spillName // a bounded cache of strings
	blocks [spillBlocks]struct {
		off int64
		b   []byte
	} // recently read blocks of records, by their offset
}

type spillName struct{ raw, demangled string }

const (
	spillMagic   = "hpcfs-symbols-1\n"
	spillBlock   = 256
	spillNames   = 4096 // strings cached
	spillBlocks  = 512  // blocks of records cached (at most 8 KB each)
	lineRecord   = 16
	funcRecord   = 32
	symRecord    = 24
	maxSpillUsed = 1 << 16
	maxSpillName = 1 << 20 // a longer string is cut (C++ names reach some KB)
)

// spillHeaderSize is the fixed part of the header.
const spillHeaderSize = len(spillMagic) + 5*8 + 4

// writeSpill writes t (built from used) to path, through a temporary
// file renamed into place and counted against the index folder's limit
// (render.Kept); line rows and function ranges built in runs are merged
// as they are written.
func writeSpill(path string, limit int64, t *table, used []string) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sym-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	crc := crc32.NewIEEE()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, crc), 1<<16)
	var b []byte
	le := binary.LittleEndian
	flush := func() {
		w.Write(b)
		b = b[:0]
	}
	var strBytes uint64
	for _, s := range t.strs {
		strBytes += uint64(min(len(s), maxSpillName))
	}
	u := strings.Join(used, "\x00")
	if len(u) > maxSpillUsed {
		u = u[:maxSpillUsed]
	}
	nLines, nFuncs := int64(len(t.lines)), int64(len(t.funcs))
	if t.lineRuns != nil {
		nLines = t.lineRuns.n
	}
	if t.funcRuns.sortRuns != nil {
		nFuncs = t.funcRuns.n
	}
	b = append(b, spillMagic...)
	for _, n := range []uint64{uint64(nLines), uint64(nFuncs), uint64(len(t.syms)), uint64(len(t.strs)), strBytes} {
		b = le.AppendUint64(b, n)
	}
	b = le.AppendUint32(b, uint32(len(u)))
	b = append(b, u...)
	line := func(r lineRow) error {
		b = le.AppendUint32(le.AppendUint32(le.AppendUint64(b, r.addr), uint32(r.file)), uint32(r.line))
		if len(b) >= 1<<15 {
			flush()
		}
		return nil
	}
	if t.lineRuns != nil {
		if err := t.lineRuns.merge(line); err != nil {
			return err
		}
	}
	for _, r := range t.lines {
		line(r)
	}
	fn := func(r funcRange) error {
		b = le.AppendUint64(le.AppendUint64(b, r.lo), r.hi)
		for _, v := range []int32{r.parent, r.name, r.callFile, r.callLine} {
			b = le.AppendUint32(b, uint32(v))
		}
		if len(b) >= 1<<15 {
			flush()
		}
		return nil
	}
	if t.funcRuns.sortRuns != nil {
		if err := t.funcRuns.sorted(fn); err != nil {
			return err
		}
	}
	for _, r := range t.funcs {
		fn(r)
	}
	for _, r := range t.syms {
		b = le.AppendUint32(le.AppendUint32(le.AppendUint64(le.AppendUint64(b, r.lo), r.hi), uint32(r.name)), 0)
		if len(b) >= 1<<15 {
			flush()
		}
	}
	var off uint64
	for _, s := range t.strs {
		b = le.AppendUint64(b, off)
		off += uint64(min(len(s), maxSpillName))
		if len(b) >= 1<<15 {
			flush()
		}
	}
	b = le.AppendUint64(b, off)
	flush()
	for _, s := range t.strs {
		w.WriteString(s[:min(len(s), maxSpillName)])
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := tmp.Write(le.AppendUint32(nil, crc.Sum32())); err != nil {
		return err
	}
	size, err := tmp.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	render.Kept(filepath.Dir(path), size, limit)
	return nil
}

// openSpill opens the spilled table at path and checks it whole (see
// spilled); it gives what the table was built from.
func openSpill(path string) (s *spilled, used []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			s = nil
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := fi.Size()
	hdr := make([]byte, spillHeaderSize)
	if _, err := f.ReadAt(hdr, 0); err != nil || string(hdr[:len(spillMagic)]) != spillMagic {
		return nil, nil, errors.New("not a spilled symbol table")
	}
	le := binary.LittleEndian
	var n [5]int64
	for i := range n {
		v := le.Uint64(hdr[len(spillMagic)+8*i:])
		if v > uint64(size) {
			return nil, nil, fmt.Errorf("count %d past the file's %d bytes", v, size)
		}
		n[i] = int64(v)
	}
	usedLen := int64(le.Uint32(hdr[len(spillMagic)+40:]))
	s = &spilled{f: f, nLines: n[0], nFuncs: n[1], nSyms: n[2], nStrs: n[3], strBytes: n[4]}
	s.lineOff = int64(spillHeaderSize) + usedLen
	s.funcOff = s.lineOff + s.nLines*lineRecord
	s.symOff = s.funcOff + s.nFuncs*funcRecord
	s.strOffOff = s.symOff + s.nSyms*symRecord
	s.strOff = s.strOffOff + (s.nStrs+1)*8
	if want := s.strOff + s.strBytes + 4; usedLen > maxSpillUsed || want != size || s.nStrs >= 1<<31 || s.nFuncs >= 1<<31 {
		return nil, nil, fmt.Errorf("%d bytes, the counts give %d", size, want)
	}
	// The checksum, then every record, each read once in order.
	crc := crc32.NewIEEE()
	if _, err := io.Copy(crc, io.NewSectionReader(f, 0, size-4)); err != nil {
		return nil, nil, err
	}
	tail := make([]byte, 4)
	if _, err := f.ReadAt(tail, size-4); err != nil || le.Uint32(tail) != crc.Sum32() {
		return nil, nil, errors.New("checksum mismatch")
	}
	ub := make([]byte, usedLen)
	if _, err := f.ReadAt(ub, int64(spillHeaderSize)); err != nil {
		return nil, nil, err
	}
	if usedLen > 0 {
		used = strings.Split(string(ub), "\x00")
	}
	str := func(v uint32) bool { return int32(v) >= -1 && int64(int32(v)) < s.nStrs }
	var prev uint64
	check := func(off, n int64, rec int, keys *[]uint64, ok func(i int64, r []byte) bool) error {
		r := bufio.NewReaderSize(io.NewSectionReader(f, off, n*int64(rec)), 1<<16)
		buf := make([]byte, rec)
		prev = 0
		for i := int64(0); i < n; i++ {
			if _, err := io.ReadFull(r, buf); err != nil {
				return err
			}
			a := le.Uint64(buf)
			if a < prev || !ok(i, buf) {
				return fmt.Errorf("record %d at %d out of order or out of range", i, off)
			}
			prev = a
			if i%spillBlock == 0 {
				*keys = append(*keys, a)
			}
		}
		return nil
	}
	if err := check(s.lineOff, s.nLines, lineRecord, &s.lineKeys, func(_ int64, r []byte) bool {
		return str(le.Uint32(r[8:]))
	}); err != nil {
		return nil, nil, err
	}
	if err := check(s.funcOff, s.nFuncs, funcRecord, &s.funcKeys, func(i int64, r []byte) bool {
		p := int32(le.Uint32(r[16:]))
		return le.Uint64(r) < le.Uint64(r[8:]) && p >= -1 && int64(p) < s.nFuncs && int64(p) != i && str(le.Uint32(r[20:])) && str(le.Uint32(r[24:]))
	}); err != nil {
		return nil, nil, err
	}
	if err := check(s.symOff, s.nSyms, symRecord, &s.symKeys, func(_ int64, r []byte) bool {
		return le.Uint64(r) <= le.Uint64(r[8:]) && str(le.Uint32(r[16:]))
	}); err != nil {
		return nil, nil, err
	}
	var lastKey []uint64
	if err := check(s.strOffOff, s.nStrs+1, 8, &lastKey, func(i int64, r []byte) bool {
		return le.Uint64(r) <= uint64(s.strBytes) && (i > 0 || le.Uint64(r) == 0)
	}); err != nil {
		return nil, nil, err
	}
	s.size = int64(len(s.lineKeys)+len(s.funcKeys)+len(s.symKeys))*8 + spillNames*64 + spillBlocks*spillBlock*funcRecord
	s.names = map[int32]spillName{}
	return s, used, nil
}

// last finds the last record at or below addr of a section of n records
// of rec bytes at off: its index and bytes, -1 when none. It reads the
// one block that holds it.
func (s *spilled) last(keys []uint64, off, n int64, rec int, addr uint64) (int64, []byte) {
	k := sort.Search(len(keys), func(i int) bool { return keys[i] > addr }) - 1
	if k < 0 {
		return -1, nil
	}
	first := int64(k) * spillBlock
	b := s.block(off, n, rec, first)
	j := sort.Search(len(b)/rec, func(i int) bool { return binary.LittleEndian.Uint64(b[i*rec:]) > addr }) - 1
	if j < 0 {
		return -1, nil
	}
	return first + int64(j), b[j*rec : (j+1)*rec]
}

// block gives the records from first (a multiple of spillBlock) to the
// end of its block of a section (as last), from the cache or read; nil
// when they cannot be read. The bytes are shared: not to be changed.
func (s *spilled) block(off, n int64, rec int, first int64) []byte {
	at := off + first*int64(rec)
	slot := &s.blocks[uint64(at/spillBlock)%spillBlocks]
	s.mu.Lock()
	if slot.b != nil && slot.off == at {
		b := slot.b
		s.mu.Unlock()
		return b
	}
	s.mu.Unlock()
	b := make([]byte, min(n-first, spillBlock)*int64(rec))
	if _, err := s.f.ReadAt(b, at); err != nil {
		return nil
	}
	s.mu.Lock()
	slot.off, slot.b = at, b
	s.mu.Unlock()
	return b
}

func (s *spilled) line(addr uint64) (file, line int32) {
	_, r := s.last(s.lineKeys, s.lineOff, s.nLines, lineRecord, addr)
	if r == nil || int32(binary.LittleEndian.Uint32(r[8:])) < 0 {
		return -1, 0
	}
	return int32(binary.LittleEndian.Uint32(r[8:])), int32(binary.LittleEndian.Uint32(r[12:]))
}

func (s *spilled) lastFunc(addr uint64) int32 {
	i, _ := s.last(s.funcKeys, s.funcOff, s.nFuncs, funcRecord, addr)
	return int32(i)
}

// funcAt reads range i; one that cannot be read holds no address.
func (s *spilled) funcAt(i int32) funcRange {
	if i < 0 || int64(i) >= s.nFuncs {
		return funcRange{parent: -1}
	}
	first := int64(i) / spillBlock * spillBlock
	blk := s.block(s.funcOff, s.nFuncs, funcRecord, first)
	k := (int64(i) - first) * funcRecord
	if k+funcRecord > int64(len(blk)) {
		return funcRange{parent: -1}
	}
	b := blk[k : k+funcRecord]
	le := binary.LittleEndian
	return funcRange{le.Uint64(b), le.Uint64(b[8:]), int32(le.Uint32(b[16:])), int32(le.Uint32(b[20:])),
		int32(le.Uint32(b[24:])), int32(le.Uint32(b[28:]))}
}

func (s *spilled) sym(addr uint64) int32 {
	_, r := s.last(s.symKeys, s.symOff, s.nSyms, symRecord, addr)
	if r == nil || addr >= binary.LittleEndian.Uint64(r[8:]) {
		return -1
	}
	return int32(binary.LittleEndian.Uint32(r[16:]))
}

func (s *spilled) frame(name, file, line int32) Frame {
	var f Frame
	if name >= 0 {
		n := s.name(name, true)
		f.Raw, f.Function = n.raw, n.demangled
	}
	if file >= 0 {
		f.File = s.name(file, false).raw
		f.Line = int(line)
	}
	return f
}

// name reads string i (demangled too when asked) through the cache.
func (s *spilled) name(i int32, demangled bool) spillName {
	s.mu.Lock()
	n, ok := s.names[i]
	s.mu.Unlock()
	if ok && (!demangled || n.demangled != "") {
		return n
	}
	if !ok {
		var o [16]byte
		if int64(i) >= s.nStrs {
			return n
		}
		if _, err := s.f.ReadAt(o[:], s.strOffOff+int64(i)*8); err != nil {
			return n
		}
		lo, hi := binary.LittleEndian.Uint64(o[:]), binary.LittleEndian.Uint64(o[8:])
		if lo > hi || hi > uint64(s.strBytes) || hi-lo > maxSpillName {
			return n
		}
		b := make([]byte, hi-lo)
		if _, err := s.f.ReadAt(b, s.strOff+int64(lo)); err != nil {
			return n
		}
		n.raw = string(b)
	}
	if demangled {
		n.demangled = Demangle(n.raw)
	}
	s.mu.Lock()
	if len(s.names) >= spillNames {
		clear(s.names)
	}
	s.names[i] = n
	s.mu.Unlock()
	return n
}
