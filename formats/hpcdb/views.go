package hpcdb

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

func (d *db) buildViews() {
	root := d.src.Root
	metrics := d.metricsTable
	if d.metaPath != "" {
		metrics = d.metaMetricsTable
	}
	root.AddFile("metrics.csv", metrics().SmallCSV(nil))
	root.AddFile("profiles.csv", d.profilesTable().SmallCSV(nil))
	root.AddFile("cct.csv", d.cctTable().CSV())
	root.AddFile("cct.txt", render.Stream(d.cctTxtRows(), nil))
	root.AddFile("unlisted.csv", d.unlistedTable().CSV())
	if d.profile != nil {
		root.AddFile("imbalance.csv", d.imbalanceTable().CSV())
	}
	root.AddFile("procedures.csv", d.proceduresTable().SmallCSV(nil))
	root.Add("contexts", d.contextsDir())
	if d.profile != nil {
		root.AddFile("contexts.csv", d.contextsTable().CSV())
	}
	if d.metaPath != "" && len(d.taxonomyFiles()) > 0 {
		root.AddFile("taxonomy.csv", d.taxonomyTable().SmallCSV(nil))
		root.Add("taxonomy", d.taxonomyDir())
	}
	if d.profile != nil {
		root.Add("profiles", vfs.Lazy(d.profileEntries))
	}
	if d.trace != nil {
		root.Add("traces", vfs.Lazy(d.traceEntries))
		interchange.AddTraceViews(root, &traceSet{d: d})
	}
	interchange.NewProfile(d.tree, "HPCToolkit database", []string{"hpcfs: HPCToolkit database " + d.dir}).AddViews(root)
}

// interchangeReadme describes flame/, profile.pb.gz and the trace views.
func (d *db) interchangeReadme() string {
	s := "\n" + interchange.ProfileReadme(nil) + `  Frames are the procedure frames of the summary profile's tree (loops, lines and call
  sites fold into their procedure); one metric per inclusive metric, named without _inc.
  Each context's own share is its inclusive value minus its children's, so the values add
  up to the root's inclusive value (cct.csv, ctx_id 0); unlisted contexts are left out.
  Seconds become integer nanoseconds (_sec becomes _ns); other metrics are rounded.
`
	if d.trace != nil {
		s += "\n" + interchange.TraceReadme() + `  trace/<profile>.json; pid is the rank, tid the thread. A run of samples in one context
  is one X event named by its procedure, lasting until the next sample; a line's last run of
  one sample is an instant event. ts counts from the database's minimum trace time.
`
	}
	return s
}

// treeReadme describes the views of the tree in README.txt, after cct.csv.
const treeReadme = `cct.txt           the same tree indented, each context's children by descending inclusive value
                  as hpcviewer sorts them: inclusive %, inclusive, exclusive of the first visible
                  metric, rounded to 6 significant digits (cct.csv has the exact values); a
                  function's line names its module and file once
unlisted.csv      contexts that carry values in the summary profile but have no place in the
                  tree (HPCToolkit's writer left them out of its tree, hpcviewer does not show
                  them): ctx_id and the summary metrics of cct.csv
procedures.csv    flat view: per function (function_id: its number in the database) and
                  relation (call; inlined_call for its inlined instances), exclusive summed,
                  inclusive counted once per call path
imbalance.csv     load imbalance over the thread profiles, per context (kind context, ctx_id)
                  and per procedures.csv row (kind procedure, function_id; its outermost frames
                  summed in each profile), per inclusive metric of the thread profiles: count
                  of the profiles with a value there (as HPCToolkit's statistics count them),
                  min, mean, max, stddev (population: sqrt(sum of squares / count - mean^2),
                  HPCToolkit's StdDev), cv = stddev / mean, max_over_mean and max_profile, the
                  profile of the max; worst first (max_over_mean, then max - mean); -1 in the
                  id column that does not apply. When the summary profile holds hpcprof
                  --stats's partials of a metric (count "1", sum "$$", sum of squares
                  "($$^2)", min and max), a context's count, min, mean, max and stddev are
                  HPCToolkit's own: those values, through its formulas (Mean = Sum / Count,
                  StdDev = sqrt(SumSq / Count - Mean^2)); max_profile is still the threads'
`

func (d *db) readme() ([]byte, error) {
	if d.metaPath != "" {
		return d.metaReadme(), nil
	}
	var b strings.Builder
	b.WriteString("hpcfs mount of " + d.dir + "\n\nHPCToolkit database, experiment.xml 4.0 generation (profile.db/cct.db/trace.db version bytes 1.0).\n\n")
	b.WriteString(`README.txt        this file
_errors.txt       decode problems found so far (empty when none)
raw/              the original files, byte for byte
header.txt        every decoded header: experiment.xml tables, profile.db, cct.db, trace.db
dump/*.txt        hpcproftt's own text rendering of profile.db, cct.db and trace.db
metrics.csv       MetricTable and MetricDBTable entries; "column" is the CSV column of each
profiles.csv      one row per profile (index 0 = summary) with its identifier tuple
cct.csv           the calling-context tree, one row per context (parent_id -1 for the root), with
                  the visible summary metrics and <metric>_own per inclusive sum: the inclusive
                  value less the children's, which adds up to the total over the tree's rows;
                  summing _exc does not, since a procedure's exclusive value repeats its lines'
                  and loops' (values within 1e-9 of the inclusive value are rounding: 0)
` + treeReadme + `contexts/ID.csv   values of context ID in every thread profile (raw MetricDB metrics)
contexts.csv      every row of contexts/, ctx_id first, profile by profile (the table to query
                  all contexts x profiles at once, as contexts.parquet)
profiles/NAME.csv values of every context in one profile (summary.csv: the summary's partial
                  metrics)
traces/NAME.txt   trace samples: time_ns  t_ns  ctx_id  root;...;leaf (procedure frames)
traces/NAME.csv   the same as CSV: time_ns,t_ns,ctx_id,function,depth,path

Units: times in nanoseconds (t_ns relative to the database's minimum trace time);
metric values in the metric's own units (see metrics.csv).
`)
	b.WriteString(d.interchangeReadme())
	return []byte(b.String()), nil
}

// appendKV appends a "key: value" line of header.txt; string values come
// from the data and go through render.EscapeName.
func appendKV(b []byte, k string, v any) []byte {
	if s, ok := v.(string); ok {
		v = render.EscapeName(s)
	}
	return fmt.Appendf(b, "%s: %v\n", render.EscapeName(k), v)
}

func (d *db) headerText() ([]byte, error) {
	var b []byte
	kv := func(k string, v any) { b = appendKV(b, k, v) }
	m := d.model.get()
	x := m.x
	magic := func(old, format string) string {
		if m.meta != nil {
			return hpcdb.Magic + format
		}
		return old
	}
	// file starts the block of one binary file: its name, magic and version.
	file := func(name, old, format string, major, minor uint8) {
		b = append(b, "\n["+name+"]\n"...)
		kv("magic", magic(old, format))
		kv("version", strconv.Itoa(int(major))+"."+strconv.Itoa(int(minor)))
	}
	if m.meta != nil {
		b = d.metaHeaderText(b)
		goto binary
	}
	b = append(b, "[experiment.xml]\n"...)
	kv("version", x.Version)
	kv("title", x.Title)
	kv("identifier_names", len(x.IDNames))
	kv("metrics", len(x.Metrics))
	kv("metric_dbs", len(x.MetricDBs))
	kv("trace_dbs", len(x.TraceDBs))
	for _, t := range x.TraceDBs {
		kv("db_min_time_ns", t.MinTime)
		kv("db_max_time_ns", t.MaxTime)
		kv("time_units_per_sec", t.Units)
	}
	kv("load_modules", m.numModules)
	kv("files", m.numFiles)
	kv("procedures", m.numProcs)
	kv("cct_tags", m.numTags)
	kv("max_context_id", uint64(x.MaxCtx))
binary:
	if p := d.profile; p != nil {
		h := p.Header
		file("profile.db", hpcdb.ProfileMagic, hpcdb.FormatProfile, h.Major, h.Minor)
		kv("num_prof", h.NumProf)
		kv("num_sec", h.NumSec)
		kv("prof_info_sec_size", h.InfoSize)
		kv("prof_info_sec_ptr", h.InfoPtr)
		kv("id_tuples_sec_size", h.TupleSize)
		kv("id_tuples_sec_ptr", h.TuplePtr)
		if p.Meta() {
			kv("profiles_ptr", h.ProfilesPtr)
			kv("profile_size", uint64(h.ProfileSize))
			summaries := 0
			for _, pi := range p.Profiles {
				if pi.IsSummary() {
					summaries++
				}
			}
			kv("summary_profiles", summaries)
		}
		kv("file_size", uint64(p.Size()))
		kv("footer", p.Footer().String())
	}
	if c := d.cct; c != nil {
		h := c.Header
		file("cct.db", hpcdb.CCTMagic, hpcdb.FormatCCT, h.Major, h.Minor)
		kv("num_ctx", h.NumCtx)
		kv("num_sec", h.NumSec)
		kv("ctx_info_sec_size", h.InfoSize)
		kv("ctx_info_sec_ptr", h.InfoPtr)
		if c.Meta() {
			kv("ctxs_ptr", h.CtxsPtr)
			kv("ctx_size", uint64(h.CtxSize))
		}
		kv("file_size", uint64(c.Size()))
		kv("footer", c.Footer().String())
		if d.cctValid() {
			kv("data", "valid; contexts/ is served from cct.db")
		} else {
			kv("data", "not usable (zero-filled or malformed); contexts/ is derived from profile.db")
		}
	}
	if t := d.trace; t != nil {
		h := t.Header
		file("trace.db", hpcdb.TraceMagic, hpcdb.FormatTrace, h.Major, h.Minor)
		kv("num_trace", h.NumTraces)
		kv("num_sec", h.NumSec)
		kv("trace_hdr_sec_size", h.HdrSize)
		kv("trace_hdr_sec_ptr", h.HdrPtr)
		if t.Meta() {
			kv("traces_ptr", h.TracesPtr)
			kv("trace_size", uint64(h.TraceSize))
			kv("min_timestamp_ns", h.MinTimestamp)
			kv("max_timestamp_ns", h.MaxTimestamp)
		}
		kv("file_size", uint64(t.Size()))
		kv("footer", t.Footer().String())
		var samples uint64
		for i := range t.Lines {
			samples += t.Lines[i].NumSamples()
		}
		kv("samples", samples)
	}
	return b, nil
}

// metricsTable is metrics.csv of a 4.0 database: the MetricTable
// entries of experiment.xml, then the raw (MetricDB) metrics.
func (d *db) metricsTable() *render.Table {
	return &render.Table{Columns: metricsColumns, Open: func(pos []byte) (render.Scanner, error) {
		m := d.model.get()
		x := m.x
		cols := map[*hpcdb.Metric]string{}
		for _, c := range append(append([]metricCol(nil), m.visible...), m.summary...) {
			if c.metric != nil {
				cols[c.metric] = c.column
			}
		}
		return render.Groups(2, func(g int64) (int64, func(int64, *render.Row) error, error) {
			if g == 0 {
				return int64(len(x.Metrics)), func(i int64, r *render.Row) error {
					mt := &x.Metrics[i]
					col := cols[mt]
					if col == "" {
						col = columnName(mt.Name)
					}
					metricRow(r, mt, col)
					return nil
				}, nil
			}
			return int64(len(m.thread)), func(i int64, r *render.Row) error {
				c := &m.thread[i]
				scope := ""
				if strings.HasSuffix(c.name, "(I)") {
					scope = "inclusive"
				} else if strings.HasSuffix(c.name, "(E)") {
					scope = "exclusive"
				}
				r.Int(int64(c.id)).Str("MetricDB").Str(c.name).Str(c.column).Empty().Str(scope).Empties(7)
				return nil
			}, nil
		})(pos)
	}}
}

var metricsColumns = []render.Column{
	{Name: "metric_id", Kind: render.Int}, {Name: "table"}, {Name: "name"}, {Name: "column"}, {Name: "description"},
	{Name: "scope"}, {Name: "statistic"}, {Name: "partner", Kind: render.Int}, {Name: "show", Kind: render.Int},
	{Name: "show_percent", Kind: render.Uint}, {Name: "format"}, {Name: "formula"}, {Name: "units"},
}

// metricRow is the metrics.csv row of a MetricTable entry whose column
// is col.
func metricRow(r *render.Row, mt *hpcdb.Metric, col string) {
	stat := ""
	if k := strings.LastIndexByte(mt.Name, ':'); k >= 0 {
		stat = strings.TrimSuffix(strings.TrimSuffix(mt.Name[k+1:], " (I)"), " (E)")
		if j := strings.Index(mt.Name, ":PARTIAL:"); j >= 0 {
			stat = strings.TrimSuffix(strings.TrimSuffix(mt.Name[j+1:], " (I)"), " (E)")
		}
	}
	frm := ""
	for _, f := range mt.Formulas {
		if frm != "" {
			frm += "; "
		}
		frm += f.Type + ": " + f.Frm
	}
	r.Int(int64(mt.ID)).Str("Metric").Str(mt.Name).Str(col).Str(mt.Desc).Str(mt.Type).Str(stat)
	if mt.HasPartner {
		r.Int(int64(mt.Partner))
	} else {
		r.Empty()
	}
	sp := uint64(0)
	if mt.ShowPercent {
		sp = 1
	}
	r.Int(int64(mt.Show)).Uint(sp).Str(mt.Format).Str(frm).Str(mt.Units)
}

func (d *db) hasTrace() map[int]bool {
	out := map[int]bool{}
	if d.trace != nil {
		for _, l := range d.trace.Lines {
			out[int(l.Prof)] = true
		}
	}
	return out
}

// profilesTable is profiles.csv: a row per profile of profile.db.
func (d *db) profilesTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			return append(profileColumns(d.model.get()), render.Column{Name: "num_vals", Kind: render.Uint},
				render.Column{Name: "num_nzctxs", Kind: render.Uint}, render.Column{Name: "has_trace"})
		},
		Open: func(pos []byte) (render.Scanner, error) {
			if d.profile == nil {
				return render.Counted(0, nil)(pos)
			}
			m := d.model.get()
			traced := d.hasTrace()
			return render.Counted(int64(len(d.profile.Profiles)), func(i int64, r *render.Row) error {
				pi := d.profile.Profiles[i]
				profileCells(r, m, uint32(i))
				r.Uint(pi.NumVals).Uint(uint64(pi.NumCtxs)).Str(strconv.FormatBool(traced[int(i)]))
				return nil
			})(pos)
		},
	}
}

// profileColumns are the columns that name a profile: its index, name
// and identifier values (profileCells).
func profileColumns(m *model) []render.Column {
	cols := []render.Column{{Name: "profile_id", Kind: render.Uint}, {Name: "name"}}
	for _, k := range m.kinds {
		cols = append(cols, render.Column{Name: m.kindName(k)})
	}
	return cols
}

// profileCells are the cells of profileColumns for profile prof.
func profileCells(r *render.Row, m *model, prof uint32) {
	name := ""
	if int(prof) < len(m.profNames) {
		name = m.profNames[prof]
	}
	r.Uint(uint64(prof)).Str(name)
	for _, v := range m.idValues(int(prof)) {
		r.Str(v)
	}
}

// idValues are profile i's logical identifier values, one per kind present.
func (m *model) idValues(i int) []string {
	out := make([]string, len(m.kinds))
	if i < len(m.tuples) {
		for _, e := range m.tuples[i] {
			for j, k := range m.kinds {
				if uint16(e.Kind()) == k {
					out[j] = strconv.FormatUint(e.Logical, 10)
				}
			}
		}
	}
	return out
}

// cctTxtRows renders cct.txt: a header, then the tree's contexts in
// txtOrder, 256 per batch.
func (d *db) cctTxtRows() *render.Rows {
	return render.NewRows(256, func() []render.Part {
		m := d.model.get()
		rows, err := m.txtOrder(d)
		if err != nil {
			return []render.Part{render.ErrPart(err)}
		}
		return []render.Part{render.TextPart(cctTxtHeader(m)), {N: int64(len(rows)), Render: func(dst []byte, from, count int64) ([]byte, error) {
			r := m.sumReader(d)
			vals := make([]float64, len(m.visible))
			var total float64 // cct.txt's 100 %
			if inc, _ := m.firstPair(); inc >= 0 {
				v, err := r.value(0, inc)
				if err != nil {
					return dst, err
				}
				total = v
			}
			for i := from; i < from+count; i++ {
				ctx := int(rows[i])
				v, _, err := r.values(ctx)
				if err != nil {
					return dst, err
				}
				copy(vals, v)
				dst = appendCCTTxt(dst, m, ctx, vals, total)
			}
			return dst, nil
		}}}
	})
}

// unlistedTable is unlisted.csv: the contexts that carry values in the
// summary profile but have no place in the tree, with their visible
// summary metrics.
func (d *db) unlistedTable() *render.Table {
	return d.visibleTable(unlistedColumns, func(m *model) (int64, func(int64, *render.Row) ([]float64, error), error) {
		rows := m.rows[m.numListed:]
		return int64(len(rows)), func(i int64, r *render.Row) ([]float64, error) {
			// a reader per row: the rows are few and far apart in the profile
			vals, _, err := m.sumReader(d).values(int(rows[i]))
			r.Uint(uint64(rows[i]))
			return vals, err
		}, nil
	})
}

// visibleTable is a table of the columns first, then a Float column per
// visible summary metric. rows gives, from the model, the number of rows
// and the fill of row i: it adds the cells of first and returns the
// metric values (an error ends the table before the row).
func (d *db) visibleTable(first []render.Column, rows func(m *model) (int64, func(i int64, r *render.Row) ([]float64, error), error)) *render.Table {
	return &render.Table{
		Layout: func() []render.Column { return metricColumns(first, d.model.get().visible) },
		Open: func(pos []byte) (render.Scanner, error) {
			n, fill, err := rows(d.model.get())
			if err != nil {
				return nil, err
			}
			return render.Counted(n, func(i int64, r *render.Row) error {
				vals, err := fill(i, r)
				if err != nil {
					return err
				}
				for _, v := range vals {
					r.Float(v)
				}
				return nil
			})(pos)
		},
	}
}

var unlistedColumns = []render.Column{{Name: "ctx_id", Kind: render.Uint}}

// cctTxtHeader is the first line of cct.txt.
func cctTxtHeader(m *model) string {
	inc, exc := m.firstPair()
	names := ""
	if inc >= 0 {
		names = m.visible[inc].name
	}
	if exc >= 0 {
		names += " / " + m.visible[exc].name
	}
	return "# inclusive_pct  inclusive  exclusive  name [module] file:line   (" + names + ")\n"
}

// cctTable is cct.csv: the tree's contexts in tree order, each with its
// place in the tree, location, visible summary metrics and the _own
// column of each inclusive sum (ownCols).
func (d *db) cctTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			m := d.model.get()
			cols := ctxColumns
			if m.meta != nil {
				cols = append(cols[:len(cols):len(cols)], render.Column{Name: "relation"})
			}
			cols = metricColumns(append(cols[:len(cols):len(cols)], cctLocColumns...), m.visible)
			_, own := m.ownCols()
			for _, name := range own {
				cols = append(cols, render.Column{Name: name, Kind: render.Float})
			}
			return cols
		},
		Open: func(pos []byte) (render.Scanner, error) {
			m := d.model.get()
			rows := m.rows[:m.numListed]
			r := m.sumReader(d)
			own, _ := m.ownCols()
			vals := make([]float64, len(m.visible))
			return render.Counted(int64(len(rows)), func(i int64, row *render.Row) error {
				ctx := int(rows[i])
				v, _, err := r.values(ctx)
				if err != nil {
					return err
				}
				copy(vals, v)
				ctxCells(row, m, ctx)
				if m.meta != nil {
					if ctx > 0 {
						row.Str(hpcdb.RelationName(m.tag[ctx].rel))
					} else {
						row.Empty()
					}
				}
				file, line := m.ctxFile(ctx)
				// line 0 where none is known (the root; meta.db contexts
				// without a source location); address only where known
				if m.meta != nil && m.tag[ctx].flags&tagFile == 0 {
					line = 0
				}
				row.Str(m.ctxName(ctx)).Str(m.ctxModule(ctx)).Str(file).Int(line)
				if ctx > 0 && (m.meta == nil || m.tag[ctx].flags&tagModule != 0) {
					row.Uint(m.addr[ctx])
				} else {
					row.Empty()
				}
				for _, v := range vals {
					row.Float(v)
				}
				for _, j := range own {
					v, err := m.ownValue(r, vals[j], int(i), j)
					if err != nil {
						return err
					}
					row.Float(v)
				}
				return nil
			})(pos)
		},
	}
}

// ctxColumns are the columns cct.csv and taxonomy/*.csv start with
// (ctxCells).
var ctxColumns = []render.Column{
	{Name: "ctx_id", Kind: render.Uint},
	{Name: "parent_id", Kind: render.Int},
	{Name: "depth", Kind: render.Int},
	{Name: "kind"},
}

// cctLocColumns are cct.csv's location columns.
var cctLocColumns = []render.Column{
	{Name: "name"},
	{Name: "module"},
	{Name: "file"},
	{Name: "line", Kind: render.Int},
	{Name: "address", Kind: render.Hex},
}

// ctxCells are the cells of ctxColumns: the context, its parent (-1 for
// the root), depth and kind.
func ctxCells(r *render.Row, m *model, ctx int) {
	r.Uint(uint64(ctx)).Int(int64(m.parent[ctx])).Int(int64(m.depth[ctx])).Str(m.ctxKind(ctx))
}

// firstPair returns the visible columns shown in cct.txt: the first
// visible inclusive metric and its exclusive partner (-1 when none).
func (m *model) firstPair() (inc, exc int) {
	inc, exc = -1, -1
	for j, v := range m.visible {
		if v.inc {
			inc = j
			break
		}
	}
	if inc < 0 {
		if len(m.visible) > 0 {
			exc = 0
		}
		return
	}
	mt := m.visible[inc].metric
	pair := m.visible[inc].pair
	for j, v := range m.visible {
		if mt != nil && mt.HasPartner && v.id == mt.Partner || pair != "" && !v.inc && v.pair == pair && exc < 0 {
			exc = j
		}
	}
	return
}

// appendCCTTxt appends the line of context ctx, whose visible values are
// vals, to cct.txt; total is the first inclusive metric at the root.
func appendCCTTxt(dst []byte, m *model, ctx int, vals []float64, total float64) []byte {
	inc, exc := m.firstPair()
	get := func(j int) float64 {
		if j < 0 {
			return 0
		}
		return vals[j]
	}
	pct := 0.0
	if total != 0 {
		pct = get(inc) / total * 100
	}
	s := strconv.FormatFloat(pct, 'f', 2, 64)
	for k := len(s); k < 6; k++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, s...)
	dst = append(dst, "%  "...)
	dst = render.AppendReadable(dst, get(inc))
	dst = append(dst, "  "...)
	dst = render.AppendReadable(dst, get(exc))
	dst = append(dst, "  "...)
	for k := int32(0); k < m.depth[ctx]; k++ {
		dst = append(dst, "  "...)
	}
	name := m.ctxName(ctx)
	dst = render.AppendName(dst, name)
	if m.kind(ctx) != hpcdb.NodePF {
		return append(dst, '\n')
	}
	// the module once: HPCToolkit names procedures and files it has no
	// symbols for by their module ("<unknown procedure> 0x246c7 [libpsm2.so]")
	if mod := m.ctxModule(ctx); mod != "" && !strings.Contains(name, "["+path.Base(mod)+"]") {
		dst = append(dst, " ["...)
		dst = render.AppendName(dst, mod)
		dst = append(dst, ']')
	}
	// a file HPCToolkit names by the module ("<unknown file> [libm.so]",
	// "[libm.so]") tells nothing more
	if file, line := m.ctxFile(ctx); file != "" && !strings.HasPrefix(file, "<unknown file>") && !strings.HasPrefix(file, "[") {
		dst = append(dst, ' ')
		dst = render.AppendName(dst, file)
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, line, 10)
	}
	return append(dst, '\n')
}

// A procKey is a procedures.csv row: a procedure, called or inlined.
type procKey struct {
	proc int32
	rel  uint8 // called or inlined
}

// A procSum is the row of a procKey: its visible metrics summed over the
// procedure's outermost frames.
type procSum struct {
	procKey
	first int // first ctx, for module/file/line
	sums  []float64
}

// procedureSums are the rows of procedures.csv, in its order: the first
// visible metric descending, then by name and relation.
func (d *db) procedureSums(m *model) ([]*procSum, error) {
	r := m.sumReader(d)
	nv := len(m.visible)
	byProc := map[procKey]*procSum{}
	var order []*procSum
	for _, c32 := range m.rows[:m.numListed] {
		c := int(c32)
		if m.kind(c) != hpcdb.NodePF {
			continue
		}
		proc := m.proc[c]
		k := procKey{proc, m.tag[c].rel}
		a := byProc[k]
		if a == nil {
			a = &procSum{procKey: k, first: c, sums: make([]float64, nv)}
			byProc[k] = a
			order = append(order, a)
		}
		outer := true // no enclosing frame of the same procedure
		for f := m.frame[m.parent[c]]; f >= 0; f = m.frame[m.parent[m.frameCtx[f]]] {
			if m.proc[m.frameCtx[f]] == proc {
				outer = false
				break
			}
		}
		vals, _, err := r.values(c)
		if err != nil {
			return nil, err
		}
		for j, v := range m.visible {
			if !v.inc || outer {
				a.sums[j] += vals[j]
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if nv > 0 && order[i].sums[0] != order[j].sums[0] {
			return order[i].sums[0] > order[j].sums[0]
		}
		if a, b := m.procName(order[i].proc), m.procName(order[j].proc); a != b {
			return a < b
		}
		return order[i].rel < order[j].rel
	})
	return order, nil
}

// proceduresTable is procedures.csv: the flat view, a row per procedure
// and relation (procedureSums).
func (d *db) proceduresTable() *render.Table {
	return d.visibleTable(proceduresColumns, func(m *model) (int64, func(int64, *render.Row) ([]float64, error), error) {
		order, err := d.procedureSums(m)
		return int64(len(order)), func(i int64, r *render.Row) ([]float64, error) {
			a := order[i]
			file, line := m.ctxFile(a.first)
			r.Int(m.procIDs[a.proc]).Str(m.procName(a.proc)).Str(hpcdb.RelationName(a.rel)).Str(m.ctxModule(a.first)).Str(file).Int(line)
			return a.sums, nil
		}, err
	})
}

var proceduresColumns = []render.Column{
	{Name: "function_id", Kind: render.Int}, {Name: "function"}, {Name: "relation"},
	{Name: "module"}, {Name: "file"}, {Name: "line", Kind: render.Int},
}
