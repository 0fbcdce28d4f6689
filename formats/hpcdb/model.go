package hpcdb

import (
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/render"
)

// model is everything derived from experiment.xml or meta.db and the
// profile headers, built once on first need. Its memory grows with the
// number of contexts, never with the number of profiles, values or
// samples: per context a few int32 tables (the tree's nodes are dropped
// once they are made), per procedure frame its path's lengths, and an
// index of the summary profile instead of its values, which are read
// when a view renders (sumReader). TestModelMemoryPerContext pins it:
// 80 to 90 bytes per context (200,000 contexts: 17 MB; the model that
// held the nodes and the summary values took 55 MB).
type model struct {
	x      *hpcdb.Experiment
	meta   *hpcdb.MetaDB // the meta.db generation's metadata; nil for 4.0
	numCtx int

	rows []int32 // ctx ids in tree order, then unlisted contexts with values
	// numListed is how many of rows are the tree's (cct.csv); the rest
	// are unlisted (unlisted.csv)
	numListed int
	parent    []int32 // ctx id -> parent ctx id (-1 for the root and unlisted)
	depth     []int32
	frame     []int32 // ctx id -> frame of the enclosing procedure-frame context (its own for a PF), -1 when none
	// children in tree order: the next sibling of a ctx, -1 when none
	// (the first child is the next row, firstChild)
	sibling []int32

	// what the views show of a context, by ctx id; experiment.xml's or
	// meta.db's nodes are dropped once these are made
	tag     []ctxTag
	proc    []int32 // procedure (PF, entry point): index into procNames
	file    []int32 // file, inherited from the enclosing tags: index into fileNames, 0 for none
	mod     []int32 // the same for the load module, in modNames
	line    []int32 // source line; lines past int32 are in bigLine
	bigLine map[int32]int64
	addr    []uint64
	numTags int // nodes of the tree (header.txt's cct_tags)
	// experiment.xml's table sizes (header.txt), kept when the tables
	// are dropped for procNames, fileNames and modNames
	numProcs, numFiles, numModules int

	procNames []string // procedure names, each procedure id once
	procIDs   []int64  // the id of each of procNames in experiment.xml or meta.db
	fileNames []string // file names; [0] is "" for a file id with no entry
	modNames  []string

	// frames: the procedure-frame contexts, numbered in tree order
	frameCtx   []int32 // frame -> its ctx id
	pathLen    []int32 // bytes of "root;...;leaf"
	frameDepth []int32
	links      []frameLink // frame -> enclosing frame and name, one cache line per path step
	nameBytes  []byte      // procedure names of the frames, each once

	visible   []metricCol // summary columns: MetricTable entries with show != 4
	thread    []metricCol // raw per-thread columns: MetricDBTable
	summary   []metricCol // raw summary-profile columns: partials the view formulas use
	threadIdx map[int]int // metric id -> column of thread
	sumIdx    map[int]int // metric id -> column of summary

	sumOnce sync.Once
	sumLo   []uint32 // ctx -> index of its first value in the summary profile
	sumLo64 []uint64 // the same, instead, for a summary profile of 2^32 values or more
	sumN    []uint32 // ctx -> number of its values + 1; 0 when the summary has none

	profNames []string // file names of profiles (index = profile index)
	tuples    [][]hpcdb.IDElem
	kinds     []uint16 // identifier kinds present, ascending
	kindNames map[uint16]string

	minTime uint64

	orderOnce sync.Once
	order     []int32 // cct.txt's order of the tree's contexts (txtOrder)
	orderErr  error
}

// ctxTag is the kind of a context's tag and its meta.db fields.
type ctxTag struct {
	kind  hpcdb.NodeKind // ctxUnlisted for a context without a tag
	lex   uint8
	rel   uint8
	flags uint8 // tagFile, tagModule
}

const (
	ctxUnlisted hpcdb.NodeKind = 0xff
	// the tag itself names a file or load module (not inherited)
	tagFile   = 1
	tagModule = 2
)

type metricCol struct {
	id      int
	name    string
	column  string
	metric  *hpcdb.Metric // nil for MetricDB entries
	expr    *hpcdb.Expr
	inc     bool
	percent bool
	pair    string // meta.db generation: metric, combine and formula; the inclusive and exclusive columns of one statistic share it
}

type lazyModel struct {
	d    *db
	once sync.Once
	m    *model
}

func (l *lazyModel) get() *model {
	l.once.Do(func() {
		l.m = l.d.buildModel()
		go l.d.warmContexts()
	})
	return l.m
}

func (d *db) buildModel() *model {
	m := &model{kindNames: map[uint16]string{}}
	var x *hpcdb.Experiment
	var err error
	if d.metaPath != "" {
		x, m.meta = d.openMeta()
	} else if x, err = hpcdb.OpenExperiment(d.xmlPath); err != nil {
		d.src.Errors.Report("experiment.xml", err)
	}
	if x == nil {
		x = &hpcdb.Experiment{}
	}
	for _, err := range x.Problems {
		d.src.Errors.Report("experiment.xml", err)
	}
	if len(x.Nodes) == 0 {
		x.Nodes = []hpcdb.Node{{Kind: hpcdb.NodeRoot, Parent: -1, Proc: -1, File: -1, Module: -1}}
	}
	m.x = x
	for _, k := range x.IDNames {
		m.kindNames[k.Kind] = strings.ToLower(k.Name)
	}

	n := int(x.MaxCtx) + 1
	if d.cct != nil {
		n = max(n, int(d.cct.Header.NumCtx))
	}
	if m.meta != nil {
		n = max(n, d.numCtx) // openMeta bounded MaxCtx
	} else if d.profile != nil && len(d.profile.Profiles) > 0 {
		if k := d.profile.Profiles[0].NumCtxs; k > 0 {
			if pairs, err := d.profile.CtxPairs(0, uint64(k-1), 1, nil); err == nil && int(pairs[0].Ctx) < 1<<26 {
				n = max(n, int(pairs[0].Ctx)+1)
			}
		}
	}
	m.numCtx = n
	m.buildTree()
	m.numTags = len(x.Nodes)
	m.numProcs, m.numFiles, m.numModules = len(x.Procedures), len(x.Files), len(x.Modules)
	// the views use the model's tables from here on
	x.Nodes, x.Procedures, x.Files, x.Modules = nil, nil, nil, nil
	if m.meta != nil {
		m.meta.Contexts = nil
	}
	if m.meta != nil {
		m.buildMetaMetrics()
	} else {
		m.buildMetrics(d)
	}
	m.buildProfiles(d)
	m.addUnlisted(d)
	m.rows = slices.Clone(m.rows) // without append's spare capacity
	m.linkChildren()
	if len(x.TraceDBs) > 0 {
		m.minTime = x.TraceDBs[0].MinTime
	} else if d.trace != nil {
		first := true
		for i := range d.trace.Lines {
			s, err := d.trace.Samples(i, 0, 1, nil)
			if err == nil && len(s) == 1 && (first || s[0].Time < m.minTime) {
				m.minTime, first = s[0].Time, false
			}
		}
	}
	return m
}

// tables gives the procedures, files and load modules of the experiment
// dense indexes: lookups map an id to its index (a later entry of the
// same id wins, as in a map).
type tables struct {
	procs, files, mods map[int64]int32
}

func (m *model) makeTables() tables {
	x := m.x
	t := tables{procs: map[int64]int32{}, files: map[int64]int32{}, mods: map[int64]int32{}}
	add := func(idx map[int64]int32, names *[]string, id int64, name string) bool {
		if k, ok := idx[id]; ok {
			(*names)[k] = name
			return false
		}
		idx[id] = int32(len(*names))
		*names = append(*names, name)
		return true
	}
	for _, p := range x.Procedures {
		if add(t.procs, &m.procNames, p.ID, p.Name) {
			m.procIDs = append(m.procIDs, p.ID)
		}
	}
	m.fileNames, m.modNames = []string{""}, []string{""}
	for _, f := range x.Files {
		add(t.files, &m.fileNames, f.ID, f.Name)
	}
	for _, f := range x.Modules {
		add(t.mods, &m.modNames, f.ID, f.Name)
	}
	return t
}

// procIndex is the index of procedure id in procNames; an id with no
// entry gets one named by its number.
func (m *model) procIndex(t tables, id int64) int32 {
	if k, ok := t.procs[id]; ok {
		return k
	}
	t.procs[id] = int32(len(m.procNames))
	m.procNames = append(m.procNames, "<procedure "+strconv.FormatInt(id, 10)+">")
	m.procIDs = append(m.procIDs, id)
	return t.procs[id]
}

func (m *model) buildTree() {
	x := m.x
	t := m.makeTables()
	n := m.numCtx
	m.parent = make([]int32, n)
	m.depth = make([]int32, n)
	m.frame = make([]int32, n)
	m.tag = make([]ctxTag, n)
	m.proc = make([]int32, n)
	m.file = make([]int32, n)
	m.mod = make([]int32, n)
	m.line = make([]int32, n)
	m.addr = make([]uint64, n)
	nameIdx := map[int32]frameLink{}
	for i := range m.parent {
		m.parent[i], m.frame[i], m.proc[i] = -1, -1, -1
		m.tag[i].kind = ctxUnlisted
	}
	fileOf := make([]int32, len(x.Nodes)) // node -> effective file (index into fileNames)
	modOf := make([]int32, len(x.Nodes))
	nodeCtx := make([]int32, len(x.Nodes)) // node -> ctx id of the context it belongs to
	for i := range x.Nodes {
		nd := &x.Nodes[i]
		file, mod := t.files[nd.File], t.mods[nd.Module] // 0 when absent or without an entry
		if i > 0 && (nd.Parent < 0 || int(nd.Parent) >= i) {
			continue // not below the root (the decoder reports the damage)
		}
		if nd.Parent >= 0 {
			if nd.File < 0 {
				file = fileOf[nd.Parent]
			}
			if nd.Module < 0 && nd.Kind != hpcdb.NodePF {
				mod = modOf[nd.Parent]
			}
		}
		fileOf[i], modOf[i] = file, mod
		var c int32
		if i == 0 {
			nodeCtx[0] = 0
			m.rows = append(m.rows, 0)
		} else {
			pctx := nodeCtx[nd.Parent]
			if nd.ID < 0 || nd.ID >= int64(n) || m.tag[nd.ID].kind != ctxUnlisted {
				nodeCtx[i] = pctx // a companion tag: part of its parent's context
				continue
			}
			c = int32(nd.ID)
			nodeCtx[i] = c
			m.parent[c] = pctx
			m.depth[c] = m.depth[pctx] + 1
			m.rows = append(m.rows, c)
		}
		m.setTag(t, c, nd, file, mod)
		if m.meta == nil && nd.Kind == hpcdb.NodePF {
			// experiment.xml: a called procedure's frame is the child of a
			// call site (C) or of the root; an inlined one sits inside its
			// caller's lexical scopes
			m.tag[c].rel = hpcdb.RelInlined
			if k := x.Nodes[nd.Parent].Kind; k == hpcdb.NodeC || k == hpcdb.NodeRoot {
				m.tag[c].rel = hpcdb.RelCall
			}
		}
		if i == 0 {
			continue
		}
		pctx := m.parent[c]
		if nd.Kind != hpcdb.NodePF {
			m.frame[c] = m.frame[pctx]
			continue
		}
		f := int32(len(m.frameCtx))
		m.frame[c] = f
		// frame paths and trace views hold the name escaped (a newline
		// in it would split a line of traces/NAME.txt)
		name := render.EscapeName(m.procNames[m.proc[c]])
		pf := m.frame[pctx]
		link, ok := nameIdx[m.proc[c]]
		if !ok {
			link = frameLink{off: uint32(len(m.nameBytes)), len: uint32(len(name))}
			nameIdx[m.proc[c]] = link
			m.nameBytes = append(m.nameBytes, name...)
		}
		link.up = pf
		l := int32(len(name))
		depth := int32(1)
		if pf >= 0 {
			l += m.pathLen[pf] + 1
			depth = m.frameDepth[pf] + 1
		}
		m.frameCtx = append(m.frameCtx, c)
		m.links = append(m.links, link)
		m.frameDepth = append(m.frameDepth, depth)
		m.pathLen = append(m.pathLen, l)
	}
	m.frameCtx = slices.Clone(m.frameCtx)
	m.links = slices.Clone(m.links)
	m.frameDepth = slices.Clone(m.frameDepth)
	m.pathLen = slices.Clone(m.pathLen)
}

// setTag records what the views show of context c, whose tag is nd.
func (m *model) setTag(t tables, c int32, nd *hpcdb.Node, file, mod int32) {
	tg := ctxTag{kind: nd.Kind, lex: nd.Lex, rel: nd.Rel}
	if nd.File >= 0 {
		tg.flags |= tagFile
	}
	if nd.Module >= 0 {
		tg.flags |= tagModule
	}
	m.tag[c] = tg
	if nd.Kind == hpcdb.NodePF || nd.Kind == hpcdb.NodeEntry {
		m.proc[c] = m.procIndex(t, nd.Proc)
	}
	m.file[c], m.mod[c], m.addr[c] = file, mod, nd.Addr
	m.line[c] = int32(nd.Line)
	if int64(m.line[c]) != nd.Line {
		if m.bigLine == nil {
			m.bigLine = map[int32]int64{}
		}
		m.bigLine[c] = nd.Line
	}
}

// linkChildren makes the sibling lists: each context's children in the
// order of rows.
func (m *model) linkChildren() {
	child := make([]int32, m.numCtx) // the first child, while the lists are made
	m.sibling = make([]int32, m.numCtx)
	for i := range child {
		child[i], m.sibling[i] = -1, -1
	}
	for i := len(m.rows) - 1; i >= 0; i-- {
		c := m.rows[i]
		if p := m.parent[c]; p >= 0 && m.listed(int(c)) {
			m.sibling[c], child[p] = child[p], c
		}
	}
}

// firstChild is the first child of the context of row i, -1 when none.
// The nodes of experiment.xml and meta.db come in depth-first order (a
// tag's subtree follows it), and rows keep their order: the first context
// made after a context's own is, when it has children, its first child.
func (m *model) firstChild(i int) int32 {
	if i+1 < len(m.rows) {
		if k := m.rows[i+1]; m.parent[k] == m.rows[i] {
			return k
		}
	}
	return -1
}

// listed tells whether context c has a tag in the tree.
func (m *model) listed(c int) bool {
	return c >= 0 && c < m.numCtx && m.tag[c].kind != ctxUnlisted
}

// kind is the tag kind of a listed context.
func (m *model) kind(c int) hpcdb.NodeKind { return m.tag[c].kind }

func (m *model) ctxLine(c int) int64 {
	if v, ok := m.bigLine[int32(c)]; ok {
		return v
	}
	return int64(m.line[c])
}

func (m *model) procName(k int32) string { return m.procNames[k] }

// ctxKind and ctxName describe a context.
func (m *model) ctxKind(c int) string {
	if !m.listed(c) {
		return "unlisted"
	}
	if tg := m.tag[c]; m.meta != nil && tg.kind != hpcdb.NodeRoot {
		return hpcdb.LexicalName(tg.lex)
	}
	return m.tag[c].kind.String()
}

func (m *model) ctxName(c int) string {
	if !m.listed(c) {
		return "unlisted context " + strconv.Itoa(c)
	}
	tg := m.tag[c]
	where := func() string {
		return path.Base(m.fileNames[m.file[c]]) + ":" + strconv.FormatInt(m.ctxLine(c), 10)
	}
	switch tg.kind {
	case hpcdb.NodeRoot:
		return "<root>"
	case hpcdb.NodePF:
		return m.procName(m.proc[c])
	case hpcdb.NodeL:
		return "loop at " + where()
	case hpcdb.NodeC:
		return "call at " + where()
	case hpcdb.NodeEntry:
		return m.procName(m.proc[c])
	case hpcdb.NodeInstr:
		if tg.lex != hpcdb.LexInstruction || m.mod[c] == 0 {
			return "<" + hpcdb.LexicalName(tg.lex) + ">" // a lexical type of a later version, or no module
		}
		return path.Base(m.modNames[m.mod[c]]) + "@0x" + strconv.FormatUint(m.addr[c], 16)
	}
	return where()
}

func (m *model) ctxFile(c int) (string, int64) {
	if !m.listed(c) || c == 0 {
		return "", 0
	}
	return m.fileNames[m.file[c]], m.ctxLine(c)
}

func (m *model) ctxModule(c int) string {
	if !m.listed(c) {
		return ""
	}
	return m.modNames[m.mod[c]]
}

// appendPath appends the procedure-frame path of ctx c: root;...;leaf.
func (m *model) appendPath(dst []byte, c int) []byte {
	if c < 0 || c >= m.numCtx {
		return dst
	}
	f := m.frame[c]
	if f < 0 {
		return dst
	}
	// write the names right to left into their final place
	n := int(m.pathLen[f])
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	end := start + n
	for f >= 0 && end > start {
		l := m.links[f]
		end -= copy(dst[end-int(l.len):end], m.nameBytes[l.off:l.off+l.len])
		if end > start {
			end--
			dst[end] = ';'
		}
		f = l.up
	}
	return dst
}

// frameLink is one step of a frame path: the frame enclosing the parent
// of a procedure frame, and the frame's name in model.nameBytes.
type frameLink struct {
	up  int32
	off uint32
	len uint32
}

// frameName is the procedure name of frame f.
func (m *model) frameName(f int32) []byte {
	l := m.links[f]
	return m.nameBytes[l.off : l.off+l.len]
}

// columnName makes a column from a metric name (render.Name), its
// "(I)"/"(E)" suffix as _inc/_exc: "CPUTIME (sec):Sum (I)" ->
// "cputime_sec_sum_inc".
func columnName(name string) string {
	suffix := ""
	switch {
	case strings.HasSuffix(name, " (I)"):
		name, suffix = strings.TrimSuffix(name, " (I)"), "_inc"
	case strings.HasSuffix(name, " (E)"):
		name, suffix = strings.TrimSuffix(name, " (E)"), "_exc"
	}
	return render.Name(name, "metric") + suffix
}

func (m *model) buildMetrics(d *db) {
	x := m.x
	uniq := render.NewUniquer().Unique
	referenced := map[int]bool{}
	for i := range x.Metrics {
		mt := &x.Metrics[i]
		if mt.Show == 4 {
			continue
		}
		frm := mt.Formula("view")
		if frm == "" {
			frm = "$" + strconv.Itoa(mt.ID)
		}
		e, err := hpcdb.ParseFormula(frm)
		if err != nil {
			d.src.Errors.Report("experiment.xml", err)
			e, _ = hpcdb.ParseFormula("0")
		}
		for _, v := range e.Vars() {
			referenced[v] = true
		}
		m.visible = append(m.visible, metricCol{id: mt.ID, name: mt.Name, column: uniq(columnName(mt.Name)), metric: mt, expr: e,
			inc: mt.Type == "inclusive" || strings.HasSuffix(mt.Name, "(I)"), percent: mt.ShowPercent})
	}
	m.sumIdx = map[int]int{}
	for i := range x.Metrics {
		mt := &x.Metrics[i]
		if mt.Show == 4 && referenced[mt.ID] {
			m.sumIdx[mt.ID] = len(m.summary)
			m.summary = append(m.summary, metricCol{id: mt.ID, name: mt.Name, column: uniq(columnName(mt.Name)), metric: mt, inc: mt.Type == "inclusive"})
		}
	}
	for id := range referenced { // referenced ids with no table entry
		if _, ok := m.sumIdx[id]; !ok {
			m.sumIdx[id] = len(m.summary)
			m.summary = append(m.summary, metricCol{id: id, name: "$" + strconv.Itoa(id), column: uniq("metric_" + strings.ReplaceAll(strconv.Itoa(id), "-", "m"))})
		}
	}
	m.threadIdx = map[int]int{}
	for _, mdb := range x.MetricDBs {
		if _, dup := m.threadIdx[mdb.ID]; dup {
			continue
		}
		m.threadIdx[mdb.ID] = len(m.thread)
		m.thread = append(m.thread, metricCol{id: mdb.ID, name: mdb.Name, column: uniq(columnName(mdb.Name)), inc: strings.HasSuffix(mdb.Name, "(I)")})
	}
}

func (m *model) buildProfiles(d *db) {
	if d.profile == nil {
		return
	}
	p := d.profile
	n := len(p.Profiles)
	m.tuples = make([][]hpcdb.IDElem, n)
	width := map[uint16]int{}
	for i := range p.Profiles {
		t, err := p.Tuple(i)
		if err == nil && i > 0 && !p.Profiles[i].IsSummary() {
			err = p.CheckTuple(i, t)
		}
		if err != nil {
			d.src.Errors.Report("profile.db", err)
		}
		m.tuples[i] = t
		for _, e := range t {
			k := uint16(e.Kind())
			if k == 0 {
				continue
			}
			if _, ok := width[k]; !ok {
				m.kinds = append(m.kinds, k)
			}
			width[k] = max(width[k], render.DecimalLen(e.Logical))
		}
	}
	sort.Slice(m.kinds, func(a, b int) bool { return m.kinds[a] < m.kinds[b] })
	names := make([]string, n)
	for i, t := range m.tuples {
		var parts []string
		for _, e := range t {
			k := uint16(e.Kind())
			if k == 0 {
				continue
			}
			parts = append(parts, m.kindName(k)+"-"+string(render.AppendPadded(nil, e.Logical, width[k])))
		}
		switch {
		case i == 0 || len(t) == 1 && t[0].Kind() == hpcdb.KindSummary:
			names[i] = "summary"
		case len(parts) == 0:
			names[i] = "profile-" + strconv.Itoa(i)
		default:
			names[i] = strings.Join(parts, ".")
		}
	}
	m.profNames = render.FileNames(names)
	// two profiles of one tuple: one of them is damaged
	d.src.Errors.ReportRenames("profiles", names, m.profNames)
}

func (m *model) kindName(k uint16) string {
	if s, ok := m.kindNames[k]; ok && s != "" {
		return s
	}
	return strings.ToLower(hpcdb.IDKind(k).String())
}

// addUnlisted appends to rows the contexts that carry values in the
// summary profile but have no tag in experiment.xml.
func (m *model) addUnlisted(d *db) {
	m.numListed = len(m.rows)
	if d.profile == nil || len(d.profile.Profiles) == 0 {
		return
	}
	err := forEachCtx(d.profile, 0, func(c uint32, lo, hi uint64) bool {
		if int(c) < m.numCtx && !m.listed(int(c)) {
			m.rows = append(m.rows, int32(c))
		}
		return true
	})
	if err != nil {
		d.src.Errors.Report("profile.db", err)
	}
}

// forEachCtx calls fn for each context of profile i with its value range,
// until fn returns false; it returns the error of the context index that
// could not be read (the contexts from there on are not visited).
func forEachCtx(p *hpcdb.ProfileDB, i int, fn func(c uint32, lo, hi uint64) bool) error {
	n := uint64(p.Profiles[i].NumCtxs)
	const batch = 4096
	var buf []hpcdb.CtxIdx
	for k := uint64(0); k < n; k += batch {
		var err error
		buf, err = p.CtxPairs(i, k, min(batch, n-k)+1, buf[:0])
		if err != nil {
			return err
		}
		for j := 0; j+1 < len(buf); j++ {
			if !fn(buf[j].Ctx, buf[j].Index, buf[j+1].Index) {
				return nil
			}
		}
	}
	return nil
}

// summaryIndex finds, once, where each context's values lie in the
// summary profile: a pass over its values as the views will read them,
// stopping at the first one that cannot be read (the contexts from there
// on have no summary values). The values themselves are read when a view
// renders (sumReader): holding the visible columns for every context
// would cost 8 bytes a context and column, the index costs 8.
func (m *model) summaryIndex(d *db) {
	m.sumOnce.Do(func() {
		m.sumN = make([]uint32, m.numCtx)
		if d.profile == nil || len(d.profile.Profiles) == 0 || len(m.visible) == 0 {
			return
		}
		if d.profile.Profiles[0].NumVals <= math.MaxUint32 {
			m.sumLo = make([]uint32, m.numCtx)
		} else {
			m.sumLo64 = make([]uint64, m.numCtx)
		}
		var vals []hpcdb.MetricValue
		var valErr error
		err := forEachCtx(d.profile, 0, func(c uint32, lo, hi uint64) bool {
			if int(c) >= m.numCtx {
				return true
			}
			if vals, valErr = d.profile.Values(0, lo, hi, vals[:0]); valErr != nil {
				return false
			}
			if m.sumLo != nil {
				m.sumLo[c] = uint32(lo) // Values checked lo <= hi <= NumVals
			} else {
				m.sumLo64[c] = lo
			}
			m.sumN[c] = uint32(min(hi-lo, math.MaxUint32-1)) + 1
			return true
		})
		if err == nil {
			err = valErr
		}
		if err != nil {
			d.src.Errors.Report("profile.db", err)
		}
	})
}

// sumWindow is how many values of the summary profile a sumReader reads
// at once: contexts near each other in the tree are near each other in
// the profile in practice, so one read serves many.
const sumWindow = 256

// sumReader reads the visible metrics of contexts from the summary
// profile. Each renderer has its own.
type sumReader struct {
	m    *model
	d    *db
	raw  []float64 // by column of model.summary
	row  []float64 // visible values of ctx last
	last int
	has  bool

	win    []hpcdb.MetricValue // values [winLo, winLo+len(win)) of the summary profile
	winLo  uint64
	getRaw func(id int) float64
}

func (m *model) sumReader(d *db) *sumReader {
	m.summaryIndex(d)
	r := &sumReader{m: m, d: d, raw: make([]float64, len(m.summary)), row: make([]float64, len(m.visible)), last: -1}
	r.getRaw = func(id int) float64 {
		if k, ok := m.sumIdx[id]; ok {
			return r.raw[k]
		}
		return 0
	}
	return r
}

// values returns the visible metrics of context c, all 0 and has false
// when the summary profile has no values at c. The slice is overwritten
// by the next call.
func (r *sumReader) values(c int) (vals []float64, has bool, err error) {
	if c == r.last {
		return r.row, r.has, nil
	}
	m := r.m
	clear(r.row)
	r.last, r.has = c, false
	if c < 0 || c >= len(m.sumN) || m.sumN[c] == 0 {
		return r.row, false, nil
	}
	lo, n := uint64(0), uint64(m.sumN[c]-1)
	if m.sumLo != nil {
		lo = uint64(m.sumLo[c])
	} else {
		lo = m.sumLo64[c]
	}
	if lo < r.winLo || lo+n > r.winLo+uint64(len(r.win)) {
		p := r.d.profile
		hi := max(lo+n, min(lo+sumWindow, p.Profiles[0].NumVals))
		if r.win, err = p.Values(0, lo, hi, r.win[:0]); err != nil && hi > lo+n {
			r.win, err = p.Values(0, lo, lo+n, r.win[:0]) // the window runs into damage
		}
		if err != nil {
			r.last = -1
			return r.row, false, err
		}
		r.winLo = lo
	}
	clear(r.raw)
	for _, v := range r.win[lo-r.winLo : lo-r.winLo+n] {
		if k, ok := m.sumIdx[int(v.Metric)]; ok {
			r.raw[k] = v.Value
		}
	}
	for j, col := range m.visible {
		r.row[j] = col.expr.Eval(r.getRaw)
	}
	r.has = true
	return r.row, true, nil
}

// value is visible column j of context c.
func (r *sumReader) value(c, j int) (float64, error) {
	v, _, err := r.values(c)
	return v[j], err
}
