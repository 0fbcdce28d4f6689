package callgrind

import (
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// A Func is one row of the function table. Functions are told apart by
// (source file, name) as callgrind_annotate does: code of a function
// inlined from another file (fi=/fe=) is a function of its own.
type Func struct {
	File, Name int32
	Obj        int32  // object of the last cost or call charged to it
	Called     bool   // some calls= line targets it
	Calls      uint64 // sum of the call counts into it
	// Host is, for code inlined from another file (fi=/fe=), one plus
	// the number of the function whose body holds it (the fn= with its
	// fl= file); 0 otherwise.
	Host int32
}

// An Edge is the sum of the calls from one function to another at one
// call site.
type Edge struct {
	Caller, Callee int32 // function numbers
	Line           int64 // call-site line in the caller's source file
	Instr          uint64
	Count          uint64
}

// A Table is the result of a full pass over a profile.
type Table struct {
	Names  *Names
	Events []string
	Header Header // with the summary: and totals: of the body
	Funcs  []Func
	Edges  []Edge
	// costs holds per function 3 groups of len(Events) numbers: self,
	// calls made from it, calls made to it; edgeCosts one group per edge.
	costs     []int64
	edgeCosts []int64
	fnIndex   map[uint64]int32
	byName    []int32 // name -> a function of that name, -1 if none yet
	edgeIndex map[edgeKey]int32
	// LineTotals is the sum of all cost lines per event: what a totals:
	// line states. (Self costs also hold calls=0 costs.)
	LineTotals []int64
	// CostLines, CallLines and JumpLines count the records.
	CostLines, CallLines, JumpLines int64
	Parts                           int
	// RowsCut is the stream offset of the first cost line whose row
	// (lines.csv: one per cost line, with its file, function and object
	// names) would take the rows past RowsPerInputByte bytes per input
	// byte read so far (plus RowsSlack); 0 when none does. A damaged name, repeated on every row,
	// would otherwise make the view gigabytes long (CutError).
	RowsCut int64
	// End is the stream offset where decoding stopped.
	End int64
	// Problems are the malformed lines read past (at most MaxProblems,
	// then one line saying more were not listed) and, last, the error
	// that stopped decoding before the end of the input (Stopped).
	Problems decode.Problems
	// Stopped is set when decoding stopped before the end of the input
	// (on the last of Problems).
	Stopped bool
}

// MaxProblems bounds the malformed lines a Table lists.
const MaxProblems = 50

type edgeKey struct {
	caller, callee int32
	line           int64
	instr          uint64
}

// FuncStateBytes is the memory one function takes in the table, apart
// from its name and its edges: the Func, 3 cost groups of 8 bytes per
// event and its index entry.
func FuncStateBytes(events int) int { return 24 + 3*8*events + 40 }

// EdgeStateBytes is the memory one call edge takes.
func EdgeStateBytes(events int) int { return 40 + 8*events + 64 }

// Summarize reads the whole body once and builds the function and call
// tables. The returned table is valid even when it Stopped: it holds
// everything before the damage.
func (f *File) Summarize() *Table {
	t := &Table{Names: newNames(), Events: f.Header.Events, Header: f.Header,
		fnIndex: map[uint64]int32{}, edgeIndex: map[edgeKey]int32{}}
	t.LineTotals = make([]int64, len(t.Events))
	t.Header.Summary = append([]int64(nil), f.Header.Summary...)
	t.Header.Totals = append([]int64(nil), f.Header.Totals...)
	d := f.NewDecoder(t.Names, f.StartState())
	d.header = &t.Header
	n := 0 // problems met, on the decoder's goroutine
	d.OnProblem = func(err error) {
		n++
		switch {
		case n <= MaxProblems:
			t.Problems.Add(err)
		case n == MaxProblems+1:
			t.Problems.Add(problem("body", d.lr.off, "more problems not listed", nil))
		}
	}
	d.sumRuns, d.acc = true, make([]int64, len(t.Events))
	ne := len(t.Events)
	cur := int32(-1)
	var curFile, curFn int32 = -2, -2
	// The decoder runs on its own goroutine and hands over records in
	// batches; it alone touches Names and Header until it ends.
	batches, free := decodeBatches(d, ne)
	for b := range batches {
		for bi := range b.recs {
			r := &b.recs[bi]
			costs := b.costs[bi*ne : (bi+1)*ne]
			if r.File != curFile || r.Fn != curFn {
				curFile, curFn = r.File, r.Fn
				cur = t.fn(r.File, r.Fn)
				if r.File != r.FnFile && t.Funcs[cur].Host == 0 {
					host := t.fn(r.FnFile, r.Fn)
					t.Funcs[cur].Host = host + 1
				}
			}
			t.Funcs[cur].Obj = r.Obj
			t.apply(r, costs, cur)
		}
		if b.err != nil && b.err != io.EOF {
			t.Problems.Add(b.err)
			t.Stopped = true
		}
		if b.cut > 0 && t.RowsCut == 0 {
			t.RowsCut = b.cut
		}
		free <- b
	}
	t.Parts = 1 + d.Parts
	t.End = d.Offset()
	t.Names.frozen = true
	t.Names.cur = [3][]int32{}
	t.edgeIndex = nil
	t.byName = nil
	return t
}

type batch struct {
	recs  []batchRecord
	costs []int64
	err   error
	cut   int64 // the table's RowsCut, when found in this batch
}

// The rows of a view with a row per cost line may take RowsPerInputByte
// bytes per input byte read, plus RowsSlack (RowsCut).
const (
	RowsPerInputByte = 64
	RowsSlack        = 1 << 20
)

// rowBytes is about the length of the row of a cost record of ne events.
func rowBytes(n *Names, r *Record, ne int) int64 {
	return int64(len(n.Name(r.File))+len(n.Name(r.Fn))+len(n.Name(r.Obj))+40+21*ne) * int64(r.Lines)
}

// CutError is the error a view with a row per cost line ends on at
// RowsCut.
func (t *Table) CutError() error {
	return problem("body", t.RowsCut, "rows cut here: the view would grow beyond "+
		strconv.Itoa(RowsPerInputByte)+" bytes per input byte (a damaged name repeated on every row?)", nil)
}

// A batchRecord is a Record without pointers; Lines > 1 when consecutive
// cost lines of one function were summed into it.
type batchRecord struct {
	Kind             Kind
	Obj, File, Fn    int32
	FnFile           int32
	CObj, CFile, CFn int32
	Lines            int32
	Line             int64
	Instr, Count     uint64
}

const batchRecords = 4096

// decodeBatches runs d to the end on a goroutine, sending its records in
// batches (costs copied, ne per record); the last batch carries the
// error that ended it. Batches come back through free for reuse.
func decodeBatches(d *Decoder, ne int) (<-chan *batch, chan<- *batch) {
	out := make(chan *batch, 4)
	free := make(chan *batch, 8)
	go func() {
		defer close(out)
		var rows, cut int64
		for {
			var b *batch
			select {
			case b = <-free:
				b.recs, b.costs, b.cut = b.recs[:0], b.costs[:0], 0
			default:
				b = &batch{recs: make([]batchRecord, 0, batchRecords), costs: make([]int64, 0, batchRecords*ne)}
			}
			for len(b.recs) < batchRecords {
				r, err := d.Next()
				if err != nil {
					b.err = err
					break
				}
				if r.Kind == Cost && cut == 0 {
					rows += rowBytes(d.names, r, ne)
					if rows > RowsPerInputByte*r.Off+RowsSlack {
						cut = r.Off
						b.cut = cut
					}
				}
				if n := len(b.recs); r.Kind == Cost && n > 0 {
					if p := &b.recs[n-1]; p.Kind == Cost && p.Fn == r.Fn && p.File == r.File && p.FnFile == r.FnFile && p.Obj == r.Obj {
						add(b.costs[(n-1)*ne:n*ne], r.Costs)
						p.Lines += r.Lines
						continue
					}
				}
				b.recs = append(b.recs, batchRecord{Kind: r.Kind, Obj: r.Obj, File: r.File, Fn: r.Fn, FnFile: r.FnFile,
					CObj: r.CObj, CFile: r.CFile, CFn: r.CFn, Lines: r.Lines, Line: r.Line, Instr: r.Instr, Count: r.Count})
				b.costs = append(b.costs, r.Costs...)
			}
			out <- b
			if b.err != nil {
				return
			}
		}
	}()
	return out, free
}

// apply adds one record charged to function cur.
func (t *Table) apply(r *batchRecord, costs []int64, cur int32) {
	ne := len(t.Events)
	switch r.Kind {
	case Cost:
		t.CostLines += int64(r.Lines)
		add(t.costs[int(cur)*3*ne:], costs)
		add(t.LineTotals, costs)
	case Call:
		t.CallLines++
		callee := t.fn(r.CFile, r.CFn)
		if t.Funcs[callee].Obj == 0 {
			t.Funcs[callee].Obj = r.CObj
		}
		if r.Count == 0 {
			// A call still active when the part was dumped: its cost
			// is the caller's own, as callgrind_annotate counts it.
			add(t.costs[int(cur)*3*ne:], costs)
		} else {
			add(t.costs[int(cur)*3*ne+ne:], costs)
			add(t.costs[int(callee)*3*ne+2*ne:], costs)
			t.Funcs[callee].Called = true
			t.Funcs[callee].Calls += r.Count
		}
		k := edgeKey{cur, callee, r.Line, r.Instr}
		e, ok := t.edgeIndex[k]
		if !ok {
			e = int32(len(t.Edges))
			t.edgeIndex[k] = e
			t.Edges = append(t.Edges, Edge{Caller: cur, Callee: callee, Line: r.Line, Instr: r.Instr})
			t.edgeCosts = append(t.edgeCosts, make([]int64, ne)...)
		}
		t.Edges[e].Count += r.Count
		add(t.edgeCosts[int(e)*ne:], costs)
	case Jump, CondJump:
		t.JumpLines++
	}
}

func add(dst, src []int64) {
	for i, v := range src {
		dst[i] += v
	}
}

// fn returns the number of function (file, name), adding it if new.
func (t *Table) fn(file, name int32) int32 {
	for int(name) >= len(t.byName) {
		t.byName = append(t.byName, -1)
	}
	if i := t.byName[name]; i >= 0 && t.Funcs[i].File == file {
		return i
	}
	k := uint64(uint32(file))<<32 | uint64(uint32(name))
	if i, ok := t.fnIndex[k]; ok {
		t.byName[name] = i
		return i
	}
	i := int32(len(t.Funcs))
	t.byName[name] = i
	t.fnIndex[k] = i
	t.Funcs = append(t.Funcs, Func{File: file, Name: name})
	t.costs = append(t.costs, make([]int64, 3*len(t.Events))...)
	return i
}

// Self returns the self cost of function i per event.
func (t *Table) Self(i int) []int64 {
	ne := len(t.Events)
	return t.costs[i*3*ne : i*3*ne+ne]
}

// Inclusive returns the inclusive cost of function i per event the way
// callgrind_annotate --inclusive=yes computes it: for a function that is
// called, the sum of the inclusive costs of the calls to it; otherwise its
// self cost plus the cost of the calls it makes.
func (t *Table) Inclusive(i int) []int64 {
	ne := len(t.Events)
	c := t.costs[i*3*ne : (i+1)*3*ne]
	if t.Funcs[i].Called {
		return c[2*ne:]
	}
	return t.SelfPlusCalls(i)
}

// SelfPlusCalls returns the self cost of function i plus the inclusive
// cost of the calls it makes, per event: webgrind's inclusive cost.
func (t *Table) SelfPlusCalls(i int) []int64 {
	ne := len(t.Events)
	c := t.costs[i*3*ne : (i+1)*3*ne]
	out := make([]int64, ne)
	for k := range out {
		out[k] = c[k] + c[ne+k]
	}
	return out
}

// EdgeCost returns the inclusive cost of edge i per event.
func (t *Table) EdgeCost(i int) []int64 {
	ne := len(t.Events)
	return t.edgeCosts[i*ne : (i+1)*ne]
}

// Sum returns the sum of the self costs of all functions per event.
func (t *Table) Sum() []int64 {
	out := make([]int64, len(t.Events))
	for i := range t.Funcs {
		add(out, t.Self(i))
	}
	return out
}

// Bytes estimates the memory the table holds.
func (t *Table) Bytes() int64 {
	return int64(len(t.Funcs))*int64(FuncStateBytes(len(t.Events))) +
		int64(len(t.Edges))*int64(EdgeStateBytes(len(t.Events))) + t.Names.Bytes()
}
