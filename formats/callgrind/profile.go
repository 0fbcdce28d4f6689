package callgrind

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
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

func (m *model) reporter(view string) func(error) { return m.errs.Reporter(m.prefix + view) }

// A profile is one opened file.
type profile struct {
	model
	f    *cg.File
	path string
}

func newProfile(f *cg.File, path, prefix string, errs *vfs.Errors) *profile {
	p := &profile{f: f, path: path}
	p.prefix, p.errs = prefix, errs
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

// rowBatch is the rows of functions.csv and calls.csv rendered at a time.
const rowBatch = 64

// build adds the table views to dir; withFile adds the views that read
// the file itself (lines.csv, and the header as found).
func (m *model) build(dir *vfs.Dir, withFile bool) {
	dir.AddFile("functions.csv", render.Stream(render.NewRows(rowBatch, m.functionsCSV), m.reporter("functions.csv")))
	dir.AddFile("calls.csv", render.Stream(render.NewRows(rowBatch, m.callsCSV), m.reporter("calls.csv")))
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
		dir.AddFile("annotate.txt", render.Bytes(func() ([]byte, error) { return p.f.CgAnnotate(p.path) }, p.reporter("annotate.txt")))
	} else {
		for _, v := range []struct {
			name      string
			inclusive bool
		}{{"annotate.txt", false}, {"annotate-inclusive.txt", true}} {
			dir.AddFile(v.name, render.Bytes(func() ([]byte, error) { return p.f.Annotate(p.path, v.inclusive) }, p.reporter(v.name)))
		}
	}
	dir.AddFile("lines.csv", render.IndexedStream(linesGen{p}, render.IndexKey("callgrind", p.prefix+"lines.csv", p.path), p.reporter("lines.csv")))
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
		where := "functions/" + strconv.Itoa(i) + "/"
		d.AddFile("callers.csv", render.Bytes(func() ([]byte, error) { return m.callList(i, true), nil }, m.reporter(where+"callers.csv")))
		d.AddFile("callees.csv", render.Bytes(func() ([]byte, error) { return m.callList(i, false), nil }, m.reporter(where+"callees.csv")))
		out = append(out, vfs.Entry{Name: vfs.SafeName(strings.ReplaceAll(string(b), "\\", "_")), Node: d})
	}
	return out
}

// appendEventColumns appends a column per event, named after the event
// (eventColumns) and suffix.
func appendEventColumns(dst []byte, suffix string, events []string) []byte {
	for _, e := range eventColumns(events) {
		dst = append(dst, ',')
		dst = append(dst, e+suffix...)
	}
	return dst
}

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

func appendCosts(dst []byte, costs []int64) []byte {
	for _, v := range costs {
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, v, 10)
	}
	return dst
}

func (m *model) functionsCSV() []render.Part {
	t := m.table()
	header := []byte("function_id,function,file,module,call_count")
	for _, e := range eventColumns(t.Events) {
		header = append(header, ","+e+"_inc,"+e+"_exc"...)
	}
	header = append(header, '\n')
	return rowParts(string(header), len(t.Funcs), func(dst []byte, i int) []byte {
		f := &t.Funcs[i]
		dst = strconv.AppendInt(dst, int64(i), 10)
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, t.Names.Name(f.Name))
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, t.Names.Name(f.File))
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, t.Names.Name(f.Obj))
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, f.Calls, 10)
		self := t.Self(i)
		for k, inc := range t.Inclusive(i) {
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, inc, 10)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, self[k], 10)
		}
		return append(dst, '\n')
	})
}

func (m *model) hasInstr() bool { return m.tab != nil && m.tab.Header.HasInstr() }

func (m *model) appendSite(dst []byte, e *cg.Edge) []byte {
	dst = strconv.AppendInt(dst, e.Line, 10)
	if m.hasInstr() {
		dst = append(dst, ",0x"...)
		dst = strconv.AppendUint(dst, e.Instr, 16)
	}
	dst = append(dst, ',')
	return strconv.AppendUint(dst, e.Count, 10)
}

func (m *model) siteColumns() string {
	if m.hasInstr() {
		return "line,instr,call_count"
	}
	return "line,call_count"
}

func (m *model) appendFn(dst []byte, i int32) []byte {
	t := m.tab
	dst = strconv.AppendInt(dst, int64(i), 10)
	dst = append(dst, ',')
	dst = render.AppendCSVField(dst, t.Names.Name(t.Funcs[i].Name))
	dst = append(dst, ',')
	dst = render.AppendCSVField(dst, t.Names.Name(t.Funcs[i].File))
	return append(dst, ',')
}

func (m *model) callsCSV() []render.Part {
	t := m.table()
	header := []byte("caller_id,caller,caller_file,callee_id,callee,callee_file," + m.siteColumns())
	header = appendEventColumns(header, "_inc", t.Events)
	header = append(header, '\n')
	return rowParts(string(header), len(t.Edges), func(dst []byte, i int) []byte {
		e := &t.Edges[i]
		dst = m.appendFn(dst, e.Caller)
		dst = m.appendFn(dst, e.Callee)
		dst = m.appendSite(dst, e)
		dst = appendCosts(dst, t.EdgeCost(i))
		return append(dst, '\n')
	})
}

// callList is callers.csv (callers of function i) or callees.csv, by
// inclusive cost of the first event, descending, as webgrind lists them.
func (m *model) callList(i int, callers bool) []byte {
	t := m.table()
	list := m.callees[i]
	who := "callee"
	if callers {
		list, who = m.callers[i], "caller"
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
	dst := []byte(who + "_id," + who + "," + who + "_file," + m.siteColumns())
	dst = appendEventColumns(dst, "_inc", t.Events)
	dst = append(dst, '\n')
	for _, x := range list {
		e := &t.Edges[x]
		if callers {
			dst = m.appendFn(dst, e.Caller)
		} else {
			dst = m.appendFn(dst, e.Callee)
		}
		dst = m.appendSite(dst, e)
		dst = appendCosts(dst, t.EdgeCost(int(x)))
		dst = append(dst, '\n')
	}
	return dst
}

// linesCSV streams one row per self cost line, in file order.
func (p *profile) linesCSV(state any) (render.Cursor, error) {
	t := p.table()
	instr := p.f.Header.HasInstr()
	header := "file,line,"
	if instr {
		header += "instr,"
	}
	h := []byte(header + "function,module")
	h = appendEventColumns(h, "", t.Events)
	h = append(h, '\n')
	c := &linesCursor{p: p, t: t, instr: instr, header: h}
	if st, ok := state.(cg.State); ok {
		c.d = p.f.NewDecoder(t.Names, st)
	} else {
		c.d = p.f.NewDecoder(t.Names, p.f.StartState())
		c.atStart = true
	}
	return c, nil
}

type linesCursor struct {
	p       *profile
	t       *cg.Table
	d       *cg.Decoder
	instr   bool
	header  []byte
	atStart bool
	err     error
}

const linesPerNext = 64

func (c *linesCursor) Next(dst []byte) ([]byte, error) {
	if c.atStart {
		c.atStart = false
		return append(dst, c.header...), nil
	}
	if c.err != nil {
		return dst, c.err
	}
	n := 0
	for n < linesPerNext {
		r, err := c.d.Next()
		if err != nil {
			if n > 0 {
				// Return the rows so far; the error comes next time.
				c.err = err
				return dst, nil
			}
			return dst, err
		}
		if r.Kind != cg.Cost {
			continue
		}
		if c.t.RowsCut > 0 && r.Off >= c.t.RowsCut {
			c.err = c.t.CutError()
			return dst, nil
		}
		n++
		names := c.t.Names
		dst = render.AppendCSVField(dst, names.Name(r.File))
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, r.Line, 10)
		if c.instr {
			dst = append(dst, ",0x"...)
			dst = strconv.AppendUint(dst, r.Instr, 16)
		}
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, names.Name(r.Fn))
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, names.Name(r.Obj))
		dst = appendCosts(dst, r.Costs)
		dst = append(dst, '\n')
	}
	return dst, nil
}

func (c *linesCursor) State() any {
	if c.atStart {
		return nil
	}
	return c.d.State()
}

// rowParts is a header and n rows as the parts of a render.Rows view
// (random access and on-disk index through its RowPos states).
func rowParts(header string, n int, row func(dst []byte, i int) []byte) []render.Part {
	return []render.Part{render.TextPart(header), render.RowPart(int64(n), func(dst []byte, i int64) ([]byte, error) {
		return row(dst, int(i)), nil
	})}
}
