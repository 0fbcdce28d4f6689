package webgrind

import (
	"math"
	"strconv"
	"strings"

	wg "github.com/hpcfs/hpcfs/decode/webgrind"
	"github.com/hpcfs/hpcfs/render"
)

const (
	functionsHeader   = "function_id,function,file,line,kind,call_count,cost_inc,cost_exc,cost_inc_pct,cost_exc_pct\n"
	callsHeader       = "caller_id,caller,callee_id,callee,line,call_count,call_cost,call_cost_pct\n"
	callersHeader     = "caller_id,caller,line,call_count,call_cost,call_cost_pct\n"
	calleesHeader     = "callee_id,callee,line,call_count,call_cost,call_cost_pct\n"
	invocationsHeader = "function_id,function,invocation,cost_inc,cost_exc,call_cost,caller_id,caller_invocation,caller_line\n"
	functionsTxtHead  = "  self %   incl %  invocations  function  file:line\n"
)

func (p *profile) functionsCSV(state any) (render.Cursor, error) {
	t := p.functions()
	return rows(state, functionsHeader, len(t.fns)+1, func(dst []byte, i int) ([]byte, error) {
		if i == len(t.fns) {
			if t.err != nil {
				return dst, t.err
			}
			return dst, nil
		}
		fn := &t.fns[i]
		dst = strconv.AppendInt(dst, int64(fn.Nr), 10)
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, fn.Name)
		dst = append(dst, ',')
		dst = render.AppendCSVField(dst, fn.File)
		dst = append(dst, ',')
		if p.f.Version.HasLine() {
			dst = strconv.AppendUint(dst, uint64(fn.Line), 10)
		}
		dst = append(dst, ',')
		dst = append(dst, humanKind(fn.Name)...)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, fn.Invocations, 10)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, fn.Inclusive, 10)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, fn.Self, 10)
		dst = append(dst, ',')
		dst = p.appendPct(dst, fn.Inclusive)
		dst = append(dst, ',')
		dst = p.appendPct(dst, fn.Self)
		return append(dst, '\n'), nil
	}), nil
}

func appendRight(dst []byte, width int, field []byte) []byte {
	for k := len(field); k < width; k++ {
		dst = append(dst, ' ')
	}
	return append(dst, field...)
}

func (p *profile) functionsTXT(state any) (render.Cursor, error) {
	t := p.functions()
	order := p.sortedBySelf()
	var num []byte
	return rows(state, p.summaryLine()+"\n"+functionsTxtHead, len(order)+1, func(dst []byte, i int) ([]byte, error) {
		if i == len(order) {
			return dst, t.err
		}
		fn := &t.fns[order[i]]
		dst = appendRight(dst, 8, p.appendPct(num[:0], fn.Self))
		dst = append(dst, ' ')
		dst = appendRight(dst, 8, p.appendPct(num[:0], fn.Inclusive))
		dst = append(dst, ' ')
		dst = appendRight(dst, 12, strconv.AppendUint(num[:0], fn.Invocations, 10))
		dst = append(dst, "  "...)
		dst = render.AppendName(dst, fn.Name)
		dst = append(dst, "  "...)
		dst = render.AppendName(dst, fn.File)
		if p.f.Version.HasLine() {
			dst = append(dst, ':')
			dst = strconv.AppendUint(dst, uint64(fn.Line), 10)
		}
		return append(dst, '\n'), nil
	}), nil
}

func (p *profile) appendCall(dst []byte, c wg.Call) []byte {
	dst = strconv.AppendUint(dst, uint64(c.Line), 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, c.Count, 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, c.Cost, 10)
	dst = append(dst, ',')
	dst = p.appendPct(dst, c.Cost)
	return append(dst, '\n')
}

func (p *profile) appendFn(dst []byte, nr uint32, name string) []byte {
	dst = strconv.AppendUint(dst, uint64(nr), 10)
	dst = append(dst, ',')
	dst = render.AppendCSVField(dst, name)
	return append(dst, ',')
}

func (p *profile) callsCSV(state any) (render.Cursor, error) {
	t := p.functions()
	rd := p.f.NewReader()
	return rows(state, callsHeader, len(t.fns)+1, func(dst []byte, i int) ([]byte, error) {
		if i == len(t.fns) {
			return dst, t.err
		}
		sc, err := p.subCalls(rd, i)
		if err != nil {
			return dst, err
		}
		for _, c := range sc {
			dst = p.appendFn(dst, uint32(i), t.fns[i].Name)
			dst = p.appendFn(dst, c.Function, p.name(c.Function))
			dst = p.appendCall(dst, c)
		}
		return dst, nil
	}), nil
}

func (p *profile) callersCSV(i int) ([]byte, error) {
	cf, err := p.f.NewReaderSmall().CalledFrom(i)
	dst := []byte(callersHeader)
	for _, c := range cf {
		dst = p.appendFn(dst, c.Function, p.name(c.Function))
		dst = p.appendCall(dst, c)
	}
	return dst, err
}

func (p *profile) calleesCSV(i int) ([]byte, error) {
	sc, err := p.subCalls(p.f.NewReaderSmall(), i)
	dst := []byte(calleesHeader)
	for _, c := range sc {
		dst = p.appendFn(dst, c.Function, p.name(c.Function))
		dst = p.appendCall(dst, c)
	}
	return dst, err
}

func (p *profile) invocationsCSV(state any) (render.Cursor, error) {
	t := p.functions()
	rd := p.f.NewReader()
	return rows(state, invocationsHeader, len(t.fns)+1, func(dst []byte, i int) ([]byte, error) {
		if i == len(t.fns) {
			return dst, t.err
		}
		fn, invs, err := rd.Invocations(i)
		for j, v := range invs {
			dst = strconv.AppendInt(dst, int64(i), 10)
			dst = append(dst, ',')
			dst = render.AppendCSVField(dst, fn.Name)
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(j), 10)
			dst = append(dst, ',')
			dst = strconv.AppendUint(dst, uint64(v.Inclusive), 10)
			dst = append(dst, ',')
			dst = strconv.AppendUint(dst, uint64(v.Self), 10)
			dst = append(dst, ',')
			dst = strconv.AppendUint(dst, uint64(v.CallCost), 10)
			dst = append(dst, ',')
			if v.Caller != wg.NoCaller {
				dst = strconv.AppendUint(dst, uint64(v.Caller), 10)
				dst = append(dst, ',')
				dst = strconv.AppendUint(dst, uint64(v.CallerInv), 10)
				dst = append(dst, ',')
				dst = strconv.AppendUint(dst, uint64(v.CallerLine), 10)
			} else {
				dst = append(dst, ',', ',')
			}
			dst = append(dst, '\n')
		}
		return dst, err
	}), nil
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
