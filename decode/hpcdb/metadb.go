package hpcdb

import (
	"bytes"
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// meta.db (the meta.db generation, HPCToolkit 2022.10 and later): the
// database's metadata in eight sections. Every structure whose size the
// file records (metrics, scopes, summaries, modules, files, functions,
// entry points, contexts' flex words) is read with the recorded stride, so
// files of a later minor version with longer structures still decode.

// Meta.db section indices, in header order.
const (
	SecGeneral = iota
	SecIDNames
	SecMetrics
	SecContext
	SecStrings
	SecModules
	SecFiles
	SecFunctions
	numMetaSections
)

// MetaSectionNames names the sections of meta.db in header order.
var MetaSectionNames = [numMetaSections]string{"general", "id_names", "metrics", "context", "strings", "modules", "files", "functions"}

// A PropScope is one propagation scope of the Performance Metrics section.
type PropScope struct {
	Name  string
	Type  uint8 // 0 custom, 1 point, 2 execution, 3 transitive
	Index uint8 // propagationIndex (transitive scopes)
}

// ScopeTypeName names a propagation scope type.
func ScopeTypeName(t uint8) string {
	switch t {
	case 0:
		return "custom"
	case 1:
		return "point"
	case 2:
		return "execution"
	case 3:
		return "transitive"
	}
	return "[" + strconv.Itoa(int(t)) + "]"
}

// A ScopeInst is one propagated sub-metric: its scope (index in
// MetaDB.Scopes, -1 when the pointer matches none) and the metric id of
// its values in profile.db and cct.db.
type ScopeInst struct {
	Scope        int
	PropMetricID uint16
}

// A Summary is one summary statistic of a metric: the values of the
// summary profiles under StatMetricID.
type Summary struct {
	Scope        int
	Formula      string // unary function applied to each thread's value ("$$" = identity)
	Combine      uint8  // 0 sum, 1 min, 2 max
	StatMetricID uint16
}

// CombineName names a summary's combination function as METRICS.yaml does.
func CombineName(c uint8) string {
	switch c {
	case 0:
		return "sum"
	case 1:
		return "min"
	case 2:
		return "max"
	}
	return "[" + strconv.Itoa(int(c)) + "]"
}

// A MetricDesc is one metric of the Performance Metrics section.
type MetricDesc struct {
	Name      string
	Scopes    []ScopeInst
	Summaries []Summary
}

// A LoadModule is one load module.
type LoadModule struct {
	Flags uint32
	Path  string
}

// A SourceFile is one source file; Flags bit 0 says it was copied into
// the database.
type SourceFile struct {
	Flags uint32
	Path  string
}

// A Function is one function (possibly anonymous: Name "").
type Function struct {
	Name   string
	Module int64 // index in Modules, -1 when none
	Offset uint64
	File   int64 // index in Files, -1 when none
	Line   uint32
	Flags  uint32
}

// Relation of a context to its parent.
const (
	RelLexical = 0
	RelCall    = 1
	RelInlined = 2
	RelEntry   = 255 // an entry point (not stored: its parent is the global context)
)

// RelationName names a relation as hpcviewer's readers do.
func RelationName(r uint8) string {
	switch r {
	case RelLexical:
		return "lexical"
	case RelCall:
		return "call"
	case RelInlined:
		return "inlined_call"
	case RelEntry:
		return "entry_point"
	}
	return "[" + strconv.Itoa(int(r)) + "]"
}

// Lexical types of a context.
const (
	LexFunction    = 0
	LexLoop        = 1
	LexLine        = 2
	LexInstruction = 3
	LexEntry       = 255 // an entry point
)

// LexicalName names a lexical type.
func LexicalName(l uint8) string {
	switch l {
	case LexFunction:
		return "function"
	case LexLoop:
		return "loop"
	case LexLine:
		return "line"
	case LexInstruction:
		return "instruction"
	case LexEntry:
		return "entry_point"
	}
	return "[" + strconv.Itoa(int(l)) + "]"
}

// EntryPointName is the canonical name of an entry point kind.
func EntryPointName(k uint16) string {
	switch k {
	case 0:
		return "unknown entry"
	case 1:
		return "main thread"
	case 2:
		return "application thread"
	}
	return "entry point " + strconv.Itoa(int(k))
}

// A MetaDB is a decoded meta.db. Sections that fail to decode leave what
// was decoded before the damage and an error in Problems.
type MetaDB struct {
	file
	Major, Minor uint8
	Sections     [numMetaSections]Section

	Title, Description string
	IDNames            []string // index = identifier kind
	Metrics            []MetricDesc
	Scopes             []PropScope
	Modules            []LoadModule
	Files              []SourceFile
	Functions          []Function
	// Contexts is the context tree in depth-first order as Nodes: Nodes[0]
	// is the implicit global context (id 0), entry points are its children
	// (Kind NodeEntry, Proc = -2 - index in EntryNames). Kind is NodePF for
	// functions (Proc = index in Functions, -1 when unknown), NodeL, NodeS
	// and NodeInstr; Rel and Lex keep the stored relation and lexical type.
	Contexts   []Node
	EntryNames []string // pretty names of the entry points
	EntryKinds []uint16
	MaxCtx     int64 // largest context id

	// Problems lists what was malformed, in the order met.
	Problems decode.Problems

	strings    []byte // the Common String Table while decoding
	strOff     uint64
	footerSeen FooterStatus
}

const maxString = 1 << 16 // longest string read outside the string table

// NewMetaDB decodes the meta.db in r.
func NewMetaDB(r io.ReaderAt, size int64) (*MetaDB, error) {
	m := &MetaDB{file: file{r: r, size: size, name: "meta.db"}}
	major, minor, secs, err := m.v4Header(FormatMeta, numMetaSections)
	m.Major, m.Minor = major, minor
	if err != nil {
		return nil, err
	}
	copy(m.Sections[:], secs)
	m.loadStrings()
	m.general()
	m.idNames()
	m.metrics()
	modPtr := m.modules()
	filePtr := m.files()
	fnPtr := m.functions(modPtr, filePtr)
	m.contexts(fnPtr, filePtr, modPtr)
	m.strings = nil
	return m, nil
}

// OpenMetaDB decodes the meta.db at path; the file is closed on return.
func OpenMetaDB(path string) (*MetaDB, error) {
	var m *MetaDB
	c, err := decode.OpenFile(path, func(r io.ReaderAt, size int64) (err error) {
		m, err = NewMetaDB(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.Close()
	m.r = nil
	return m, nil
}

// Footer reports how the file ends.
func (m *MetaDB) Footer() FooterStatus { return m.footerSeen }

func (m *MetaDB) fail(err error) { m.Problems.Add(err) }

func (m *MetaDB) loadStrings() {
	s := m.Sections[SecStrings]
	m.footerSeen = m.footer4(MetaFooter)
	if s.Size == 0 {
		return
	}
	b, err := m.read(int64(min(s.Ptr, uint64(m.size)+1)), int64(min(s.Size, uint64(m.size)+1)), "string table")
	if err != nil {
		m.fail(err)
		return
	}
	m.strings, m.strOff = b, s.Ptr
}

// str reads the NUL-terminated string at ptr; 0 is "".
func (m *MetaDB) str(ptr uint64, what string) (string, error) {
	if ptr == 0 {
		return "", nil
	}
	if ptr >= m.strOff && ptr-m.strOff < uint64(len(m.strings)) {
		b := m.strings[ptr-m.strOff:]
		if k := bytes.IndexByte(b, 0); k >= 0 {
			return string(b[:k]), nil
		}
		return "", m.errAt(int64(ptr), what+" string not terminated in the string table", nil)
	}
	if ptr >= uint64(m.size) {
		return "", m.truncAt(int64(min(ptr, uint64(m.size))), what+" string past the end of the file")
	}
	var out []byte
	var buf [256]byte
	for off := int64(ptr); len(out) < maxString; off += int64(len(buf)) {
		n, _ := m.r.ReadAt(buf[:], off)
		if n == 0 {
			return "", m.truncAt(int64(ptr), what+" string runs past the end of the file")
		}
		if k := bytes.IndexByte(buf[:n], 0); k >= 0 {
			return string(append(out, buf[:k]...)), nil
		}
		out = append(out, buf[:n]...)
	}
	return "", m.errAt(int64(ptr), what+" string too long", nil)
}

// section reads the first n bytes of section i; ok is false (and the
// problem recorded) when the section is absent or damaged.
func (m *MetaDB) section(i int, n int64) ([]byte, bool) {
	s := m.Sections[i]
	if s.Size == 0 && s.Ptr == 0 {
		return nil, false
	}
	b, err := m.sectionHeader(s, n, MetaSectionNames[i], 0x10+int64(i)*16)
	if err != nil {
		m.fail(err)
		return nil, false
	}
	return b, true
}

// array reads count elements of stride bytes at ptr, which must lie in
// section i; it returns the elements that fit, recording an error when
// some do not.
func (m *MetaDB) array(i int, ptr, count, stride uint64, what string) ([]byte, uint64) {
	s := m.Sections[i]
	if stride == 0 || count == 0 {
		return nil, 0
	}
	end := min(s.Ptr+s.Size, uint64(m.size))
	if s.Ptr+s.Size < s.Ptr || ptr < s.Ptr || ptr > end {
		m.fail(m.errAt(int64(min(ptr, uint64(m.size))), what+" outside their section", ptr))
		return nil, 0
	}
	if avail := (end - ptr) / stride; count > avail {
		m.fail(m.truncAt(int64(ptr+avail*stride), what+" run past the end of their section"))
		count = avail
	}
	b, err := m.read(int64(ptr), int64(count*stride), what)
	if err != nil {
		m.fail(err)
		return nil, 0
	}
	return b, count
}

func (m *MetaDB) general() {
	b, ok := m.section(SecGeneral, 0x10)
	if !ok {
		return
	}
	var err error
	if m.Title, err = m.str(le.Uint64(b), "title"); err != nil {
		m.fail(err)
	}
	if m.Description, err = m.str(le.Uint64(b[8:]), "description"); err != nil {
		m.fail(err)
	}
}

func (m *MetaDB) idNames() {
	b, ok := m.section(SecIDNames, 0x09)
	if !ok {
		return
	}
	ptrs, n := m.array(SecIDNames, le.Uint64(b), uint64(b[8]), 8, "identifier names")
	m.IDNames = make([]string, n)
	for k := range m.IDNames {
		s, err := m.str(le.Uint64(ptrs[k*8:]), "identifier name")
		if err != nil {
			m.fail(err)
		}
		m.IDNames[k] = s
	}
}

func (m *MetaDB) metrics() {
	b, ok := m.section(SecMetrics, 0x1b)
	if !ok {
		return
	}
	pMetrics, nMetrics := le.Uint64(b), uint64(le.Uint32(b[8:]))
	szMetric, szInst, szSum := uint64(b[12]), uint64(b[13]), uint64(b[14])
	pScopes, nScopes, szScope := le.Uint64(b[16:]), uint64(le.Uint16(b[24:])), uint64(b[26])
	if szMetric < 0x1c || szInst < 0x0a || szSum < 0x14 || szScope < 0x0a {
		m.fail(m.errAt(int64(m.Sections[SecMetrics].Ptr)+12, "metric structure sizes too small", []uint64{szMetric, szInst, szSum, szScope}))
		return
	}
	scopeIdx := map[uint64]int{}
	sb, ns := m.array(SecMetrics, pScopes, nScopes, szScope, "propagation scopes")
	for k := uint64(0); k < ns; k++ {
		e := sb[k*szScope:]
		name, err := m.str(le.Uint64(e), "scope name")
		if err != nil {
			m.fail(err)
		}
		scopeIdx[pScopes+k*szScope] = len(m.Scopes)
		m.Scopes = append(m.Scopes, PropScope{Name: name, Type: e[8], Index: e[9]})
	}
	scope := func(p uint64) int {
		if k, ok := scopeIdx[p]; ok {
			return k
		}
		return -1
	}
	mb, nm := m.array(SecMetrics, pMetrics, nMetrics, szMetric, "metrics")
	for k := uint64(0); k < nm; k++ {
		e := mb[k*szMetric:]
		name, err := m.str(le.Uint64(e), "metric name")
		if err != nil {
			m.fail(err)
		}
		md := MetricDesc{Name: name}
		ib, ni := m.array(SecMetrics, le.Uint64(e[8:]), uint64(le.Uint16(e[24:])), szInst, "scope instances")
		for j := uint64(0); j < ni; j++ {
			f := ib[j*szInst:]
			md.Scopes = append(md.Scopes, ScopeInst{Scope: scope(le.Uint64(f)), PropMetricID: le.Uint16(f[8:])})
		}
		xb, nx := m.array(SecMetrics, le.Uint64(e[16:]), uint64(le.Uint16(e[26:])), szSum, "summaries")
		for j := uint64(0); j < nx; j++ {
			f := xb[j*szSum:]
			frm, err := m.str(le.Uint64(f[8:]), "formula")
			if err != nil {
				m.fail(err)
			}
			md.Summaries = append(md.Summaries, Summary{Scope: scope(le.Uint64(f)), Formula: frm, Combine: f[16], StatMetricID: le.Uint16(f[18:])})
		}
		m.Metrics = append(m.Metrics, md)
	}
}

// table reads a {pArray, u32 n, u16 size} section header and its array;
// it returns the array, the count, the stride and the array's offset.
func (m *MetaDB) table(i int, minSize uint64, what string) ([]byte, uint64, uint64, uint64) {
	b, ok := m.section(i, 0x0e)
	if !ok {
		return nil, 0, 0, 0
	}
	p, n, sz := le.Uint64(b), uint64(le.Uint32(b[8:])), uint64(le.Uint16(b[12:]))
	if sz < minSize {
		m.fail(m.errAt(int64(m.Sections[i].Ptr)+12, what+" size too small", sz))
		return nil, 0, 0, 0
	}
	a, n := m.array(i, p, n, sz, what)
	return a, n, sz, p
}

// ptrIndex maps pointers to the elements of an array to their index.
type ptrIndex struct{ base, stride, n uint64 }

func (p ptrIndex) index(ptr uint64) int64 {
	if ptr == 0 || p.stride == 0 || ptr < p.base || (ptr-p.base)%p.stride != 0 || (ptr-p.base)/p.stride >= p.n {
		return -1
	}
	return int64((ptr - p.base) / p.stride)
}

func (m *MetaDB) modules() ptrIndex {
	a, n, sz, p := m.table(SecModules, 0x10, "load modules")
	m.Modules = make([]LoadModule, n)
	for k := range m.Modules {
		e := a[uint64(k)*sz:]
		path, err := m.str(le.Uint64(e[8:]), "module path")
		if err != nil {
			m.fail(err)
		}
		m.Modules[k] = LoadModule{Flags: le.Uint32(e), Path: path}
	}
	return ptrIndex{p, sz, n}
}

func (m *MetaDB) files() ptrIndex {
	a, n, sz, p := m.table(SecFiles, 0x10, "source files")
	m.Files = make([]SourceFile, n)
	for k := range m.Files {
		e := a[uint64(k)*sz:]
		path, err := m.str(le.Uint64(e[8:]), "file path")
		if err != nil {
			m.fail(err)
		}
		m.Files[k] = SourceFile{Flags: le.Uint32(e), Path: path}
	}
	return ptrIndex{p, sz, n}
}

func (m *MetaDB) functions(mods, files ptrIndex) ptrIndex {
	a, n, sz, p := m.table(SecFunctions, 0x28, "functions")
	m.Functions = make([]Function, n)
	for k := range m.Functions {
		e := a[uint64(k)*sz:]
		name, err := m.str(le.Uint64(e), "function name")
		if err != nil {
			m.fail(err)
		}
		m.Functions[k] = Function{Name: name, Module: mods.index(le.Uint64(e[8:])), Offset: le.Uint64(e[16:]),
			File: files.index(le.Uint64(e[24:])), Line: le.Uint32(e[32:]), Flags: le.Uint32(e[36:])}
	}
	return ptrIndex{p, sz, n}
}

// ctxFrame is one children array being walked.
type ctxFrame struct {
	b      []byte
	off    uint64 // file offset of b
	parent int32
}

const ctxMinSize = 0x20

func (m *MetaDB) contexts(fns, files, mods ptrIndex) {
	m.Contexts = []Node{{Kind: NodeRoot, Parent: -1, Proc: -1, File: -1, Module: -1, Rel: RelEntry, Lex: LexEntry}}
	b, ok := m.section(SecContext, 0x0b)
	if !ok {
		return
	}
	sec := m.Sections[SecContext]
	pEntries, nEntries, szEntry := le.Uint64(b), uint64(le.Uint16(b[8:])), uint64(b[10])
	if szEntry < 0x20 {
		m.fail(m.errAt(int64(sec.Ptr)+10, "entry point size too small", szEntry))
		return
	}
	budget := sec.Size // bytes of children arrays still allowed: each array is read once
	eb, ne := m.array(SecContext, pEntries, nEntries, szEntry, "entry points")
	var stack []ctxFrame
	children := func(sz, ptr uint64, parent int32) bool {
		if sz == 0 {
			return true
		}
		if sz > budget {
			m.fail(m.errAt(int64(min(ptr, uint64(m.size))), "context arrays overlap or exceed their section", sz))
			return false
		}
		budget -= sz
		a, n := m.array(SecContext, ptr, sz, 1, "child contexts")
		if n < sz {
			return false
		}
		stack = append(stack, ctxFrame{a, ptr, parent})
		return true
	}
	for k := uint64(0); k < ne; k++ {
		e := eb[k*szEntry:]
		name, err := m.str(le.Uint64(e[24:]), "entry point name")
		if err != nil {
			m.fail(err)
		}
		id := le.Uint32(e[16:])
		kind := le.Uint16(e[20:])
		if name == "" {
			name = EntryPointName(kind)
		}
		idx := int32(len(m.Contexts))
		m.Contexts = append(m.Contexts, Node{Kind: NodeEntry, Parent: 0, ID: int64(id), Proc: -2 - int64(len(m.EntryNames)),
			File: -1, Module: -1, Rel: RelEntry, Lex: LexEntry})
		m.EntryNames = append(m.EntryNames, name)
		m.EntryKinds = append(m.EntryKinds, kind)
		m.MaxCtx = max(m.MaxCtx, int64(id))
		if !children(le.Uint64(e), le.Uint64(e[8:]), idx) {
			return
		}
		if !m.walk(&stack, children, fns, files, mods) {
			return
		}
	}
}

// walk decodes the contexts on the stack depth first.
func (m *MetaDB) walk(stack *[]ctxFrame, children func(sz, ptr uint64, parent int32) bool, fns, files, mods ptrIndex) bool {
	for len(*stack) > 0 {
		top := &(*stack)[len(*stack)-1]
		if len(top.b) == 0 {
			*stack = (*stack)[:len(*stack)-1]
			continue
		}
		if len(top.b) < ctxMinSize {
			m.fail(m.truncAt(int64(top.off), "context runs past the end of its array"))
			return false
		}
		e := top.b
		nflex := uint64(e[0x17])
		size := ctxMinSize + nflex*8
		if uint64(len(e)) < size {
			m.fail(m.truncAt(int64(top.off), "context runs past the end of its array"))
			return false
		}
		top.b, top.off = top.b[size:], top.off+size
		flags := e[0x14]
		nd := Node{Parent: top.parent, ID: int64(le.Uint32(e[0x10:])), Proc: -1, File: -1, Module: -1,
			Rel: e[0x15], Lex: e[0x16], Prop: le.Uint16(e[0x18:])}
		flex := e[0x20:size]
		// flex packing: pFunction, pFile, line (u32), pModule, offset; two
		// u32 share a word, u64s take the next whole word
		words, half := 0, -1
		u64 := func() (uint64, bool) {
			if words >= int(nflex) {
				return 0, false
			}
			v := le.Uint64(flex[words*8:])
			words++
			return v, true
		}
		u32 := func() (uint32, bool) {
			if half >= 0 {
				v := le.Uint32(flex[half*8+4:])
				half = -1
				return v, true
			}
			if words >= int(nflex) {
				return 0, false
			}
			v := le.Uint32(flex[words*8:])
			half = words
			words++
			return v, true
		}
		bad := false
		if flags&1 != 0 {
			p, ok := u64()
			bad = bad || !ok
			nd.Proc = fns.index(p)
		}
		if flags&2 != 0 {
			p, ok := u64()
			l, ok2 := u32()
			bad = bad || !ok || !ok2
			nd.File, nd.Line = files.index(p), int64(l)
		}
		if flags&4 != 0 {
			p, ok := u64()
			o, ok2 := u64()
			bad = bad || !ok || !ok2
			nd.Module, nd.Addr = mods.index(p), o
		}
		if bad {
			m.fail(m.errAt(int64(top.off-size), "context flex data too short", nflex))
		}
		nd.Flags = flags
		switch nd.Lex {
		case LexFunction:
			nd.Kind = NodePF
		case LexLoop:
			nd.Kind = NodeL
		case LexLine:
			nd.Kind = NodeS
		default:
			nd.Kind = NodeInstr
		}
		idx := int32(len(m.Contexts))
		m.Contexts = append(m.Contexts, nd)
		m.MaxCtx = max(m.MaxCtx, nd.ID)
		if !children(le.Uint64(e), le.Uint64(e[8:]), idx) {
			return false
		}
	}
	return true
}
