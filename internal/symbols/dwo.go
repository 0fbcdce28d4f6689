package symbols

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
)

// attrGNUDWOName is DW_AT_GNU_dwo_name, the DWARF 4 form of a skeleton
// unit's DW_AT_dwo_name (gcc -gsplit-dwarf before DWARF 5).
const attrGNUDWOName dwarf.Attr = 0x2130

// A splitUnit is the DWARF of a skeleton unit's .dwo file (a split
// compile unit: its subprograms and inlined calls; the line table stays
// in the binary).
type splitUnit struct {
	d     *dwarf.Data
	cu    *dwarf.Entry
	files []*dwarf.LineFile // its .debug_line.dwo file table, for DW_AT_call_file
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

// openSplit reads the .dwo of skeleton unit cu of binary f (at path):
// its name as the unit says it, relative to DW_AT_comp_dir, else beside
// the binary. Go's debug/dwarf takes a split unit's address, string
// offset and range list bases as 0, so each of those sections is handed
// to it from the base on: .debug_addr of the binary from the skeleton's
// DW_AT_addr_base, the .dwo's string offsets and range lists after their
// headers.
func openSplit(f *elf.File, path string, cu *dwarf.Entry) (*splitUnit, error) {
	name := dwoName(cu)
	cands := []string{name}
	if !filepath.IsAbs(name) {
		cands = nil
		if dir, ok := cu.Val(dwarf.AttrCompDir).(string); ok && dir != "" {
			cands = append(cands, filepath.Join(dir, name))
		}
	}
	cands = append(cands, filepath.Join(filepath.Dir(path), filepath.Base(name)))
	var dwo *elf.File
	for _, c := range cands {
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
			if dwo, _ = elf.Open(c); dwo != nil {
				break
			}
		}
	}
	if dwo == nil {
		return nil, errors.New(name + " not found")
	}
	defer dwo.Close()
	sec := func(f *elf.File, name string) []byte {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			return nil
		}
		b, _ := s.Data()
		return b
	}
	info, abbrev := sec(dwo, ".debug_info.dwo"), sec(dwo, ".debug_abbrev.dwo")
	if info == nil || abbrev == nil {
		return nil, errors.New(name + " has no .debug_info.dwo")
	}
	line := sec(dwo, ".debug_line.dwo")
	d, err := dwarf.New(abbrev, nil, nil, info, line, nil, nil, sec(dwo, ".debug_str.dwo"))
	if err != nil {
		return nil, err
	}
	if addr := sec(f, ".debug_addr"); addr != nil {
		base, _ := cu.Val(dwarf.AttrAddrBase).(int64)
		if base < 0 || base > int64(len(addr)) {
			return nil, errors.New("skeleton DW_AT_addr_base outside .debug_addr")
		}
		d.AddSection(".debug_addr", addr[base:])
	}
	d.AddSection(".debug_str_offsets", afterHeader(sec(dwo, ".debug_str_offsets.dwo"), 0))
	d.AddSection(".debug_rnglists", afterHeader(sec(dwo, ".debug_rnglists.dwo"), 4))
	r := d.Reader()
	scu, err := r.Next()
	if err != nil {
		return nil, err
	}
	if scu == nil {
		return nil, errors.New(name + " holds no unit")
	}
	u := &splitUnit{d: d, cu: scu}
	if line != nil {
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
