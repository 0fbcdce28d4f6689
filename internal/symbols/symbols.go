// Package symbols names instruction addresses of ELF binaries: the
// function (demangled, and its raw name), the source file and line, and
// the chain of inlined calls at the address, in hpcprof's order of
// sources: DWARF, then the ELF symbol table, then a separate debug file
// found by build-id (under /usr/lib/debug/.build-id) or .gnu_debuglink.
// A split-DWARF unit (DWARF 5 skeleton, or DW_AT_GNU_dwo_name) has its
// subprograms and inlined calls read from its .dwo file.
//
// Addresses are link-time addresses (offsets as hpcrun stores them), so
// a PIE or a shared library needs no load-address correction. A caller's
// return address is looked up at ip-1 by the caller of Lookup.
//
// A binary is found at its recorded path, or as a file of the same base
// name in one of the search directories (hpcfs --symbols, $HPCFS_SYMBOLS).
// Its lookup table is built on first use, shared by every module with the
// same build-id, and dropped (to be rebuilt when asked again) when the
// tables held pass the resolver's byte budget. Binaries are read with
// debug/elf and debug/dwarf: a malformed binary gives an error for its
// module, not a panic.
package symbols

import (
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hpcfs/hpcfs/render"
)

// DefaultBudget is the bytes of lookup tables a Resolver keeps.
const DefaultBudget = 24 << 20

// DefaultMaxDWARF is the largest DWARF (decompressed .debug_* sections,
// with the binary's .dwo files or .dwp package) whose table a Resolver
// keeps in memory. A binary with more has its table spilled to the
// on-disk index when the resolver has one (built once, then answered
// from the file), else is named from its symbol table only. Building a
// table in memory peaks at about twice its DWARF (52 MB of heap for
// hpcfs's own 23 MB), building it in sorted runs on disk at a bounded
// 28 MB: 16 MB keeps a mount within the 64 MB budget either way.
const DefaultMaxDWARF = 16 << 20

// A Resolver finds binaries and keeps their lookup tables.
type Resolver struct {
	dirs     []string // searched for binaries by base name, then as debug roots
	roots    []string // debug roots (/usr/lib/debug)
	budget   int64
	maxDWARF int64
	indexDir string // where tables over maxDWARF are spilled, "" for none
	// indexLimit is the index folder's limit (render.Options.IndexLimit):
	// a spilled table counts against it like the views' files.
	indexLimit int64

	mu     sync.Mutex
	mods   map[string]*Module
	tables map[string]*held    // by build-id, or by file when it has none
	used   map[string][]string // what each table (by the same key) was built from, kept past eviction
	held   int64
	clock  uint64
}

type held struct {
	t    store
	size int64
	used uint64
}

// NewResolver looks for binaries under dirs and for debug files under
// roots (and dirs).
func NewResolver(dirs, roots []string) *Resolver {
	return &Resolver{dirs: dirs, roots: append(append([]string(nil), roots...), dirs...),
		budget: DefaultBudget, maxDWARF: DefaultMaxDWARF, mods: map[string]*Module{}, tables: map[string]*held{}, used: map[string][]string{}}
}

// SetBudget sets the bytes of tables r keeps (at least one table is
// always kept while in use).
func (r *Resolver) SetBudget(n int64) { r.mu.Lock(); r.budget = n; r.mu.Unlock() }

// SetMaxDWARF sets the largest DWARF whose table r keeps in memory (see
// DefaultMaxDWARF); set it before the first lookup.
func (r *Resolver) SetMaxDWARF(n int64) { r.maxDWARF = n }

// SetIndexDir sets the on-disk index folder where r spills the tables of
// binaries over the DWARF limit ("" spills none); set it before the
// first lookup.
func (r *Resolver) SetIndexDir(dir string) { r.indexDir = dir }

// resolvers are the resolvers For made, one per list of search folders,
// so that the mounts of a process that search the same folders share
// their tables.
var resolvers = struct {
	sync.Mutex
	m map[string]*Resolver
}{m: map[string]*Resolver{}}

// For is the resolver of a mount's options: it looks for binaries by
// base name under o.SymbolDirs (hpcfs --symbols, then $HPCFS_SYMBOLS)
// and for debug files under /usr/lib/debug, and spills big tables to
// o.IndexDir; one per list of folders and index folder in the process.
func For(o render.Options) *Resolver {
	key := strings.Join(o.SymbolDirs, "\x00") + "\x01" + o.IndexDir
	resolvers.Lock()
	defer resolvers.Unlock()
	r, ok := resolvers.m[key]
	if !ok {
		r = NewResolver(slices.Clone(o.SymbolDirs), []string{"/usr/lib/debug"})
		r.indexDir, r.indexLimit = o.IndexDir, o.IndexLimit
		resolvers.m[key] = r
	}
	return r
}

// EnvDirs are the directories in $HPCFS_SYMBOLS (colon-separated), made
// absolute.
func EnvDirs() []string {
	var out []string
	for _, d := range filepath.SplitList(os.Getenv("HPCFS_SYMBOLS")) {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		out = append(out, d)
	}
	return out
}

// A Module is one binary as a profile records it.
type Module struct {
	r        *Resolver
	Recorded string // the path in the profile

	findOnce sync.Once
	file     string // where the binary was found, "" when not
	findErr  error

	loadOnce sync.Once
	elfErr   error
	key      string      // of its table in r.tables
	dbg      string      // separate debug file used, "" when none
	dwp      string      // .dwp package beside the binary, "" when none
	buildErr error       // guarded by r.mu
	dwarf    bool        // the binary or its debug file has DWARF that is read
	note     string      // why DWARF is not read
	symtab   bool        // the binary or its debug file has a symbol table
	text     [2]uint64   // .text address and size; zero when none
	exec     [][2]uint64 // executable PT_LOAD segments: address, memory size
	modTime  time.Time

	reportOnce sync.Once
}

// Module gives the module of a recorded binary path (one per path).
func (r *Resolver) Module(recorded string) *Module {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.mods[recorded]
	if m == nil {
		m = &Module{r: r, Recorded: recorded}
		r.mods[recorded] = m
	}
	return m
}

// File is where the binary was found ("" and why when it was not): the
// recorded path, else the first file of its base name in the search
// directories. Finding needs only stat.
func (m *Module) File() (string, error) {
	m.findOnce.Do(func() {
		if m.Recorded == "" || strings.HasPrefix(m.Recorded, "[") || strings.HasPrefix(m.Recorded, "<") {
			m.findErr = fmt.Errorf("%q is not a file", m.Recorded)
			return
		}
		cands := []string{m.Recorded}
		base := filepath.Base(m.Recorded)
		for _, d := range m.r.dirs {
			cands = append(cands, filepath.Join(d, base))
		}
		for _, c := range cands {
			if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() {
				m.file = c
				return
			}
		}
		if len(m.r.dirs) == 0 {
			m.findErr = errors.New("binary not found at its recorded path (give its folder with --symbols)")
		} else {
			m.findErr = fmt.Errorf("binary not found at its recorded path nor under %s", strings.Join(m.r.dirs, ", "))
		}
	})
	return m.file, m.findErr
}

// Err says why m has no symbols (not found, not ELF, stripped, debug file
// of another build), or nil. It builds the table if need be.
func (m *Module) Err() error {
	_, err := m.table()
	return err
}

// Source says where m's symbols come from, for a README: the binary and
// the debug information used, or why there is none.
func (m *Module) Source() string {
	if _, err := m.table(); err != nil {
		return "none: " + err.Error()
	}
	m.r.mu.Lock()
	s := strings.Join(m.r.used[m.key], " and ") + m.note
	if h := m.r.tables[m.key]; h != nil && !strings.Contains(m.note, "spilled") {
		if _, ok := h.t.(*spilled); ok {
			s += " (spilled to the index)"
		}
	}
	s += " of " + m.file
	m.r.mu.Unlock()
	if m.dbg != "" {
		s += " with debug file " + m.dbg
	}
	return s
}

// Describe says where m's symbols come from without building its table
// (it reads the binary's headers): for a README.
func (m *Module) Describe() string {
	file, err := m.File()
	if err == nil {
		m.loadOnce.Do(func() { m.elfErr = m.identify(file) })
		err = m.elfErr
	}
	if err != nil {
		return "none: " + err.Error()
	}
	var used []string
	switch {
	case m.dwarf && m.dwp != "":
		used = append(used, "DWARF (split, from .dwp "+m.dwp+")")
	case m.dwarf:
		used = append(used, "DWARF")
	}
	if m.symtab {
		used = append(used, "symbol table")
	}
	if len(used) == 0 {
		return "none: " + errNoSymbols.Error()
	}
	s := strings.Join(used, " and ") + m.note
	if p := m.spillPath(); m.dwarf && !strings.Contains(m.note, "spilled") && p != "" {
		if _, err := os.Stat(p); err == nil {
			s += " (spilled to the index)" // by an earlier mount: its table was over the budget
		}
	}
	s += " of " + file
	if m.dbg != "" {
		s += " with debug file " + m.dbg
	}
	return s
}

// Measured is what a measurement recorded of a binary, to tell whether
// the binary found now is the one measured when no build-id was recorded
// (hpcrun, DCPI); a zero field is not compared.
type Measured struct {
	When      time.Time // when the measurement was taken or written
	TextStart uint64    // the text range recorded (DCPI tstart, tsize)
	TextSize  uint64
}

// Compare says whether m's binary can be the one measured. changed is
// set when the recorded text range is not the binary's (not inside an
// executable segment, or the binary's .text reaches outside it): another
// build, whose names would be wrong. newer is set when the binary was
// modified after the measurement: it may have been rebuilt since. Both
// are nil when the binary is not found or not ELF (Err says why); only
// the headers are read.
func (m *Module) Compare(want Measured) (changed, newer error) {
	file, err := m.File()
	if err == nil {
		m.loadOnce.Do(func() { m.elfErr = m.identify(file) })
		err = m.elfErr
	}
	if err != nil {
		return nil, nil
	}
	if want.TextSize > 0 {
		lo, hi := want.TextStart, want.TextStart+want.TextSize
		inSegment := false
		for _, seg := range m.exec {
			inSegment = inSegment || lo >= seg[0] && hi <= seg[0]+seg[1]
		}
		if t := m.text; !inSegment || t[1] > 0 && (t[0] < lo || t[0]+t[1] > hi) {
			changed = fmt.Errorf("%s is another build than the one measured: its text (%#x, %d bytes) does not fit the recorded %#x, %d bytes",
				file, t[0], t[1], want.TextStart, want.TextSize)
		}
	}
	if !want.When.IsZero() && m.modTime.After(want.When) {
		newer = fmt.Errorf("%s was modified (%s) after the measurement (%s): if it was rebuilt, its names may be wrong",
			file, m.modTime.UTC().Format(time.RFC3339), want.When.UTC().Format(time.RFC3339))
	}
	return changed, newer
}

// Frames is Lookup that, the first time m has no symbols, tells report
// why (with the recorded path).
func (m *Module) Frames(addr uint64, report func(error)) []Frame {
	fs := m.Lookup(addr)
	if fs == nil {
		if err := m.Err(); err != nil {
			m.reportOnce.Do(func() { report(fmt.Errorf("symbols of %s: %v", m.Recorded, err)) })
		}
	}
	return fs
}

// Lookup gives the frames at a link-time address of m, innermost first
// (the function holding addr, then the functions its inlined code is
// in); nil when m has no symbols (see Err) or nothing covers addr.
func (m *Module) Lookup(addr uint64) []Frame {
	t, err := m.table()
	if err != nil {
		return nil
	}
	return lookup(t, addr)
}

// table gives m's table: held, else spilled to the index by an earlier
// build, else built (and spilled when over the DWARF limit or when the
// table alone is larger than the budget).
func (m *Module) table() (store, error) {
	file, err := m.File()
	if err != nil {
		return nil, err
	}
	m.loadOnce.Do(func() { m.elfErr = m.identify(file) })
	if m.elfErr != nil {
		return nil, m.elfErr
	}
	r := m.r
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock++
	if m.buildErr != nil {
		return nil, m.buildErr
	}
	if h := r.tables[m.key]; h != nil {
		h.used = r.clock
		return h.t, nil
	}
	spill := m.spillPath()
	if s, used, err := openSpill(spill); err == nil {
		r.used[m.key] = used
		return r.hold(m.key, s, s.size), nil
	}
	t, used, over, err := m.build()
	if err != nil {
		m.buildErr = err
		return nil, err
	}
	if (over || t.bytes() > r.budget) && spill != "" {
		if err := writeSpill(spill, r.indexLimit, t, used); err == nil {
			if s, used, err := openSpill(spill); err == nil {
				t.closeRuns()
				r.used[m.key] = used
				return r.hold(m.key, s, s.size), nil
			}
		}
	}
	if t.lineRuns != nil || t.funcRuns.sortRuns != nil {
		// Not spilled after all: the records are read back into memory.
		var err error
		if t.lineRuns != nil {
			err = t.lineRuns.merge(func(l lineRow) error { t.lines = append(t.lines, l); return nil })
		}
		if t.funcRuns.sortRuns != nil && err == nil {
			err = t.funcRuns.sorted(func(f funcRange) error { t.funcs = append(t.funcs, f); return nil })
		}
		t.closeRuns()
		if err != nil {
			m.buildErr = fmt.Errorf("%s: %v", m.file, err)
			return nil, m.buildErr
		}
	}
	r.used[m.key] = used
	return r.hold(m.key, t, t.bytes()), nil
}

// spillPath is the file of m's spilled table in the index, "" without
// an index: under its build-id, else its file's identity, and its .dwp's.
func (m *Module) spillPath() string {
	if m.r.indexDir == "" {
		return ""
	}
	key := m.key
	if !strings.HasPrefix(key, "build-id:") {
		key += fmt.Sprintf("\x00%d", m.modTime.UnixNano())
	}
	// A .dwp put beside the binary later gives another table (a .dwo
	// file that appears later is not seen: the table stays as built).
	if fi, err := os.Stat(m.dwp); m.dwp != "" && err == nil {
		key += fmt.Sprintf("\x00%s\x00%d\x00%d", m.dwp, fi.Size(), fi.ModTime().UnixNano())
	}
	return render.IndexFile(m.r.indexDir, "symbols\x00"+key)
}

// hold keeps table t (of size bytes) under key; r.mu is held.
func (r *Resolver) hold(key string, t store, size int64) store {
	h := &held{t: t, size: size, used: r.clock}
	r.tables[key] = h
	r.held += h.size
	r.evict(h)
	return t
}

// evict drops the least recently used tables but keep while r holds more
// than its budget.
func (r *Resolver) evict(keep *held) {
	for r.held > r.budget {
		var oldKey string
		var old *held
		for k, h := range r.tables {
			if h != keep && (old == nil || h.used < old.used) {
				oldKey, old = k, h
			}
		}
		if old == nil {
			return
		}
		delete(r.tables, oldKey)
		r.held -= old.size
	}
}

// identify reads the binary's headers: its build-id (the table's key)
// and its separate debug file.
func (m *Module) identify(file string) error {
	f, err := elf.Open(file)
	if err != nil {
		return fmt.Errorf("%s: not an ELF binary: %v", file, err)
	}
	defer f.Close()
	if s := f.Section(".text"); s != nil {
		m.text = [2]uint64{s.Addr, s.Size}
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			m.exec = append(m.exec, [2]uint64{p.Vaddr, p.Memsz})
		}
	}
	if fi, err := os.Stat(file); err == nil {
		m.modTime = fi.ModTime()
	}
	id := buildID(f)
	m.key = "build-id:" + id
	if id == "" {
		m.key = "file:" + file
	}
	m.dwarf, m.symtab = m.readDWARF(f, file), hasSymbols(f)
	m.dwp = dwpPath(file)
	if hasDWARF(f) {
		return nil
	}
	link, crc, hasLink := debugLink(f)
	var mismatch error
	for _, c := range debugCandidates(file, id, link, m.r.roots) {
		if c == file {
			continue
		}
		d, err := elf.Open(c)
		if err != nil {
			continue
		}
		did := buildID(d)
		d.Close()
		switch {
		case id != "" && did != "" && did != id:
			mismatch = fmt.Errorf("debug file %s is of another build (build-id %s, the binary's %s)", c, did, id)
			continue
		case (id == "" || did == "") && hasLink:
			if got, err := fileCRC(c); err != nil || got != crc {
				mismatch = fmt.Errorf("debug file %s is of another build (CRC %08x, the debug link's %08x)", c, got, crc)
				continue
			}
		}
		m.dbg = c
		if d, err := elf.Open(c); err == nil {
			m.dwarf = m.readDWARF(d, c)
			m.symtab = m.symtab || hasSymbols(d)
			d.Close()
		}
		return nil
	}
	if mismatch != nil && !hasSymbols(f) {
		return mismatch
	}
	return nil
}

// readDWARF says whether f (at path) has DWARF that is read: not over
// the limit with its .dwp package (noted when it is).
func (m *Module) readDWARF(f *elf.File, path string) bool {
	if !hasDWARF(f) {
		return false
	}
	if n := dwarfSize(f) + dwpSize(path); n > m.r.maxDWARF && m.r.indexDir != "" {
		m.note = fmt.Sprintf(" (spilled to the index: %d MB, over the %d MB in-memory limit)", n>>20, m.r.maxDWARF>>20)
	} else if n > m.r.maxDWARF {
		m.note = fmt.Sprintf(" (no DWARF: %d MB, over the %d MB limit)", n>>20, m.r.maxDWARF>>20)
		return false
	}
	return true
}

func hasSymbols(f *elf.File) bool {
	s := f.Section(".symtab")
	return s != nil && s.Type != elf.SHT_NOBITS && s.Size > 0
}

// build makes m's table from its binary and debug file; a binary that
// makes debug/dwarf panic is an error of its module.
func (m *Module) build() (t *table, used []string, over bool, err error) {
	// The DWARF is read from a memory map: a file truncated meanwhile
	// faults, which is then a panic recovered here.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("%s: malformed debug information: %v", m.file, p)
		}
	}()
	f, err := elf.Open(m.file)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: %v", m.file, err)
	}
	defer f.Close()
	var dbg *elf.File
	if m.dbg != "" {
		if dbg, err = elf.Open(m.dbg); err != nil {
			return nil, nil, false, fmt.Errorf("%s: %v", m.dbg, err)
		}
		defer dbg.Close()
	}
	t, used, over, err = build(f, dbg, m.file, m.dbg, m.r.maxDWARF, m.r.indexDir)
	if err != nil {
		return nil, nil, false, fmt.Errorf("%s: %v", m.file, err)
	}
	return t, used, over, nil
}
