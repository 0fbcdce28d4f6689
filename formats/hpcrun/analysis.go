package hpcrun

import (
	"container/list"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/render"
)

// analysis is the per-node state the CCT views need beyond the file: the
// depth of every node and the inclusive values of the nodes that have
// children (a leaf's inclusive values are its stored ones).
//
// Bytes per node: 1 for the depth (2 or 4 in trees deeper than 255 or
// 65,535), 0.19 for the has-children bitmap and its rank index, and
// 8 per metric for each node with children only; files whose nodes are
// not in preorder keep 4 more for the parent index. cct.txt adds 4 for
// its order once used.
type analysis struct {
	epochs []*epochAnalysis
	bytes  int64
}

type epochAnalysis struct {
	e      *hpcrun.Epoch
	n      uint64
	m      int
	depth  depths
	parent []int32  // index of the parent, -1 for a root; nil in preorder files
	inner  []uint64 // bit i: node i has children
	rank   []uint32 // nodes with children before word w of inner
	inc    []uint64 // m inclusive values per node with children, in node order
	err    error    // a node whose parent is missing; ends the views there

	realMetric []bool

	orderOnce sync.Once
	order     []uint32 // cct.txt: depth-first, children by descending inclusive
	total     float64  // sum of the roots' first inclusive metric
	orderErr  error
}

// analysisBudget bounds the per-node state kept for profiles other than
// the one used last, whose state is always kept.
const analysisBudget = 16 << 20

var analyses = struct {
	sync.Mutex
	used  int64
	order *list.List // of *profile, most recent first
	elems map[*profile]*list.Element
}{order: list.New(), elems: map[*profile]*list.Element{}}

// openAnalysed is the open profile and its analysis, which the CCT views
// read together.
func (p *profile) openAnalysed() (*hpcrun.File, *analysis, error) {
	f, err := p.open()
	if err != nil {
		return nil, nil, err
	}
	a, err := p.analysis()
	return f, a, err
}

func (p *profile) analysis() (*analysis, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	p.anaMu.Lock()
	defer p.anaMu.Unlock()
	if a := p.ana.Load(); a != nil {
		analyses.Lock()
		if e, ok := analyses.elems[p]; ok {
			analyses.order.MoveToFront(e)
		}
		analyses.Unlock()
		return a, nil
	}
	// Drop the others' state beyond the budget first: the new state may
	// be the one that needs the room.
	analyses.Lock()
	evict(analysisBudget, 0)
	analyses.Unlock()
	a, err := analyze(f)
	if err != nil {
		return nil, err
	}
	p.ana.Store(a)
	analyses.Lock()
	analyses.elems[p] = analyses.order.PushFront(p)
	analyses.used += a.bytes
	evict(analysisBudget+a.bytes, 1)
	analyses.Unlock()
	return a, nil
}

// evict drops the least recently used states until at most budget bytes
// remain, keeping the keep most recent ones. analyses must be locked.
func evict(budget int64, keep int) {
	for analyses.used > budget && analyses.order.Len() > keep {
		e := analyses.order.Back()
		old := e.Value.(*profile)
		analyses.order.Remove(e)
		delete(analyses.elems, old)
		if a := old.ana.Swap(nil); a != nil {
			analyses.used -= a.bytes
		}
	}
}

type stackEntry struct {
	id  uint32
	idx int32
}

func analyze(f *hpcrun.File) (*analysis, error) {
	a := &analysis{}
	for _, e := range f.Epochs {
		ea, err := analyzeEpoch(f, e)
		if err != nil {
			return nil, err
		}
		a.epochs = append(a.epochs, ea)
		a.bytes += ea.bytes()
	}
	return a, nil
}

func (ea *epochAnalysis) bytes() int64 {
	return ea.depth.bytes() + 8*int64(len(ea.inner)) + 4*int64(len(ea.rank)) + 8*int64(len(ea.inc)) + 4*int64(len(ea.parent))
}

// analyzeEpoch finds each node's parent among the nodes before it (a
// stack of the current path serves preorder files; other orders fall
// back to an id index), then sums values bottom-up in a backward pass.
func analyzeEpoch(f *hpcrun.File, e *hpcrun.Epoch) (*epochAnalysis, error) {
	n := e.Complete
	m := len(e.Metrics)
	ea := &epochAnalysis{e: e, n: n, m: m, depth: newDepths(n), parent: make([]int32, n), inner: make([]uint64, (n+63)/64)}
	var stack []stackEntry
	var byID map[uint32]int32
	nr := f.NodeReader(e, 0)
	for i := uint64(0); i < n; i++ {
		raw, err := nr.NextRaw()
		if err != nil {
			if err == io.EOF || render.IsDataError(err) {
				ea.n = i
				break
			}
			return nil, err
		}
		id := absID(hpcrun.RawNodeID(raw))
		parentID := hpcrun.RawNodeParent(raw)
		par := int32(-1)
		if parentID != 0 {
			if byID == nil {
				for len(stack) > 0 && stack[len(stack)-1].id != parentID {
					stack = stack[:len(stack)-1]
				}
				if len(stack) > 0 {
					par = stack[len(stack)-1].idx
				} else {
					byID = indexIDs(f, e, i)
				}
			}
			if byID != nil {
				if k, ok := byID[parentID]; ok {
					par = k
				} else {
					ea.n = i
					ea.err = orphanError(e, i, parentID)
					break
				}
			}
		} else {
			stack = stack[:0]
		}
		ea.parent[i] = par
		if par >= 0 {
			ea.depth.set(i, ea.depth.get(uint64(par))+1)
			ea.inner[par>>6] |= 1 << (par & 63)
		}
		if byID != nil {
			if _, dup := byID[id]; !dup {
				byID[id] = int32(i)
			}
		} else {
			stack = append(stack, stackEntry{id, int32(i)})
		}
	}
	ea.rank = make([]uint32, len(ea.inner))
	inner := uint32(0)
	for w, word := range ea.inner {
		ea.rank[w] = inner
		inner += uint32(bits.OnesCount64(word))
	}
	ea.inc = make([]uint64, uint64(inner)*uint64(m))
	ea.realMetric = make([]bool, m)
	for k := range ea.realMetric {
		ea.realMetric[k] = e.Metrics[k].ValFmt == hpcrun.FmtReal
	}
	if err := ea.sumInclusive(f); err != nil {
		return nil, err
	}
	if byID == nil {
		ea.parent = nil // the depths give it back (parents)
	}
	return ea, nil
}

// orphanError is the error of node i of epoch e, whose parent id is not
// among the nodes before it: the views of the epoch end there.
func orphanError(e *hpcrun.Epoch, i uint64, parentID uint32) error {
	return decode.ErrAt("hpcrun", "epoch "+strconv.Itoa(e.Index)+" cct",
		e.NodesOff+int64(i)*e.NodeSize, "parent id not found among the nodes before", parentID, nil)
}

// sumInclusive adds every node's inclusive values to its parent's, from
// the last node backwards so that children are complete first.
func (ea *epochAnalysis) sumInclusive(f *hpcrun.File) error {
	e, m := ea.e, ea.m
	per := max(uint64(readBlock/e.NodeSize), 1)
	buf := make([]byte, per*uint64(e.NodeSize))
	own := make([]uint64, m)
	for hi := ea.n; hi > 0; {
		lo := hi - min(per, hi)
		b := buf[:(hi-lo)*uint64(e.NodeSize)]
		if _, err := f.ReaderAt().ReadAt(b, e.NodesOff+int64(lo)*e.NodeSize); err != nil && err != io.EOF {
			return err
		}
		for i := hi; i > lo; {
			i--
			raw := b[(i-lo)*uint64(e.NodeSize):]
			for k := range own {
				own[k] = e.RawValue(raw, k)
			}
			src := own
			if ea.hasChildren(i) {
				src = ea.incOf(i)
				ea.add(src, own)
			}
			if par := ea.parentOf(i); par >= 0 {
				ea.add(ea.incOf(uint64(par)), src)
			}
		}
		hi = lo
	}
	return nil
}

const readBlock = 128 << 10

// parentOf is the parent index of node i during analysis.
func (ea *epochAnalysis) parentOf(i uint64) int32 { return ea.parent[i] }

func (ea *epochAnalysis) add(dst, src []uint64) {
	for k := range src {
		if ea.realMetric[k] {
			dst[k] = math.Float64bits(math.Float64frombits(dst[k]) + math.Float64frombits(src[k]))
		} else {
			dst[k] += src[k]
		}
	}
}

// hasChildren reports whether node i is some node's parent.
func (ea *epochAnalysis) hasChildren(i uint64) bool { return ea.inner[i>>6]&(1<<(i&63)) != 0 }

// incOf is the inclusive values of node i, which has children.
func (ea *epochAnalysis) incOf(i uint64) []uint64 {
	w := i >> 6
	r := uint64(ea.rank[w]) + uint64(bits.OnesCount64(ea.inner[w]&(1<<(i&63)-1)))
	return ea.inc[r*uint64(ea.m):][:ea.m:ea.m]
}

// inclusive is node i's inclusive values given its stored ones.
func (ea *epochAnalysis) inclusive(i uint64, stored []uint64) []uint64 {
	if ea.hasChildren(i) {
		return ea.incOf(i)
	}
	return stored
}

func absID(id int32) uint32 {
	if id < 0 {
		return uint32(-int64(id))
	}
	return uint32(id)
}

// indexIDs maps the ids of nodes [0, upto) to their index.
func indexIDs(f *hpcrun.File, e *hpcrun.Epoch, upto uint64) map[uint32]int32 {
	byID := make(map[uint32]int32, upto)
	nr := f.NodeReader(e, 0)
	var node hpcrun.Node
	for i := uint64(0); i < upto && nr.Next(&node) == nil; i++ {
		if _, dup := byID[node.AbsID()]; !dup {
			byID[node.AbsID()] = int32(i)
		}
	}
	return byID
}

// eachParent calls fn with every node's parent index (-1 for a root) in
// node order; in a preorder file the parents come from the depths.
func (ea *epochAnalysis) eachParent(fn func(i uint64, parent int32)) {
	if ea.parent != nil {
		for i, p := range ea.parent[:ea.n] {
			fn(uint64(i), p)
		}
		return
	}
	var path []int32 // path[d] = the last node at depth d
	for i := uint64(0); i < ea.n; i++ {
		d := min(int(ea.depth.get(i)), len(path))
		path = path[:d]
		p := int32(-1)
		if d > 0 {
			p = path[d-1]
		}
		fn(i, p)
		path = append(path, int32(i))
	}
}

// cctOrder returns the cct.txt order of an epoch, computing it once.
func (ea *epochAnalysis) cctOrder(f *hpcrun.File) ([]uint32, error) {
	ea.orderOnce.Do(func() {
		n := ea.n
		// Children lists in CSR form: kids[start[i]:start[i+1]].
		start := make([]uint32, n+1)
		var roots []uint32
		ea.eachParent(func(i uint64, p int32) {
			if p >= 0 {
				start[p+1]++
			} else {
				roots = append(roots, uint32(i))
			}
		})
		for i := uint64(0); i < n; i++ {
			start[i+1] += start[i]
		}
		// Fill with start[p] as p's cursor; it ends at p's end, which is
		// where p+1 starts, so shifting by one restores start.
		kids := make([]uint32, start[n])
		ea.eachParent(func(i uint64, p int32) {
			if p >= 0 {
				kids[start[p]] = uint32(i)
				start[p]++
			}
		})
		copy(start[1:], start[:n])
		start[0] = 0
		// Sort each parent's children when the walk reaches it, reading
		// the leaves' values in index order, so no per-node key is kept.
		nodes := newNodeCache(f, ea.e)
		type keyed struct {
			key float64
			i   uint32
		}
		var scratch []keyed
		byInc := func(s []uint32) (total float64, err error) {
			if ea.m == 0 {
				return 0, nil
			}
			scratch = scratch[:0]
			for _, i := range s {
				var bits uint64
				if ea.hasChildren(uint64(i)) {
					bits = ea.incOf(uint64(i))[0]
				} else {
					raw, err := nodes.node(uint64(i))
					if err != nil {
						return 0, err
					}
					bits = ea.e.RawValue(raw, 0)
				}
				scratch = append(scratch, keyed{ea.asFloat(bits, 0), i})
			}
			slices.SortStableFunc(scratch, func(a, b keyed) int {
				switch {
				case a.key > b.key:
					return -1
				case a.key < b.key:
					return 1
				}
				return 0
			})
			for j := range s {
				s[j] = scratch[j].i
				total += scratch[j].key
			}
			return total, nil
		}
		total, err := byInc(roots)
		order := make([]uint32, 0, n)
		stack := slices.Clone(roots)
		slices.Reverse(stack)
		for len(stack) > 0 && err == nil {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			order = append(order, i)
			ks := kids[start[i]:start[i+1]]
			_, err = byInc(ks)
			for k := len(ks) - 1; k >= 0; k-- {
				stack = append(stack, ks[k])
			}
		}
		if err != nil {
			ea.orderErr = err
			return
		}
		ea.order, ea.total = order, total
	})
	return ea.order, ea.orderErr
}

// asFloat is a value of metric k as a float, for sorting and percentages.
func (ea *epochAnalysis) asFloat(bits uint64, k int) float64 {
	if ea.realMetric[k] {
		return math.Float64frombits(bits)
	}
	return float64(bits)
}

// depths holds one depth per node in the narrowest width that fits,
// widening when a deeper node comes.
type depths struct {
	d8  []uint8
	d16 []uint16
	d32 []uint32
}

func newDepths(n uint64) depths { return depths{d8: make([]uint8, n)} }

func (d *depths) get(i uint64) uint32 {
	switch {
	case d.d8 != nil:
		return uint32(d.d8[i])
	case d.d16 != nil:
		return uint32(d.d16[i])
	}
	return d.d32[i]
}

// widen is s in a wider integer type, when a depth outgrows s's.
func widen[D, S uint8 | uint16 | uint32](s []S) []D {
	d := make([]D, len(s))
	for k, x := range s {
		d[k] = D(x)
	}
	return d
}

func (d *depths) set(i uint64, v uint32) {
	if d.d8 != nil {
		if v <= math.MaxUint8 {
			d.d8[i] = uint8(v)
			return
		}
		d.d16, d.d8 = widen[uint16](d.d8), nil
	}
	if d.d16 != nil {
		if v <= math.MaxUint16 {
			d.d16[i] = uint16(v)
			return
		}
		d.d32, d.d16 = widen[uint32](d.d16), nil
	}
	d.d32[i] = v
}

func (d *depths) bytes() int64 { return int64(len(d.d8) + 2*len(d.d16) + 4*len(d.d32)) }
