package webgrind

import (
	"io"
	"math"
	"strconv"
	"strings"

	wg "github.com/hpcfs/hpcfs/decode/webgrind"
	"github.com/hpcfs/hpcfs/render"
)

// The tables of a profile are render.Tables: the functions below give
// their columns and fill their rows; render writes, sizes and indexes them.

// pctColumn is a percentage of the summary as webgrind shows it.
func pctColumn(name string) render.Column {
	return render.Column{Name: name, Kind: render.PctHalfUp}
}

var functionsColumns = []render.Column{
	{Name: "function_id", Kind: render.Uint},
	{Name: "function"},
	{Name: "file"},
	{Name: "line", Kind: render.Uint},
	{Name: "kind"},
	{Name: "call_count", Kind: render.Uint},
	{Name: "cost_inc", Kind: render.Uint},
	{Name: "cost_exc", Kind: render.Uint},
	pctColumn("cost_inc_pct"),
	pctColumn("cost_exc_pct"),
}

// callColumns are the columns of a call: where, how often, what it cost.
var callColumns = []render.Column{
	{Name: "line", Kind: render.Uint},
	{Name: "call_count", Kind: render.Uint},
	{Name: "call_cost", Kind: render.Uint},
	pctColumn("call_cost_pct"),
}

// fnColumns are a function's number and name, as the role (caller or
// callee) names them.
func fnColumns(role string) []render.Column {
	return []render.Column{{Name: role + "_id", Kind: render.Uint}, {Name: role}}
}

var invocationsColumns = []render.Column{
	{Name: "function_id", Kind: render.Uint},
	{Name: "function"},
	{Name: "invocation", Kind: render.Uint},
	{Name: "cost_inc", Kind: render.Uint},
	{Name: "cost_exc", Kind: render.Uint},
	{Name: "call_cost", Kind: render.Uint},
	{Name: "caller_id", Kind: render.Uint},
	{Name: "caller_invocation", Kind: render.Uint},
	{Name: "caller_line", Kind: render.Uint},
}

const functionsTxtHead = "  self %   incl %  invocations  function  file:line\n"

// functionsTxtColumns are functions.txt's, as webgrind's list aligns
// them; file:line is file, then line after a colon when the version has
// lines.
func (p *profile) functionsTxtColumns() []render.Column {
	cols := []render.Column{
		{Name: "self", Kind: render.PctHalfUp, Width: 8},
		{Name: "incl", Kind: render.PctHalfUp, Width: 9},
		{Name: "invocations", Kind: render.Uint, Width: 13},
		{Name: "function", Sep: "  "},
		{Name: "file", Sep: "  "},
	}
	if p.f.Version.HasLine() {
		cols = append(cols, render.Column{Name: "line", Kind: render.Uint, Sep: ":"})
	}
	return cols
}

// pct is cost as a percentage of the summary, as webgrind's Reader
// computes it before number_format (render.PctHalfUp): 0 when the summary
// is 0.
func (p *profile) pct(cost uint64) float64 { return pctOf(cost, p.hdr.Summary) }

func pctOf(cost uint64, summary float64) float64 {
	if summary == 0 || cost == 0 {
		return 0
	}
	if cost > 1<<56 {
		return float64(cost) * 100 / summary
	}
	return float64(cost*100) / summary
}

// readable is the Open of a table of one row per function readable from
// the start (in the order order gives, nil for number order), ending with
// the error that stopped the function table.
func (p *profile) readable(order func() []int, fill func(fn *wg.Function, i int, r *render.Row)) func(pos []byte) (render.Scanner, error) {
	return func(pos []byte) (render.Scanner, error) {
		t := p.functions()
		var ord []int
		if order != nil {
			ord = order()
		}
		return render.Counted(int64(len(t.fns))+1, func(k int64, r *render.Row) error {
			if k == int64(len(t.fns)) {
				if t.err != nil {
					return t.err
				}
				return io.EOF
			}
			i := int(k)
			if ord != nil {
				i = ord[k]
			}
			fill(&t.fns[i], i, r)
			return nil
		})(pos)
	}
}

func (p *profile) functionsTable() *render.Table {
	return &render.Table{Columns: functionsColumns, Open: p.readable(nil, func(fn *wg.Function, _ int, r *render.Row) {
		r.Uint(uint64(fn.Nr)).Str(fn.Name).Str(fn.File)
		if p.f.Version.HasLine() {
			r.Uint(uint64(fn.Line))
		} else {
			r.Empty()
		}
		r.Str(humanKind(fn.Name)).Uint(fn.Invocations).Uint(fn.Inclusive).Uint(fn.Self).
			Float(p.pct(fn.Inclusive)).Float(p.pct(fn.Self))
	})}
}

func (p *profile) functionsTxtTable() *render.Table {
	return &render.Table{Columns: p.functionsTxtColumns(), Open: p.readable(p.sortedBySelf, func(fn *wg.Function, _ int, r *render.Row) {
		r.Float(p.pct(fn.Self)).Float(p.pct(fn.Inclusive)).Uint(fn.Invocations).Str(fn.Name).Str(fn.File)
		if p.f.Version.HasLine() {
			r.Uint(uint64(fn.Line))
		}
	})}
}

// functionsTxtHeader is webgrind's summary line and the list's header.
func (p *profile) functionsTxtHeader() ([]byte, error) {
	return []byte(p.summaryLine() + "\n" + functionsTxtHead), nil
}

func (p *profile) callCells(r *render.Row, c wg.Call) {
	r.Uint(uint64(c.Line)).Uint(c.Count).Uint(c.Cost).Float(p.pct(c.Cost))
}

func (p *profile) fnCells(r *render.Row, nr uint32, name string) {
	r.Uint(uint64(nr)).Str(name)
}

// perFunction is the Open of a table of a group of rows per function
// readable from the start (group(rd, i), with a reader of the scanner's
// own), ending with the error that stopped the function table.
func (p *profile) perFunction(group func(rd *wg.Reader, t *table, i int) (int64, func(int64, *render.Row) error, error)) func(pos []byte) (render.Scanner, error) {
	return func(pos []byte) (render.Scanner, error) {
		t := p.functions()
		rd := p.f.NewReader()
		return render.Groups(int64(len(t.fns))+1, func(i int64) (int64, func(int64, *render.Row) error, error) {
			if i == int64(len(t.fns)) {
				return 0, nil, t.err
			}
			return group(rd, t, int(i))
		})(pos)
	}
}

func (p *profile) callsTable() *render.Table {
	cols := append(append(fnColumns("caller"), fnColumns("callee")...), callColumns...)
	return &render.Table{Columns: cols, Open: p.perFunction(func(rd *wg.Reader, t *table, i int) (int64, func(int64, *render.Row) error, error) {
		sc, err := p.subCalls(rd, i)
		if err != nil {
			return 0, nil, err
		}
		return int64(len(sc)), func(j int64, r *render.Row) error {
			p.fnCells(r, uint32(i), t.fns[i].Name)
			p.fnCells(r, sc[j].Function, p.name(sc[j].Function))
			p.callCells(r, sc[j])
			return nil
		}, nil
	})}
}

// callListTable is callers.csv or callees.csv of one function (columns
// callersColumns or calleesColumns): calls listed returns the calls and
// the error that cut them.
func (p *profile) callListTable(columns []render.Column, list func() ([]wg.Call, error)) *render.Table {
	return &render.Table{Columns: columns, Open: func(pos []byte) (render.Scanner, error) {
		calls, err := list()
		return render.Groups(1, func(int64) (int64, func(int64, *render.Row) error, error) {
			return int64(len(calls)), func(j int64, r *render.Row) error {
				p.fnCells(r, calls[j].Function, p.name(calls[j].Function))
				p.callCells(r, calls[j])
				return nil
			}, err
		})(pos)
	}}
}

// The columns of callers.csv and callees.csv, made once: a listing of
// functions/ makes the tables of many functions.
var (
	callersColumns = append(fnColumns("caller"), callColumns...)
	calleesColumns = append(fnColumns("callee"), callColumns...)
)

func (p *profile) callersTable(i int) *render.Table {
	return p.callListTable(callersColumns, func() ([]wg.Call, error) { return p.f.NewReaderSmall().CalledFrom(i) })
}

func (p *profile) calleesTable(i int) *render.Table {
	return p.callListTable(calleesColumns, func() ([]wg.Call, error) { return p.subCalls(p.f.NewReaderSmall(), i) })
}

func (p *profile) invocationsTable() *render.Table {
	return &render.Table{Columns: invocationsColumns, Open: p.perFunction(func(rd *wg.Reader, _ *table, i int) (int64, func(int64, *render.Row) error, error) {
		fn, invs, err := rd.Invocations(i)
		return int64(len(invs)), func(j int64, r *render.Row) error {
			v := invs[j]
			r.Uint(uint64(i)).Str(fn.Name).Uint(uint64(j)).Uint(uint64(v.Inclusive)).Uint(uint64(v.Self)).Uint(uint64(v.CallCost))
			if v.Caller != wg.NoCaller {
				r.Uint(uint64(v.Caller)).Uint(uint64(v.CallerInv)).Uint(uint64(v.CallerLine))
			} else {
				r.Empty().Empty().Empty()
			}
			return nil
		}, err
	})}
}

// summaryLine is webgrind's line above its table: the function count, the
// summary in milliseconds (formatCost(summary, 'msec')) and the runs.
// For valgrind's Ir event, whose costs are instructions and not time, it
// says instructions and gives the summary as it is.
func (p *profile) summaryLine() string {
	n := p.f.NumFunctions()
	total := strconv.FormatFloat(p.msec(p.hdr.Summary), 'f', -1, 64) + " milliseconds"
	if p.instructions() {
		total = render.FormatFloat(p.hdr.Summary) + " instructions"
	}
	return strconv.Itoa(n) + " different functions called in " + total +
		" (" + strconv.Itoa(p.hdr.Runs) + " runs, " + strconv.Itoa(n) + " shown)\n"
}

// instructions reports whether the costs are valgrind's Ir event.
func (p *profile) instructions() bool {
	first, _, _ := strings.Cut(strings.TrimSpace(p.hdr.Get("events")), " ")
	return first == "Ir"
}

// msec is webgrind's formatCost(cost, 'msec'): Time_(10ns) costs are
// first divided by 100, then microseconds are rounded to milliseconds.
func (p *profile) msec(cost float64) float64 {
	if strings.Contains(p.hdr.Get("events"), "Time_(10ns)") {
		cost /= 100
	}
	return math.Round(cost / 1000)
}
