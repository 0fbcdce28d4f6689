package symbols

import (
	"debug/dwarf"
	"debug/elf"
	"os"
	"strings"
	"syscall"
)

// A mappedFile is an ELF file whose uncompressed sections are read from a
// read-only memory map of it, so that reading a binary's DWARF puts its
// bytes in the page cache, not in the heap; compressed sections (and
// every section when the file cannot be mapped) are read into memory.
// A file truncated while mapped faults on access: builds run with
// debug.SetPanicOnFault and recover (Module.build).
type mappedFile struct {
	f  *elf.File
	mm []byte
}

// mapELF maps the file at path, opened as f; close unmaps it.
func mapELF(f *elf.File, path string) *mappedFile {
	m := &mappedFile{f: f}
	fd, err := os.Open(path)
	if err != nil {
		return m
	}
	defer fd.Close()
	fi, err := fd.Stat()
	if err != nil || fi.Size() <= 0 || fi.Size() != int64(int(fi.Size())) {
		return m
	}
	if mm, err := syscall.Mmap(int(fd.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED); err == nil {
		m.mm = mm
	}
	return m
}

func (m *mappedFile) close() {
	if m.mm != nil {
		syscall.Munmap(m.mm)
		m.mm = nil
	}
}

// section is the contents of section name (".debug_info", or its
// .zdebug_ form), nil when the file has none.
func (m *mappedFile) section(name string) []byte {
	s := m.f.Section(name)
	if s == nil && strings.HasPrefix(name, ".debug_") {
		s = m.f.Section(".zdebug_" + name[len(".debug_"):])
	}
	if s == nil || s.Type == elf.SHT_NOBITS {
		return nil
	}
	if s.Flags&elf.SHF_COMPRESSED == 0 && strings.HasPrefix(s.Name, ".debug_") && m.mm != nil &&
		s.Offset <= uint64(len(m.mm)) && s.FileSize <= uint64(len(m.mm))-s.Offset {
		return m.mm[s.Offset : s.Offset+s.FileSize]
	}
	b, _ := s.Data()
	return b
}

// dwarf is the DWARF of the file: only the sections that names, lines
// and ranges need (debug/elf's DWARF reads every .debug_ section into
// memory). A relocatable object's DWARF, which needs its relocations
// applied, is read by debug/elf.
func (m *mappedFile) dwarf() (*dwarf.Data, error) {
	if m.f.Type == elf.ET_REL {
		return m.f.DWARF()
	}
	d, err := dwarf.New(m.section(".debug_abbrev"), nil, nil, m.section(".debug_info"), m.section(".debug_line"),
		nil, m.section(".debug_ranges"), m.section(".debug_str"))
	if err != nil {
		return nil, err
	}
	for _, name := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		if b := m.section(name); b != nil {
			d.AddSection(name, b)
		}
	}
	return d, nil
}
