package interchange

import (
	"slices"
	"strings"

	"github.com/hpcfs/hpcfs/render"
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
// first frame it was made for (its file, line and module go to pprof).
// Node 0 is the root above every frame. An adapter builds a Tree once per
// source with Child and Add; the views read it concurrently after Done.
//
// It is kept as flat arrays (struct of arrays): per node a parent, a
// frame id and the exclusive values; per distinct frame the ids of its
// strings, interned once into one byte blob; merge indexes are
// open-addressing tables of ids. About 60 bytes per node and 40 per
// distinct frame (plus its name) while building, 48 per node after Done
// (TestTreeBytesPerNode).
type Tree struct {
	Metrics []Metric

	strs   strTable
	frames frameTable
	parent []int32
	frame  []int32
	vals   int64s  // node*len(Metrics)+metric, exclusive; in a file past SpillValues
	child  idTable // (parent, label) -> node; dropped by Done

	// set by Done
	metricStr [][2]int32 // string ids of each metric's name and unit
	rootStr   int32      // string id of rootLabel
	order     []int32    // preorder, siblings by label
	depth     []int32
	totals    []int64 // per metric, the sum of the exclusive values
}

// frameTable holds the distinct frames by string ids.
type frameTable struct {
	name, label, file, module []int32
	line                      []int64
	addr                      []uint64
	index                     idTable
}

func (f *frameTable) Len() int { return len(f.name) }

func (f *frameTable) hashOf(i int32) uint64 {
	return frameHash(f.name[i], f.file[i], f.module[i], f.line[i], f.addr[i])
}

func frameHash(name, file, module int32, line int64, addr uint64) uint64 {
	h := mix(uint64(uint32(name)) | uint64(uint32(file))<<32)
	h = mix(h ^ uint64(uint32(module)))
	h = mix(h ^ uint64(line))
	return mix(h ^ addr)
}

// NewTree returns a tree holding only its root.
func NewTree(metrics []Metric) *Tree {
	t := &Tree{Metrics: metrics, strs: newStrTable(), parent: []int32{-1}, frame: []int32{-1}}
	t.vals.grow(len(metrics))
	return t
}

// Root is the node above every frame.
const Root int32 = 0

// frameID interns f.
func (t *Tree) frameID(f Frame) int32 {
	ft := &t.frames
	name, file, module := t.strs.id(f.Name), t.strs.id(f.File), t.strs.id(f.Module)
	h := frameHash(name, file, module, f.Line, f.Addr)
	id, slot := ft.index.find(h, func(i int32) bool {
		return ft.name[i] == name && ft.file[i] == file && ft.module[i] == module && ft.line[i] == f.Line && ft.addr[i] == f.Addr
	})
	if id >= 0 {
		return id
	}
	id = int32(ft.Len())
	ft.name = append(ft.name, name)
	ft.label = append(ft.label, t.strs.id(FrameLabel(f)))
	ft.file = append(ft.file, file)
	ft.module = append(ft.module, module)
	ft.line = append(ft.line, f.Line)
	ft.addr = append(ft.addr, f.Addr)
	ft.index.insert(slot, id, ft.hashOf)
	return id
}

func (t *Tree) childHash(n int32) uint64 { return childHash(t.parent[n], t.frames.label[t.frame[n]]) }

func childHash(parent, label int32) uint64 {
	return mix(uint64(uint32(parent))<<32 | uint64(uint32(label)))
}

// Child returns the child of parent for frame f, adding it if needed.
func (t *Tree) Child(parent int32, f Frame) int32 {
	fi := t.frameID(f)
	label := t.frames.label[fi]
	n, slot := t.child.find(childHash(parent, label), func(n int32) bool {
		return t.parent[n] == parent && t.frames.label[t.frame[n]] == label
	})
	if n >= 0 {
		return n
	}
	n = int32(len(t.parent))
	t.parent = append(t.parent, parent)
	t.frame = append(t.frame, fi)
	t.vals.grow(len(t.Metrics))
	t.child.insert(slot, n, t.childHash)
	return n
}

// Add adds v to the exclusive value of metric m at node n.
func (t *Tree) Add(n int32, m int, v int64) { t.vals.add(int(n)*len(t.Metrics)+m, v) }

// intern adds strings to the tree's string table (pprof's) and returns
// their ids; only before Done.
func (t *Tree) intern(ss []string) []int32 {
	ids := make([]int32, len(ss))
	for i, s := range ss {
		ids[i] = t.strs.id(s)
	}
	return ids
}

// Done ends building: it drops the merge indexes and computes the
// preorder the views use.
func (t *Tree) Done() {
	for _, m := range t.Metrics {
		t.metricStr = append(t.metricStr, [2]int32{t.strs.id(m.Name), t.strs.id(m.Unit)})
	}
	t.rootStr = t.strs.id(rootLabel)
	t.child, t.frames.index, t.strs.index = idTable{}, idTable{}, idTable{}
	n := len(t.parent)
	nm := len(t.Metrics)
	// Children of each node, sorted by label (compressed rows: kids of
	// x are kids[start[x]:start[x+1]]).
	start := make([]int32, n+1)
	for i := 1; i < n; i++ {
		start[t.parent[i]+1]++
	}
	for i := 1; i <= n; i++ {
		start[i] += start[i-1]
	}
	kids := make([]int32, n)
	fill := slices.Clone(start[:n])
	for i := 1; i < n; i++ {
		p := t.parent[i]
		kids[fill[p]] = int32(i)
		fill[p]++
	}
	for x := range n {
		slices.SortFunc(kids[start[x]:start[x+1]], func(a, b int32) int {
			return t.strs.compare(t.frames.label[t.frame[a]], t.frames.label[t.frame[b]])
		})
	}
	t.order = make([]int32, 0, n)
	t.depth = make([]int32, n)
	stack := []int32{Root}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t.order = append(t.order, x)
		k := kids[start[x]:start[x+1]]
		for i := len(k) - 1; i >= 0; i-- {
			t.depth[k[i]] = t.depth[x] + 1
			stack = append(stack, k[i])
		}
	}
	t.totals = make([]int64, nm)
	t.eachRows(func(_ int, vals []int64) {
		for m, v := range vals {
			t.totals[m] += v
		}
	})
}

// Len is the number of nodes, the root included.
func (t *Tree) Len() int { return len(t.parent) }

// Total is the root's inclusive value of metric m: the sum of all
// exclusive values.
func (t *Tree) Total(m int) int64 { return t.totals[m] }

func (t *Tree) self(n int32, m int) int64 { return t.vals.get(int(n)*len(t.Metrics) + m) }

// Err is the first failure of the file the tree's values moved to (see
// SpillValues); values read as 0 after it, so a view that saw one fails.
func (t *Tree) Err() error { return t.vals.Err() }

// inclusive is the inclusive value of metric m of every node.
func (t *Tree) inclusive(m int) []int64 {
	inc := make([]int64, t.Len())
	t.eachRows(func(i int, vals []int64) { inc[i] = vals[m] })
	for i := len(t.order) - 1; i > 0; i-- {
		x := t.order[i]
		inc[t.parent[x]] += inc[x]
	}
	return inc
}

// eachRows calls fn with every node's values in node order (a page of
// the spilled values at a time, not a value).
func (t *Tree) eachRows(fn func(n int, vals []int64)) {
	nm := len(t.Metrics)
	if nm == 0 {
		return
	}
	const batch = spillPage
	var buf []int64
	for lo := 0; lo < t.Len(); lo += batch {
		hi := min(t.Len(), lo+batch)
		buf = t.vals.row(buf, lo*nm, (hi-lo)*nm)
		for n := lo; n < hi; n++ {
			fn(n, buf[(n-lo)*nm:(n-lo+1)*nm])
		}
	}
}

// labelBytes is label(n) without copying (valid while t lives).
func (t *Tree) labelBytes(n int32) []byte {
	if n == Root {
		return []byte(rootLabel)
	}
	return t.strs.bytes(t.frames.label[t.frame[n]])
}

const rootLabel = "[unattributed]"

// label is the name a frame shows in folded stacks and flame graphs: the
// function, with the module when the name is an address, never empty and
// without the characters that would break a folded line.
func (t *Tree) label(n int32) string { return string(t.labelBytes(n)) }

// FrameLabel is the text shown for f in folded stacks and flame graphs:
// its name, [unknown] when empty, written as every text view writes names
// (render.EscapeName: control characters but tab, DEL and bytes that are
// not UTF-8 as \xNN), with ';' (the folded separator) as ':'.
func FrameLabel(f Frame) string {
	s := f.Name
	if s == "" {
		s = "[unknown]"
	}
	return strings.ReplaceAll(render.EscapeName(s), ";", ":")
}
