// Package webgrind generates webgrind preprocessed files. Random builds
// one synthetic call tree of invocations, the way Xdebug reports it, and
// Write encodes it as any of the versions 4 to 7, so that tests can check
// that the four decodings agree. WriteLarge streams a big version 7 file
// for benchmarks without holding it in memory.
package webgrind

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
)

// NoCaller marks an invocation that was never called.
const NoCaller = -1

// A SubCall is one call made by an invocation.
type SubCall struct {
	Fn, Inv int // callee function number and its invocation index
	Line    uint32
	Cost    uint32 // inclusive cost of the callee invocation
}

// An Invocation is one run of a function.
type Invocation struct {
	Self       uint32
	CallCost   uint32 // cost the caller recorded for this call
	Caller     int    // function number, or NoCaller
	CallerInv  int
	CallerLine uint32
	Subs       []SubCall
}

// Inclusive is self plus the costs of the calls it made.
func (v *Invocation) Inclusive() uint32 {
	s := v.Self
	for _, c := range v.Subs {
		s += c.Cost
	}
	return s
}

// A Func is one function with its invocations.
type Func struct {
	Name, File string
	Line       uint32
	Invs       []Invocation
}

// A Graph is a profile: functions numbered by first completion.
type Graph struct {
	Headers []string
	Funcs   []Func
}

// A Call is one aggregated call-list entry.
type Call struct {
	Fn          int
	Line        uint32
	Count, Cost uint32
}

// A Summary is one function as versions 5 to 7 store it.
type Summary struct {
	Name, File             string
	Line                   uint32
	Self, Inclusive, Count uint32
	CalledFrom, SubCalls   []Call
}

var names = []string{
	"{main}", "fib", "php::usort", "Shape->area", "Rect::square", "helper", "php::strlen",
	"require_once::/srv/app/lib.php", "include::/srv/app/tpl.php", "{closure:/srv/app/app.php:34-34}",
	"App\\Kernel->handle", "render_page", "php::call_user_func", "Name, with \"quotes\"", "walk",
}

// Random builds a call tree of about n invocations over up to nf functions.
func Random(seed int64, n, nf int) *Graph {
	r := rand.New(rand.NewSource(seed))
	nf = max(1, min(nf, len(names)))
	g := &Graph{}
	nr := map[int]int{} // name index -> function number
	budget := n
	type ref struct{ fn, inv int }
	var invoke func(id, depth int) ref
	invoke = func(id, depth int) ref {
		budget--
		type child struct {
			r    ref
			line uint32
		}
		var kids []child
		for k := r.Intn(4); k > 0 && depth < 8 && budget > 0; k-- {
			callee := 0
			if nf > 1 {
				callee = 1 + r.Intn(nf-1)
			}
			line := uint32(1 + r.Intn(60))
			kids = append(kids, child{invoke(callee, depth+1), line})
		}
		fnr, ok := nr[id]
		if !ok {
			fnr = len(g.Funcs)
			nr[id] = fnr
			file := "/srv/app/app.php"
			if len(names[id]) > 5 && names[id][:5] == "php::" {
				file = "php:internal"
			}
			g.Funcs = append(g.Funcs, Func{Name: names[id], File: file, Line: uint32(1 + r.Intn(90))})
		}
		inv := Invocation{Self: uint32(1 + r.Intn(5000)), Caller: NoCaller}
		for _, k := range kids {
			cost := g.Funcs[k.r.fn].Invs[k.r.inv].Inclusive()
			inv.Subs = append(inv.Subs, SubCall{Fn: k.r.fn, Inv: k.r.inv, Line: k.line, Cost: cost})
		}
		f := &g.Funcs[fnr]
		f.Invs = append(f.Invs, inv)
		me := ref{fnr, len(f.Invs) - 1}
		for _, k := range kids {
			c := &g.Funcs[k.r.fn].Invs[k.r.inv]
			c.Caller, c.CallerInv, c.CallerLine = me.fn, me.inv, k.line
			c.CallCost = c.Inclusive()
		}
		return me
	}
	var total uint64
	for budget > 0 {
		root := invoke(0, 0)
		total += uint64(g.Funcs[root.fn].Invs[root.inv].Inclusive())
	}
	g.Headers = []string{
		"version: 1",
		"creator: hpcfs synthetic (webgrind generator)",
		"cmd: /srv/app/app.php",
		"part: 1",
		"positions: line",
		"events: Time_(10ns) Memory_(bytes)",
		fmt.Sprintf("summary: %d 4096", total),
	}
	return g
}

type callKey struct {
	fn   int
	line uint32
}

func aggregate(calls *[]Call, index map[callKey]int, fn int, line, cost uint32) {
	k := callKey{fn, line}
	j, ok := index[k]
	if !ok {
		j = len(*calls)
		index[k] = j
		*calls = append(*calls, Call{Fn: fn, Line: line})
	}
	(*calls)[j].Count++
	(*calls)[j].Cost += cost
}

// Summaries aggregates the graph as versions 5 to 7 store it: called-from
// entries by (caller, line) over the function's invocations in order,
// sub-call entries by (callee, line) over its invocations' calls.
func (g *Graph) Summaries() []Summary {
	out := make([]Summary, len(g.Funcs))
	for i, f := range g.Funcs {
		s := Summary{Name: f.Name, File: f.File, Line: f.Line, Count: uint32(len(f.Invs))}
		cf, sc := map[callKey]int{}, map[callKey]int{}
		for _, v := range f.Invs {
			s.Self += v.Self
			s.Inclusive += v.Inclusive()
			if v.Caller != NoCaller {
				aggregate(&s.CalledFrom, cf, v.Caller, v.CallerLine, v.CallCost)
			}
		}
		for _, v := range f.Invs {
			for _, c := range v.Subs {
				aggregate(&s.SubCalls, sc, c.Fn, c.Line, c.Cost)
			}
		}
		out[i] = s
	}
	return out
}

type writer struct {
	w   *bufio.Writer
	off int64
	b   [4]byte
}

func (w *writer) u32(v uint32) {
	binary.LittleEndian.PutUint32(w.b[:], v)
	w.w.Write(w.b[:])
	w.off += 4
}

func (w *writer) str(s string) {
	w.w.WriteString(s)
	w.w.WriteByte('\n')
	w.off += int64(len(s)) + 1
}

// Write encodes g as version (4, 5, 6 or 7).
func (g *Graph) Write(out io.Writer, version int) error {
	if version == 4 {
		return g.write4(out)
	}
	return WriteSummaries(out, version, g.Summaries(), g.Headers)
}

// WriteSummaries encodes aggregated functions as version 5, 6 or 7.
func WriteSummaries(out io.Writer, version int, fns []Summary, headers []string) error {
	if version < 5 || version > 7 {
		return fmt.Errorf("webgrind generator: version %d is not 5, 6 or 7", version)
	}
	fixed := int64(version - 1) // words before the call lists: 4, 5, 6
	size := func(s *Summary) int64 {
		n := int64(len(s.CalledFrom))
		if version > 5 {
			n += int64(len(s.SubCalls))
		}
		return fixed*4 + n*16 + int64(len(s.File)+len(s.Name)+2)
	}
	w := &writer{w: bufio.NewWriterSize(out, 1<<20)}
	addr := 12 + 4*int64(len(fns))
	addrs := make([]int64, len(fns))
	for i := range fns {
		addrs[i] = addr
		addr += size(&fns[i])
	}
	w.u32(uint32(version))
	w.u32(uint32(addr))
	w.u32(uint32(len(fns)))
	for _, a := range addrs {
		w.u32(uint32(a))
	}
	for i := range fns {
		s := &fns[i]
		if version == 7 {
			w.u32(s.Line)
		}
		w.u32(s.Self)
		w.u32(s.Inclusive)
		w.u32(s.Count)
		w.u32(uint32(len(s.CalledFrom)))
		if version > 5 {
			w.u32(uint32(len(s.SubCalls)))
		}
		lists := [][]Call{s.CalledFrom}
		if version > 5 {
			lists = append(lists, s.SubCalls)
		}
		for _, l := range lists {
			for _, c := range l {
				w.u32(uint32(c.Fn))
				w.u32(c.Line)
				w.u32(c.Count)
				w.u32(c.Cost)
			}
		}
		w.str(s.File)
		w.str(s.Name)
	}
	for _, h := range headers {
		w.str(h)
	}
	return w.w.Flush()
}

func (g *Graph) write4(out io.Writer) error {
	w := &writer{w: bufio.NewWriterSize(out, 1<<20)}
	addr := 12 + 4*int64(len(g.Funcs))
	addrs := make([]int64, len(g.Funcs))
	for i, f := range g.Funcs {
		addrs[i] = addr
		addr += 16 + 32*int64(len(f.Invs)) + int64(len(f.File)+len(f.Name)+2)
	}
	subRegion := addr
	for _, f := range g.Funcs {
		for _, v := range f.Invs {
			addr += 16 * int64(len(v.Subs))
		}
	}
	w.u32(4)
	w.u32(uint32(addr))
	w.u32(uint32(len(g.Funcs)))
	for _, a := range addrs {
		w.u32(uint32(a))
	}
	sub := subRegion
	for _, f := range g.Funcs {
		var self, incl, callCost uint32
		for _, v := range f.Invs {
			self += v.Self
			incl += v.Inclusive()
			callCost += v.CallCost
		}
		w.u32(self)
		w.u32(incl)
		w.u32(callCost)
		w.u32(uint32(len(f.Invs)))
		for _, v := range f.Invs {
			w.u32(v.Self)
			w.u32(v.Inclusive())
			w.u32(v.CallCost)
			w.u32(uint32(int32(v.Caller)))
			w.u32(uint32(max(v.CallerInv, 0)))
			w.u32(v.CallerLine)
			w.u32(uint32(len(v.Subs)))
			w.u32(uint32(sub))
			sub += 16 * int64(len(v.Subs))
		}
		w.str(f.File)
		w.str(f.Name)
	}
	for _, f := range g.Funcs {
		for _, v := range f.Invs {
			for _, c := range v.Subs {
				w.u32(uint32(c.Fn))
				w.u32(uint32(c.Inv))
				w.u32(c.Line)
				w.u32(c.Cost)
			}
		}
	}
	for _, h := range g.Headers {
		w.str(h)
	}
	return w.w.Flush()
}

// Large describes a big synthetic version 7 file: Functions functions,
// each making Calls/Functions sub-calls to functions at fixed distances,
// with mirrored called-from lists.
type Large struct {
	Functions int
	Calls     int
}

func (l Large) degree() int { return max(1, l.Calls/max(1, l.Functions)) }

func (l Large) offset(k int) int { return 1 + k*(k+7) }

func mix(a, b int) uint32 {
	h := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F
	h ^= h >> 29
	return uint32(h)
}

func (l Large) callCost(caller, k int) uint32 { return 1 + mix(caller, k)%5000 }
func (l Large) callLine(caller, k int) uint32 { return 1 + mix(k, caller)%400 }

// Name is the function name of number i.
func (l Large) Name(i int) string { return fmt.Sprintf("App\\Module%d\\Service%d->handle", i%97, i) }

// WriteLarge streams the file to out.
func (l Large) WriteLarge(out io.Writer) error {
	n, d := l.Functions, l.degree()
	if n < 2 {
		return fmt.Errorf("webgrind generator: need at least 2 functions")
	}
	d = min(d, n-1)
	file := func(i int) string { return fmt.Sprintf("/srv/app/src/Module%d/Service%d.php", i%97, i/10) }
	recSize := func(i int) int64 { return 24 + 32*int64(d) + int64(len(file(i))+len(l.Name(i))+2) }
	w := &writer{w: bufio.NewWriterSize(out, 1<<20)}
	addr := 12 + 4*int64(n)
	var summary uint64
	for i := 0; i < n; i++ {
		addr += recSize(i)
	}
	w.u32(7)
	w.u32(uint32(addr))
	w.u32(uint32(n))
	addr = 12 + 4*int64(n)
	for i := 0; i < n; i++ {
		w.u32(uint32(addr))
		addr += recSize(i)
	}
	for i := 0; i < n; i++ {
		self := 1 + mix(i, -1)%20000
		incl := uint64(self)
		for k := 0; k < d; k++ {
			incl += uint64(l.callCost(i, k))
		}
		summary += uint64(self)
		w.u32(1 + uint32(i%500))
		w.u32(self)
		w.u32(uint32(incl))
		w.u32(uint32(d))
		w.u32(uint32(d))
		w.u32(uint32(d))
		for k := 0; k < d; k++ {
			caller := ((i-l.offset(k))%n + n) % n
			w.u32(uint32(caller))
			w.u32(l.callLine(caller, k))
			w.u32(1)
			w.u32(l.callCost(caller, k))
		}
		for k := 0; k < d; k++ {
			w.u32(uint32((i + l.offset(k)) % n))
			w.u32(l.callLine(i, k))
			w.u32(1)
			w.u32(l.callCost(i, k))
		}
		w.str(file(i))
		w.str(l.Name(i))
	}
	for _, h := range []string{"version: 1", "creator: hpcfs synthetic (large)", "cmd: /srv/app/index.php",
		"part: 1", "positions: line", "events: Time_(10ns) Memory_(bytes)", fmt.Sprintf("summary: %d 0", summary)} {
		w.str(h)
	}
	return w.w.Flush()
}
