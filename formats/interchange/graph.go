package interchange

import (
	"math"
	"math/bits"
)

// A Graph is a call graph without contexts (callgrind, webgrind): the self
// cost of each function and the inclusive cost of each call edge, per
// metric.
type Graph struct {
	Metrics []Metric
	Funcs   []Frame
	Self    [][]int64 // per function, per metric
	Edges   []Edge
}

// An Edge is the calls from one function to another.
type Edge struct {
	Caller, Callee int
	Cost           []int64 // inclusive, per metric
}

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
	out := make([][]int, nf)
	called := make([]bool, nf)
	for i, e := range g.Edges {
		if e.Caller < 0 || e.Caller >= nf || e.Callee < 0 || e.Callee >= nf {
			continue
		}
		out[e.Caller] = append(out[e.Caller], i)
		if e.Caller != e.Callee {
			called[e.Callee] = true
		}
	}
	for m := range g.Metrics {
		x := &expansion{g: g, t: t, m: m, out: out, onPath: make([]bool, nf), rem: make([]uint64, nf)}
		for f := range g.Funcs {
			x.rem[f] = positive(g.Self[f][m])
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
			if v := g.Self[f][m]; v < 0 {
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
	out    [][]int
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
	self := positive(x.g.Self[f][x.m])
	whole := self
	for _, e := range x.out[f] {
		if c := x.g.Edges[e].Callee; c != f && !x.onPath[c] {
			whole += positive(x.g.Edges[e].Cost[x.m])
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
	for _, e := range x.out[f] {
		if c := x.g.Edges[e].Callee; c != f && !x.onPath[c] {
			x.visit(n, c, share(w, positive(x.g.Edges[e].Cost[x.m]), whole), depth+1)
		}
	}
	x.onPath[f] = false
}
