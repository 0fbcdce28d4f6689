package hpcdb

import (
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// ProfileHeader is the fixed header of profile.db.
type ProfileHeader struct {
	Major, Minor uint8
	NumProf      uint32
	NumSec       uint16
	InfoSize     uint64 // Profile Info section size
	InfoPtr      uint64
	TupleSize    uint64 // Identifier Tuple section size
	TuplePtr     uint64

	// meta.db generation: the Profile Info section header
	ProfilesPtr uint64 // pProfiles
	ProfileSize uint8  // szProfile, the stride of the profile infos
}

// A ProfileInfo is one 52-byte entry of the Profile Info section.
type ProfileInfo struct {
	TuplePtr    uint64
	MetadataPtr uint64
	SpareOne    uint64
	SpareTwo    uint64
	NumVals     uint64
	NumCtxs     uint32 // contexts with a non-zero value
	Offset      uint64 // of the Profile Sparse Value Block (meta.db generation: pValues)

	// meta.db generation
	CtxOffset uint64 // pCtxIndices
	Flags     uint32 // bit 0: isSummary
}

// IsSummary reports a summary profile: the flag of the meta.db
// generation; in the 4.0 generation profile 0 is the summary.
func (p ProfileInfo) IsSummary() bool { return p.Flags&1 != 0 }

// ValuesEnd is the offset one past the block's context index (end pair
// included).
func (p ProfileInfo) ValuesEnd() uint64 {
	return p.Offset + p.NumVals*profValSize + (uint64(p.NumCtxs)+1)*profCtxSize
}

// IDKind is the kind of one identifier-tuple element.
type IDKind uint16

const (
	KindSummary IDKind = iota
	KindNode
	KindRank
	KindThread
	KindGPUDevice
	KindGPUContext
	KindGPUStream
	KindCore
)

var kindNames = [...]string{"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"}

func (k IDKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "[" + strconv.FormatUint(uint64(k), 10) + "]"
}

// Interp tells which values of an identifier are meaningful (the top two
// bits of the stored kind).
type Interp uint8

const (
	InterpBoth        Interp = iota // physical and logical
	InterpLocal                     // logical generated locally
	InterpGlobal                    // logical generated globally
	InterpLogicalOnly               // logical only
)

func (i Interp) String() string {
	return [...]string{"BOTH", "GEN LOCAL", "GEN GLOBAL", "SINGLE"}[i&3]
}

// An IDElem is one element of a hierarchical identifier tuple.
type IDElem struct {
	RawKind  uint16 // kind with the interpretation bits (meta.db generation: the u8 kind)
	Physical uint64
	Logical  uint64
	Flags    uint16 // meta.db generation: bit 0 isPhysical
}

// Kind is the kind without the interpretation bits.
func (e IDElem) Kind() IDKind { return IDKind(e.RawKind & 0x3FFF) }

// Interp is the interpretation carried in the top two bits of the kind.
func (e IDElem) Interp() Interp { return Interp(e.RawKind >> 14) }

// A ProfileDB is an open profile.db.
type ProfileDB struct {
	file
	Header   ProfileHeader
	Profiles []ProfileInfo // as many as the info section holds (fewer when truncated)
	// Problems reports a Profile Info section shorter than NumProf entries.
	Problems decode.Problems
	// CtxSpace, when not 0, bounds the context ids (all are below it); Find
	// uses it to guess where an id lies. Set it before any concurrent use.
	CtxSpace uint32
}

// NewProfileDB reads the header and the Profile Info section of the
// profile.db in r.
func NewProfileDB(r io.ReaderAt, size int64) (*ProfileDB, error) {
	p := &ProfileDB{file: file{r: r, size: size, name: "profile.db"}}
	if head, _ := decode.ReadAt(r, size, 0, min(size, 10)); IsMeta(head) {
		return p, p.openV4()
	}
	c, b, err := p.commonHeader(ProfileMagic, 56)
	if err != nil {
		return nil, err
	}
	p.Header = ProfileHeader{Major: c.Major, Minor: c.Minor, NumProf: c.Count, NumSec: c.NumSec,
		InfoSize: be.Uint64(b[24:]), InfoPtr: be.Uint64(b[32:]), TupleSize: be.Uint64(b[40:]), TuplePtr: be.Uint64(b[48:])}
	n := uint64(p.Header.NumProf)
	avail := max(int64(0), size-int64(min(p.Header.InfoPtr, uint64(size))))
	p.Profiles = make([]ProfileInfo, 0, decode.SliceCap(n, profInfoSize, avail))
	for i := uint64(0); i < n; i++ {
		off := int64(p.Header.InfoPtr + i*profInfoSize)
		if p.Header.InfoPtr > math.MaxInt64/2 || off < 0 {
			p.Problems.Add(p.errAt(24, "profile info pointer out of range", p.Header.InfoPtr))
			break
		}
		var e [profInfoSize]byte
		if err := p.readInto(e[:], off, "profile info"); err != nil {
			p.Problems.Add(err)
			break
		}
		p.Profiles = append(p.Profiles, ProfileInfo{TuplePtr: be.Uint64(e[0:]), MetadataPtr: be.Uint64(e[8:]),
			SpareOne: be.Uint64(e[16:]), SpareTwo: be.Uint64(e[24:]), NumVals: be.Uint64(e[32:]),
			NumCtxs: be.Uint32(e[40:]), Offset: be.Uint64(e[44:])})
	}
	return p, nil
}

// OpenProfileDB opens the profile.db at path.
func OpenProfileDB(path string) (*ProfileDB, error) {
	var p *ProfileDB
	c, err := decode.OpenFile(path, func(r io.ReaderAt, size int64) (err error) {
		p, err = NewProfileDB(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	p.closer = c
	return p, nil
}

// openV4 reads the header and the Profile Info section of a meta.db-
// generation profile.db.
func (p *ProfileDB) openV4() error {
	major, minor, secs, err := p.v4Header(FormatProfile, 2)
	if err != nil {
		return err
	}
	p.Header = ProfileHeader{Major: major, Minor: minor, NumSec: 2, InfoSize: secs[0].Size, InfoPtr: secs[0].Ptr,
		TupleSize: secs[1].Size, TuplePtr: secs[1].Ptr}
	b, err := p.sectionHeader(secs[0], 0x0d, "profile info", 0x10)
	if err != nil {
		p.Problems.Add(err)
		return nil
	}
	h := &p.Header
	h.ProfilesPtr, h.NumProf, h.ProfileSize = le.Uint64(b), le.Uint32(b[8:]), b[12]
	if h.ProfileSize < 0x2c {
		p.Problems.Add(p.errAt(int64(h.InfoPtr)+12, "profile info size too small", h.ProfileSize))
		return nil
	}
	stride := uint64(h.ProfileSize)
	raw, n, ok := p.readRecords(h.ProfilesPtr, uint64(h.NumProf), stride, int64(h.InfoPtr), "profile infos", &p.Problems)
	if !ok {
		return nil
	}
	p.Profiles = make([]ProfileInfo, n)
	for i := range p.Profiles {
		e := raw[uint64(i)*stride:]
		p.Profiles[i] = ProfileInfo{NumVals: le.Uint64(e), Offset: le.Uint64(e[8:]), NumCtxs: le.Uint32(e[16:]),
			CtxOffset: le.Uint64(e[24:]), TuplePtr: le.Uint64(e[32:]), Flags: le.Uint32(e[40:])}
	}
	return nil
}

// FooterAt checks the footer of a 4.0 profile.db at off, the end of its
// last profile block.
func (p *ProfileDB) FooterAt(off uint64) error {
	return p.footerAt(off, ProfileFooter, "profile.db", "profile")
}

// Footer reports how the file ends.
func (p *ProfileDB) Footer() FooterStatus {
	if p.meta {
		return p.footer4(ProfileFooter4)
	}
	return p.footer(ProfileFooter)
}

// TupleAt reads the identifier tuple at offset off.
func (p *ProfileDB) TupleAt(off uint64) ([]IDElem, int64, error) {
	if off > uint64(p.size) {
		return nil, 0, p.truncAt(int64(min(off, math.MaxInt64)), "identifier tuple pointer past the end of the file")
	}
	if p.meta {
		return p.tupleAtV4(off)
	}
	b, err := p.read(int64(off), 2, "identifier tuple")
	if err != nil {
		return nil, 0, err
	}
	n := int64(be.Uint16(b))
	b, err = p.read(int64(off)+2, n*idElemSize, "identifier tuple")
	if err != nil {
		return nil, 0, err
	}
	t := make([]IDElem, n)
	for i := range t {
		e := b[i*idElemSize:]
		t[i] = IDElem{RawKind: be.Uint16(e), Physical: be.Uint64(e[2:]), Logical: be.Uint64(e[10:])}
	}
	return t, 2 + n*idElemSize, nil
}

// tupleAtV4 reads a meta.db-generation tuple: u16 nIds, padding to 8,
// then nIds 16-byte identifications.
func (p *ProfileDB) tupleAtV4(off uint64) ([]IDElem, int64, error) {
	b, err := p.read(int64(off), 8, "identifier tuple")
	if err != nil {
		return nil, 0, err
	}
	n := int64(le.Uint16(b))
	b, err = p.read(int64(off)+8, n*idElemSize4, "identifier tuple")
	if err != nil {
		return nil, 0, err
	}
	t := make([]IDElem, n)
	for i := range t {
		e := b[i*idElemSize4:]
		t[i] = IDElem{RawKind: uint16(e[0]), Flags: le.Uint16(e[2:]), Logical: uint64(le.Uint32(e[4:])), Physical: le.Uint64(e[8:])}
	}
	return t, 8 + n*idElemSize4, nil
}

// Tuple reads the identifier tuple of profile i. A meta.db-generation
// profile with no tuple (the canonical summary profile) has an empty one.
func (p *ProfileDB) Tuple(i int) ([]IDElem, error) {
	if p.meta && p.Profiles[i].TuplePtr == 0 {
		return nil, nil
	}
	t, _, err := p.TupleAt(p.Profiles[i].TuplePtr)
	return t, err
}

// CheckTuple reports what cannot be right in the identifier tuple t of
// profile i, which is not a summary profile: no identifier at all, the
// summary's identifier, or one kind twice (a damaged tuple or tuple
// pointer); nil when nothing is wrong.
func (p *ProfileDB) CheckTuple(i int, t []IDElem) error {
	at := func(msg string, val any) error {
		return p.errAt(int64(min(p.Profiles[i].TuplePtr, math.MaxInt64)), "identifier tuple of profile "+strconv.Itoa(i)+": "+msg, val)
	}
	if len(t) == 0 {
		return at("no identifiers", nil)
	}
	for j, e := range t {
		if e.Kind() == KindSummary {
			return at("the summary's identifier in a thread profile", e.RawKind)
		}
		for _, f := range t[:j] {
			if f.Kind() == e.Kind() {
				return at("identifier kind twice", e.Kind().String())
			}
		}
	}
	return nil
}

// A CtxIdx is one (context id, first value index) pair of a profile block.
type CtxIdx struct {
	Ctx   uint32
	Index uint64
}

// A MetricValue is one (value, metric id) pair of a profile block.
type MetricValue struct {
	Value  float64
	Metric uint16
}

func (p *ProfileDB) checkBlock(i int) error {
	pi := p.Profiles[i]
	if p.meta {
		size := uint64(p.size)
		if pi.NumVals > size || pi.Offset > size || pi.NumVals*profValSize > size-pi.Offset ||
			uint64(pi.NumCtxs) > size || pi.CtxOffset > size || uint64(pi.NumCtxs)*profCtxSize > size-pi.CtxOffset {
			return p.truncAt(int64(min(pi.Offset, size)), "profile "+strconv.FormatUint(uint64(i), 10)+" value block runs past the end of the file")
		}
		return nil
	}
	end := pi.ValuesEnd()
	if pi.NumVals > uint64(p.size) || pi.Offset > uint64(p.size) || end > uint64(p.size) || end < pi.Offset {
		return p.truncAt(int64(min(pi.Offset, uint64(p.size))), "profile "+strconv.FormatUint(uint64(i), 10)+" value block runs past the end of the file")
	}
	return nil
}

// CtxPairs reads n context-index pairs of profile i starting at pair k
// (pair NumCtxs is the end pair) into dst.
func (p *ProfileDB) CtxPairs(i int, k, n uint64, dst []CtxIdx) ([]CtxIdx, error) {
	if err := p.checkBlock(i); err != nil {
		return dst, err
	}
	pi := p.Profiles[i]
	if k+n > uint64(pi.NumCtxs)+1 {
		n = uint64(pi.NumCtxs) + 1 - min(k, uint64(pi.NumCtxs)+1)
	}
	if !p.meta {
		return p.CtxPairsAt(int64(pi.Offset+pi.NumVals*profValSize+k*profCtxSize), n, dst)
	}
	// the meta.db generation stores no end pair: the last context's
	// values end at NumVals
	end := k+n > uint64(pi.NumCtxs)
	if end {
		n--
	}
	dst, err := p.CtxPairsAt(int64(pi.CtxOffset+k*profCtxSize), n, dst)
	if err == nil && end {
		dst = append(dst, CtxIdx{ProfileEndMarker, pi.NumVals})
	}
	return dst, err
}

// ctxBase is the offset of profile i's context index.
func (p *ProfileDB) ctxBase(i int) uint64 {
	pi := p.Profiles[i]
	if p.meta {
		return pi.CtxOffset
	}
	return pi.Offset + pi.NumVals*profValSize
}

// CtxPairsAt reads n context-index pairs at byte off into dst.
func (p *ProfileDB) CtxPairsAt(off int64, n uint64, dst []CtxIdx) ([]CtxIdx, error) {
	if n > uint64(p.size) {
		return dst, p.truncAt(off, "context index runs past the end of the file")
	}
	b, err := p.read(off, int64(n)*profCtxSize, "context index")
	if err != nil {
		return dst, err
	}
	bo := p.bo
	for j := uint64(0); j < n; j++ {
		e := b[j*profCtxSize:]
		dst = append(dst, CtxIdx{bo.Uint32(e), bo.Uint64(e[4:])})
	}
	return dst, nil
}

// Values reads the value pairs [lo, hi) of profile i into dst.
func (p *ProfileDB) Values(i int, lo, hi uint64, dst []MetricValue) ([]MetricValue, error) {
	if err := p.checkBlock(i); err != nil {
		return dst, err
	}
	pi := p.Profiles[i]
	if lo > hi || hi > pi.NumVals {
		return dst, p.errAt(int64(pi.Offset), "value index out of range", hi)
	}
	return p.ValuesAt(int64(pi.Offset+lo*profValSize), hi-lo, dst)
}

// ValuesAt reads n value pairs at byte off into dst.
func (p *ProfileDB) ValuesAt(off int64, n uint64, dst []MetricValue) ([]MetricValue, error) {
	if n > uint64(p.size) {
		return dst, p.truncAt(off, "values run past the end of the file")
	}
	b, err := p.read(off, int64(n)*profValSize, "values")
	if err != nil {
		return dst, err
	}
	if p.meta {
		for j := uint64(0); j < n; j++ {
			e := b[j*profValSize:]
			dst = append(dst, MetricValue{math.Float64frombits(le.Uint64(e[2:])), le.Uint16(e)})
		}
		return dst, nil
	}
	for j := uint64(0); j < n; j++ {
		e := b[j*profValSize:]
		dst = append(dst, MetricValue{math.Float64frombits(be.Uint64(e)), be.Uint16(e[8:])})
	}
	return dst, nil
}

// findBlock is the number of context-index pairs Find reads at once
// (6 KiB): a search costs one or two reads, not one per bisection step.
const findBlock = 512

// Find returns the value range of context ctx in profile i; ok is false
// when the profile has no value at ctx. It reads the block's context index
// in blocks of findBlock pairs, guessing where ctx lies from the ids seen
// so far (context ids are spread evenly over a profile's index in
// practice) and falling back to bisection, so that a search costs one or
// two reads in practice and O(log n) reads at worst.
func (p *ProfileDB) Find(i int, ctx uint32) (lo, hi uint64, ok bool, err error) {
	if err := p.checkBlock(i); err != nil {
		return 0, 0, false, err
	}
	n := uint64(p.Profiles[i].NumCtxs)
	// pairs [a, b) may hold ctx; ids there lie in [idLo, idHi)
	a, b := uint64(0), n
	idLo, idHi := uint64(0), uint64(p.CtxSpace)
	if idHi == 0 {
		idHi = 1 << 32
	}
	base := p.ctxBase(i)
	bo := p.bo
	var raw []byte
	for step := 0; a < b; step++ {
		first := a
		if b-a > findBlock {
			guess := a + (b-a)/2
			if step < 3 && idHi > idLo && uint64(ctx) >= idLo && uint64(ctx) < idHi {
				guess = a + (b-a)*(uint64(ctx)-idLo)/(idHi-idLo)
			}
			first = min(max(guess, a+findBlock/2)-findBlock/2, b-findBlock)
		}
		last := min(first+findBlock, b) // pairs [first, last) are searched; one more ends the last range
		var err error
		raw, err = p.ctxRaw(i, base, first, last, raw[:0])
		if err != nil {
			return 0, 0, false, err
		}
		np := int(last - first)
		id := func(j int) uint32 { return bo.Uint32(raw[j*profCtxSize:]) }
		switch {
		case ctx < id(0):
			b, idHi = first, uint64(id(0))
			continue
		case ctx > id(np-1):
			a, idLo = last, uint64(id(np-1))+1
			continue
		}
		k := sort.Search(np, func(j int) bool { return id(j) >= ctx })
		if id(k) != ctx {
			return 0, 0, false, nil
		}
		lo, hi = bo.Uint64(raw[k*profCtxSize+4:]), bo.Uint64(raw[(k+1)*profCtxSize+4:])
		if lo > hi || hi > p.Profiles[i].NumVals {
			return 0, 0, false, p.errAt(int64(p.Profiles[i].Offset), "context index out of order", ctx)
		}
		return lo, hi, true, nil
	}
	return 0, 0, false, nil
}

// ctxRaw reads the context pairs [first, last] (last included, the end
// pair when last is NumCtxs) of profile i into dst as stored bytes; the
// meta.db generation's missing end pair is made up.
func (p *ProfileDB) ctxRaw(i int, base, first, last uint64, dst []byte) ([]byte, error) {
	n := last - first + 1
	made := p.meta && last == uint64(p.Profiles[i].NumCtxs)
	if made {
		n--
	}
	b, err := p.read(int64(base+first*profCtxSize), int64(n)*profCtxSize, "context index")
	if err != nil {
		return dst, err
	}
	dst = append(dst, b...)
	if made {
		var e [profCtxSize]byte
		le.PutUint32(e[:], ProfileEndMarker)
		le.PutUint64(e[4:], p.Profiles[i].NumVals)
		dst = append(dst, e[:]...)
	}
	return dst, nil
}

// ContextValues returns the values of context ctx in profile i (nil when
// it has none).
func (p *ProfileDB) ContextValues(i int, ctx uint32, dst []MetricValue) ([]MetricValue, error) {
	lo, hi, ok, err := p.Find(i, ctx)
	if err != nil || !ok {
		return dst, err
	}
	return p.Values(i, lo, hi, dst)
}
