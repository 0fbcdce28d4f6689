package callgrind

import (
	"slices"
	"strings"
	"sync"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// A model is a function table and what its views share: the table of one
// profile, or the sum of several.
type model struct {
	prefix string // path of the model's directory in the mount, "" or "name/"
	errs   *vfs.Errors
	load   func() *cg.Table

	once    sync.Once
	tab     *cg.Table
	callers [][]int32 // edges by callee, then by caller
	callees [][]int32

	// graphReadme is the README's paragraph on the call graph, made once:
	// it is a few lines, and making it expands the call graph (README.txt
	// is rendered at each read).
	graphReadme func() string
}

func (m *model) table() *cg.Table {
	m.once.Do(func() {
		m.tab = m.load()
		m.callers = make([][]int32, len(m.tab.Funcs))
		m.callees = make([][]int32, len(m.tab.Funcs))
		for i, e := range m.tab.Edges {
			m.callees[e.Caller] = append(m.callees[e.Caller], int32(i))
			m.callers[e.Callee] = append(m.callers[e.Callee], int32(i))
		}
	})
	return m.tab
}

// A profile is one opened file.
type profile struct {
	model
	f    *cg.File
	path string
}

func newProfile(f *cg.File, path, prefix string, errs *vfs.Errors) *profile {
	p := &profile{f: f, path: path}
	p.prefix, p.errs = prefix, errs
	p.graphReadme = sync.OnceValue(func() string { return interchange.GraphReadme(p.graph()) })
	errs.ReportAll(prefix+"header.txt", f.Problems)
	p.load = func() *cg.Table {
		t := f.Summarize()
		errs.ReportAll(prefix+"functions.csv", t.Problems)
		return t
	}
	return p
}

func newSum(ps []*profile, prefix string, errs *vfs.Errors) *model {
	m := &model{prefix: prefix, errs: errs}
	m.load = func() *cg.Table {
		tabs := make([]*cg.Table, len(ps))
		for i, p := range ps {
			tabs[i] = p.table()
		}
		return cg.Merge(tabs)
	}
	return m
}

// build adds the table views to dir; withFile adds the views that read
// the file itself (lines.csv, and the header as found).
func (m *model) build(dir *vfs.Dir, withFile bool) {
	dir.AddFile("functions.csv", m.functionsTable().CSV())
	dir.AddFile("calls.csv", m.callsTable().CSV())
	dir.Add("functions", vfs.Lazy(m.functionDirs))
	title := strings.TrimSuffix(m.prefix, "/")
	if title == "" {
		title = "profile"
	}
	m.addInterchange(dir, title)
	if !withFile {
		dir.AddFile("header.txt", render.Bytes(func() ([]byte, error) { return m.sumHeader(), nil }, nil))
	}
}

func (p *profile) build(dir *vfs.Dir, _ bool) {
	p.model.build(dir, true)
	dir.AddFile("header.txt", render.Bytes(func() ([]byte, error) { return p.headerText(), nil }, nil))
	if p.f.IsCachegrind() {
		dir.AddFile("annotate.txt", render.Bytes(func() ([]byte, error) { return p.f.CgAnnotate(p.path) }, nil))
	} else {
		for _, v := range []struct {
			name      string
			inclusive bool
		}{{"annotate.txt", false}, {"annotate-inclusive.txt", true}} {
			dir.AddFile(v.name, render.Bytes(func() ([]byte, error) { return p.f.Annotate(p.path, v.inclusive) }, nil))
		}
	}
	dir.AddFile("lines.csv", p.linesTable().CSV())
}

// functionDirs lists functions/<nr>-<name>/ with callers.csv and callees.csv.
func (m *model) functionDirs() []vfs.Entry {
	t := m.table()
	n := len(t.Funcs)
	width := render.DecimalLen(uint64(max(n-1, 0)))
	out := make([]vfs.Entry, 0, n)
	for i := range t.Funcs {
		b := render.AppendPadded(nil, uint64(i), width)
		b = append(b, '-')
		b = append(b, t.Names.Name(t.Funcs[i].Name)...)
		d := vfs.NewDir()
		d.AddFile("callers.csv", m.callListTable(i, true).SmallCSV(nil))
		d.AddFile("callees.csv", m.callListTable(i, false).SmallCSV(nil))
		out = append(out, vfs.Entry{Name: render.SafeName(strings.ReplaceAll(string(b), "\\", "_")), Node: d})
	}
	return out
}

// The tables of a model are render.Tables: the functions below give their
// columns (on first use: they name the profile's events) and fill their
// rows; render writes, sizes and indexes them.

// eventColumns are the events' names in columns: snake_case
// (render.Name: Time_(10ns) -> time_10ns), each once.
func eventColumns(events []string) []string {
	u := render.NewUniquer()
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = u.Unique(render.Name(e, "event"))
	}
	return out
}

// costColumns are a column per event, named after the event and each of
// suffixes in turn.
func costColumns(events []string, suffixes ...string) []render.Column {
	var cols []render.Column
	for _, e := range eventColumns(events) {
		for _, s := range suffixes {
			cols = append(cols, render.Column{Name: e + s, Kind: render.Int})
		}
	}
	return cols
}

func costCells(r *render.Row, costs []int64) {
	for _, v := range costs {
		r.Int(v)
	}
}

// fnColumns are a function's number, name and file, as role (caller,
// callee) names them.
func fnColumns(role string) []render.Column {
	return []render.Column{{Name: role + "_id", Kind: render.Uint}, {Name: role}, {Name: role + "_file"}}
}

func (m *model) fnCells(r *render.Row, i int32) {
	t := m.tab
	r.Uint(uint64(i)).Str(t.Names.Name(t.Funcs[i].Name)).Str(t.Names.Name(t.Funcs[i].File))
}

// instrColumn is the instr column of a profile with instruction positions.
var instrColumn = render.Column{Name: "instr", Kind: render.Hex}

// siteColumns are where a call is made and how often.
func (m *model) siteColumns() []render.Column {
	cols := []render.Column{{Name: "line", Kind: render.Int}}
	if m.hasInstr() {
		cols = append(cols, instrColumn)
	}
	return append(cols, render.Column{Name: "call_count", Kind: render.Uint})
}

func (m *model) siteCells(r *render.Row, e *cg.Edge) {
	r.Int(e.Line)
	if m.hasInstr() {
		r.Uint(e.Instr)
	}
	r.Uint(e.Count)
}

func (m *model) hasInstr() bool { return m.tab != nil && m.tab.Header.HasInstr() }

func (m *model) functionsTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			cols := []render.Column{{Name: "function_id", Kind: render.Uint}, {Name: "function"}, {Name: "file"}, {Name: "module"}, {Name: "call_count", Kind: render.Uint}}
			return append(cols, costColumns(m.table().Events, "_inc", "_exc")...)
		},
		Open: func(pos []byte) (render.Scanner, error) {
			t := m.table()
			return render.Counted(int64(len(t.Funcs)), func(i int64, r *render.Row) error {
				f := &t.Funcs[i]
				r.Uint(uint64(i)).Str(t.Names.Name(f.Name)).Str(t.Names.Name(f.File)).Str(t.Names.Name(f.Obj)).Uint(f.Calls)
				self := t.Self(int(i))
				for k, inc := range t.Inclusive(int(i)) {
					r.Int(inc).Int(self[k])
				}
				return nil
			})(pos)
		},
	}
}

func (m *model) callsTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			t := m.table()
			cols := append(append(fnColumns("caller"), fnColumns("callee")...), m.siteColumns()...)
			return append(cols, costColumns(t.Events, "_inc")...)
		},
		Open: func(pos []byte) (render.Scanner, error) {
			t := m.table()
			return render.Counted(int64(len(t.Edges)), func(i int64, r *render.Row) error {
				e := &t.Edges[i]
				m.fnCells(r, e.Caller)
				m.fnCells(r, e.Callee)
				m.siteCells(r, e)
				costCells(r, t.EdgeCost(int(i)))
				return nil
			})(pos)
		},
	}
}

// callListTable is callers.csv (callers of function i) or callees.csv, by
// inclusive cost of the first event, descending, as webgrind lists them.
func (m *model) callListTable(i int, callers bool) *render.Table {
	who := "callee"
	if callers {
		who = "caller"
	}
	return &render.Table{
		Layout: func() []render.Column {
			t := m.table()
			return append(append(fnColumns(who), m.siteColumns()...), costColumns(t.Events, "_inc")...)
		},
		Open: func(pos []byte) (render.Scanner, error) {
			t := m.table()
			list := m.callees[i]
			if callers {
				list = m.callers[i]
			}
			list = slices.Clone(list)
			slices.SortStableFunc(list, func(a, b int32) int {
				if len(t.Events) == 0 {
					return 0
				}
				ca, cb := t.EdgeCost(int(a))[0], t.EdgeCost(int(b))[0]
				switch {
				case ca > cb:
					return -1
				case ca < cb:
					return 1
				}
				return 0
			})
			return render.Counted(int64(len(list)), func(k int64, r *render.Row) error {
				e := &t.Edges[list[k]]
				if callers {
					m.fnCells(r, e.Caller)
				} else {
					m.fnCells(r, e.Callee)
				}
				m.siteCells(r, e)
				costCells(r, t.EdgeCost(int(list[k])))
				return nil
			})(pos)
		},
	}
}

// linesTable is lines.csv: one row per self cost line, in file order. Its
// positions are the decoder's states (which hold name numbers of the
// file's deterministic name table).
func (p *profile) linesTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			t := p.table()
			cols := []render.Column{{Name: "file"}, {Name: "line", Kind: render.Int}}
			if p.f.Header.HasInstr() {
				cols = append(cols, instrColumn)
			}
			cols = append(cols, render.Column{Name: "function"}, render.Column{Name: "module"})
			return append(cols, costColumns(t.Events, "")...)
		},
		Open: func(pos []byte) (render.Scanner, error) {
			t := p.table()
			st := p.f.StartState()
			if len(pos) > 0 {
				var err error
				if st, _, err = cg.DecodeState(pos); err != nil {
					return nil, err
				}
			}
			return &lineScan{t: t, d: p.f.NewDecoder(t.Names, st), instr: p.f.Header.HasInstr()}, nil
		},
	}
}

type lineScan struct {
	t     *cg.Table
	d     *cg.Decoder
	instr bool
}

func (s *lineScan) Scan(row *render.Row) error {
	for {
		r, err := s.d.Next()
		if err != nil {
			return err
		}
		if r.Kind != cg.Cost {
			continue
		}
		if s.t.RowsCut > 0 && r.Off >= s.t.RowsCut {
			return s.t.CutError()
		}
		names := s.t.Names
		row.Str(names.Name(r.File)).Int(r.Line)
		if s.instr {
			row.Uint(r.Instr)
		}
		row.Str(names.Name(r.Fn)).Str(names.Name(r.Obj))
		costCells(row, r.Costs)
		return nil
	}
}

func (s *lineScan) Pos() []byte {
	b, _ := s.d.State().AppendBinary(nil)
	return b
}
