package hpcrun

import (
	"encoding/binary"
	"io"
	"sort"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
)

// Version 04.00 ("sparse", HPCToolkit 2022.10+) has no epochs: a header,
// then the loadmap, the CCT (19-byte nodes without values), the metric
// table (layout C), an id-tuple dictionary and the sparse metric values,
// each section at a multiple of 1024 bytes, located by a 112-byte footer.
// NewFile presents it as one epoch whose nodes read as
// id, parent, lm_id, ip, flags, then one value per metric (0 when the
// file stores none), through a ReaderAt that merges the two sections on
// demand.

const (
	footerSize  = 14 * 8
	footerMagic = "HPCRUNsm"
	sparseEnd   = 0x656E6421 // "end!": node id of the last index entry
	rawNodeSize = 4 + 4 + 2 + 8 + 1
)

// Section names of a 04.00 file, in footer order.
var sectionNames = [...]string{"header", "loadmap", "cct", "metric table", "id-tuple dictionary", "sparse metrics"}

// A Section is where one part of a 04.00 file lies.
type Section struct {
	Name       string
	Start, End int64
}

// An IDKind is an id-tuple dictionary entry: kind 2 is "RANK", etc.
type IDKind struct {
	Kind uint16
	Name string
}

// An IDElem is one element of a profile's id tuple.
type IDElem struct {
	Kind     uint16 // low 14 bits of the stored word
	Interp   uint8  // its top 2 bits
	Physical uint64
	Logical  uint64
}

// Sparse holds what only version 04.00 has.
type Sparse struct {
	Sections   []Section
	Dictionary []IDKind
	IDTuple    []IDElem
	NumValues  uint64 // non-zero values stored
	NumNonZero uint32 // CCT nodes with at least one value
	valuesOff  int64
	indexOff   int64
}

// KindName is the dictionary name of an id-tuple kind, or its number.
func (s *Sparse) KindName(kind uint16) string {
	for _, d := range s.Dictionary {
		if d.Kind == kind {
			return d.Name
		}
	}
	return strconv.Itoa(int(kind))
}

// Unwound reports the node flag of 04.00 files (bit 0).
func (n *Node) Unwound() bool { return n.Flags&1 != 0 }

// PlaceholderName is the 8 ASCII characters a 04.00 node with lm_id 0
// stores in its ip (e.g. "^Primary"), with '?' for bytes that are not
// printable ASCII.
func PlaceholderName(ip uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], ip)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b[:])
}

func newSparseFile(f *File, r io.ReaderAt, size int64) (*File, error) {
	if size < headerSize+footerSize {
		return nil, errAt("footer", 0, "file too short for the 04.00 footer", size, decode.ErrTruncated)
	}
	foot, err := decode.ReadAt(r, size, size-footerSize, footerSize)
	if err != nil {
		return nil, err
	}
	if string(foot[footerSize-8:]) != footerMagic {
		return nil, errAt("footer", size-8, "missing HPCRUNsm footer (04.00 files are located from it; truncated?)", string(foot[footerSize-8:]), decode.ErrTruncated)
	}
	be := binary.BigEndian
	s := &Sparse{}
	prev := int64(0)
	for i, name := range sectionNames {
		sec := Section{Name: name, Start: int64(be.Uint64(foot[16*i:])), End: int64(be.Uint64(foot[16*i+8:]))}
		if sec.Start < prev || sec.End < sec.Start || sec.End > size-footerSize {
			return nil, errAt("footer", size-footerSize+int64(16*i), name+" section out of order or outside the file", [2]int64{sec.Start, sec.End}, nil)
		}
		prev = sec.End
		s.Sections = append(s.Sections, sec)
	}
	f.Sparse, f.Layout = s, LayoutC
	sec := s.Sections
	c := newCursor(r, sec[0].End, headerSize, "header")
	if f.NV = c.nvPairs(); c.err != nil {
		return nil, c.err
	}

	e := &Epoch{Sparse: true}
	c = newCursor(r, sec[1].End, sec[1].Start, "loadmap")
	n := c.u32()
	if c.err == nil {
		e.LoadModules = make([]LoadModule, 0, decode.SliceCap(uint64(n), 14, sec[1].End-c.off))
	}
	for i := uint32(0); i < n && c.err == nil; i++ {
		lm := LoadModule{ID: c.u16(), Name: c.str(), Flags: c.u64()}
		e.LoadModules = append(e.LoadModules, lm)
	}
	if c.err != nil {
		return nil, c.err
	}
	c = newCursor(r, sec[3].End, sec[3].Start, "metric table")
	n = c.u32()
	if c.err == nil {
		e.Metrics = make([]Metric, 0, decode.SliceCap(uint64(n), 8+16+8+8+20, sec[3].End-c.off))
	}
	for i := uint32(0); i < n && c.err == nil; i++ {
		e.Metrics = append(e.Metrics, c.metric(LayoutC))
	}
	if c.err != nil {
		return nil, c.err
	}
	c = newCursor(r, sec[4].End, sec[4].Start, "id-tuple dictionary")
	nk := c.u16()
	for i := uint16(0); i < nk && c.err == nil; i++ {
		k := IDKind{Kind: c.u16()}
		k.Name = c.str()
		s.Dictionary = append(s.Dictionary, k)
	}
	if c.err != nil {
		return nil, c.err
	}

	c = newCursor(r, sec[2].End, sec[2].Start, "cct")
	e.Announced = c.u64()
	if c.err != nil {
		return nil, c.err
	}
	e.NodeSize = rawNodeSize + 8*int64(len(e.Metrics))
	e.Complete = min(e.Announced, uint64(sec[2].End-c.off)/rawNodeSize)
	e.NumNodes = e.Complete
	sr := &sparseReader{r: r, cctOff: c.off, e: e, s: s, size: size}
	f.r = sr
	f.Epochs = []*Epoch{e}
	if e.Complete < e.Announced {
		f.Problems.Add(errAt("cct", c.off+int64(e.Complete)*rawNodeSize, "cct section ends after "+strconv.FormatUint(e.Complete, 10)+" complete nodes", e.Announced, decode.ErrTruncated))
	}

	c = newCursor(r, sec[5].End, sec[5].Start, "sparse metrics")
	nt := c.u16()
	for i := uint16(0); i < nt && c.err == nil; i++ {
		w := c.u16()
		s.IDTuple = append(s.IDTuple, IDElem{Kind: w & 0x3fff, Interp: uint8(w >> 14), Physical: c.u64(), Logical: c.u64()})
	}
	s.NumValues = c.u64()
	s.NumNonZero = c.u32()
	s.valuesOff = c.off
	s.indexOff = c.off + int64(s.NumValues)*10
	if c.err == nil && (s.NumValues > uint64(sec[5].End-c.off)/10 || s.indexOff+(int64(s.NumNonZero)+1)*12 > sec[5].End) {
		c.fail(c.off, "value and node counts run past the section", [2]uint64{s.NumValues, uint64(s.NumNonZero)}, decode.ErrTruncated)
	}
	if c.err != nil {
		sr.err = c.err
		if len(f.Problems) == 0 {
			f.Problems.Add(c.err)
		}
	}
	return f, nil
}

// sparseReader serves the dense node layout of a 04.00 epoch: the raw
// 19-byte node followed by one 8-byte value per metric.
type sparseReader struct {
	r      io.ReaderAt
	size   int64
	cctOff int64
	e      *Epoch
	s      *Sparse
	err    error // a bad sparse-metrics section: nodes still read, values fail

	once  sync.Once
	index []sparseEntry // sorted by node id
}

type sparseEntry struct {
	id         uint32
	start, end uint64 // value indexes
}

func (sr *sparseReader) loadIndex() {
	s := sr.s
	b, err := decode.ReadAt(sr.r, sr.size, s.indexOff, (int64(s.NumNonZero)+1)*12)
	if err != nil {
		sr.err = err
		return
	}
	be := binary.BigEndian
	idx := make([]sparseEntry, s.NumNonZero)
	for i := range idx {
		idx[i] = sparseEntry{id: be.Uint32(b[12*i:]), start: be.Uint64(b[12*i+4:]), end: be.Uint64(b[12*i+16:])}
		if idx[i].start > idx[i].end || idx[i].end > s.NumValues {
			sr.err = errAt("sparse metrics", s.indexOff+int64(12*i), "value range out of order", [2]uint64{idx[i].start, idx[i].end}, nil)
			return
		}
	}
	if last := be.Uint32(b[12*s.NumNonZero:]); last != sparseEnd {
		sr.err = errAt("sparse metrics", s.indexOff+int64(12*s.NumNonZero), "node index does not end with \"end!\"", last, nil)
		return
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a].id < idx[b].id })
	sr.index = idx
}

func (sr *sparseReader) ReadAt(p []byte, off int64) (int, error) {
	if sr.once.Do(sr.loadIndex); sr.err != nil {
		return 0, sr.err
	}
	e := sr.e
	size := e.NodeSize
	if off < 0 || off%size != 0 || int64(len(p))%size != 0 {
		return 0, errAt("cct", off, "unaligned node read", len(p), nil)
	}
	first, count := uint64(off/size), uint64(int64(len(p))/size)
	if first+count > e.Complete {
		return 0, io.EOF
	}
	raw, err := decode.ReadAt(sr.r, sr.size, sr.cctOff+int64(first)*rawNodeSize, int64(count)*rawNodeSize)
	if err != nil {
		return 0, err
	}
	clear(p)
	m := uint64(len(e.Metrics))
	for k := uint64(0); k < count; k++ {
		node := p[k*uint64(size):][:size]
		copy(node, raw[k*rawNodeSize:][:rawNodeSize])
		id := binary.BigEndian.Uint32(node)
		j := sort.Search(len(sr.index), func(j int) bool { return sr.index[j].id >= id })
		if j == len(sr.index) || sr.index[j].id != id {
			continue
		}
		ent := sr.index[j]
		vals, err := decode.ReadAt(sr.r, sr.size, sr.s.valuesOff+int64(ent.start)*10, int64(ent.end-ent.start)*10)
		if err != nil {
			return 0, err
		}
		for v := 0; v+10 <= len(vals); v += 10 {
			if mid := uint64(binary.BigEndian.Uint16(vals[v+8:])); mid < m {
				copy(node[rawNodeSize+8*mid:], vals[v:v+8])
			}
		}
	}
	return len(p), nil
}
