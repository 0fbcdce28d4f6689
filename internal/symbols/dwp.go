package symbols

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
)

// Sections of a .dwp package's index (DWARF 5 section 7.3.5.3; the GNU
// version 2 index gcc's DWARF 4 packages have uses the same numbers for
// these).
const (
	dwSectInfo       = 1
	dwSectAbbrev     = 3
	dwSectLine       = 4
	dwSectStrOffsets = 6
	dwSectRngLists   = 8 // DWARF 5 only
)

// A unitIndex is a .debug_cu_index: for each unit signature (the dwo_id
// of its skeleton unit), the offset and size of the unit's contribution
// to each section of the package.
type unitIndex struct {
	version int
	ids     []uint32          // section of each column
	rows    map[uint64]uint32 // signature to row (from 1)
	offs    []uint32          // rows × columns
	sizes   []uint32
}

// parseUnitIndex reads a .debug_cu_index, of DWARF 5 (version 5 in a
// 2-byte field) or of the GNU version 2 pre-standard form (a 4-byte
// version); every count is checked against the section's size before
// anything is allocated.
func parseUnitIndex(b []byte, order binary.ByteOrder) (*unitIndex, error) {
	if len(b) < 16 {
		return nil, errors.New("unit index shorter than its header")
	}
	x := &unitIndex{}
	switch {
	case order.Uint32(b) == 2:
		x.version = 2
	case order.Uint16(b) == 5:
		x.version = 5
	default:
		return nil, fmt.Errorf("unit index version %#x not read", order.Uint32(b))
	}
	cols, units, slots := uint64(order.Uint32(b[4:])), uint64(order.Uint32(b[8:])), uint64(order.Uint32(b[12:]))
	if cols == 0 && units == 0 {
		return x, nil // an empty index may have no columns
	}
	if cols == 0 || cols > 16 || units > slots {
		return nil, fmt.Errorf("unit index of %d columns, %d units in %d slots", cols, units, slots)
	}
	// Header, hash table (8-byte signatures, 4-byte rows), column
	// sections, then offsets and sizes of each unit.
	if need := 16 + slots*12 + cols*4 + 2*units*cols*4; slots > uint64(len(b)) || need > uint64(len(b)) {
		return nil, fmt.Errorf("unit index needs %d bytes, has %d", need, len(b))
	}
	hash, rowAt := b[16:], b[16+slots*8:]
	p := 16 + slots*12
	u32s := func(n uint64) []uint32 {
		out := make([]uint32, n)
		for i := range out {
			out[i] = order.Uint32(b[p:])
			p += 4
		}
		return out
	}
	x.ids = u32s(cols)
	x.offs = u32s(units * cols)
	x.sizes = u32s(units * cols)
	x.rows = make(map[uint64]uint32, units)
	for i := uint64(0); i < slots; i++ {
		row := order.Uint32(rowAt[i*4:])
		if row == 0 {
			continue
		}
		if uint64(row) > units {
			return nil, fmt.Errorf("unit index row %d of %d", row, units)
		}
		x.rows[order.Uint64(hash[i*8:])] = row
	}
	return x, nil
}

// contribution gives the offset and size of the unit with signature
// sig in section id; ok is false when the unit or the section is not in
// the index.
func (x *unitIndex) contribution(sig uint64, id uint32) (off, size uint32, ok bool) {
	row, found := x.rows[sig]
	if !found {
		return 0, 0, false
	}
	for c, cid := range x.ids {
		if cid == id {
			k := (int(row)-1)*len(x.ids) + c
			return x.offs[k], x.sizes[k], true
		}
	}
	return 0, 0, false
}

// A dwpPackage is a .dwp file: the split units of a binary's skeleton
// units packed by dwp (GNU, DWARF 4) or llvm-dwp (DWARF 5), read whole
// (its size counts in the DWARF limit).
type dwpPackage struct {
	path  string
	m     *mappedFile // unmapped when the table is built
	index *unitIndex
	secs  map[uint32][]byte // the package's sections by index column
	str   []byte            // .debug_str.dwo, shared by every unit
	size  int64             // bytes of its sections
}

// dwpSections are the package's sections by index column id.
var dwpSections = map[uint32]string{
	dwSectInfo:       ".debug_info.dwo",
	dwSectAbbrev:     ".debug_abbrev.dwo",
	dwSectLine:       ".debug_line.dwo",
	dwSectStrOffsets: ".debug_str_offsets.dwo",
	dwSectRngLists:   ".debug_rnglists.dwo",
}

// dwpPath is the package of the binary at path: path.dwp, as gdb and
// lldb look for it; "" when there is none.
func dwpPath(path string) string {
	p := path + ".dwp"
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return ""
}

// openDWP maps the package at path.
func openDWP(path string) (*dwpPackage, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := mapELF(f, path)
	b := m.section(".debug_cu_index")
	if b == nil {
		m.close()
		return nil, errors.New(path + " has no .debug_cu_index")
	}
	x, err := parseUnitIndex(b, f.ByteOrder)
	if err != nil {
		m.close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	p := &dwpPackage{path: path, m: m, index: x, secs: map[uint32][]byte{}, size: dwarfSize(f)}
	for id, name := range dwpSections {
		p.secs[id] = m.section(name)
	}
	p.str = m.section(".debug_str.dwo")
	return p, nil
}

// unit gives the sections of the split unit whose skeleton has dwo_id
// sig; ok is false when the package does not hold it.
func (p *dwpPackage) unit(sig uint64) (s splitSections, ok bool) {
	part := func(id uint32) []byte {
		off, size, found := p.index.contribution(sig, id)
		b := p.secs[id]
		if !found || uint64(off)+uint64(size) > uint64(len(b)) {
			return nil
		}
		return b[off : off+size]
	}
	if _, ok := p.index.rows[sig]; !ok {
		return s, false
	}
	s = splitSections{info: part(dwSectInfo), abbrev: part(dwSectAbbrev), line: part(dwSectLine),
		str: p.str, strOffsets: part(dwSectStrOffsets), rngLists: part(dwSectRngLists)}
	return s, s.info != nil && s.abbrev != nil
}

// sectionData is the contents of f's section name, nil when f has none.
func sectionData(f *elf.File, name string) []byte {
	s := f.Section(name)
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil
	}
	b, _ := s.Data()
	return b
}

// dwpSize is the size of the DWARF in the package of the binary at path
// (dwpPath), 0 when it has none: it counts in the DWARF limit.
func dwpSize(path string) int64 {
	p := dwpPath(path)
	if p == "" {
		return 0
	}
	f, err := elf.Open(p)
	if err != nil {
		return 0
	}
	defer f.Close()
	return dwarfSize(f)
}
