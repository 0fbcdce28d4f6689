package callgrind

import (
	"fmt"
	"strings"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// writeList writes "key: x y z".
func writeList(b *strings.Builder, key string, v []int64) {
	b.WriteString(key + ":")
	for _, x := range v {
		fmt.Fprintf(b, " %d", x)
	}
	b.WriteString("\n")
}

// writeField writes "key: v", nothing when v is empty (a header line the
// file does not have).
func writeField(b *strings.Builder, key, v string) {
	if v != "" {
		fmt.Fprintf(b, "%s: %s\n", key, render.EscapeName(v))
	}
}

// headerText is header.txt: the header as found, then what the body
// adds (summary and totals at its end, parts) and the checks.
func (p *profile) headerText() []byte {
	t := p.table()
	h := t.Header
	var b strings.Builder
	writeField(&b, "version", h.Version)
	writeField(&b, "creator", h.Creator)
	writeField(&b, "cmd", h.Cmd)
	writeField(&b, "pid", h.Pid)
	writeField(&b, "thread", h.Thread)
	writeField(&b, "part", h.Part)
	for _, d := range h.Desc {
		writeField(&b, "desc", d)
	}
	writeField(&b, "positions", strings.Join(h.Positions, " "))
	writeField(&b, "events", strings.Join(h.Events, " "))
	for i, e := range h.Events {
		long := h.LongNames[i]
		if long == "" {
			long = knownLongName(e)
		}
		fmt.Fprintf(&b, "event: %s : %s\n", render.EscapeName(e), render.EscapeName(long))
	}
	for _, d := range h.Derived {
		writeField(&b, "event", d)
	}
	for _, o := range h.Other {
		b.WriteString(render.EscapeName(o) + "\n")
	}
	if h.Summary != nil {
		writeList(&b, "summary", h.Summary)
	}
	if h.Totals != nil {
		writeList(&b, "totals", h.Totals)
	}
	fmt.Fprintf(&b, "\n# read by hpcfs\nformat_marker: %t\ngzip: %t\nfile_size: %d\nparts: %d\nfunctions: %d\ncall_edges: %d\n",
		h.FormatLine, p.f.Gzip, p.f.Size(), t.Parts, len(t.Funcs), len(t.Edges))
	fmt.Fprintf(&b, "cost_lines: %d\ncall_lines: %d\njump_lines: %d\n", t.CostLines, t.CallLines, t.JumpLines)
	writeList(&b, "sum_of_self_costs", t.Sum())
	writeList(&b, "sum_of_cost_lines", t.LineTotals)
	fmt.Fprintf(&b, "table_bytes: %d (%d per function, %d per call edge, plus names)\n",
		t.Bytes(), cg.FuncStateBytes(len(t.Events)), cg.EdgeStateBytes(len(t.Events)))
	if h.Totals != nil {
		writeField(&b, "totals_check", check(t.LineTotals, h.Totals))
	}
	if t.Stopped {
		writeField(&b, "stopped", t.Problems[len(t.Problems)-1].Error())
	}
	return []byte(b.String())
}

func (m *model) sumHeader() []byte {
	t := m.table()
	var b strings.Builder
	writeField(&b, "events", strings.Join(t.Events, " "))
	fmt.Fprintf(&b, "parts: %d\nfunctions: %d\ncall_edges: %d\n", t.Parts, len(t.Funcs), len(t.Edges))
	writeList(&b, "sum_of_self_costs", t.Sum())
	return []byte(b.String())
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
	fmt.Fprintf(&b, "hpcfs mount of %s\n\n%s, creator %q, events %s, positions %s.\n\n", path, kind, h.Creator, render.EscapeName(strings.Join(h.Events, " ")), render.EscapeName(strings.Join(h.Positions, " ")))
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
annotate.txt    the function summary of valgrind 3.19's "callgrind_annotate --auto=no" for the
                file, byte for byte: functions by cost (every event in turn, then the name),
                with percentages, until 99 % of the first event is covered
annotate-inclusive.txt  the same with --inclusive=yes: costs include the calls made
                (a file in cachegrind's own format: annotate.txt is "cg_annotate --auto=no")
lines.csv       file,line,[instr,]function,module,<event>...: one row per self cost line, in file
                order (sum them per file and line with awk for an annotated listing)
_errors.txt     problems found so far (line and byte offset)
raw/            the original file
`)
	b.WriteString(interchange.ProfileReadme(p.metrics()))
	b.WriteString(p.graphReadme())
	b.WriteString(`
Costs are the file's integer counts, one column per event named in snake_case (Ir: ir_inc,
Time_(10ns): time_10ns_inc), unit as the event says (valgrind: counts; Xdebug Time_(10ns):
units of 10 ns, Memory_(bytes): bytes). In flame/ Time_(10ns) is time_ns in nanoseconds (x10;
pprof's Time_ns) and Memory_(bytes) memory_bytes (pprof's Memory_bytes).

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
