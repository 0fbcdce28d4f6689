package symbols

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
)

// GNU attributes of a DWARF 4 skeleton unit (gcc -gdwarf-4
// -gsplit-dwarf): the forerunners of DWARF 5's DW_AT_dwo_name,
// DW_AT_addr_base and the unit header's dwo_id, and the base of the
// split unit's range lists in the binary's .debug_ranges.
const (
	attrGNUDWOName    dwarf.Attr = 0x2130
	attrGNUDWOID      dwarf.Attr = 0x2131
	attrGNURangesBase dwarf.Attr = 0x2132
	attrGNUAddrBase   dwarf.Attr = 0x2133
)

// A splitUnit is the DWARF of a skeleton unit's .dwo file (a split
// compile unit: its subprograms and inlined calls; the line table stays
// in the binary).
type splitUnit struct {
	d     *dwarf.Data
	cu    *dwarf.Entry
	files []*dwarf.LineFile // its .debug_line.dwo file table, for DW_AT_call_file

	// For its range lists (ranges): the skeleton's base address, the
	// binary's .debug_addr from the unit's base, and its range lists
	// (DWARF 5: the .dwo's after their header; DWARF 4: the binary's
	// .debug_ranges from the unit's base).
	base     uint64
	addr     []byte
	rngLists []byte
	v4       bool
	order    binary.ByteOrder
	addrSize int
}

// splitSections are the sections of one split unit: of its .dwo file,
// or its contributions to a .dwp package.
type splitSections struct {
	info, abbrev, line, str, strOffsets, rngLists []byte
}

// dwoName is the .dwo file a skeleton unit names, "" for other units.
func dwoName(cu *dwarf.Entry) string {
	for _, a := range []dwarf.Attr{dwarf.AttrDwoName, attrGNUDWOName} {
		if s, ok := cu.Val(a).(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// A splitReader reads the split units of one binary's skeleton units:
// from its .dwp package when it has one that holds the unit, else from
// the .dwo file the unit names. It counts the bytes of the .dwo files
// and the package read.
type splitReader struct {
	m      *mappedFile
	path   string
	info   []byte // the binary's .debug_info, for DWARF 5 dwo_ids
	addr   []byte // the binary's .debug_addr and .debug_ranges
	ranges []byte
	loaded bool

	pkg      *dwpPackage
	pkgTried bool
	pkgErr   error
	read     int64 // bytes of .dwo files and package read
}

func newSplitReader(m *mappedFile, path string) *splitReader {
	return &splitReader{m: m, path: path}
}

// close unmaps the package.
func (sr *splitReader) close() {
	if sr.pkg != nil {
		sr.pkg.m.close()
	}
}

// open reads the split unit of skeleton unit cu; fromDWP says it came
// from the package.
func (sr *splitReader) open(cu *dwarf.Entry) (u *splitUnit, fromDWP bool, err error) {
	if !sr.loaded {
		sr.loaded = true
		sr.addr, sr.ranges = sr.m.section(".debug_addr"), sr.m.section(".debug_ranges")
		sr.info = sr.m.section(".debug_info")
	}
	v4 := cu.Tag != dwarf.TagSkeletonUnit
	if !sr.pkgTried {
		sr.pkgTried = true
		if p := dwpPath(sr.path); p != "" {
			if sr.pkg, sr.pkgErr = openDWP(p); sr.pkg != nil {
				sr.read += sr.pkg.size
			}
		}
	}
	if sr.pkg != nil {
		if id, ok := sr.dwoID(cu, v4); ok {
			if s, ok := sr.pkg.unit(id); ok {
				u, err := sr.split(cu, s, v4)
				return u, true, err
			}
		}
	}
	s, err := sr.readDWO(cu)
	if err != nil {
		return nil, false, err
	}
	u, err = sr.split(cu, s, v4)
	return u, false, err
}

// dwoID is the signature of skeleton unit cu: DW_AT_GNU_dwo_id in DWARF
// 4, the last 8 bytes of the unit header (just before its first entry)
// in DWARF 5, which debug/dwarf does not keep.
func (sr *splitReader) dwoID(cu *dwarf.Entry, v4 bool) (uint64, bool) {
	if v4 {
		id, ok := cu.Val(attrGNUDWOID).(int64)
		return uint64(id), ok
	}
	if cu.Offset < 8 || int64(cu.Offset) > int64(len(sr.info)) {
		return 0, false
	}
	return sr.m.f.ByteOrder.Uint64(sr.info[cu.Offset-8:]), true
}

// readDWO reads the .dwo file cu names, relative to DW_AT_comp_dir,
// else beside the binary.
func (sr *splitReader) readDWO(cu *dwarf.Entry) (splitSections, error) {
	name := dwoName(cu)
	cands := []string{name}
	if !filepath.IsAbs(name) {
		cands = nil
		if dir, ok := cu.Val(dwarf.AttrCompDir).(string); ok && dir != "" {
			cands = append(cands, filepath.Join(dir, name))
		}
	}
	cands = append(cands, filepath.Join(filepath.Dir(sr.path), filepath.Base(name)))
	var dwo *elf.File
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			if dwo, _ = elf.Open(c); dwo != nil {
				break
			}
		}
	}
	if dwo == nil {
		return splitSections{}, errors.New(name + " not found")
	}
	defer dwo.Close()
	sr.read += dwarfSize(dwo)
	s := splitSections{info: sectionData(dwo, ".debug_info.dwo"), abbrev: sectionData(dwo, ".debug_abbrev.dwo"),
		line: sectionData(dwo, ".debug_line.dwo"), str: sectionData(dwo, ".debug_str.dwo"),
		strOffsets: sectionData(dwo, ".debug_str_offsets.dwo"), rngLists: sectionData(dwo, ".debug_rnglists.dwo")}
	if s.info == nil || s.abbrev == nil {
		return s, errors.New(name + " has no .debug_info.dwo")
	}
	return s, nil
}

// split makes the DWARF of a split unit from its sections. Go's
// debug/dwarf takes a split unit's address, string offset and range list
// bases as 0, so each of those sections is handed to it from the base
// on: .debug_addr of the binary from the skeleton's DW_AT_addr_base; in
// DWARF 5 the unit's string offsets and range lists after their
// headers; in DWARF 4 (v4) its string offsets as they are, the binary's
// .debug_ranges from DW_AT_GNU_ranges_base, and its GNU index forms
// read as DWARF 5's (gnuForms).
func (sr *splitReader) split(cu *dwarf.Entry, s splitSections, v4 bool) (*splitUnit, error) {
	abbrev, ranges := s.abbrev, []byte(nil)
	if v4 {
		abbrev = gnuForms(abbrev)
		if sr.ranges != nil {
			base, _ := cu.Val(attrGNURangesBase).(int64)
			if base < 0 || base > int64(len(sr.ranges)) {
				return nil, errors.New("skeleton DW_AT_GNU_ranges_base outside .debug_ranges")
			}
			ranges = sr.ranges[base:]
		}
	}
	d, err := dwarf.New(abbrev, nil, nil, s.info, s.line, nil, ranges, s.str)
	if err != nil {
		return nil, err
	}
	addrBase := int64(0)
	if sr.addr != nil {
		base, ok := cu.Val(dwarf.AttrAddrBase).(int64)
		if !ok {
			base, _ = cu.Val(attrGNUAddrBase).(int64)
		}
		if base < 0 || base > int64(len(sr.addr)) {
			return nil, errors.New("skeleton DW_AT_addr_base outside .debug_addr")
		}
		addrBase = base
		d.AddSection(".debug_addr", sr.addr[base:])
	}
	if v4 {
		d.AddSection(".debug_str_offsets", s.strOffsets)
	} else {
		d.AddSection(".debug_str_offsets", afterHeader(s.strOffsets, 0))
		d.AddSection(".debug_rnglists", afterHeader(s.rngLists, 4))
	}
	r := d.Reader()
	scu, err := r.Next()
	if err != nil {
		return nil, err
	}
	if scu == nil {
		return nil, errors.New("split unit holds no unit")
	}
	u := &splitUnit{d: d, cu: scu, v4: v4, order: sr.m.f.ByteOrder, addrSize: 8}
	if sr.m.f.Class == elf.ELFCLASS32 {
		u.addrSize = 4
	}
	u.base, _ = cu.Val(dwarf.AttrLowpc).(uint64)
	if sr.addr != nil {
		u.addr = sr.addr[addrBase:]
	}
	if v4 {
		u.rngLists = ranges
	} else {
		u.rngLists = afterHeader(s.rngLists, 4)
	}
	if s.line != nil {
		// The split unit has no DW_AT_stmt_list: its file table is the
		// .dwo's line table at 0.
		c := *scu
		c.Field = append(append([]dwarf.Field(nil), scu.Field...), dwarf.Field{Attr: dwarf.AttrStmtList, Val: int64(0), Class: dwarf.ClassLinePtr})
		if lr, err := d.LineReader(&c); err == nil && lr != nil {
			u.files = lr.Files()
		}
	}
	return u, nil
}

// ranges gives the address ranges of entry e of the split unit. Its
// range lists are read here, not by debug/dwarf, whose base address for
// them is the split unit's DW_AT_low_pc, which it has not: the base is
// the skeleton unit's (a unit at one address range, low_pc and high_pc,
// gives offsets from it).
func (u *splitUnit) ranges(e *dwarf.Entry) ([][2]uint64, error) {
	f := e.AttrField(dwarf.AttrRanges)
	if f == nil {
		return u.d.Ranges(e)
	}
	var off uint64
	switch v := f.Val.(type) {
	case int64:
		off = uint64(v)
	case uint64:
		off = v
	default:
		return nil, nil
	}
	if off > uint64(len(u.rngLists)) {
		return nil, errors.New("range list outside its section")
	}
	b, base := u.rngLists[off:], u.base
	var out [][2]uint64
	addr := func(n int) (uint64, bool) {
		if n > len(b) || n != 4 && n != 8 {
			return 0, false
		}
		v := uint64(u.order.Uint32(b))
		if n == 8 {
			v = u.order.Uint64(b)
		}
		b = b[n:]
		return v, true
	}
	num := func() (uint64, bool) {
		v, n := uleb(b)
		b = b[n:]
		return v, n > 0
	}
	indexed := func() (uint64, bool) { // an address of .debug_addr
		i, ok := num()
		n := uint64(u.addrSize)
		if !ok || i >= uint64(len(u.addr))/n {
			return 0, false
		}
		if n == 4 {
			return uint64(u.order.Uint32(u.addr[i*n:])), true
		}
		return u.order.Uint64(u.addr[i*n:]), true
	}
	if u.v4 {
		// DWARF 4 .debug_ranges: begin, end pairs from the base; an
		// all-ones begin sets the base; 0, 0 ends.
		for len(out) < 1<<20 {
			lo, ok1 := addr(u.addrSize)
			hi, ok2 := addr(u.addrSize)
			switch {
			case !ok1 || !ok2:
				return out, errors.New("range list runs past its section")
			case lo == 0 && hi == 0:
				return out, nil
			case lo == ^uint64(0)>>(64-8*u.addrSize):
				base = hi
			default:
				out = append(out, [2]uint64{base + lo, base + hi})
			}
		}
		return out, nil
	}
	for len(b) > 0 && len(out) < 1<<20 {
		kind := b[0]
		b = b[1:]
		var lo, hi uint64
		ok1, ok2 := true, true
		switch kind {
		case 0: // DW_RLE_end_of_list
			return out, nil
		case 1: // DW_RLE_base_addressx
			base, ok1 = indexed()
			if !ok1 {
				return out, errors.New("bad range list")
			}
			continue
		case 2: // DW_RLE_startx_endx
			lo, ok1 = indexed()
			hi, ok2 = indexed()
		case 3: // DW_RLE_startx_length
			lo, ok1 = indexed()
			hi, ok2 = num()
			hi += lo
		case 4: // DW_RLE_offset_pair
			lo, ok1 = num()
			hi, ok2 = num()
			lo, hi = base+lo, base+hi
		case 5: // DW_RLE_base_address
			base, ok1 = addr(u.addrSize)
			if !ok1 {
				return out, errors.New("bad range list")
			}
			continue
		case 6: // DW_RLE_start_end
			lo, ok1 = addr(u.addrSize)
			hi, ok2 = addr(u.addrSize)
		case 7: // DW_RLE_start_length
			lo, ok1 = addr(u.addrSize)
			hi, ok2 = num()
			hi += lo
		default:
			return out, errors.New("bad range list entry")
		}
		if !ok1 || !ok2 {
			return out, errors.New("bad range list")
		}
		out = append(out, [2]uint64{lo, hi})
	}
	return out, nil
}

// gnuForms is a DWARF 4 .dwo abbreviation table with its GNU index
// forms, DW_FORM_GNU_addr_index and DW_FORM_GNU_str_index (which
// debug/dwarf does not know), turned into DWARF 5's DW_FORM_addrx and
// DW_FORM_strx, encoded alike (an unsigned LEB128 index into the same
// tables). The new codes are written in the 2 bytes of the old ones (a
// padded LEB128), so that no offset into the table moves; a table with
// neither form is returned as it is.
func gnuForms(b []byte) []byte {
	const gnuAddrIndex, gnuStrIndex, implicitConst = 0x1f01, 0x1f02, 0x21
	var out []byte
	i := 0
	for i < len(b) {
		code, n := uleb(b[i:])
		if n == 0 {
			break
		}
		i += n
		if code == 0 {
			continue // the end of one unit's table
		}
		if _, n = uleb(b[i:]); n == 0 { // tag
			break
		}
		i += n + 1 // and the children flag
		for i < len(b) {
			attr, n := uleb(b[i:])
			if n == 0 {
				return orig(out, b)
			}
			at := i + n
			form, m := uleb(b[at:])
			if m == 0 {
				return orig(out, b)
			}
			i = at + m
			if attr == 0 && form == 0 {
				break
			}
			if (form == gnuAddrIndex || form == gnuStrIndex) && m == 2 {
				if out == nil {
					out = slices.Clone(b)
				}
				out[at], out[at+1] = 0x9b, 0 // DW_FORM_addrx
				if form == gnuStrIndex {
					out[at] = 0x9a // DW_FORM_strx
				}
			}
			if form == implicitConst {
				_, n := uleb(b[i:]) // a signed LEB128: the same length
				i += n
			}
		}
	}
	return orig(out, b)
}

func orig(out, b []byte) []byte {
	if out == nil {
		return b
	}
	return out
}

// uleb reads an unsigned LEB128 number; n is 0 when b ends inside it or
// it has more than 10 bytes.
func uleb(b []byte) (v uint64, n int) {
	for i := 0; i < len(b) && i < 10; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}

// afterHeader is a DWARF 5 string-offsets (extra 0) or range-lists
// (extra 4: the offset entry count) contribution without its header: the
// unit length (4 bytes, 12 in 64-bit DWARF), the version and two bytes of
// padding or sizes, then extra.
func afterHeader(b []byte, extra int) []byte {
	if len(b) < 8 {
		return nil
	}
	n := 4 + 4 + extra
	if binary.LittleEndian.Uint32(b) == 0xffffffff {
		n += 8
	}
	if n > len(b) {
		return nil
	}
	return b[n:]
}
