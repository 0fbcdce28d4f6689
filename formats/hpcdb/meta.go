package hpcdb

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// MetaFormat is the registry entry of the meta.db generation.
var MetaFormat = vfs.Format{
	Name:     metaName,
	Supports: "HPCToolkit databases of 2022.10 and later (meta.db + profile.db/cct.db/trace.db)",
	Detect:   DetectMeta,
	Open:     OpenMeta,
}

const metaName = "hpcdb-meta"

// DetectMeta recognises a database directory of the meta.db generation by
// the magic of its meta.db.
func DetectMeta(p string) (string, bool) {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	b := head(filepath.Join(p, "meta.db"), 16)
	if len(b) < 16 || string(b[:14]) != hpcdb.Magic+hpcdb.FormatMeta {
		return "", false
	}
	return "HPCToolkit database, meta.db generation (meta.db version " + strconv.Itoa(int(b[14])) + "." + strconv.Itoa(int(b[15])) + ")", true
}

// OpenMeta builds the tree of the meta.db-generation database at p.
func OpenMeta(p string) (*vfs.Source, error) { return open(p, true) }

// checkFooters reports binary files of the meta.db generation that lack
// their footer: a file that was cut or is still being written.
func (d *db) checkFooters() {
	type footed interface{ Footer() hpcdb.FooterStatus }
	for _, f := range []struct {
		name, footer string
		file         footed
		ok           bool
	}{{"profile.db", hpcdb.ProfileFooter4, d.profile, d.profile != nil}, {"cct.db", hpcdb.CCTFooter4, d.cct, d.cct != nil}, {"trace.db", hpcdb.TraceFooter4, d.trace, d.trace != nil}} {
		if f.ok && f.file.Footer() == hpcdb.FooterMissing {
			d.src.Errors.Report(f.name, errString("no "+f.footer+" footer at the end: the file is cut or still being written"))
		}
	}
}

func metaVersion(p string) string {
	b := head(p, 16)
	if len(b) < 16 {
		return "meta.db"
	}
	return "meta.db " + strconv.Itoa(int(b[14])) + "." + strconv.Itoa(int(b[15]))
}

// openMeta decodes meta.db and fills an Experiment with it: the context
// tree as nodes, functions and entry points as procedures, the trace time
// range from trace.db.
func (d *db) openMeta() (*hpcdb.Experiment, *hpcdb.MetaDB) {
	x := &hpcdb.Experiment{}
	md, err := hpcdb.OpenMetaDB(d.metaPath)
	if err != nil {
		d.src.Errors.Report("meta.db", err)
		return x, &hpcdb.MetaDB{}
	}
	d.src.Errors.ReportAll("meta.db", md.Problems)
	if md.Footer() == hpcdb.FooterMissing {
		d.src.Errors.Report("meta.db", errString("no "+hpcdb.MetaFooter+" footer at the end: the file is cut or still being written"))
	}
	x.Version = "meta.db " + strconv.Itoa(int(md.Major)) + "." + strconv.Itoa(int(md.Minor))
	x.Title = md.Title
	for k, n := range md.IDNames {
		x.IDNames = append(x.IDNames, hpcdb.IDName{Kind: uint16(k), Name: n})
	}
	for k, mod := range md.Modules {
		x.Modules = append(x.Modules, hpcdb.Entity{ID: int64(k), Name: mod.Path})
	}
	for k, f := range md.Files {
		x.Files = append(x.Files, hpcdb.Entity{ID: int64(k), Name: f.Path})
	}
	for k, f := range md.Functions {
		x.Procedures = append(x.Procedures, hpcdb.Procedure{ID: int64(k), Name: functionName(md, f)})
	}
	x.Procedures = append(x.Procedures, hpcdb.Procedure{ID: -1, Name: "<unknown function>", Fake: true})
	for k, n := range md.EntryNames {
		x.Procedures = append(x.Procedures, hpcdb.Procedure{ID: -2 - int64(k), Name: n, Fake: true})
	}
	// a function context without its own source location or module shows
	// the function's definition
	for i := range md.Contexts {
		nd := &md.Contexts[i]
		if nd.Kind != hpcdb.NodePF || nd.Proc < 0 {
			continue
		}
		f := md.Functions[nd.Proc]
		if nd.File < 0 && f.File >= 0 {
			nd.File, nd.Line = f.File, int64(f.Line)
		}
		if nd.Module < 0 && f.Module >= 0 {
			nd.Module, nd.Addr = f.Module, f.Offset
		}
	}
	x.Nodes = md.Contexts
	x.MaxCtx = md.MaxCtx
	// context ids are dense: one far past both the tree and cct.db is
	// damage, and would size every per-context table
	if limit := max(int64(d.numCtx), 2*int64(len(md.Contexts))+1024); x.MaxCtx >= limit {
		d.src.Errors.Report("meta.db", errString("context id "+strconv.FormatInt(x.MaxCtx, 10)+" is far past the "+strconv.Itoa(len(md.Contexts))+" contexts of the tree; contexts with ids from "+strconv.FormatInt(limit, 10)+" on are left out"))
		x.MaxCtx = limit - 1
	}
	if d.trace != nil && d.trace.Meta() {
		h := d.trace.Header
		x.TraceDBs = []hpcdb.TraceTime{{MinTime: h.MinTimestamp, MaxTime: h.MaxTimestamp, Units: 1e9}}
	}
	return x, md
}

// functionName names a function; an anonymous one is named by where it
// is, as hpcviewer does.
func functionName(md *hpcdb.MetaDB, f hpcdb.Function) string {
	if f.Name != "" {
		return f.Name
	}
	s := "<unknown function>"
	if f.Module >= 0 {
		s += " " + path.Base(md.Modules[f.Module].Path) + "@0x" + strconv.FormatUint(f.Offset, 16)
	}
	return s
}

// scopeTag is the suffix of a metric's name for a propagation scope:
// (I) for execution (inclusive), (E) for function (exclusive), else the
// scope's name.
func scopeTag(md *hpcdb.MetaDB, scope int) (tag string, inc bool) {
	if scope < 0 || scope >= len(md.Scopes) {
		return "(?)", false
	}
	s := md.Scopes[scope]
	switch {
	case s.Type == 2 || s.Name == "execution":
		return "(I)", true
	case s.Name == "function":
		return "(E)", false
	}
	return "(" + s.Name + ")", false
}

func scopeName(md *hpcdb.MetaDB, scope int) string {
	if scope < 0 || scope >= len(md.Scopes) {
		return ""
	}
	return md.Scopes[scope].Name
}

// buildMetaMetrics makes the columns of a meta.db-generation database:
// every summary statistic is a column of the summary profile (m.summary,
// by statMetricId); those of the execution (inclusive) and function
// (exclusive) scopes are the visible columns of cct.csv (all summary
// statistics when no metric has either scope); every propagated
// sub-metric is a column of the thread profiles (m.thread, by
// propMetricId).
func (m *model) buildMetaMetrics() {
	md := m.meta
	uniq := render.NewUniquer().Unique
	// docs/vocabulary.md: a metric's inclusive column comes first, the
	// exclusive one right after it, then the other scopes
	order := func(cols []metricCol) {
		rank := func(c metricCol) int {
			switch {
			case c.inc:
				return 0
			case strings.HasSuffix(c.name, "(E)"):
				return 1
			}
			return 2
		}
		slices.SortStableFunc(cols, func(a, b metricCol) int { return rank(a) - rank(b) })
	}
	m.sumIdx = map[int]int{}
	m.threadIdx = map[int]int{}
	var all []metricCol // every summary statistic, for a database with neither scope
	for i := range md.Metrics {
		mt := &md.Metrics[i]
		var visible, summaries, thread []metricCol
		for _, s := range mt.Summaries {
			tag, inc := scopeTag(md, s.Scope)
			comb := hpcdb.CombineName(s.Combine)
			name := mt.Name + ":" + strings.ToUpper(comb[:1]) + comb[1:]
			if s.Formula != "" && s.Formula != "$$" {
				name += "[" + s.Formula + "]"
			}
			name += " " + tag
			id := int(s.StatMetricID)
			e, _ := hpcdb.ParseFormula("$" + strconv.Itoa(id))
			col := metricCol{id: id, name: name, column: uniq(columnName(name)), inc: inc, expr: e, percent: true,
				pair: mt.Name + "\x00" + comb + "\x00" + s.Formula}
			summaries = append(summaries, col)
			if sc := scopeName(md, s.Scope); sc == "execution" || sc == "function" {
				visible = append(visible, col)
			}
		}
		order(summaries)
		order(visible)
		for _, col := range summaries {
			if _, dup := m.sumIdx[col.id]; !dup {
				m.sumIdx[col.id] = len(m.summary)
				m.summary = append(m.summary, col)
			}
		}
		m.visible = append(m.visible, visible...)
		all = append(all, summaries...)
		for _, s := range mt.Scopes {
			tag, inc := scopeTag(md, s.Scope)
			name := mt.Name + " " + tag
			thread = append(thread, metricCol{id: int(s.PropMetricID), name: name, column: uniq(columnName(name)), inc: inc})
		}
		order(thread)
		for _, col := range thread {
			if _, dup := m.threadIdx[col.id]; !dup {
				m.threadIdx[col.id] = len(m.thread)
				m.thread = append(m.thread, col)
			}
		}
	}
	if len(m.visible) == 0 {
		m.visible = all
	}
}

// metaMetricsTable is metrics.csv of a meta.db database: one row per
// summary statistic (table "summary", the values of summary profiles)
// and per propagated sub-metric (table "propagated", the values of
// thread profiles and cct.db).
func (d *db) metaMetricsTable() *render.Table {
	return &render.Table{Columns: metaMetricsColumns, Open: func(pos []byte) (render.Scanner, error) {
		m := d.model.get()
		md := m.meta
		visible := map[int]bool{}
		for _, c := range m.visible {
			visible[c.id] = true
		}
		// scope writes the scope, scope_type and propagation_index cells
		// of scope k
		scope := func(r *render.Row, k int) *render.Row {
			if k < 0 || k >= len(md.Scopes) {
				return r.Empties(3)
			}
			s := md.Scopes[k]
			r.Str(s.Name).Str(hpcdb.ScopeTypeName(s.Type))
			if s.Type == 3 {
				return r.Int(int64(s.Index))
			}
			return r.Empty()
		}
		return render.Groups(int64(len(md.Metrics)), func(i int64) (int64, func(int64, *render.Row) error, error) {
			mt := &md.Metrics[i]
			units := ""
			if k := strings.LastIndexByte(mt.Name, '('); k >= 0 && strings.HasSuffix(mt.Name, ")") {
				units = mt.Name[k+1 : len(mt.Name)-1]
			}
			return int64(len(mt.Summaries) + len(mt.Scopes)), func(j int64, r *render.Row) error {
				if j < int64(len(mt.Summaries)) {
					s := mt.Summaries[j]
					id := int(s.StatMetricID)
					c := m.summary[m.sumIdx[id]]
					scope(r.Int(int64(id)).Str("summary").Str(c.name).Str(c.column).Str(mt.Name), s.Scope)
					r.Str(s.Formula).Str(hpcdb.CombineName(s.Combine)).Uint(show(visible[id])).Str(units)
					return nil
				}
				s := mt.Scopes[j-int64(len(mt.Summaries))]
				id := int(s.PropMetricID)
				c := m.thread[m.threadIdx[id]]
				scope(r.Int(int64(id)).Str("propagated").Str(c.name).Str(c.column).Str(mt.Name), s.Scope)
				r.Empties(2).Uint(0).Str(units)
				return nil
			}, nil
		})(pos)
	}}
}

var metaMetricsColumns = []render.Column{
	{Name: "metric_id", Kind: render.Int}, {Name: "table"}, {Name: "name"}, {Name: "column"}, {Name: "metric"},
	{Name: "scope"}, {Name: "scope_type"}, {Name: "propagation_index", Kind: render.Int},
	{Name: "formula"}, {Name: "combine"}, {Name: "show", Kind: render.Uint}, {Name: "units"},
}

// show is metrics.csv's show: 1 for a visible metric.
func show(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// maxTaxonomySize bounds the metrics/*.yaml files read.
const maxTaxonomySize = 4 << 20

// taxInputs maps each summary statistic of meta.db that has a summary
// column, as a METRICS.yaml input names it, to its stat metric id.
func (m *model) taxInputs() map[hpcdb.TaxInput]int {
	md := m.meta
	out := map[hpcdb.TaxInput]int{}
	for i := range md.Metrics {
		mt := &md.Metrics[i]
		for _, s := range mt.Summaries {
			if _, ok := m.sumIdx[int(s.StatMetricID)]; ok {
				in := hpcdb.TaxInput{Metric: mt.Name, Scope: scopeName(md, s.Scope), Formula: s.Formula, Combine: hpcdb.CombineName(s.Combine)}
				out[in] = int(s.StatMetricID)
			}
		}
	}
	return out
}

// taxonomyFiles are the metric taxonomies beside meta.db.
func (d *db) taxonomyFiles() []string {
	m, _ := filepath.Glob(filepath.Join(d.dir, "metrics", "*.yaml"))
	return m
}

// taxonomyTable is taxonomy.csv: the metric taxonomies of
// metrics/*.yaml, per taxonomic metric and variant, the inclusive and
// exclusive formulas over the summary statistics, named by their columns
// in profiles/summary.csv (and cct.csv for the execution and function
// scopes). A group of rows per file; a file that does not parse in full
// keeps the rows read before the problem, which goes to _errors.txt under
// the file's name, and the files after it follow.
func (d *db) taxonomyTable() *render.Table {
	return &render.Table{Columns: taxonomyColumns, Open: func(pos []byte) (render.Scanner, error) {
		m := d.model.get()
		cols := map[hpcdb.TaxInput]string{}
		for in, id := range m.taxInputs() {
			cols[in] = m.summary[m.sumIdx[id]].column
		}
		name := func(in hpcdb.TaxInput) string {
			if c, ok := cols[in]; ok {
				return c
			}
			return "[" + in.Metric + " " + in.Scope + " " + in.Formula + " " + in.Combine + "]"
		}
		formula := func(r *render.Row, f *hpcdb.TaxFormula) *render.Row {
			if f == nil {
				return r.Empty()
			}
			return r.Str(f.Render(name))
		}
		files := d.taxonomyFiles()
		return render.Groups(int64(len(files)), func(i int64) (int64, func(int64, *render.Row) error, error) {
			rel, _ := filepath.Rel(d.dir, files[i])
			ms, err := readTaxonomy(files[i], rel)
			if err != nil {
				d.src.Errors.Report(rel, err)
			}
			type variant struct{ m, v int }
			var rows []variant
			for k := range ms {
				for v := range ms[k].Variants {
					rows = append(rows, variant{k, v})
				}
			}
			return int64(len(rows)), func(j int64, r *render.Row) error {
				tm := &ms[rows[j].m]
				v := &tm.Variants[rows[j].v]
				formula(formula(r.Str(rel).Str(tm.Path).Str(v.Name), v.Inclusive), v.Exclusive).Str(tm.Description)
				return nil
			}, nil
		})(pos)
	}}
}

var taxonomyColumns = []render.Column{
	{Name: "file"}, {Name: "name"}, {Name: "variant"}, {Name: "formula_inc"}, {Name: "formula_exc"}, {Name: "description"},
}

// metaHeaderText appends every section of meta.db to b.
func (d *db) metaHeaderText(b []byte) []byte {
	kv := func(k string, v any) { b = appendKV(b, k, v) }
	m := d.model.get()
	md := m.meta
	b = append(b, "[meta.db]\n"...)
	kv("magic", hpcdb.Magic+hpcdb.FormatMeta)
	kv("version", strconv.Itoa(int(md.Major))+"."+strconv.Itoa(int(md.Minor)))
	for i, s := range md.Sections {
		kv(hpcdb.MetaSectionNames[i]+"_sec_size", s.Size)
		kv(hpcdb.MetaSectionNames[i]+"_sec_ptr", s.Ptr)
	}
	kv("footer", md.Footer().String())
	b = append(b, "\n[meta.db general]\n"...)
	kv("title", md.Title)
	// a description's lines each escaped, continued indented
	desc := strings.Split(strings.TrimSpace(md.Description), "\n")
	for i := range desc {
		desc[i] = render.EscapeName(desc[i])
	}
	b = fmt.Appendf(b, "description: %s\n", strings.Join(desc, "\n  "))
	b = append(b, "\n[meta.db id_names]\n"...)
	for k, n := range md.IDNames {
		kv("kind_"+strconv.Itoa(k), n)
	}
	b = append(b, "\n[meta.db metrics]\n"...)
	kv("scopes", len(md.Scopes))
	for k, s := range md.Scopes {
		v := s.Name + " type=" + hpcdb.ScopeTypeName(s.Type)
		if s.Type == 3 {
			v += " propagation_index=" + strconv.Itoa(int(s.Index))
		}
		kv("scope_"+strconv.Itoa(k), v)
	}
	kv("metrics", len(md.Metrics))
	for k, mt := range md.Metrics {
		kv("metric_"+strconv.Itoa(k), mt.Name)
		for _, s := range mt.Scopes {
			kv("  scope "+scopeName(md, s.Scope), "prop_metric_id="+strconv.Itoa(int(s.PropMetricID)))
		}
		for _, s := range mt.Summaries {
			kv("  summary "+scopeName(md, s.Scope), "formula="+s.Formula+" combine="+hpcdb.CombineName(s.Combine)+" stat_metric_id="+strconv.Itoa(int(s.StatMetricID)))
		}
	}
	b = append(b, "\n[meta.db context]\n"...)
	kv("entry_points", len(md.EntryNames))
	for k, n := range md.EntryNames {
		kv("entry_"+strconv.Itoa(k), n+" (kind "+strconv.Itoa(int(md.EntryKinds[k]))+")")
	}
	kv("contexts", m.numTags-1-len(md.EntryNames))
	kv("max_context_id", uint64(md.MaxCtx))
	b = append(b, "\n[meta.db modules]\n"...)
	kv("modules", len(md.Modules))
	for k, mod := range md.Modules {
		kv("module_"+strconv.Itoa(k), mod.Path)
	}
	b = append(b, "\n[meta.db files]\n"...)
	kv("files", len(md.Files))
	for k, f := range md.Files {
		v := f.Path
		if f.Flags&1 != 0 {
			v += " (copied)"
		}
		kv("file_"+strconv.Itoa(k), v)
	}
	b = append(b, "\n[meta.db functions]\n"...)
	kv("functions", len(md.Functions))
	for k, f := range md.Functions {
		v := functionName(md, f)
		if f.Module >= 0 {
			v += " [" + md.Modules[f.Module].Path + "+0x" + strconv.FormatUint(f.Offset, 16) + "]"
		}
		if f.File >= 0 {
			v += " " + md.Files[f.File].Path + ":" + strconv.FormatUint(uint64(f.Line), 10)
		}
		kv("function_"+strconv.Itoa(k), v)
	}
	return b
}

// metaReadme is README.txt of a meta.db-generation database.
func (d *db) metaReadme() []byte {
	var b strings.Builder
	b.WriteString("hpcfs mount of " + d.dir + "\n\nHPCToolkit database, meta.db generation (HPCToolkit 2022.10 and later):\nmeta.db, profile.db, cct.db, trace.db of format version 4.x, little-endian.\n\n")
	b.WriteString(`README.txt        this file
_errors.txt       decode problems found so far (empty when none)
raw/              the original files, byte for byte
taxonomy.csv      where metrics/*.yaml exist (hpcviewer's metric taxonomy): per taxonomic metric
                  and variant, the inclusive and exclusive formulas over the summary statistics,
                  named by their columns in profiles/summary.csv (derived metrics included)
taxonomy/NAME.csv for each metrics/NAME.yaml: the taxonomic metrics' values per context, the
                  columns hpcviewer shows: ctx_id, parent_id, depth, kind, name as in cct.csv,
                  then one column per taxonomic metric, variant and inclusive (_inc) / exclusive
                  (_exc) formula, named <path>_<variant>_inc in snake_case (taxonomy.csv lists
                  the formulas). Each formula is evaluated per context over the summary
                  statistics its inputs name (a statistic without a value at a context is 0,
                  as in cct.csv); "first" and "sum" take the child metrics' values. An empty
                  cell: division by zero or another undefined result, an input that is no
                  summary statistic of meta.db, or a formula hpcfs cannot read (_errors.txt
                  says which); a file that does not parse gives no view
header.txt        every decoded header and section: meta.db (general properties, identifier
                  names, propagation scopes, metrics with their propagated sub-metrics and
                  summary statistics, entry points, load modules, source files, functions),
                  profile.db, cct.db, trace.db
metrics.csv       one row per metric id: "summary" rows are the summary statistics (values of
                  the summary profile, by statMetricId), "propagated" rows the per-thread
                  values (thread profiles and cct.db, by propMetricId); scope, scope_type and
                  propagation_index say how values were propagated (point, function,
                  lex_aware, execution; GPU metrics carry the same scopes), formula and
                  combine how the summary was made; "column" is the CSV column of each
profiles.csv      one row per profile (index 0 = summary) with its identifier tuple, the kinds
                  named as meta.db names them (logical ids)
cct.csv           the calling-context tree, one row per context, with the summary statistics
                  of the execution (inclusive, _inc) and function (exclusive, _exc) scopes;
                  kind is the lexical type (entry_point, function, loop, line, instruction),
                  relation how the context is reached from its parent (entry_point, call,
                  inlined_call, lexical); context 0 is the implicit global context (parent_id
                  -1); line is 0 where the context has no source location
                  <metric>_own (sums only): the inclusive value less the children's, which adds
                  up to the total over the tree's rows; summing _exc does not, since a
                  function's exclusive value repeats its lines' and loops' (values within
                  1e-9 of the inclusive value are rounding and shown as 0)
` + treeReadme + `contexts/ID.csv   values of context ID in every thread profile (propagated metrics, from cct.db)
contexts.csv      every row of contexts/, ctx_id first, profile by profile (the table to query
                  all contexts x profiles at once, as contexts.parquet)
profiles/NAME.csv values of every context in one profile (summary.csv: every summary statistic;
                  the others: every propagated metric)
traces/NAME.txt   trace samples: time_ns  t_ns  ctx_id  root;...;leaf (function contexts)
traces/NAME.csv   the same as CSV: time_ns,t_ns,ctx_id,function,depth,path

Units: times in nanoseconds (t_ns relative to trace.db's minimum timestamp); metric values in
the metric's own units (see metrics.csv). Trace samples at context 0 mean the thread was not
running. Function contexts without their own source location show the function's definition.
There is no dump/ directory: hpcproftt's text dumps exist for the 4.0 generation only.
`)
	b.WriteString(d.interchangeReadme())
	return []byte(b.String())
}
