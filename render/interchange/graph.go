package interchange

import (
	"math"
	"math/bits"
	"slices"
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

func (g *Graph) selfOf(f, m int) int64 { return g.self[f*len(g.Metrics)+m] }
func (g *Graph) costOf(e, m int) int64 { return g.cost[e*len(g.Metrics)+m] }

// Expansion limits: stacks deeper than maxGraphDepth, and nodes beyond
// maxGraphNodes per metric, are not expanded further.
const (
	maxGraphDepth = 256
	maxGraphNodes = 200_000
)

// Tree expands the graph into a calling-context tree the way gprof and
// speedscope's callgrind importer do: from each function nobody calls,
// a function's inclusive cost flows into its callees in proportion to the
// edge costs, and each context of a function gets the same share of its
// self cost. Recursive calls are not expanded. A function's self cost is
// never handed out twice; what the expansion leaves of it (recursion,
// rounding, functions reached from no root) becomes a stack of that
// function alone, and so is a negative self cost (which pprof keeps and
// folded stacks, unsigned, leave out). So the pprof values add up to the
// sum of the self costs, the total the CSVs show, and the folded values
// to that sum when no self cost is negative.
func (g *Graph) Tree() *Tree {
	t := NewTree(g.Metrics)
	nf := len(g.Funcs)
	// Out-edges of each function in compressed rows: edges of f are
	// out[start[f]:start[f+1]].
	start := make([]int32, nf+1)
	called := make([]bool, nf)
	for e, c := range g.caller {
		start[c+1]++
		if c != g.callee[e] {
			called[g.callee[e]] = true
		}
	}
	for f := 1; f <= nf; f++ {
		start[f] += start[f-1]
	}
	out := make([]int32, len(g.caller))
	fill := slices.Clone(start[:nf])
	for e, c := range g.caller {
		out[fill[c]] = int32(e)
		fill[c]++
	}
	for m := range g.Metrics {
		x := &expansion{g: g, t: t, m: m, start: start, out: out, onPath: make([]bool, nf), rem: make([]uint64, nf)}
		for f := range g.Funcs {
			x.rem[f] = positive(g.selfOf(f, m))
		}
		for f := range g.Funcs {
			if !called[f] {
				x.visit(Root, f, math.MaxUint64, 1)
			}
		}
		for f := range g.Funcs {
			if x.rem[f] > 0 {
				t.Add(t.Child(Root, g.Funcs[f]), m, int64(x.rem[f]))
			}
			if v := g.selfOf(f, m); v < 0 {
				t.Add(t.Child(Root, g.Funcs[f]), m, v) // for pprof; folded stacks leave it out
			}
		}
	}
	return t
}

type expansion struct {
	g      *Graph
	t      *Tree
	m      int
	start  []int32 // out-edges of f: out[start[f]:start[f+1]]
	out    []int32
	onPath []bool
	rem    []uint64 // self cost not handed out yet
	nodes  int
}

func positive(v int64) uint64 { return uint64(max(v, 0)) }

// share is w*part/whole without overflow, for w, part <= whole.
func share(w, part, whole uint64) uint64 {
	if whole == 0 {
		return 0
	}
	hi, lo := bits.Mul64(w, part)
	q, _ := bits.Div64(hi, lo, whole)
	return q
}

func (x *expansion) visit(parent int32, f int, w uint64, depth int) {
	// Calls back into the path are recursion: their cost is already in
	// the path's, so they neither get a share nor dilute the others'.
	self := positive(x.g.selfOf(f, x.m))
	whole := self
	edges := x.out[x.start[f]:x.start[f+1]]
	for _, e := range edges {
		if c := int(x.g.callee[e]); c != f && !x.onPath[c] {
			whole += positive(x.g.costOf(int(e), x.m))
		}
	}
	w = min(w, whole)
	if w == 0 {
		return
	}
	x.nodes++
	n := x.t.Child(parent, x.g.Funcs[f])
	if s := min(share(w, self, whole), x.rem[f]); s > 0 {
		x.rem[f] -= s
		x.t.Add(n, x.m, int64(s))
	}
	if depth >= maxGraphDepth || x.nodes >= maxGraphNodes {
		return
	}
	x.onPath[f] = true
	for _, e := range edges {
		if c := int(x.g.callee[e]); c != f && !x.onPath[c] {
			x.visit(n, c, share(w, positive(x.g.costOf(int(e), x.m)), whole), depth+1)
		}
	}
	x.onPath[f] = false
}
