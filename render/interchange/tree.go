package interchange

import (
	"bytes"
	"errors"
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
// It is kept as flat columns (struct of arrays): per node a parent, a
// frame id and the exclusive values; per distinct frame the ids of its
// strings, interned once into one byte column; merge indexes are
// open-addressing tables of ids. Each column moves to a file past
// SpillValues (spill.go), so that a large tree holds in memory only its
// merge indexes while building (dropped by Done) and the columns' page
// caches after. In memory, about 60 bytes per node and 40 per distinct
// frame (plus its name) while building, 48 per node after Done
// (TestTreeBytesPerNode).
type Tree struct {
	Metrics []Metric

	strs   strTable
	frames frameTable
	parent column[int32]
	frame  column[int32]
	vals   int64s  // node*len(Metrics)+metric, exclusive
	child  idTable // (parent, label) -> node; dropped by Done

	// set by Done
	metricStr [][2]int32    // string ids of each metric's name and unit
	rootStr   int32         // string id of rootLabel
	depth     column[int32] // per node
	totals    []int64       // per metric, the sum of the exclusive values
}

// frameTable holds the distinct frames by string ids.
type frameTable struct {
	name, label, file, module column[int32]
	line                      column[int64]
	addr                      column[uint64]
	index                     idTable
}

func (f *frameTable) Len() int { return f.name.Len() }

func (f *frameTable) hashOf(i int32) uint64 {
	return frameHash(f.name.get(int(i)), f.file.get(int(i)), f.module.get(int(i)), f.line.get(int(i)), f.addr.get(int(i)))
}

// eq says whether frame i has these fields.
func (f *frameTable) eq(i, name, file, module int32, line int64, addr uint64) bool {
	j := int(i)
	return f.name.get(j) == name && f.file.get(j) == file && f.module.get(j) == module && f.line.get(j) == line && f.addr.get(j) == addr
}

func frameHash(name, file, module int32, line int64, addr uint64) uint64 {
	h := mix(uint64(uint32(name)) | uint64(uint32(file))<<32)
	h = mix(h ^ uint64(uint32(module)))
	h = mix(h ^ uint64(line))
	return mix(h ^ addr)
}

// NewTree returns a tree holding only its root.
func NewTree(metrics []Metric) *Tree {
	t := &Tree{Metrics: metrics}
	t.strs.init()
	t.parent.append(-1)
	t.frame.append(-1)
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
	id, slot := ft.index.find(h, func(i int32) bool { return ft.eq(i, name, file, module, f.Line, f.Addr) })
	if id >= 0 {
		return id
	}
	id = int32(ft.Len())
	label := name
	if l := FrameLabel(f); l != f.Name {
		label = t.strs.id(l)
	}
	ft.name.append(name)
	ft.label.append(label)
	ft.file.append(file)
	ft.module.append(module)
	ft.line.append(f.Line)
	ft.addr.append(f.Addr)
	ft.index.insert(slot, id, h, ft.hashOf)
	return id
}

// parentOf is node n's parent (-1 for the root).
func (t *Tree) parentOf(n int32) int32 { return t.parent.get(int(n)) }

// frameOf is node n's frame (-1 for the root).
func (t *Tree) frameOf(n int32) int32 { return t.frame.get(int(n)) }

// labelOf is the string id of node n's label (not for the root).
func (t *Tree) labelOf(n int32) int32 { return t.frames.label.get(int(t.frameOf(n))) }

// depthOf is node n's depth, 0 for the root; after Done.
func (t *Tree) depthOf(n int32) int32 { return t.depth.get(int(n)) }

func (t *Tree) childHash(n int32) uint64 { return childHash(t.parentOf(n), t.labelOf(n)) }

func childHash(parent, label int32) uint64 {
	return mix(uint64(uint32(parent))<<32 | uint64(uint32(label)))
}

// Child returns the child of parent for frame f, adding it if needed.
func (t *Tree) Child(parent int32, f Frame) int32 {
	fi := t.frameID(f)
	label := t.frames.label.get(int(fi))
	h := childHash(parent, label)
	n, slot := t.child.find(h, func(n int32) bool {
		return t.parentOf(n) == parent && t.labelOf(n) == label
	})
	if n >= 0 {
		return n
	}
	n = int32(t.parent.Len())
	t.parent.append(parent)
	t.frame.append(fi)
	t.vals.grow(len(t.Metrics))
	t.child.insert(slot, n, h, t.childHash)
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
	n := t.Len()
	nm := len(t.Metrics)
	// Children of each node, sorted by label (compressed rows: kids of
	// x are kids[start[x]:start[x+1]]), in columns that spill as the
	// tree's do.
	var start, fill, kids column[int32]
	start.grow(n + 1)
	for i := 1; i < n; i++ {
		start.add(int(t.parentOf(int32(i)))+1, 1)
	}
	for i := 1; i <= n; i++ {
		start.add(i, start.get(i-1))
	}
	fill.grow(n)
	var buf []int32
	for lo := 0; lo < n; lo += spillPage {
		buf = start.row(buf, lo, min(n, lo+spillPage)-lo)
		fill.setRow(lo, buf)
	}
	kids.grow(n)
	for i := 1; i < n; i++ {
		p := int(t.parentOf(int32(i)))
		kids.set(int(fill.get(p)), int32(i))
		fill.add(p, 1)
	}
	fill.reset(nil)
	var by byBytes
	sorted := func(x int32) []int32 {
		lo, hi := int(start.get(int(x))), int(start.get(int(x)+1))
		buf = kids.row(buf, lo, hi-lo)
		by.sort(buf, t.appendLabel)
		return buf
	}
	// Renumber the nodes in that preorder, so that the views, which walk
	// it, read every column in order (from the page cache, when in a
	// file) and need no order column.
	type onStack struct{ x, parent, depth int32 }
	var parent, frame column[int32]
	var vals int64s
	var row []int64
	stack := []onStack{{Root, -1, 0}}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i := int32(parent.Len())
		parent.append(e.parent)
		frame.append(t.frameOf(e.x))
		t.depth.append(e.depth)
		row = t.vals.row(row, int(e.x)*nm, nm)
		vals.grow(nm)
		vals.setRow(int(i)*nm, row)
		k := sorted(e.x)
		for j := len(k) - 1; j >= 0; j-- {
			stack = append(stack, onStack{k[j], i, e.depth + 1})
		}
	}
	t.parent.take(&parent)
	t.frame.take(&frame)
	t.vals.take(&vals)
	start.reset(nil)
	kids.reset(nil)
	t.totals = make([]int64, nm)
	t.eachRows(func(_ int, vals []int64) {
		for m, v := range vals {
			t.totals[m] += v
		}
	})
}

// Len is the number of nodes, the root included.
func (t *Tree) Len() int { return t.parent.Len() }

// Total is the root's inclusive value of metric m: the sum of all
// exclusive values.
func (t *Tree) Total(m int) int64 { return t.totals[m] }

func (t *Tree) self(n int32, m int) int64 { return t.vals.get(int(n)*len(t.Metrics) + m) }

// Err is the first failure of the files the tree's columns moved to (see
// SpillValues); values read as 0 after it, so a view that saw one fails.
func (t *Tree) Err() error {
	ft := &t.frames
	return errors.Join(t.vals.Err(), t.parent.Err(), t.frame.Err(), t.depth.Err(),
		ft.name.Err(), ft.label.Err(), ft.file.Err(), ft.module.Err(), ft.line.Err(), ft.addr.Err(),
		t.strs.blob.Err(), t.strs.end.Err())
}

// inclusive is the inclusive value of metric m of every node, in a
// column that spills as the tree's do.
func (t *Tree) inclusive(m int) *int64s {
	inc := new(int64s)
	inc.grow(t.Len())
	t.eachRows(func(i int, vals []int64) { inc.set(i, vals[m]) })
	for i := t.Len() - 1; i > 0; i-- {
		x := int32(i)
		inc.add(int(t.parentOf(x)), inc.get(int(x)))
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

// appendLabel appends label(n) to dst.
func (t *Tree) appendLabel(dst []byte, n int32) []byte {
	if n == Root {
		return append(dst, rootLabel...)
	}
	return t.strs.appendBytes(dst, t.labelOf(n))
}

const rootLabel = "[unattributed]"

// label is the name a frame shows in folded stacks and flame graphs: the
// function, with the module when the name is an address, never empty and
// without the characters that would break a folded line.
func (t *Tree) label(n int32) string { return string(t.appendLabel(nil, n)) }

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

// byBytes sorts ids by the bytes of each (appendKey), read once per id
// rather than once per comparison (they may be in a file); it keeps its
// scratch between sorts.
type byBytes struct {
	text []byte
	ends []int
	idx  []int
	out  []int32
}

func (s *byBytes) key(i int) []byte {
	lo := 0
	if i > 0 {
		lo = s.ends[i-1]
	}
	return s.text[lo:s.ends[i]]
}

// sort sorts ids in place (stable).
func (s *byBytes) sort(ids []int32, appendKey func(dst []byte, id int32) []byte) {
	if len(ids) < 2 {
		return
	}
	s.text, s.ends, s.idx, s.out = s.text[:0], s.ends[:0], s.idx[:0], s.out[:0]
	for i, id := range ids {
		s.text = appendKey(s.text, id)
		s.ends = append(s.ends, len(s.text))
		s.idx = append(s.idx, i)
	}
	slices.SortStableFunc(s.idx, func(a, b int) int { return bytes.Compare(s.key(a), s.key(b)) })
	for _, i := range s.idx {
		s.out = append(s.out, ids[i])
	}
	copy(ids, s.out)
}

// sortRuns sorts each run of ids that same says are equal (ids already
// sorted by what same compares) by their bytes.
func (s *byBytes) sortRuns(ids []int32, same func(a, b int32) bool, appendKey func(dst []byte, id int32) []byte) {
	for lo := 0; lo < len(ids); {
		hi := lo + 1
		for hi < len(ids) && same(ids[lo], ids[hi]) {
			hi++
		}
		s.sort(ids[lo:hi], appendKey)
		lo = hi
	}
}
