package interchange

import (
	"bytes"
	"cmp"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// BottomUpLevels bounds how many callers up bottom-up.csv follows a
// procedure's calls.
const BottomUpLevels = 8

// noCaller is the caller of a path that reaches the top of the tree.
const noCaller = "[root]"

// A bottomUp is the profile turned upside down, as hpcviewer's Bottom-up
// view: under each procedure (frame label) its callers, under each
// caller that caller's callers, up to BottomUpLevels, each with the
// procedure's cost attributed through that call path. Exclusive values
// come from every context of the procedure; inclusive values from its
// outermost contexts only (a recursive procedure counts once per path).
// At every level the rows under a row add up to it.
type bottomUp struct {
	t      *Tree
	label  []int32 // per node of the inverted tree: a label string id of t, -1 for noCaller
	parent []int32 // per node; -1 for the procedures (level 0)
	level  []int32
	vals   int64s  // per node: inclusive then exclusive value of each metric
	order  []int32 // preorder: procedures, then each node's callers, by first metric's inclusive value
	levels int32   // the deepest level built
}

// maxBottomUpRows bounds bottom-up.csv: callers are followed up to
// BottomUpLevels, but a level that would take the table past this many
// rows is left out (README.txt says so), so that the table of a profile
// with millions of contexts stays within the memory budget.
const maxBottomUpRows = 1 << 19

// outermost is, per node, whether no ancestor of it has its label
// (a preorder walk with the count of each label, a string id, on the
// path).
func (t *Tree) outermost() *column[uint8] {
	outermost := new(column[uint8])
	outermost.grow(t.Len())
	onPath := make([]int32, t.strs.Len())
	var path []int32
	for i := 1; i < t.Len(); i++ {
		n := int32(i)
		for len(path) > 0 && len(path) >= int(t.depthOf(n)) {
			onPath[t.labelOf(path[len(path)-1])]--
			path = path[:len(path)-1]
		}
		l := t.labelOf(n)
		if onPath[l] == 0 {
			outermost.set(int(n), 1)
		}
		onPath[l]++
		path = append(path, n)
	}
	return outermost
}

// procedureTotals is the procedures of t (its labels) with the values
// bottom-up.csv's rows of depth 0 give them: per procedure, the inclusive
// then the exclusive value of each metric (vals[p*2*nm+2*m], +1), the
// inclusive one from the procedure's outermost contexts only.
func procedureTotals(t *Tree) (labels []int32, vals []int64) {
	nm := len(t.Metrics)
	inc := make([]*int64s, nm)
	for m := range inc {
		inc[m] = t.inclusive(m)
	}
	outermost := t.outermost()
	defer func() {
		for _, c := range inc {
			c.reset(nil)
		}
		outermost.reset(nil)
	}()
	index := make([]int32, t.strs.Len()) // label -> procedure+1
	for n := int32(1); n < int32(t.Len()); n++ {
		l := t.labelOf(n)
		p := index[l] - 1
		if p < 0 {
			p = int32(len(labels))
			index[l] = p + 1
			labels = append(labels, l)
			vals = append(vals, make([]int64, 2*nm)...)
		}
		for m := range nm {
			if outermost.get(int(n)) == 1 {
				vals[int(p)*2*nm+2*m] += inc[m].get(int(n))
			}
			vals[int(p)*2*nm+2*m+1] += t.self(n, m)
		}
	}
	return labels, vals
}

func newBottomUp(t *Tree) *bottomUp {
	nm := len(t.Metrics)
	// inclusive values, node*nm+metric (read in node order below)
	var inc int64s
	inc.grow(t.Len() * nm)
	for m := range nm {
		incm := t.inclusive(m)
		for n := range t.Len() {
			inc.add(n*nm+m, incm.get(n))
		}
		incm.reset(nil)
	}
	outermost := t.outermost()
	b := &bottomUp{t: t}
	// index: (parent, label) -> node, an idTable over b's own arrays; it
	// is not used after the level that passes maxBottomUpRows, so the
	// nodes that level made are cut from the arrays only
	var index idTable
	hash := func(parent, label int32) uint64 { return mix(uint64(uint32(parent))<<32 | uint64(uint32(label))) }
	hashOf := func(x int32) uint64 { return hash(b.parent[x], b.label[x]) }
	node := func(parent, label int32, lv int32) int32 {
		h := hash(parent, label)
		x, slot := index.find(h, func(x int32) bool { return b.parent[x] == parent && b.label[x] == label })
		if x >= 0 {
			return x
		}
		x = int32(len(b.label))
		b.label = append(b.label, label)
		b.parent = append(b.parent, parent)
		b.level = append(b.level, lv)
		b.vals.grow(2 * nm)
		index.insert(slot, x, h, hashOf)
		return x
	}
	// Level by level: cur[n] is context n's row at the level before, anc[n]
	// the caller that level adds (-1: the top of the tree was reached, -2:
	// nothing more). A level that would pass maxBottomUpRows is left out.
	// In columns that spill as the tree's do (next[n-1] is n's).
	var cur, anc, next column[int32]
	for n := range int32(t.Len()) {
		anc.append(n)
		cur.append(-1)
	}
	anc.set(int(Root), -2)
	for lv := int32(0); lv <= BottomUpLevels; lv++ {
		before := len(b.label)
		next.truncate(0)
		for n := int32(1); n < int32(t.Len()); n++ {
			a := anc.get(int(n))
			if a == -2 {
				next.append(-1)
				continue
			}
			label := int32(-1)
			if a >= 0 {
				label = t.labelOf(a)
			}
			x := node(cur.get(int(n)), label, lv)
			if len(b.label) > maxBottomUpRows && lv > 0 {
				break
			}
			next.append(x)
			out := outermost.get(int(n)) == 1
			for m := range nm {
				if out {
					b.vals.add(int(x)*2*nm+2*m, inc.get(int(n)*nm+m))
				}
				b.vals.add(int(x)*2*nm+2*m+1, t.self(n, m))
			}
		}
		if len(b.label) > maxBottomUpRows && lv > 0 {
			b.label, b.parent, b.level = b.label[:before], b.parent[:before], b.level[:before]
			b.vals.truncate(before * 2 * nm)
			break
		}
		b.levels = lv
		if len(b.label) == before {
			break
		}
		for n := 1; n < t.Len(); n++ {
			cur.set(n, next.get(n-1))
			switch a := anc.get(n); {
			case a < 0:
				anc.set(n, -2)
			case t.parentOf(a) == Root:
				anc.set(n, -1)
			default:
				anc.set(n, t.parentOf(a))
			}
		}
	}
	if err := errors.Join(inc.Err(), outermost.Err(), cur.Err(), anc.Err(), next.Err()); err != nil {
		b.vals.fail(err)
	}
	index = idTable{}
	inc.reset(nil)
	outermost.reset(nil)
	cur.reset(nil)
	anc.reset(nil)
	next.reset(nil)
	b.label, b.parent, b.level = slices.Clip(b.label), slices.Clip(b.parent), slices.Clip(b.level)
	// preorder with siblings by the first metric's inclusive value; the
	// children of x are kids[start[x]:start[x+1]] in the order they were
	// made (x = len(b.label) for the procedures)
	nb := len(b.label)
	start := make([]int32, nb+2)
	up := func(x int) int {
		if p := b.parent[x]; p >= 0 {
			return int(p)
		}
		return nb
	}
	for x := range nb {
		start[up(x)+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	kids := make([]int32, nb)
	fill := slices.Clone(start[:nb+1])
	for x := range nb {
		p := up(x)
		kids[fill[p]] = int32(x)
		fill[p]++
	}
	fill = nil
	// the first metric's inclusive value of each row, the sort key
	key := make([]int64, nb)
	for x := range key {
		if nm > 0 {
			key[x] = b.vals.get(x * 2 * nm)
		}
	}
	// by decreasing key, then by name: the names of each run of equal
	// keys are read once (they may be in a file), not per comparison
	var byName byBytes
	sortKids := func(x int) []int32 {
		k := kids[start[x]:start[x+1]]
		slices.SortFunc(k, func(x, y int32) int { return cmp.Compare(key[y], key[x]) })
		byName.sortRuns(k, func(x, y int32) bool { return key[x] == key[y] }, b.appendName)
		return k
	}
	stack := slices.Clone(sortKids(nb))
	slices.Reverse(stack)
	b.order = make([]int32, 0, nb)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		b.order = append(b.order, x)
		k := sortKids(int(x))
		for i := len(k) - 1; i >= 0; i-- {
			stack = append(stack, k[i])
		}
	}
	return b
}

func (b *bottomUp) name(x int32) string { return string(b.appendName(nil, x)) }

// appendName appends name(x) to dst.
func (b *bottomUp) appendName(dst []byte, x int32) []byte {
	if b.label[x] < 0 {
		return append(dst, noCaller...)
	}
	return b.t.strs.appendBytes(dst, b.label[x])
}

// metricColumns are the "<metric>_inc" and "<metric>_exc" columns of
// every metric.
func (b *bottomUp) metricColumns() []render.Column {
	var cols []render.Column
	for _, m := range b.t.Metrics {
		cols = append(cols, render.Column{Name: m.Name + "_inc", Kind: render.Int}, render.Column{Name: m.Name + "_exc", Kind: render.Int})
	}
	return cols
}

// addVals appends node x's values to row.
func (b *bottomUp) addVals(row *render.Row, x int32) {
	nm := len(b.t.Metrics)
	for i := range 2 * nm {
		row.Int(b.vals.get(int(x)*2*nm + i))
	}
}

// columns are bottom-up.csv's: function (the procedure), depth (the
// level: 0 for the procedure's totals, k for its k-th callers), caller,
// path (the procedure, then its callers up to this one, joined by ';'),
// and the values.
func (b *bottomUp) columns() []render.Column {
	return append([]render.Column{{Name: "function"}, {Name: "depth", Kind: render.Int}, {Name: "caller"}, {Name: "path"}},
		b.metricColumns()...)
}

// fill gives row i of bottom-up.csv, the row of node b.order[i].
func (b *bottomUp) fill(i int64, row *render.Row) error {
	x := b.order[i]
	var chain []int32
	for y := x; y >= 0; y = b.parent[y] {
		chain = append(chain, y)
	}
	slices.Reverse(chain)
	row.Str(b.name(chain[0])).Int(int64(b.level[x]))
	if b.level[x] > 0 {
		row.Str(b.name(x))
	} else {
		row.Empty()
	}
	path := ""
	for i, y := range chain {
		if i > 0 {
			path += ";"
		}
		path += b.name(y)
	}
	row.Str(path)
	b.addVals(row, x)
	return nil
}

// bottomUpViews are bottom-up.csv and callers/ of a profile.
type bottomUpViews struct {
	p    *Profile
	once sync.Once
	b    *bottomUp
	err  error
}

func (v *bottomUpViews) get() (*bottomUp, error) {
	v.once.Do(func() {
		t, err := v.p.tree()
		if err != nil {
			v.err = err
			return
		}
		v.b = newBottomUp(t)
		v.err = errors.Join(t.Err(), v.b.vals.Err())
	})
	return v.b, v.err
}

func (v *bottomUpViews) csv() render.View {
	t := &render.Table{Layout: func() []render.Column {
		if b, err := v.get(); err == nil {
			return b.columns()
		}
		return nil // Open failed first
	}, Open: func(pos []byte) (render.Scanner, error) {
		b, err := v.get()
		if err != nil {
			return nil, err
		}
		return render.Counted(int64(len(b.order)), b.fill)(pos)
	}}
	return t.CSV()
}

// callers is callers/<procedure>.csv, made on demand: caller and
// values, one row per direct caller of the procedure (noCaller for its
// calls from the top). The names are render.FileNames of the procedures
// in bottom-up order, kept sorted in one blob (a map and a string per
// procedure cost ~700 bytes each with the entries they named).
func (v *bottomUpViews) callers() (int, func(int) string, func(int) vfs.Node) {
	b, err := v.get()
	if err != nil {
		return 0, nil, nil
	}
	var at []int32 // per procedure: its position in b.order
	var names blobStrings
	for i, x := range b.order {
		if b.level[x] == 0 {
			at = append(at, int32(i))
			// PHP namespaces use '\', which io/fs forbids in names
			names.add(render.SafeName(render.SafeName(strings.ReplaceAll(b.name(x), "\\", "_")) + ".csv"))
		}
	}
	perm := names.sorted()
	for i := 1; i < len(perm); i++ {
		if bytes.Equal(names.at(perm[i-1]), names.at(perm[i])) { // rare: FileNames numbers them
			all := make([]string, len(at))
			for k := range all {
				all[k] = string(names.at(int32(k)))
			}
			names = blobStrings{}
			for _, n := range render.FileNames(all) {
				names.add(n)
			}
			perm = names.sorted()
			break
		}
	}
	cols := append([]render.Column{{Name: "caller"}}, b.metricColumns()...)
	node := func(i int) vfs.Node {
		var calls []int32
		for _, x := range b.order[at[perm[i]]+1:] {
			if b.level[x] == 0 {
				break
			}
			if b.level[x] == 1 {
				calls = append(calls, x)
			}
		}
		t := &render.Table{Columns: cols, Open: render.Counted(int64(len(calls)), func(j int64, row *render.Row) error {
			row.Str(b.name(calls[j]))
			b.addVals(row, calls[j])
			return nil
		})}
		return vfs.NewFile(t.SmallCSV(nil))
	}
	return len(perm), func(i int) string { return string(names.at(perm[i])) }, node
}

// blobStrings are strings kept in one byte blob: string i is
// blob[end[i-1]:end[i]].
type blobStrings struct {
	blob []byte
	end  []int
}

func (s *blobStrings) add(v string) {
	s.blob = append(s.blob, v...)
	s.end = append(s.end, len(s.blob))
}

func (s *blobStrings) at(i int32) []byte {
	lo := 0
	if i > 0 {
		lo = s.end[i-1]
	}
	return s.blob[lo:s.end[i]]
}

// sorted is the indexes of the strings in increasing order.
func (s *blobStrings) sorted() []int32 {
	perm := make([]int32, len(s.end))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return bytes.Compare(s.at(a), s.at(b)) })
	return perm
}
