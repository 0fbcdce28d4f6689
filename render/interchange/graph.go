package interchange

import (
	"cmp"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/render"
)

// A Graph is a call graph without contexts (callgrind, webgrind): the self
// cost of each function and the inclusive cost of each call edge, per
// metric, in flat arrays (AddFunc, AddEdge).
type Graph struct {
	Metrics []Metric
	Funcs   []Frame
	self    []int64 // function*len(Metrics)+metric
	caller  []int32
	callee  []int32
	cost    []int64 // edge*len(Metrics)+metric, inclusive
}

// AddFunc adds function f (its index is the number of functions before
// it) with its self cost per metric (missing metrics are 0).
func (g *Graph) AddFunc(f Frame, self ...int64) {
	g.Funcs = append(g.Funcs, f)
	g.self = appendCosts(g.self, len(g.Metrics), self)
}

// AddEdge adds the calls from function caller to function callee with
// their inclusive cost per metric; edges naming no function are left out.
func (g *Graph) AddEdge(caller, callee int, cost ...int64) {
	if caller < 0 || caller >= len(g.Funcs) || callee < 0 || callee >= len(g.Funcs) {
		return
	}
	g.caller = append(g.caller, int32(caller))
	g.callee = append(g.callee, int32(callee))
	g.cost = appendCosts(g.cost, len(g.Metrics), cost)
}

// Scale multiplies each cost by its metric's factor (EventMetric), at
// most to ±1<<62.
func Scale(costs, factors []int64) []int64 {
	out := make([]int64, len(costs))
	for i, v := range costs {
		f := int64(1)
		if i < len(factors) {
			f = factors[i]
		}
		switch {
		case f == 1:
			out[i] = v
		case v > (1<<62)/f:
			out[i] = 1 << 62
		case v < -(1<<62)/f:
			out[i] = -1 << 62
		default:
			out[i] = v * f
		}
	}
	return out
}

func appendCosts(dst []int64, n int, v []int64) []int64 {
	for i := range n {
		if i < len(v) {
			dst = append(dst, v[i])
		} else {
			dst = append(dst, 0)
		}
	}
	return dst
}

func (g *Graph) selfOf(f, m int) uint64 { return positive(g.self[f*len(g.Metrics)+m]) }
func (g *Graph) costOf(e, m int) uint64 { return positive(g.cost[e*len(g.Metrics)+m]) }

// positive is v, 0 when negative, at most 1<<62.
func positive(v int64) uint64 { return min(uint64(max(v, 0)), 1<<62) }

// satAdd is a+b, at most 1<<62: hostile costs do not wrap around.
func satAdd(a, b uint64) uint64 {
	if s := a + b; s >= a && s <= 1<<62 {
		return s
	}
	return 1 << 62
}

// Expansion limits: contexts deeper than maxGraphDepth, and contexts
// beyond maxGraphNodes per metric, are not expanded further (their whole
// cost stays on them).
const (
	maxGraphDepth = 256
	maxGraphNodes = 200_000
)

// A Placement says, per metric, how much of a graph's cost Tree could not
// put under a caller.
type Placement struct {
	// Unplaced is the cost of called functions (or cycles) beyond what
	// the calls to them carry: a thread's start function, a function
	// also entered from outside the recorded calls. It is a stack of its
	// own from the root.
	Unplaced []int64
	// Unrecorded is the cost calls carry beyond what their callee
	// records (its self cost and its own calls): it is shown as the
	// callee's self cost, so stacks add up to the CSV total plus it.
	Unrecorded []int64
	// Cycles is the number of recursion cycles (functions calling
	// themselves, or calling each other round), each shown as one unit.
	Cycles int
}

// Placement is what Tree does with the graph's costs, found without
// expanding it.
func (g *Graph) Placement() Placement {
	p := g.units()
	pl := Placement{Unplaced: make([]int64, len(g.Metrics)), Unrecorded: make([]int64, len(g.Metrics))}
	for u := range p.entry {
		if p.cycle[u] {
			pl.Cycles++
		}
		for m := range g.Metrics {
			whole, in := p.whole[u*len(g.Metrics)+m], p.in[u*len(g.Metrics)+m]
			switch {
			case in > whole:
				pl.Unrecorded[m] += int64(in - whole)
			case in > 0:
				pl.Unplaced[m] += int64(whole - in)
			}
		}
	}
	return pl
}

// units is the graph condensed into its strongly connected components
// (recursion cycles), each a unit: per unit its members, its calls to
// other units and, per metric, its whole cost (its members' self costs
// plus its calls out) and the cost of the calls into it.
type units struct {
	unit    []int32 // function -> unit
	entry   []int32 // unit -> its first member (root contexts enter there)
	cycle   []bool  // unit is a cycle (a self call or two members or more)
	members []int32 // members of u: members[mstart[u]:mstart[u+1]]
	mstart  []int32
	out     []int32 // edges out of u: out[ostart[u]:ostart[u+1]], by callee unit
	ostart  []int32
	whole   []uint64 // unit*len(Metrics)+metric
	in      []uint64
}

func (g *Graph) units() *units {
	nf, nm := len(g.Funcs), len(g.Metrics)
	// Out-edges of each function in compressed rows.
	start := make([]int32, nf+1)
	for _, c := range g.caller {
		start[c+1]++
	}
	for f := 1; f <= nf; f++ {
		start[f] += start[f-1]
	}
	fout := make([]int32, len(g.caller))
	fill := slices.Clone(start[:nf])
	for e, c := range g.caller {
		fout[fill[c]] = int32(e)
		fill[c]++
	}
	p := &units{unit: tarjan(nf, start, fout, g.callee)}
	nu := 0
	for _, u := range p.unit {
		nu = max(nu, int(u)+1)
	}
	// Number units by their first member so that the order is the
	// functions' order.
	renum := make([]int32, nu)
	for i := range renum {
		renum[i] = -1
	}
	next := int32(0)
	p.entry = make([]int32, nu)
	for f, u := range p.unit {
		if renum[u] < 0 {
			renum[u] = next
			p.entry[next] = int32(f)
			next++
		}
		p.unit[f] = renum[u]
	}
	p.cycle = make([]bool, nu)
	p.mstart = make([]int32, nu+1)
	for _, u := range p.unit {
		p.mstart[u+1]++
	}
	for u := 1; u <= nu; u++ {
		p.mstart[u] += p.mstart[u-1]
	}
	p.members = make([]int32, nf)
	mfill := slices.Clone(p.mstart[:nu])
	for f, u := range p.unit {
		p.members[mfill[u]] = int32(f)
		mfill[u]++
		if mfill[u]-p.mstart[u] > 1 {
			p.cycle[u] = true
		}
	}
	p.whole = make([]uint64, nu*nm)
	p.in = make([]uint64, nu*nm)
	for f, u := range p.unit {
		for m := range nm {
			p.whole[int(u)*nm+m] = satAdd(p.whole[int(u)*nm+m], g.selfOf(f, m))
		}
	}
	p.ostart = make([]int32, nu+1)
	for e, c := range g.caller {
		cu, vu := p.unit[c], p.unit[g.callee[e]]
		if cu == vu {
			p.cycle[cu] = true
			continue
		}
		p.ostart[cu+1]++
		for m := range nm {
			v := g.costOf(e, m)
			p.whole[int(cu)*nm+m] = satAdd(p.whole[int(cu)*nm+m], v)
			p.in[int(vu)*nm+m] = satAdd(p.in[int(vu)*nm+m], v)
		}
	}
	for u := 1; u <= nu; u++ {
		p.ostart[u] += p.ostart[u-1]
	}
	p.out = make([]int32, p.ostart[nu])
	ofill := slices.Clone(p.ostart[:nu])
	for f := range nf {
		for _, e := range fout[start[f]:start[f+1]] {
			cu, vu := p.unit[f], p.unit[g.callee[e]]
			if cu != vu {
				p.out[ofill[cu]] = e
				ofill[cu]++
			}
		}
	}
	return p
}

// tarjan returns the strongly connected component of each of n nodes
// (edges of x: callee[out[start[x]:start[x+1]]]), without recursion.
func tarjan(n int, start, out, callee []int32) []int32 {
	const unset = -1
	index := make([]int32, n)
	low := make([]int32, n)
	comp := make([]int32, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i], comp[i] = unset, unset
	}
	var stack []int32
	type frame struct{ v, next int32 }
	var call []frame
	counter, ncomp := int32(0), int32(0)
	for root := range n {
		if index[root] != unset {
			continue
		}
		call = append(call, frame{int32(root), start[root]})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			top := &call[len(call)-1]
			v := top.v
			if top.next < start[v+1] {
				w := callee[out[top.next]]
				top.next++
				switch {
				case index[w] == unset:
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{w, start[w]})
				case onStack[w]:
					low[v] = min(low[v], index[w])
				}
				continue
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// Tree expands the graph into a calling-context tree the way gprof2dot
// and speedscope's callgrind importer do: a function's cost flows into
// its callees in proportion to the costs of its calls, so that every
// function outside a recursion cycle gets, over all its contexts, the
// larger of its whole cost (self plus calls made) and the cost of the
// calls to it (callgrind_annotate's inclusive cost).
//
// A recursion cycle (a function calling itself, or functions calling each
// other round) is one unit: a context of it is the member the call
// entered, with the other members' self costs and calls one level below.
// Calls back into the cycle are not expanded (their cost is already the
// cycle's).
//
// What the calls to a unit do not carry of its whole cost (Placement's
// Unplaced: a thread's start function, functions nobody calls) is a
// stack from the root; what calls carry beyond it (Unrecorded) is the
// self cost of the member they enter. Shares are rounded so that in each
// context they add up to its cost and over all contexts each self cost
// and each call's cost is handed out exactly. So the values add up to
// the sum of the self costs, the total the CSVs show, plus Unrecorded. A
// negative self cost is a stack of its function alone (pprof keeps it;
// folded stacks, unsigned, leave it out).
func (g *Graph) Tree() *Tree {
	t := NewTree(g.Metrics)
	p := g.units()
	nm := len(g.Metrics)
	for m := range g.Metrics {
		x := &expansion{g: g, p: p, t: t, m: m, carry: make([]int64, len(g.Funcs)+len(g.caller)+len(p.entry))}
		for u, f := range p.entry {
			whole, in := p.whole[u*nm+m], p.in[u*nm+m]
			if whole > in {
				x.visit(Root, u, int(f), whole-in, 1)
			}
		}
		for f := range g.Funcs {
			if v := g.self[f*nm+m]; v < 0 {
				t.Add(t.Child(Root, g.Funcs[f]), m, v) // for pprof; folded stacks leave it out
			}
		}
	}
	return t
}

type expansion struct {
	g     *Graph
	p     *units
	t     *Tree
	m     int
	nodes int
	// Carries of the rounding, per function (its self cost), per edge and
	// per unit (its unrecorded cost), in units of 1/whole of the unit they
	// belong to: what the shares handed out so far fall short of (or
	// exceed) their exact values.
	carry []int64
	parts []part // a stack of the parts of the contexts being visited
}

// A part is a function's self cost, an edge's cost or a unit's unrecorded
// cost in one context.
type part struct {
	fn, edge int32 // the function whose node takes a self cost, or the edge; the other is -1
	carry    int32 // index in carry
	cost     uint64
	give     uint64 // the share handed out
	frac     uint64 // what the exact share has beyond give's floor, in 1/whole
}

// split hands out w among the parts in proportion to their costs (of
// whole): each part gets the floor or the ceiling of its exact share plus
// its carry, the ceilings going to the largest fractions, so that the
// shares add up to w and, over all contexts, each part's shares add up to
// its cost.
func (x *expansion) split(parts []part, w, whole uint64) {
	if whole == 0 {
		return
	}
	w = min(w, whole)
	var given uint64
	for i := range parts {
		pt := &parts[i]
		// floor((w*cost + carry) / whole)
		hi, lo := x.exact(pt, w, whole)
		q, r := bits.Div64(hi, lo, whole)
		pt.give, pt.frac = 0, r
		if q > 0 {
			pt.give = q - 1
		} else {
			pt.frac = 0
		}
		given += pt.give
	}
	order := make([]int, 0, len(parts))
	for i := range parts {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(parts[b].frac, parts[a].frac)
	})
	for _, i := range order {
		if given >= w {
			break
		}
		if parts[i].cost > 0 {
			parts[i].give++
			given++
		}
	}
	for i := len(order) - 1; i >= 0 && given > w; i-- {
		if pt := &parts[order[i]]; pt.give > 0 {
			pt.give--
			given--
		}
	}
	for i := range parts {
		pt := &parts[i]
		// The new carry is (w*cost + carry) - give*whole, kept in range.
		hi, lo := x.exact(pt, w, whole)
		ghi, glo := bits.Mul64(pt.give+1, whole)
		var b uint64
		lo, b = bits.Sub64(lo, glo, 0)
		hi -= ghi + b
		switch {
		case hi == 0 && lo < whole, hi == ^uint64(0) && lo > -whole:
			x.carry[pt.carry] = int64(lo)
		default:
			x.carry[pt.carry] = 0 // a share forced off its exact value: start afresh
		}
	}
}

// exact is w*cost + carry + whole for part pt, in 128 bits: its exact
// share plus carry, in units of 1/whole, offset by one whole (the carry is
// in (-whole, whole)) to stay unsigned.
func (x *expansion) exact(pt *part, w, whole uint64) (hi, lo uint64) {
	hi, lo = bits.Mul64(w, pt.cost)
	var c uint64
	lo, c = bits.Add64(lo, uint64(x.carry[pt.carry]+int64(whole)), 0)
	return hi + c, lo
}

// visit adds a context of unit u entered at member entry, under parent,
// with inclusive cost w.
func (x *expansion) visit(parent int32, u, entry int, w uint64, depth int) {
	g, p, t, nm := x.g, x.p, x.t, len(x.g.Metrics)
	n := t.Child(parent, g.Funcs[entry])
	x.nodes++
	if depth >= maxGraphDepth || x.nodes >= maxGraphNodes {
		t.Add(n, x.m, int64(min(w, 1<<62)))
		return
	}
	// at is the node of member f in this context.
	at := func(f int) int32 {
		if f == entry {
			return n
		}
		return t.Child(n, g.Funcs[f])
	}
	base := len(x.parts)
	nf, ne := len(g.Funcs), len(g.caller)
	for _, f := range p.members[p.mstart[u]:p.mstart[u+1]] {
		x.parts = append(x.parts, part{fn: f, edge: -1, carry: f, cost: g.selfOf(int(f), x.m)})
	}
	for _, e := range p.out[p.ostart[u]:p.ostart[u+1]] {
		x.parts = append(x.parts, part{fn: -1, edge: e, carry: int32(nf) + e, cost: g.costOf(int(e), x.m)})
	}
	whole, in := p.whole[u*nm+x.m], p.in[u*nm+x.m]
	if in > whole {
		x.parts = append(x.parts, part{fn: int32(entry), edge: -1, carry: int32(nf + ne + u), cost: in - whole})
		whole = in
	}
	x.split(x.parts[base:], w, whole)
	for i := base; i < len(x.parts); i++ {
		pt := x.parts[i]
		if pt.give == 0 {
			continue
		}
		if pt.edge < 0 {
			t.Add(at(int(pt.fn)), x.m, int64(min(pt.give, 1<<62)))
			continue
		}
		c := int(g.callee[pt.edge])
		x.visit(at(int(g.caller[pt.edge])), int(p.unit[c]), c, pt.give, depth+1)
	}
	x.parts = x.parts[:base]
}

// GraphReadme describes, for a README.txt, how Tree expands g: the
// method, and per metric the costs it could not place under a caller
// and the costs calls carry beyond what their callee records.
func GraphReadme(g *Graph) string {
	pl := g.Placement()
	var b strings.Builder
	b.WriteString(`  The call graph has no contexts: stacks are expanded from the functions nobody calls,
  each call taking its share of the caller's cost in proportion to its cost (as gprof2dot
  and speedscope do), so that a function's stacks add up to its inclusive cost (the larger
  of self plus calls made and the calls to it). A recursion cycle is one unit: the
  function the call entered, the other members one level below it (` + strconv.Itoa(pl.Cycles) + ` here).
  Placed at the root, as the calls to them do not carry it (a thread's start function,
  functions called from outside the profile), per metric:
`)
	writeCosts(&b, g, pl.Unplaced)
	b.WriteString("  Carried by calls beyond what their callee records, shown as the callee's self cost\n" +
		"  (the stacks add up to the CSV total plus this):\n")
	writeCosts(&b, g, pl.Unrecorded)
	return b.String()
}

// writeCosts writes "metric value (pct % of the self costs)" per metric,
// several to a line.
func writeCosts(b *strings.Builder, g *Graph, v []int64) {
	line := "   "
	for m, met := range g.Metrics {
		var total int64
		for f := range g.Funcs {
			total += g.self[f*len(g.Metrics)+m]
		}
		s := " " + met.Name + " " + strconv.FormatInt(v[m], 10)
		if total > 0 {
			s += " (" + strconv.FormatFloat(100*float64(v[m])/float64(total), 'f', 2, 64) + " %)"
		}
		if m+1 < len(g.Metrics) {
			s += ","
		}
		if len(line)+len(s) > 96 {
			b.WriteString(line + "\n")
			line = "   "
		}
		line += s
	}
	b.WriteString(line + "\n")
}

// EventMetric is the metric of a callgrind-format event (callgrind,
// cachegrind, Xdebug, webgrind) in a unit pprof knows, and the factor its
// counts are multiplied by: Xdebug's Time_(10ns) is Time_ns in
// nanoseconds (x10), Memory_(bytes) is Memory_bytes in bytes; an event
// "Name_(unit)" with another unit is Name_unit counted as is; any other
// is a count. The name is safe as a file name and has no parentheses.
func EventMetric(event string) (m Metric, factor int64) {
	name, unit, ok := strings.Cut(event, "_(")
	unit, closed := strings.CutSuffix(unit, ")")
	if !ok || !closed || name == "" || unit == "" {
		return Metric{Name: render.SafeName(event), Unit: "count"}, 1
	}
	m, factor = Metric{Name: name + "_" + unit, Unit: "count"}, 1
	switch unit {
	case "10ns":
		m.Name, m.Unit, factor = name+"_ns", "nanoseconds", 10
	case "ns":
		m.Unit = "nanoseconds"
	case "us", "µs":
		m.Unit = "microseconds"
	case "ms":
		m.Unit = "milliseconds"
	case "bytes", "B":
		m.Unit = "bytes"
	}
	m.Name = render.SafeName(m.Name)
	return m, factor
}
