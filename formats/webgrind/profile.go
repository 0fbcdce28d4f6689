package webgrind

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	wg "github.com/hpcfs/hpcfs/decode/webgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// A profile is one opened preprocessed file and the state its views share.
type profile struct {
	f      *wg.File
	hdr    *wg.Headers
	prefix string // path of the profile's directory in the mount, "" or "name/"
	errs   *vfs.Errors

	tableOnce   sync.Once
	table       atomic.Pointer[table]
	directNames atomic.Int64

	orderOnce sync.Once
	order     []int // function numbers by self cost descending

	derivedOnce sync.Once
	derived     [][]wg.Call // version 5: sub-calls inverted from called-from lists
	derivedErr  error

	// graphReadme is the README's paragraph on the call graph, made once:
	// it is a few lines, and making it reads the function table and
	// expands the call graph (README.txt is rendered at each read).
	graphReadme func() string
}

// A table holds the summary of every function readable from the start;
// err is what stopped it, if anything. Past that point, later holds the
// name of every later function as its own record gives it, so that names
// stay what a listing showed before the damage was found.
type table struct {
	fns   []wg.Function
	err   error
	later []string
}

func newProfile(f *wg.File, prefix string, errs *vfs.Errors) *profile {
	p := &profile{f: f, hdr: wg.ParseHeaders(f.HeaderLines), prefix: prefix, errs: errs}
	p.graphReadme = sync.OnceValue(func() string {
		g, _ := p.graph()
		return interchange.GraphReadme(g)
	})
	errs.ReportAll(prefix+"header.txt", f.Problems)
	return p
}

// functions returns the function table, reading it on first use.
func (p *profile) functions() *table {
	p.tableOnce.Do(func() {
		t := &table{fns: make([]wg.Function, 0, p.f.NumFunctions())}
		rd := p.f.NewReader()
		files := map[string]string{}
		for i := 0; i < p.f.NumFunctions(); i++ {
			fn, err := rd.Function(i)
			if err != nil {
				t.err = err
				for j := i; j < p.f.NumFunctions(); j++ {
					t.later = append(t.later, recordName(rd, j))
				}
				break
			}
			if s, ok := files[fn.File]; ok {
				fn.File = s
			} else {
				files[fn.File] = fn.File
			}
			t.fns = append(t.fns, fn)
		}
		p.table.Store(t)
	})
	return p.table.Load()
}

// name returns the name of function i without waiting for the table:
// the name its own record gives, "" when that record cannot be read. It
// never changes, whether the table is read or not.
func (p *profile) name(i uint32) string {
	if t := p.table.Load(); t != nil {
		switch k := int64(i) - int64(len(t.fns)); {
		case k < 0:
			return t.fns[i].Name
		case k < int64(len(t.later)):
			return t.later[k]
		}
		return ""
	}
	// A listing asks for every name: past a few lookups, read the table.
	if p.directNames.Add(1) > directNameReads {
		p.functions()
		return p.name(i)
	}
	return recordName(p.f.NewReaderSmall(), int(i))
}

func recordName(rd *wg.Reader, i int) string {
	fn, err := rd.Function(i)
	if err != nil {
		return ""
	}
	return fn.Name
}

// directNameReads is how many names are read record by record before the
// whole table is read.
const directNameReads = 256

func (p *profile) sortedBySelf() []int {
	p.orderOnce.Do(func() {
		t := p.functions()
		p.order = make([]int, len(t.fns))
		for i := range p.order {
			p.order[i] = i
		}
		slices.SortStableFunc(p.order, func(a, b int) int {
			sa, sb := t.fns[a].Self, t.fns[b].Self
			switch {
			case sa > sb:
				return -1
			case sa < sb:
				return 1
			}
			return 0
		})
	})
	return p.order
}

// subCalls returns the sub-call list of function i: stored (v4, v6, v7) or
// derived from every called-from list (v5).
func (p *profile) subCalls(rd *wg.Reader, i int) ([]wg.Call, error) {
	if p.f.Version.HasSubCalls() {
		_, sc, err := rd.Calls(i)
		return sc, err
	}
	p.derivedOnce.Do(func() {
		n := p.f.NumFunctions()
		p.derived = make([][]wg.Call, n)
		drd := p.f.NewReader()
		for g := 0; g < n; g++ {
			cf, err := drd.CalledFrom(g)
			if err != nil {
				p.derivedErr = err
				break
			}
			for _, c := range cf {
				if int64(c.Function) < int64(n) {
					p.derived[c.Function] = append(p.derived[c.Function], wg.Call{Function: uint32(g), Line: c.Line, Count: c.Count, Cost: c.Cost})
				}
			}
		}
	})
	if i < len(p.derived) && p.derived[i] != nil {
		return p.derived[i], nil
	}
	return nil, p.derivedErr
}

// build adds the views of the profile to dir.
func (p *profile) build(dir *vfs.Dir) {
	dir.AddFile("header.txt", render.Static(p.headerText()))
	dir.AddFile("functions.csv", p.functionsTable().CSV())
	dir.AddFile("functions.txt", p.functionsTxtTable().Text(p.functionsTxtHeader))
	dir.AddFile("calls.csv", p.callsTable().CSV())
	if p.f.Version == wg.V4 {
		dir.AddFile("invocations.csv", p.invocationsTable().CSV())
	}
	title := strings.TrimSuffix(p.prefix, "/")
	if title == "" {
		title = "profile"
	}
	p.addInterchange(dir, title)
	n := p.f.NumFunctions()
	width := render.DecimalLen(uint64(max(n-1, 0)))
	dir.Add("functions", vfs.Indexed(n, func(i int) string {
		b := render.AppendPadded(nil, uint64(i), width)
		b = append(b, '-')
		// PHP namespaces use '\\', which io/fs forbids in names.
		return render.SafeName(strings.ReplaceAll(string(append(b, p.name(uint32(i))...)), "\\", "_"))
	}, func(i int) vfs.Node {
		d := vfs.NewDir()
		d.AddFile("callers.csv", p.callersTable(i).SmallCSV(nil))
		d.AddFile("callees.csv", p.calleesTable(i).SmallCSV(nil))
		return d
	}))
}

// humanKind is webgrind's classification of a function name.
func humanKind(name string) string {
	switch {
	case strings.Contains(name, "php::"):
		return "internal"
	case strings.Contains(name, "require_once::"), strings.Contains(name, "require::"),
		strings.Contains(name, "include_once::"), strings.Contains(name, "include::"):
		return "include"
	case strings.Contains(name, "->"), strings.Contains(name, "::"):
		return "class"
	}
	return "procedural"
}

// units describes the cost unit of the events header.
func (p *profile) units() string {
	ev := p.hdr.Get("events")
	first, _, _ := strings.Cut(strings.TrimSpace(ev), " ")
	switch {
	case first == "":
		return "costs are in the profile's unknown unit (no events: header)"
	case strings.Contains(ev, "Time_(10ns)"):
		return "costs are Xdebug's Time_(10ns): 1 unit = 10 ns (webgrind divides by 100 for microseconds)"
	case first == "Time":
		return "costs are Xdebug's Time: 1 unit = 1 microsecond"
	case first == "Ir":
		return "costs are valgrind's Ir: instructions executed"
	}
	return "costs are the first event, " + render.EscapeName(first)
}

func (p *profile) headerText() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "format_version: %d\nfunction_count: %d\nheader_address: %d\nfile_size: %d\n",
		p.f.Version, p.f.StoredCount, p.f.HeaderAddr, p.f.Size())
	b.WriteString("\n# header lines as stored\n")
	for _, l := range p.f.HeaderLines {
		b.WriteString(render.EscapeName(l) + "\n")
	}
	fmt.Fprintf(&b, "\n# as webgrind reads them (summary lines summed, runs counted)\nruns: %d\nsummary: %s\n",
		p.hdr.Runs, render.FormatFloat(p.hdr.Summary))
	for _, k := range p.hdr.Keys {
		fmt.Fprintf(&b, "%s: %s\n", render.EscapeName(k), render.EscapeName(p.hdr.Get(k)))
	}
	fmt.Fprintf(&b, "units: %s\n", p.units())
	return []byte(b.String())
}

func (p *profile) readme(path string) string {
	var b strings.Builder
	v := p.f.Version
	fmt.Fprintf(&b, "hpcfs mount of %s\n\nwebgrind preprocessed callgrind file, format version %d, %s.\n", path, v, vfs.Count(p.f.NumFunctions(), "function"))
	fmt.Fprintf(&b, "Units: %s.\nPercentages are of the summary header (%s), with 2 decimals as webgrind shows them;\n\"0.00\" when the summary is 0.\n\n",
		p.units(), render.FormatFloat(p.hdr.Summary))
	b.WriteString(`header.txt        format version, function count, header lines as stored, then runs and summary
                  as webgrind computes them
functions.csv     function_id,function,file,line,kind,call_count,cost_inc,cost_exc,cost_inc_pct,
                  cost_exc_pct
                  one row per function in function-number order (function_id is webgrind's
                  function nr); call_count is webgrind's invocation count; cost_inc and
                  cost_exc are its summed inclusive and self costs; kind is webgrind's
                  (internal, include, class, procedural)
functions.txt     webgrind's summary line and function table as text, by self cost descending:
                  self %, inclusive %, invocations, function, file:line
calls.csv         caller_id,caller,callee_id,callee,line,call_count,call_cost,call_cost_pct
                  one row per (caller, callee, line); line is in the caller's file
functions/<nr>-<name>/callers.csv  webgrind's "Called From" table of one function
functions/<nr>-<name>/callees.csv  webgrind's "Calls" table of one function
                  (<nr> is zero-padded so that ls lists functions in number order)
`)
	if v == wg.V4 {
		b.WriteString("invocations.csv   function_id,function,invocation,cost_inc,cost_exc,call_cost,caller_id,\n" +
			"                  caller_invocation,caller_line\n" +
			"                  one row per invocation record; caller fields empty when never called\n")
	}
	b.WriteString("_errors.txt       decode problems found so far\nraw/              the original file\n\n")
	metric, _ := p.metric()
	b.WriteString(interchange.ProfileReadme([]interchange.Metric{metric}))
	b.WriteString(p.graphReadme() + "\n")
	switch v {
	case wg.V4:
		b.WriteString("Version 4 stores one record per invocation: per-function totals and call lists are\naggregated from them (one call per record), so the tables mean what they mean for later versions.\n")
	case wg.V5:
		b.WriteString("Version 5 stores called-from lists only: calls.csv and callees.csv are derived from them.\n")
	}
	if !v.HasLine() {
		b.WriteString("Function records of this version carry no definition line: the line column is empty.\n")
	}
	b.WriteString("webgrind counts recursion in every invocation, so inclusive costs can exceed 100 %.\n")
	return b.String()
}
