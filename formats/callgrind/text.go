package callgrind

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/formats/interchange"
)

var errEOF = io.EOF

func appendList(b []byte, key string, v []int64) []byte {
	b = append(b, key...)
	b = append(b, ':')
	for _, x := range v {
		b = append(b, ' ')
		b = strconv.AppendInt(b, x, 10)
	}
	return append(b, '\n')
}

func appendKV(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	return append(append(append(append(b, key...), ": "...), v...), '\n')
}

// headerText is header.txt: the header as found, then what the body
// adds (summary and totals at its end, parts) and the checks.
func (p *profile) headerText() []byte {
	t := p.table()
	h := t.Header
	var b []byte
	b = appendKV(b, "version", h.Version)
	b = appendKV(b, "creator", h.Creator)
	b = appendKV(b, "cmd", h.Cmd)
	b = appendKV(b, "pid", h.Pid)
	b = appendKV(b, "thread", h.Thread)
	b = appendKV(b, "part", h.Part)
	for _, d := range h.Desc {
		b = appendKV(b, "desc", d)
	}
	b = appendKV(b, "positions", strings.Join(h.Positions, " "))
	b = appendKV(b, "events", strings.Join(h.Events, " "))
	for i, e := range h.Events {
		long := h.LongNames[i]
		if long == "" {
			long = knownLongName(e)
		}
		b = appendKV(b, "event", e+" : "+long)
	}
	for _, d := range h.Derived {
		b = appendKV(b, "event", d)
	}
	for _, o := range h.Other {
		b = append(append(b, o...), '\n')
	}
	if h.Summary != nil {
		b = appendList(b, "summary", h.Summary)
	}
	if h.Totals != nil {
		b = appendList(b, "totals", h.Totals)
	}
	b = append(b, "\n# read by hpcfs\n"...)
	b = appendKV(b, "format_marker", strconv.FormatBool(h.FormatLine))
	b = appendKV(b, "gzip", strconv.FormatBool(p.f.Gzip))
	b = appendKV(b, "file_size", strconv.FormatInt(p.f.Size(), 10))
	b = appendKV(b, "parts", strconv.Itoa(t.Parts))
	b = appendKV(b, "functions", strconv.Itoa(len(t.Funcs)))
	b = appendKV(b, "call_edges", strconv.Itoa(len(t.Edges)))
	b = appendKV(b, "cost_lines", strconv.FormatInt(t.CostLines, 10))
	b = appendKV(b, "call_lines", strconv.FormatInt(t.CallLines, 10))
	b = appendKV(b, "jump_lines", strconv.FormatInt(t.JumpLines, 10))
	b = appendList(b, "sum_of_self_costs", t.Sum())
	b = appendList(b, "sum_of_cost_lines", t.LineTotals)
	b = appendKV(b, "table_bytes", fmt.Sprintf("%d (%d per function, %d per call edge, plus names)",
		t.Bytes(), cg.FuncStateBytes(len(t.Events)), cg.EdgeStateBytes(len(t.Events))))
	if h.Totals != nil {
		b = appendKV(b, "totals_check", check(t.LineTotals, h.Totals))
	}
	if t.Err != nil {
		b = appendKV(b, "stopped", t.Err.Error())
	}
	return b
}

func (m *model) sumHeader() []byte {
	t := m.table()
	var b []byte
	b = appendKV(b, "events", strings.Join(t.Events, " "))
	b = appendKV(b, "parts", strconv.Itoa(t.Parts))
	b = appendKV(b, "functions", strconv.Itoa(len(t.Funcs)))
	b = appendKV(b, "call_edges", strconv.Itoa(len(t.Edges)))
	b = appendList(b, "sum_of_self_costs", t.Sum())
	return b
}

func check(sum, totals []int64) string {
	for i := range sum {
		var v int64
		if i < len(totals) {
			v = totals[i]
		}
		if sum[i] != v {
			return "differs: the file may be truncated or damaged"
		}
	}
	return "ok"
}

// knownLongName names valgrind's events when no event: line does.
func knownLongName(e string) string {
	switch e {
	case "Ir":
		return "Instruction Fetch"
	case "Dr":
		return "Data Read Access"
	case "Dw":
		return "Data Write Access"
	case "I1mr":
		return "L1 Instr. Fetch Miss"
	case "D1mr":
		return "L1 Data Read Miss"
	case "D1mw":
		return "L1 Data Write Miss"
	case "ILmr":
		return "LL Instr. Fetch Miss"
	case "DLmr":
		return "LL Data Read Miss"
	case "DLmw":
		return "LL Data Write Miss"
	case "Bc":
		return "Conditional Branch"
	case "Bcm":
		return "Mispredicted Cond. Branch"
	case "Bi":
		return "Indirect Branch"
	case "Bim":
		return "Mispredicted Ind. Branch"
	case "Time_(10ns)":
		return "Time in units of 10 ns (Xdebug)"
	case "Memory_(bytes)":
		return "Memory in bytes (Xdebug)"
	}
	return ""
}

func (p *profile) readme(path string) string {
	h := p.f.Header
	var b strings.Builder
	kind := "callgrind profile"
	if p.f.Gzip {
		kind += " (gzip-compressed)"
	}
	fmt.Fprintf(&b, "hpcfs mount of %s\n\n%s, creator %q, events %s, positions %s.\n\n", path, kind, h.Creator, strings.Join(h.Events, " "), strings.Join(h.Positions, " "))
	b.WriteString(`header.txt      the header lines (version, creator, cmd, pid, thread, part, desc, positions,
                events with their long names, summary, totals) and what hpcfs counted
functions.csv   function_id,function,file,module,call_count, then <event>_inc (inclusive) and
                <event>_exc (self) per event: one row per function, in order of first
                appearance (function_id numbers them; module is the object, ob=)
calls.csv       caller_id,caller,caller_file,callee_id,callee,callee_file,line,[instr,]call_count,
                <event>_inc...: one row per call site (caller, callee, line in the
                caller's file)
functions/<nr>-<name>/callers.csv  the calls to one function, by inclusive cost (first event)
functions/<nr>-<name>/callees.csv  the calls one function makes
lines.csv       file,line,[instr,]function,module,<event>...: one row per self cost line, in file
                order (sum them per file and line with awk for an annotated listing)
_errors.txt     problems found so far (line and byte offset)
raw/            the original file
`)
	b.WriteString(interchange.ProfileReadme(metrics(h.Events)))
	b.WriteString(`  The call graph has no contexts: stacks are expanded from the functions nobody calls,
  each call taking its share of the caller's cost (as gprof and speedscope do); self
  costs left over (recursion, rounding) are stacks of their function alone.

Costs are the file's integer counts, one column per event, unit as the event says
(valgrind: counts; Xdebug Time_(10ns): units of 10 ns, Memory_(bytes): bytes).

How the file is read (valgrind's "Callgrind Format Specification", version 1):
- Header lines "key: value" come first; "events:" names the cost columns, "positions:" the
  subpositions (line, or instr line) that start each cost line. summary: and totals: may come
  at the end. An unknown line is reported in _errors.txt and skipped; the rest is read.
- Name compression: "fn=(id) name" defines an id, "fn=(id)" reuses it; objects (ob=, cob=),
  files (fl=, fi=, fe=, cfi=, cfl=, jfi=) and functions (fn=, cfn=, jfn=) have separate ids.
- Subposition compression: "+n", "-n" are relative to the same subposition of the previous
  cost line, "*" repeats it; numbers may be 0x hex.
- fl= sets the function's file; fi=/fe= switch the source file inside a function (inlined
  code) until the next fn=, which returns to the fl= file. Functions are told apart by
  (source file, name), as callgrind_annotate does: inlined code is a row of its own.
- cfi=/cfl= and cob= name the callee's file and object for the next call only, then fall back
  to the current ones; cfn= stays until the next cfn=.
- "calls=count target" is followed by a cost line: the call site and the INCLUSIVE cost of
  those calls. It is not self cost of the caller. jump=/jcnd= lines (with jfi=/jfn=) are
  followed by a position line; they are counted in header.txt, not costed.
- Self cost of a function = sum of its cost lines. Inclusive cost = callgrind_annotate
  --inclusive=yes: for a function that is called, the sum of the inclusive costs of the calls
  to it; otherwise its self cost plus the costs of the calls it makes. call_count = sum of the
  calls= counts into the function.
- A calls=0 line (valgrind writes them for calls still running when a part was dumped) counts,
  as in callgrind_annotate, as self cost of the caller; it appears in calls.csv with count 0.
- Costs with a sign or "*" (not allowed by the spec) are read as callgrind_annotate reads them
  and reported. A last line without newline is read and reported (the file may be cut).
- For Xdebug files webgrind's inclusive cost is self plus the calls made (recursion counted in
  every invocation); that is the sum of a function's rows in callees.csv plus its self cost.
- gzip files are decompressed as they are read; lines.csv reads from the start of the stream
  to reach a position, so random reads of it are slower than for a plain file.
`)
	return b.String()
}
