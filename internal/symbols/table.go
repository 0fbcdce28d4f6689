package symbols

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/ianlancetaylor/demangle"
)

// A Frame is one source-level frame at an address.
type Frame struct {
	Function string // demangled name, "" when unknown
	Raw      string // the name as the binary has it (mangled), "" when unknown
	File     string // source file, "" when unknown
	Line     int    // 0 when unknown
}

// A table answers lookups in one binary: the rows of its line tables,
// the address ranges of its functions and inlined calls (from DWARF) and
// its function symbols (from the ELF symbol table), all sorted by
// address. Strings are interned: fields hold indexes into strs.
type table struct {
	strs      []string
	demangled []atomic.Pointer[string] // per string, made on first use
	lines     []lineRow
	funcs     []funcRange
	syms      []symRange
	// lineRuns and funcRuns hold the line rows and the function ranges
	// instead of lines and funcs when the table was built for the
	// on-disk index over the DWARF limit (see sortRuns); writeSpill
	// merges them.
	lineRuns *sortRuns[lineRow]
	funcRuns funcRuns
}

// closeRuns drops t's runs.
func (t *table) closeRuns() {
	t.lineRuns.close()
	t.funcRuns.sortRuns.close()
	t.lineRuns, t.funcRuns.sortRuns = nil, nil
}

// A lineRow starts a run of addresses at one source line; file -1 ends a
// sequence.
type lineRow struct {
	addr uint64
	file int32
	line int32
}

// A funcRange is one address range of a subprogram (parent -1) or of an
// inlined call inside the range parent; call file and line are where the
// inlined call is in the parent's code.
type funcRange struct {
	lo, hi   uint64
	parent   int32
	name     int32
	callFile int32
	callLine int32
}

type symRange struct {
	lo, hi uint64
	name   int32
}

// bytes estimates the memory the table holds.
func (t *table) bytes() int64 {
	n := int64(len(t.lines))*16 + int64(len(t.demangled))*8 + int64(len(t.funcs))*40 + int64(len(t.syms))*24
	for _, s := range t.strs {
		n += int64(len(s)) + 16
	}
	return n
}

// A store is what a lookup reads: an in-memory table, or a table
// spilled to the on-disk index (spilled).
type store interface {
	// line is the source line of addr: the last line row at or below
	// addr of the sequence that holds it; file -1 when none.
	line(addr uint64) (file, line int32)
	// lastFunc is the last function range starting at or below addr, -1
	// when none.
	lastFunc(addr uint64) int32
	funcAt(i int32) funcRange
	// sym is the name of the symbol holding addr, -1 when none.
	sym(addr uint64) int32
	frame(name, file, line int32) Frame
}

// lookup gives the frames at addr, innermost first (as addr2line -i
// prints them); nil when nothing is known about addr.
func lookup(t store, addr uint64) []Frame {
	file, line := t.line(addr)
	fi := enclosing(t, t.lastFunc(addr), addr)
	if fi < 0 {
		name := t.sym(addr)
		if name < 0 && file < 0 {
			return nil
		}
		return []Frame{t.frame(name, file, line)}
	}
	var out []Frame
	for depth := 0; fi >= 0 && depth < 1024; depth++ {
		f := t.funcAt(fi)
		out = append(out, t.frame(f.name, file, line))
		if f.parent < 0 {
			break
		}
		file, line = f.callFile, f.callLine
		fi = enclosing(t, f.parent, addr)
	}
	return out
}

// enclosing walks from range i to its parents until one holds addr.
// Ranges nest (a range that holds addr holds the range with the largest
// start at or below addr, or is it), so the innermost range holding addr
// is enclosing(lastFunc(addr)).
func enclosing(t store, i int32, addr uint64) int32 {
	for depth := 0; i >= 0 && depth < 1024; depth++ {
		f := t.funcAt(i)
		if f.lo <= addr && addr < f.hi {
			return i
		}
		i = f.parent
	}
	return -1
}

func (t *table) frame(name, file, line int32) Frame {
	var f Frame
	if name >= 0 {
		f.Raw = t.strs[name]
		d := t.demangled[name].Load()
		if d == nil {
			s := Demangle(f.Raw)
			d = &s
			t.demangled[name].Store(d)
		}
		f.Function = *d
	}
	if file >= 0 {
		f.File = t.strs[file]
		f.Line = int(line)
	}
	return f
}

// Demangle gives the C++ (or Rust) name that raw encodes, with its
// parameters, as addr2line -C prints it; other names are returned as
// they are.
func Demangle(raw string) string {
	if !strings.HasPrefix(raw, "_Z") && !strings.HasPrefix(raw, "_R") {
		return raw
	}
	return demangle.Filter(raw)
}

func (t *table) line(addr uint64) (file, line int32) {
	k := sort.Search(len(t.lines), func(i int) bool { return t.lines[i].addr > addr }) - 1
	if k < 0 || t.lines[k].file < 0 {
		return -1, 0
	}
	return t.lines[k].file, t.lines[k].line
}

func (t *table) lastFunc(addr uint64) int32 {
	return int32(sort.Search(len(t.funcs), func(i int) bool { return t.funcs[i].lo > addr }) - 1)
}

func (t *table) funcAt(i int32) funcRange { return t.funcs[i] }

func (t *table) sym(addr uint64) int32 {
	if k := sort.Search(len(t.syms), func(i int) bool { return t.syms[i].lo > addr }) - 1; k >= 0 && addr < t.syms[k].hi {
		return t.syms[k].name
	}
	return -1
}

// builder collects a table.
type builder struct {
	t     table
	index map[string]int32

	splitUnits, splitMissing int // skeleton units whose split unit was read, was not
	splitDWP                 int // of splitUnits, those read from a .dwp package
	dwpFile                  string

	// The DWARF read so far (the binary's, then its .dwo files and
	// package) and the most whose table is kept in memory; over says it
	// passed that, when spill lets it be read all the same.
	dwarfBytes, maxDWARF int64
	spill, over          bool
	// spillDir is the index folder; when over, line rows and function
	// ranges go to runs there as they are read, funcs holding those from
	// index funcBase on.
	spillDir string
	funcBase int32
}

// overLimit says the DWARF of a binary with its split units is larger
// than the limit.
type overLimit struct{ n, max int64 }

func (e overLimit) Error() string {
	return fmt.Sprintf("%d MB with its split units, over the %d MB limit", e.n>>20, e.max>>20)
}

func (b *builder) str(s string) int32 {
	if i, ok := b.index[s]; ok {
		return i
	}
	if b.index == nil {
		b.index = map[string]int32{}
	}
	i := int32(len(b.t.strs))
	b.t.strs = append(b.t.strs, s)
	b.index[s] = i
	return i
}

// addSymbols adds the function symbols of f's .symtab, or of its
// .dynsym when it has none.
func (b *builder) addSymbols(f *elf.File) {
	syms, err := f.Symbols()
	if err != nil || len(syms) == 0 {
		syms, _ = f.DynamicSymbols()
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 || s.Section == elf.SHN_UNDEF {
			continue
		}
		hi := s.Value + max(s.Size, 1)
		if int(s.Section) < len(f.Sections) {
			sec := f.Sections[s.Section]
			hi = max(hi, sec.Addr+sec.Size)
		}
		b.t.syms = append(b.t.syms, symRange{s.Value, hi, b.str(s.Name)})
	}
	// At one address the first symbol of the file names it; a symbol
	// holds the addresses up to the next one in its section, as
	// addr2line's fallback has it (padding after a function is named
	// after the function).
	slices.SortStableFunc(b.t.syms, func(x, y symRange) int { return cmp.Compare(x.lo, y.lo) })
	b.t.syms = slices.CompactFunc(b.t.syms, func(x, y symRange) bool { return x.lo == y.lo })
	for i := 0; i+1 < len(b.t.syms); i++ {
		b.t.syms[i].hi = min(b.t.syms[i].hi, b.t.syms[i+1].lo)
	}
}

// addDWARF adds the line tables and the function ranges of d, the DWARF
// of the binary f at path; a skeleton unit's functions come from its
// .dwo file (a .dwo that is missing or unreadable leaves them out).
func (b *builder) addDWARF(d *dwarf.Data, f *mappedFile, path string) error {
	r := d.Reader()
	var sr *splitReader
	defer func() {
		if sr != nil {
			sr.close()
		}
	}()
	names := map[dwarf.Offset]int32{}
	for {
		cu, err := r.Next()
		if err != nil {
			return err
		}
		if cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagSkeletonUnit {
			r.SkipChildren()
			continue
		}
		b.addLines(d, cu)
		if cu.Children {
			files := cuFiles(d, cu)
			if err := b.addFuncs(d, d.Ranges, r, cu, files, names); err != nil {
				return err
			}
		}
		if dwoName(cu) != "" {
			if sr == nil {
				sr = newSplitReader(f, path)
			}
			u, fromDWP, err := sr.open(cu)
			if n := b.dwarfBytes + sr.read; n > b.maxDWARF && !b.spill {
				return overLimit{n, b.maxDWARF}
			} else if n > b.maxDWARF {
				b.over = true
			}
			if err == nil {
				b.splitUnits++
				if fromDWP {
					b.splitDWP++
					b.dwpFile = sr.pkg.path
				}
				ur := u.d.Reader()
				if _, err := ur.Next(); err == nil && u.cu.Children {
					b.addFuncs(u.d, u.ranges, ur, u.cu, u.files, map[dwarf.Offset]int32{})
				}
			} else {
				b.splitMissing++
			}
		}
		if err := b.spillRuns(); err != nil {
			return err
		}
	}
	if b.t.lineRuns != nil || b.t.funcRuns.sortRuns != nil {
		b.spillLines(0)
		b.spillFuncs(0)
		b.t.lines, b.t.funcs = nil, nil
		if b.t.lineRuns != nil && b.t.lineRuns.err != nil {
			return b.t.lineRuns.err
		}
		if b.t.funcRuns.sortRuns != nil {
			return b.t.funcRuns.err
		}
		return nil
	}
	// Ranges by start, outer before inner at one start; the parent links
	// are remapped to the new order.
	order := make([]int32, len(b.t.funcs))
	for i := range order {
		order[i] = int32(i)
	}
	depth := func(i int32) int { return funcDepth(b.t.funcs, 0, i) }
	slices.SortStableFunc(order, func(x, y int32) int {
		if c := cmp.Compare(b.t.funcs[x].lo, b.t.funcs[y].lo); c != 0 {
			return c
		}
		return cmp.Compare(depth(x), depth(y))
	})
	where := make([]int32, len(order))
	sorted := make([]funcRange, len(order))
	for to, from := range order {
		where[from] = int32(to)
		sorted[to] = b.t.funcs[from]
	}
	for i := range sorted {
		if p := sorted[i].parent; p >= 0 {
			sorted[i].parent = where[p]
		}
	}
	b.t.funcs = sorted
	slices.SortStableFunc(b.t.lines, lessLine)
	return nil
}

// funcDepth is how many ranges enclose range i of funcs, which holds
// the ranges from index base on (their parents among them).
func funcDepth(funcs []funcRange, base, i int32) int {
	n := 0
	for p := funcs[i-base].parent; p >= base && p-base < int32(len(funcs)) && n < 1024; p = funcs[p-base].parent {
		n++
	}
	return n
}

// spillRuns writes the line rows and the function ranges read so far
// as sorted runs when the table goes to the index and they are many.
// It is called between compile units (and addLines and addFuncs spill
// between sequences and between a unit's entries): an inlined call's
// parent is among the ranges of its subprogram.
func (b *builder) spillRuns() error {
	if !b.over || b.spillDir == "" {
		return nil
	}
	if err := b.spillLines(runRows); err != nil {
		return err
	}
	return b.spillFuncs(runRows / 4)
}

// spillLines writes the line rows held as a run when they are at least
// n.
func (b *builder) spillLines(n int) error {
	if len(b.t.lines) < max(n, 1) {
		return nil
	}
	if b.t.lineRuns == nil {
		l, err := newSortRuns(b.spillDir, lineRecordOf)
		if err != nil {
			return err
		}
		b.t.lineRuns = l
	}
	b.t.lineRuns.add(b.t.lines)
	b.t.lines = b.t.lines[:0]
	return b.t.lineRuns.err
}

// spillFuncs writes the function ranges held as a run, with their
// depths and indexes, when they are at least n.
func (b *builder) spillFuncs(n int) error {
	if len(b.t.funcs) < max(n, 1) {
		return nil
	}
	if b.t.funcRuns.sortRuns == nil {
		l, err := newSortRuns(b.spillDir, funcRunRecordOf)
		if err != nil {
			return err
		}
		b.t.funcRuns.sortRuns = l
	}
	rs := make([]funcRun, len(b.t.funcs))
	for i, f := range b.t.funcs {
		rs[i] = funcRun{f, int32(funcDepth(b.t.funcs, b.funcBase, int32(i)+b.funcBase)), int32(i) + b.funcBase}
	}
	b.t.funcRuns.add(rs)
	b.funcBase += int32(len(b.t.funcs))
	b.t.funcs = b.t.funcs[:0]
	return b.t.funcRuns.err
}

func (b *builder) addLines(d *dwarf.Data, cu *dwarf.Entry) {
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return
	}
	var e dwarf.LineEntry
	seq := len(b.t.lines) // where the current sequence starts
	for {
		if err := lr.Next(&e); err != nil {
			return
		}
		row := lineRow{e.Address, -1, 0}
		if !e.EndSequence && e.File != nil {
			row = lineRow{e.Address, b.str(e.File.Name), int32(e.Line)}
		}
		// Of rows at one address in a sequence the last holds it.
		if n := len(b.t.lines); n > seq && b.t.lines[n-1].addr == row.addr {
			b.t.lines[n-1] = row
		} else {
			b.t.lines = append(b.t.lines, row)
		}
		if e.EndSequence {
			if b.over && b.spillDir != "" {
				b.spillLines(runRows) // an error is the unit's spillRuns's
			}
			seq = len(b.t.lines)
		}
	}
}

// cuFiles is the file table of cu's line program, for DW_AT_call_file.
func cuFiles(d *dwarf.Data, cu *dwarf.Entry) []*dwarf.LineFile {
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return nil
	}
	return lr.Files()
}

// addFuncs reads the entries of one compile unit (r is after cu) and
// adds the ranges of its subprograms and inlined calls (as rangesOf
// gives them).
func (b *builder) addFuncs(d *dwarf.Data, rangesOf func(*dwarf.Entry) ([][2]uint64, error), r *dwarf.Reader, cu *dwarf.Entry, files []*dwarf.LineFile, names map[dwarf.Offset]int32) error {
	// stack holds, per open entry with children, the first of its ranges
	// and how many (0 for entries without code).
	type open struct{ first, n int32 }
	stack := []open{{-1, 0}}
	for len(stack) > 0 {
		if len(stack) == 1 && b.over && b.spillDir != "" {
			// Between the unit's entries no range is a parent to come.
			if err := b.spillFuncs(runRows / 4); err != nil {
				return err
			}
		}
		e, err := r.Next()
		if err != nil {
			return err
		}
		if e == nil {
			return io.ErrUnexpectedEOF
		}
		if e.Tag == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		top := stack[len(stack)-1]
		cur := open{top.first, top.n} // lexical blocks and the like are transparent
		switch e.Tag {
		case dwarf.TagSubprogram, dwarf.TagInlinedSubroutine:
			ranges, err := rangesOf(e)
			if err != nil || len(ranges) == 0 {
				if e.Tag == dwarf.TagSubprogram {
					cur = open{-1, 0}
				}
				break
			}
			name := b.name(d, e, names)
			callFile, callLine := int32(-1), int32(0)
			parentFirst, parentN := top.first, top.n
			if e.Tag == dwarf.TagSubprogram {
				parentFirst, parentN = -1, 0
			} else {
				if k, ok := e.Val(dwarf.AttrCallFile).(int64); ok && k >= 0 && k < int64(len(files)) && files[k] != nil {
					callFile = b.str(files[k].Name)
				}
				if l, ok := e.Val(dwarf.AttrCallLine).(int64); ok {
					callLine = int32(l)
				}
			}
			cur = open{b.funcBase + int32(len(b.t.funcs)), 0}
			for _, rg := range ranges {
				if rg[0] == 0 || rg[0] >= rg[1] {
					continue // discarded code
				}
				parent := int32(-1)
				for p := parentFirst; p >= 0 && p < parentFirst+parentN; p++ {
					if pr := &b.t.funcs[p-b.funcBase]; pr.lo <= rg[0] && rg[0] < pr.hi {
						parent = p
						break
					}
				}
				if parent < 0 && parentN > 0 {
					parent = parentFirst
				}
				b.t.funcs = append(b.t.funcs, funcRange{rg[0], rg[1], parent, name, callFile, callLine})
				cur.n++
			}
		case dwarf.TagCompileUnit, dwarf.TagPartialUnit, dwarf.TagTypeUnit:
			r.SkipChildren()
			continue
		}
		if e.Children {
			stack = append(stack, cur)
		}
	}
	return nil
}

// name is the raw name of a subprogram or inlined call: its linkage
// name, else its name, following abstract origins and specifications.
func (b *builder) name(d *dwarf.Data, e *dwarf.Entry, names map[dwarf.Offset]int32) int32 {
	if i, ok := names[e.Offset]; ok {
		return i
	}
	i := int32(-1)
	var plain string
	cur := e
	for depth := 0; cur != nil && depth < 16; depth++ {
		if s, ok := cur.Val(dwarf.AttrLinkageName).(string); ok && s != "" {
			i = b.str(s)
			break
		}
		if s, ok := cur.Val(attrMIPSLinkageName).(string); ok && s != "" {
			i = b.str(s)
			break
		}
		if s, ok := cur.Val(dwarf.AttrName).(string); ok && plain == "" {
			plain = s
		}
		ref, ok := cur.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			if ref, ok = cur.Val(dwarf.AttrSpecification).(dwarf.Offset); !ok {
				break
			}
		}
		cur = entryAt(d, ref)
	}
	if i < 0 && plain != "" {
		i = b.str(plain)
	}
	if len(names) >= maxNames {
		clear(names) // a cache: a name is found again the same
	}
	names[e.Offset] = i
	return i
}

// maxNames bounds the names cached by entry while a binary is read.
const maxNames = 1 << 15

const attrMIPSLinkageName dwarf.Attr = 0x2007

func entryAt(d *dwarf.Data, off dwarf.Offset) *dwarf.Entry {
	r := d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil {
		return nil
	}
	return e
}

// errNoSymbols says a binary has neither DWARF nor function symbols.
var errNoSymbols = errors.New("stripped: no DWARF and no symbol table")

// build makes the table of a binary (f) and its separate debug file
// (dbg, nil when none): DWARF first (of dbg, else of f) unless it is
// unreadable or larger than maxDWARF bytes (then read all the same when
// spill is set, and over says so), then the symbol table (of f, else of
// dbg). It says what it used, and why DWARF was left out.
func build(f, dbg *elf.File, path, dbgPath string, maxDWARF int64, spillDir string) (t *table, used []string, over bool, err error) {
	var b builder
	spill := spillDir != ""
	defer func() {
		if err != nil || t == nil { // or debug/dwarf panicked
			b.t.closeRuns()
		}
	}()
	for i, x := range []*elf.File{dbg, f} {
		if x == nil || !hasDWARF(x) {
			continue
		}
		xPath := []string{dbgPath, path}[i]
		size := dwarfSize(x) + dwpSize(xPath)
		if size > maxDWARF && !spill {
			break // Module.note says so
		}
		b.dwarfBytes, b.maxDWARF, b.spill, b.over, b.spillDir = dwarfSize(x), maxDWARF, spill, size > maxDWARF, spillDir
		mf := mapELF(x, xPath)
		d, err := mf.dwarf()
		if err == nil {
			err = b.addDWARF(d, mf, xPath)
		}
		mf.close()
		if err != nil {
			b.t.closeRuns()
			b = builder{}
			used = append(used, "no DWARF ("+err.Error()+")")
			break
		}
		over = b.over
		switch {
		case x == dbg:
			used = append(used, "DWARF (debug file)")
		case b.splitMissing > 0:
			used = append(used, fmt.Sprintf("DWARF (split: %d of %d .dwo files missing, no inlined calls there)", b.splitMissing, b.splitMissing+b.splitUnits))
		case b.splitDWP == b.splitUnits && b.splitUnits > 0:
			used = append(used, "DWARF (split, from .dwp "+b.dwpFile+")")
		case b.splitDWP > 0:
			used = append(used, fmt.Sprintf("DWARF (split: %d of %d units from .dwp %s, the rest from .dwo files)", b.splitDWP, b.splitUnits, b.dwpFile))
		case b.splitUnits > 0:
			used = append(used, "DWARF (split, with its .dwo files)")
		default:
			used = append(used, "DWARF")
		}
		break
	}
	for _, x := range []*elf.File{f, dbg} {
		if x == nil {
			continue
		}
		b.addSymbols(x)
		if len(b.t.syms) > 0 {
			used = append(used, "symbol table")
			break
		}
	}
	if len(b.t.syms) == 0 && len(b.t.funcs) == 0 && len(b.t.lines) == 0 && b.t.lineRuns == nil && b.t.funcRuns.sortRuns == nil {
		return nil, nil, false, errNoSymbols
	}
	b.t.strs = slices.Clip(b.t.strs)
	b.t.demangled = make([]atomic.Pointer[string], len(b.t.strs))
	b.t.lines = slices.Clip(b.t.lines)
	b.t.syms = slices.Clip(b.t.syms)
	return &b.t, used, over, nil
}

// dwarfSize is the decompressed size of f's DWARF sections: about what
// reading them holds in memory.
func dwarfSize(f *elf.File) int64 {
	var n int64
	for _, s := range f.Sections {
		if strings.HasPrefix(s.Name, ".debug_") && s.Type != elf.SHT_NOBITS {
			n += int64(s.Size)
		}
	}
	return n
}

func hasDWARF(f *elf.File) bool {
	s := f.Section(".debug_info")
	return s != nil && s.Type != elf.SHT_NOBITS
}
