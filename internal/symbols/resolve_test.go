package symbols

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

// mainAddr is the first address whose outermost frame is main.
func mainAddr(t *testing.T, path string) uint64 {
	t.Helper()
	m := NewResolver(nil, nil).Module(path)
	lo, hi, err := program.Text(path)
	if err != nil {
		t.Fatal(err)
	}
	for a := lo; a < hi; a++ {
		if fs := m.Lookup(a); len(fs) > 0 && fs[len(fs)-1].Function == "main" {
			return a
		}
	}
	t.Fatalf("%s: no address in main", path)
	return 0
}

func TestFoundUnderSearchDir(t *testing.T) {
	b := compile(t, program.CPIE)
	addr := mainAddr(t, b.Path)
	recorded := "/no/such/place/" + filepath.Base(b.Path)
	m := NewResolver(nil, nil).Module(recorded)
	if m.Lookup(addr) != nil || m.Err() == nil || !strings.Contains(m.Err().Error(), "not found") {
		t.Fatalf("missing binary: frames %v, error %v", m.Lookup(addr), m.Err())
	}
	if !strings.HasPrefix(m.Source(), "none: ") {
		t.Errorf("Source of a missing binary: %q", m.Source())
	}
	m = NewResolver([]string{t.TempDir(), filepath.Dir(b.Path)}, nil).Module(recorded)
	if fs := m.Lookup(addr); len(fs) == 0 || fs[len(fs)-1].Function != "main" {
		t.Fatalf("binary under a search dir: %v (%v)", fs, m.Err())
	}
	if f, _ := m.File(); f != b.Path {
		t.Errorf("found %s, want %s", f, b.Path)
	}
	if !strings.Contains(m.Source(), b.Path) || !strings.Contains(m.Source(), "DWARF") {
		t.Errorf("Source: %q", m.Source())
	}
}

func TestStrippedWithoutDebugFile(t *testing.T) {
	b := compile(t, program.CXXID)
	m := NewResolver(nil, nil).Module(b.Path) // the debug root not given
	if err := m.Err(); err == nil || !strings.Contains(err.Error(), "stripped") {
		t.Fatalf("stripped binary without its debug file: error %v", err)
	}
}

func TestDebugFileOfAnotherBuild(t *testing.T) {
	b := compile(t, program.CXXLink)
	other := compile(t, program.CXX)
	// The debug link names prog.debug; put another build's debug
	// information there.
	if err := os.Remove(b.Debug); err != nil {
		t.Fatal(err)
	}
	if err := program.OnlyDebug(other.Path, b.Debug); err != nil {
		t.Fatal(err)
	}
	err := NewResolver(nil, nil).Module(b.Path).Err()
	if err == nil || !strings.Contains(err.Error(), "another build") {
		t.Fatalf("debug file of another build: error %v", err)
	}
}

func TestNotELF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "libfake.so")
	if err := os.WriteFile(p, []byte("not an ELF file"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := NewResolver(nil, nil).Module(p)
	if m.Lookup(0x1000) != nil || m.Err() == nil || !strings.Contains(m.Err().Error(), "not an ELF") {
		t.Fatalf("not ELF: error %v", m.Err())
	}
}

// TestBudget checks that tables are dropped past the budget and built
// again, with the same answers, when asked again.
func TestBudget(t *testing.T) {
	a, b := compile(t, program.CPIE), compile(t, program.CNoPIE)
	r := NewResolver(nil, nil)
	r.SetBudget(1)
	ma, mb := r.Module(a.Path), r.Module(b.Path)
	addr := mainAddr(t, a.Path)
	first := ma.Lookup(addr)
	mb.Lookup(mainAddr(t, b.Path))
	r.mu.Lock()
	n := len(r.tables)
	r.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d tables held over a budget of 1 byte, want 1", n)
	}
	if again := ma.Lookup(addr); len(again) == 0 || again[0] != first[0] {
		t.Fatalf("after eviction: %v, before %v", again, first)
	}
}

// TestSharedByBuildID checks that two copies of one build (same
// build-id, two paths) share one table.
func TestSharedByBuildID(t *testing.T) {
	b := compile(t, program.CPIE)
	cp := filepath.Join(t.TempDir(), "copy")
	data, err := os.ReadFile(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	r := NewResolver(nil, nil)
	addr := mainAddr(t, b.Path)
	r.Module(b.Path).Lookup(addr)
	r.Module(cp).Lookup(addr)
	if len(r.tables) != 1 {
		t.Errorf("two copies of one build: %d tables, want 1", len(r.tables))
	}
	// Both say what the one table was built from.
	for _, p := range []string{b.Path, cp} {
		if s, want := r.Module(p).Source(), "DWARF and symbol table of "+p; s != want {
			t.Errorf("Source: %q, want %q", s, want)
		}
	}
}

func FuzzTable(f *testing.F) {
	if b, err := program.Build(f.TempDir(), program.CPIE); err == nil {
		if data, err := os.ReadFile(b.Path); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "bin")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m := NewResolver(nil, nil).Module(p)
		for a := uint64(0); a < 0x2000; a += 0x40 {
			m.Lookup(a)
		}
	})
}

// TestMaxDWARF checks that DWARF over the limit is not read: names come
// from the symbol table, one frame per address, and Source and Describe
// say why.
func TestMaxDWARF(t *testing.T) {
	b := compile(t, program.CXX)
	r := NewResolver(nil, nil)
	r.SetMaxDWARF(1)
	m := r.Module(b.Path)
	lo, hi, err := program.Text(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for a := lo; a < hi; a++ {
		fs := m.Lookup(a)
		if len(fs) > 1 || len(fs) == 1 && fs[0].Line != 0 {
			t.Fatalf("%#x: %v from DWARF over the limit", a, fs)
		}
		if len(fs) == 1 && fs[0].Function != "" {
			named++
		}
	}
	if named == 0 {
		t.Error("no address named from the symbol table")
	}
	for _, s := range []string{m.Source(), m.Describe()} {
		if !strings.Contains(s, "over the 0 MB limit") || !strings.Contains(s, "symbol table") {
			t.Errorf("%q does not say DWARF was left out", s)
		}
	}
}

// FuzzSplitTables feeds a .dwp unit index and a .dwo abbreviation table
// to their readers (and both as a split unit's range lists and address
// table): no panic, and no row past the index's units.
func FuzzSplitTables(f *testing.F) {
	if b, err := program.Build(f.TempDir(), program.CXXDWP4); err == nil {
		if p, err := elf.Open(b.DWP); err == nil {
			f.Add(sectionData(p, ".debug_cu_index"), sectionData(p, ".debug_abbrev.dwo"))
			p.Close()
		}
	}
	f.Add([]byte("\x05\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00"), []byte("\x01\x11\x01\x03\x82\x3e\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, index, abbrev []byte) {
		// The bytes as a split unit's range lists and addresses too,
		// in both forms.
		for _, v4 := range []bool{false, true} {
			u := &splitUnit{rngLists: index, addr: abbrev, v4: v4, order: binary.LittleEndian, addrSize: 8, base: 0x1000}
			for _, off := range []any{int64(0), uint64(1), int64(len(index) / 2)} {
				e := &dwarf.Entry{Field: []dwarf.Field{{Attr: dwarf.AttrRanges, Val: off, Class: dwarf.ClassRangeListPtr}}}
				u.ranges(e)
			}
		}
		if x, err := parseUnitIndex(index, binary.LittleEndian); err == nil {
			for sig, row := range x.rows {
				if row == 0 || int(row)*len(x.ids) > len(x.offs) {
					t.Fatalf("row %d of %d units", row, len(x.offs)/max(len(x.ids), 1))
				}
				x.contribution(sig, dwSectInfo)
			}
		}
		if out := gnuForms(abbrev); len(out) != len(abbrev) {
			t.Fatalf("abbreviations of %d bytes became %d", len(abbrev), len(out))
		}
	})
}

// TestSplitMaxDWARF checks that the bytes of .dwo files and of a .dwp
// package count in the DWARF limit: with a limit the binary's own DWARF
// fits in but not its split units, no address has an inlined frame, and
// Source says why.
func TestSplitMaxDWARF(t *testing.T) {
	for _, v := range []program.Variant{program.CXXSplit, program.CXXDWP4} {
		t.Run(string(v), func(t *testing.T) {
			b := compile(t, v)
			f, err := elf.Open(b.Path)
			if err != nil {
				t.Fatal(err)
			}
			own := dwarfSize(f)
			f.Close()
			r := NewResolver(nil, nil)
			r.SetMaxDWARF(own + 1)
			m := r.Module(b.Path)
			lo, hi, err := program.Text(b.Path)
			if err != nil {
				t.Fatal(err)
			}
			for a := lo; a < hi; a++ {
				if fs := m.Lookup(a); len(fs) > 1 {
					t.Fatalf("%#x: inlined frames %v past the limit", a, fs)
				}
			}
			if s := m.Source(); !strings.Contains(s, "over the 0 MB limit") || !strings.Contains(s, "symbol table") {
				t.Errorf("%q does not say the split units passed the limit", s)
			}
		})
	}
}
