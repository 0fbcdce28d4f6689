package interchange

import (
	"slices"
	"strings"
)

// A Frame is one frame of a stack: a function, or a location when the
// source has no function names.
type Frame struct {
	Name   string // as the source has it; "" shows as [unknown]
	File   string // source file, "" when unknown
	Line   int64  // 0 when unknown
	Module string // load module (binary, shared object), "" when unknown
	Addr   uint64 // instruction address in Module, 0 when unknown
}

// A Metric is one integral measure of a profile.
type Metric struct {
	Name string // file-name stem and pprof sample type: "cputime_ns", "Ir"
	Unit string // pprof unit: "nanoseconds", "count", "samples", "bytes"
}

// A Tree is a calling-context tree with exclusive integer values per
// metric. Children of a node are merged by label (FrameLabel), so every
// root-to-node path is a distinct folded stack; a merged node keeps the
// first frame it was made for (its file, line and module go to pprof). Node 0 is the root above every frame. An
// adapter builds a Tree once per source with Child and Add; the views
// read it concurrently after Done.
type Tree struct {
	Metrics []Metric

	frames     []Frame
	frameIndex map[Frame]int32
	labelIndex map[string]int32
	parent     []int32
	frame      []int32
	vals       []int64 // node*len(Metrics)+metric, exclusive
	child      map[[2]int32]int32

	// set by Done
	order []int32 // preorder, siblings by frame name
	depth []int32
	inc   []int64
}

// NewTree returns a tree holding only its root.
func NewTree(metrics []Metric) *Tree {
	return &Tree{Metrics: metrics, frameIndex: map[Frame]int32{}, labelIndex: map[string]int32{}, child: map[[2]int32]int32{},
		parent: []int32{-1}, frame: []int32{-1}, vals: make([]int64, len(metrics))}
}

// Root is the node above every frame.
const Root int32 = 0

// Child returns the child of parent for frame f, adding it if needed.
func (t *Tree) Child(parent int32, f Frame) int32 {
	fi, ok := t.frameIndex[f]
	if !ok {
		fi = int32(len(t.frames))
		t.frames = append(t.frames, f)
		t.frameIndex[f] = fi
	}
	label := FrameLabel(f)
	li, ok := t.labelIndex[label]
	if !ok {
		li = int32(len(t.labelIndex))
		t.labelIndex[label] = li
	}
	key := [2]int32{parent, li}
	if n, ok := t.child[key]; ok {
		return n
	}
	n := int32(len(t.parent))
	t.child[key] = n
	t.parent = append(t.parent, parent)
	t.frame = append(t.frame, fi)
	t.vals = append(t.vals, make([]int64, len(t.Metrics))...)
	return n
}

// Add adds v to the exclusive value of metric m at node n.
func (t *Tree) Add(n int32, m int, v int64) { t.vals[int(n)*len(t.Metrics)+m] += v }

// Done ends building: it drops the merge index and computes the preorder
// and inclusive values the views use.
func (t *Tree) Done() {
	t.child, t.frameIndex, t.labelIndex = nil, nil, nil
	n := len(t.parent)
	nm := len(t.Metrics)
	kids := make([][]int32, n)
	for i := 1; i < n; i++ {
		p := t.parent[i]
		kids[p] = append(kids[p], int32(i))
	}
	for _, k := range kids {
		slices.SortFunc(k, func(a, b int32) int { return t.cmpFrames(t.frame[a], t.frame[b]) })
	}
	t.order = make([]int32, 0, n)
	t.depth = make([]int32, n)
	stack := []int32{Root}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t.order = append(t.order, x)
		k := kids[x]
		for i := len(k) - 1; i >= 0; i-- {
			t.depth[k[i]] = t.depth[x] + 1
			stack = append(stack, k[i])
		}
	}
	t.inc = slices.Clone(t.vals)
	for i := len(t.order) - 1; i > 0; i-- {
		x := int(t.order[i])
		p := int(t.parent[x])
		for m := 0; m < nm; m++ {
			t.inc[p*nm+m] += t.inc[x*nm+m]
		}
	}
}

func (t *Tree) cmpFrames(a, b int32) int {
	return strings.Compare(FrameLabel(t.frames[a]), FrameLabel(t.frames[b]))
}

// Len is the number of nodes, the root included.
func (t *Tree) Len() int { return len(t.parent) }

// Total is the root's inclusive value of metric m: the sum of all
// exclusive values.
func (t *Tree) Total(m int) int64 { return t.inc[m] }

func (t *Tree) self(n int32, m int) int64 { return t.vals[int(n)*len(t.Metrics)+m] }
func (t *Tree) incl(n int32, m int) int64 { return t.inc[int(n)*len(t.Metrics)+m] }

// label is the name a frame shows in folded stacks and flame graphs: the
// function, with the module when the name is an address, never empty and
// without the characters that would break a folded line.
func (t *Tree) label(n int32) string {
	if n == Root {
		return "[unattributed]"
	}
	return FrameLabel(t.frames[t.frame[n]])
}

// FrameLabel is the text shown for f in folded stacks and flame graphs:
// its name, [unknown] when empty, with ';' (the folded separator) as ':'
// and control characters as spaces, in valid UTF-8.
func FrameLabel(f Frame) string {
	s := f.Name
	if s == "" {
		s = "[unknown]"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r == ';':
			return ':'
		case r < 0x20 || r == 0x7f:
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}
