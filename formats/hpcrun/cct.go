package hpcrun

import (
	"container/list"
	"io"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/render"
)

// analysis is the per-node state the CCT views need beyond the file:
// depth, parent index and inclusive values of every node of every epoch.
// It costs 8 + 8*metrics bytes per node (+4 with the cct.txt order).
type analysis struct {
	epochs []*epochAnalysis
	bytes  int64
}

type epochAnalysis struct {
	n      uint64
	m      int
	depth  []int32
	parent []int32 // index of the parent, -1 for a root
	inc    []uint64
	err    error // a node whose parent is missing; ends the views there

	realMetric []bool

	orderOnce sync.Once
	order     []uint32 // cct.txt: depth-first, children by descending inclusive
	total     float64  // sum of the roots' first inclusive metric
}

// analysisBudget bounds the per-node state kept for all profiles; the
// state of the profile used last is always kept.
const analysisBudget = 256 << 20

var analyses = struct {
	sync.Mutex
	used  int64
	order *list.List // of *profile, most recent first
	elems map[*profile]*list.Element
}{order: list.New(), elems: map[*profile]*list.Element{}}

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
	a, err := analyze(f)
	if err != nil {
		return nil, err
	}
	p.ana.Store(a)
	analyses.Lock()
	analyses.elems[p] = analyses.order.PushFront(p)
	analyses.used += a.bytes
	for analyses.used > analysisBudget && analyses.order.Len() > 1 {
		e := analyses.order.Back()
		old := e.Value.(*profile)
		analyses.order.Remove(e)
		delete(analyses.elems, old)
		if a := old.ana.Swap(nil); a != nil {
			analyses.used -= a.bytes
		}
	}
	analyses.Unlock()
	return a, nil
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
		a.bytes += int64(ea.n) * int64(8+8*ea.m)
	}
	return a, nil
}

// analyzeEpoch finds each node's parent among the nodes before it (a
// stack of the current path serves preorder files; other orders fall
// back to an id index) and sums values bottom-up.
func analyzeEpoch(f *hpcrun.File, e *hpcrun.Epoch) (*epochAnalysis, error) {
	n := e.Complete
	m := len(e.Metrics)
	ea := &epochAnalysis{n: n, m: m, depth: make([]int32, n), parent: make([]int32, n), inc: make([]uint64, n*uint64(m))}
	var stack []stackEntry
	var byID map[uint32]int32
	nr := f.NodeReader(e, 0)
	var node hpcrun.Node
	for i := uint64(0); i < n; i++ {
		if err := nr.Next(&node); err != nil {
			if err == io.EOF || render.IsDataError(err) {
				ea.n = i
				break
			}
			return nil, err
		}
		copy(ea.inc[i*uint64(m):], node.Values)
		id := node.AbsID()
		par := int32(-1)
		if node.Parent != 0 {
			if byID == nil {
				for len(stack) > 0 && stack[len(stack)-1].id != node.Parent {
					stack = stack[:len(stack)-1]
				}
				if len(stack) > 0 {
					par = stack[len(stack)-1].idx
				} else {
					byID = indexIDs(f, e, i)
				}
			}
			if byID != nil {
				if k, ok := byID[node.Parent]; ok {
					par = k
				} else {
					ea.n = i
					ea.err = &decode.FormatError{Format: hpcrun.Format, Section: "epoch " + strconv.Itoa(e.Index) + " cct",
						Off: e.NodesOff + int64(i)*e.NodeSize, Msg: "parent id not found among the nodes before", Val: node.Parent}
					break
				}
			}
		} else {
			stack = stack[:0]
		}
		ea.parent[i] = par
		if par >= 0 {
			ea.depth[i] = ea.depth[par] + 1
		}
		if byID != nil {
			if _, dup := byID[id]; !dup {
				byID[id] = int32(i)
			}
		} else {
			stack = append(stack, stackEntry{id, int32(i)})
		}
	}
	real := make([]bool, m)
	for k := range real {
		real[k] = e.Metrics[k].ValFmt == hpcrun.FmtReal
	}
	ea.realMetric = real
	for i := int64(ea.n) - 1; i > 0; i-- {
		par := ea.parent[i]
		if par < 0 {
			continue
		}
		src := ea.inc[uint64(i)*uint64(m):][:m]
		dst := ea.inc[uint64(par)*uint64(m):][:m]
		for k := range src {
			if real[k] {
				dst[k] = math.Float64bits(math.Float64frombits(dst[k]) + math.Float64frombits(src[k]))
			} else {
				dst[k] += src[k]
			}
		}
	}
	return ea, nil
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

// snakeCase makes a column name from a metric name.
func snakeCase(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
		} else {
			under = true
		}
	}
	out := b.String()
	if out == "" {
		return "metric"
	}
	if out[0] >= '0' && out[0] <= '9' {
		out = "m_" + out
	}
	return out
}

// cctColumns is the column layout of cct.csv shared by all epochs: the
// union of the metric columns, in order of first appearance.
type cctColumns struct {
	lush    bool
	names   []string
	byEpoch [][]int // epoch -> metric index -> column
	lmField [][][]byte
	header  []byte
}

func (p *profile) columns(f *hpcrun.File) *cctColumns {
	c := &cctColumns{}
	col := map[string]int{}
	for _, e := range f.Epochs {
		c.lush = c.lush || e.LogicalUnwind()
		seen := map[string]int{}
		var idx []int
		for _, m := range e.Metrics {
			name := snakeCase(m.Name)
			seen[name]++
			if k := seen[name]; k > 1 {
				name += "_" + strconv.Itoa(k)
			}
			j, ok := col[name]
			if !ok {
				j = len(c.names)
				col[name] = j
				c.names = append(c.names, name)
			}
			idx = append(idx, j)
		}
		c.byEpoch = append(c.byEpoch, idx)
		fields := make([][]byte, 0, len(e.LoadModules)+1)
		for _, lm := range e.LoadModules {
			id := int(lm.ID)
			for len(fields) <= id {
				fields = append(fields, nil)
			}
			fields[id] = render.AppendCSVField(nil, lm.Name)
		}
		c.lmField = append(c.lmField, fields)
	}
	h := []byte("epoch,node_id,parent_id,depth,is_leaf,lm_id,load_module,ip")
	if c.lush {
		h = append(h, ",lush_assoc,lush_lip"...)
	}
	for _, n := range c.names {
		h = append(h, ',')
		h = append(h, n...)
		h = append(h, "_exc,"...)
		h = append(h, n...)
		h = append(h, "_inc"...)
	}
	c.header = append(h, '\n')
	return c
}

// cctPos is a position in cct.csv or cct.txt: before the header, or at
// node (order index for cct.txt) of an epoch.
type cctPos struct {
	started bool
	epoch   int
	node    uint64
}

type cctCSV struct {
	f    *hpcrun.File
	a    *analysis
	cols *cctColumns
	pos  cctPos
	nr   *hpcrun.NodeReader
	n    hpcrun.Node
	vals []int // column -> metric index in this epoch, -1 for none
}

func (p *profile) startCCTCSV(state any) (render.Cursor, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	a, err := p.analysis()
	if err != nil {
		return nil, err
	}
	c := &cctCSV{f: f, a: a, cols: p.columns(f)}
	if s, ok := state.(cctPos); ok {
		c.pos = s
	}
	return c, nil
}

func (c *cctCSV) State() any { return c.pos }

const rowsPerNext = 64

// seek moves past finished epochs and prepares the node reader; done
// reports the end of the view (with the error that ended it, if any).
func (c *cctCSV) seek() (done bool, err error) {
	for {
		if c.pos.epoch >= len(c.f.Epochs) {
			return true, io.EOF
		}
		ea := c.a.epochs[c.pos.epoch]
		if c.pos.node < ea.n {
			break
		}
		if ea.err != nil {
			return true, ea.err
		}
		if e := c.f.Epochs[c.pos.epoch]; e.Complete < e.Announced {
			return true, c.f.Err
		}
		c.pos.epoch++
		c.pos.node = 0
		c.nr = nil
	}
	if c.nr == nil || c.nr.Index() != c.pos.node {
		c.nr = c.f.NodeReader(c.f.Epochs[c.pos.epoch], c.pos.node)
		c.vals = make([]int, len(c.cols.names))
		for k := range c.vals {
			c.vals[k] = -1
		}
		for mi, col := range c.cols.byEpoch[c.pos.epoch] {
			c.vals[col] = mi
		}
	}
	return false, nil
}

func (c *cctCSV) Next(dst []byte) ([]byte, error) {
	if !c.pos.started {
		c.pos.started = true
		return append(dst, c.cols.header...), nil
	}
	if done, err := c.seek(); done {
		return dst, err
	}
	e := c.f.Epochs[c.pos.epoch]
	ea := c.a.epochs[c.pos.epoch]
	lmFields := c.cols.lmField[c.pos.epoch]
	m := uint64(ea.m)
	for k := 0; k < rowsPerNext && c.pos.node < ea.n; k++ {
		i := c.pos.node
		if err := c.nr.Next(&c.n); err != nil {
			return dst, err
		}
		n := &c.n
		dst = strconv.AppendInt(dst, int64(c.pos.epoch), 10)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, uint64(n.AbsID()), 10)
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, uint64(n.Parent), 10)
		dst = append(dst, ',')
		dst = strconv.AppendInt(dst, int64(ea.depth[i]), 10)
		if n.IsLeaf() {
			dst = append(dst, ",1,"...)
		} else {
			dst = append(dst, ",0,"...)
		}
		dst = strconv.AppendUint(dst, uint64(n.LMID), 10)
		dst = append(dst, ',')
		if int(n.LMID) < len(lmFields) {
			dst = append(dst, lmFields[n.LMID]...)
		}
		dst = append(dst, ",0x"...)
		dst = strconv.AppendUint(dst, n.IP, 16)
		if c.cols.lush {
			dst = c.appendLush(dst, e, n)
		}
		inc := ea.inc[i*m : i*m+m]
		for _, mi := range c.vals {
			dst = append(dst, ',')
			if mi < 0 {
				dst = append(dst, ',')
				continue
			}
			real := e.Metrics[mi].ValFmt == hpcrun.FmtReal
			dst = appendValue(dst, n.Values[mi], real)
			dst = append(dst, ',')
			dst = appendValue(dst, inc[mi], real)
		}
		dst = append(dst, '\n')
		c.pos.node++
	}
	return dst, nil
}

func (c *cctCSV) appendLush(dst []byte, e *hpcrun.Epoch, n *hpcrun.Node) []byte {
	dst = append(dst, ',')
	if e.LogicalUnwind() {
		dst = appendAssoc(dst, n.Assoc)
		dst = append(dst, ',')
		return appendLIP(dst, n.LIP)
	}
	return append(dst, ',')
}

// NextLen measures what Next would append, from digit counts.
func (c *cctCSV) NextLen() (int64, error) {
	if !c.pos.started {
		c.pos.started = true
		return int64(len(c.cols.header)), nil
	}
	if done, err := c.seek(); done {
		return 0, err
	}
	e := c.f.Epochs[c.pos.epoch]
	ea := c.a.epochs[c.pos.epoch]
	lmFields := c.cols.lmField[c.pos.epoch]
	m := uint64(ea.m)
	epochLen := decLen(uint64(c.pos.epoch))
	var total int64
	for k := 0; k < rowsPerNext && c.pos.node < ea.n; k++ {
		i := c.pos.node
		if err := c.nr.Next(&c.n); err != nil {
			return total, err
		}
		n := &c.n
		l := epochLen + 1 + decLen(uint64(n.AbsID())) + 1 + decLen(uint64(n.Parent)) + 1 + decLen(uint64(ea.depth[i])) + 3 +
			decLen(uint64(n.LMID)) + 1 + 3 + hexLen(n.IP) + 1
		if int(n.LMID) < len(lmFields) {
			l += len(lmFields[n.LMID])
		}
		if c.cols.lush {
			var buf [96]byte
			l += len(c.appendLush(buf[:0], e, n))
		}
		inc := ea.inc[i*m : i*m+m]
		for _, mi := range c.vals {
			if mi < 0 {
				l += 2
				continue
			}
			real := e.Metrics[mi].ValFmt == hpcrun.FmtReal
			l += 2 + valueLen(n.Values[mi], real) + valueLen(inc[mi], real)
		}
		total += int64(l)
		c.pos.node++
	}
	return total, nil
}

func appendValue(dst []byte, bits uint64, real bool) []byte {
	if real {
		return appendReal(dst, math.Float64frombits(bits))
	}
	return strconv.AppendUint(dst, bits, 10)
}

// order returns the cct.txt order of an epoch, computing it once.
func (ea *epochAnalysis) cctOrder() []uint32 {
	ea.orderOnce.Do(func() {
		n := ea.n
		// Children lists in CSR form: start[i]..start[i+1] in kids.
		start := make([]uint32, n+1)
		var roots []uint32
		for i := uint64(0); i < n; i++ {
			if p := ea.parent[i]; p >= 0 {
				start[p+1]++
			} else {
				roots = append(roots, uint32(i))
			}
		}
		for i := uint64(0); i < n; i++ {
			start[i+1] += start[i]
		}
		kids := make([]uint32, start[n])
		fill := slices.Clone(start[:n])
		for i := uint64(0); i < n; i++ {
			if p := ea.parent[i]; p >= 0 {
				kids[fill[p]] = uint32(i)
				fill[p]++
			}
		}
		fill = nil
		key := func(i uint32) float64 {
			if ea.m == 0 {
				return 0
			}
			return ea.value(uint64(i), 0)
		}
		byInc := func(s []uint32) {
			sort.SliceStable(s, func(a, b int) bool { return key(s[a]) > key(s[b]) })
		}
		byInc(roots)
		order := make([]uint32, 0, n)
		stack := slices.Clone(roots)
		slices.Reverse(stack)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			order = append(order, i)
			ks := kids[start[i]:start[i+1]]
			byInc(ks)
			for k := len(ks) - 1; k >= 0; k-- {
				stack = append(stack, ks[k])
			}
		}
		ea.order = order
		for _, r := range roots {
			if ea.m > 0 {
				ea.total += ea.value(uint64(r), 0)
			}
		}
	})
	return ea.order
}

// value is metric k's inclusive value of node i as a float, for sorting
// and percentages.
func (ea *epochAnalysis) value(i uint64, k int) float64 {
	return ea.realValue(ea.inc[i*uint64(ea.m)+uint64(k)], k)
}

func (ea *epochAnalysis) realValue(bits uint64, k int) float64 {
	if ea.realMetric != nil && ea.realMetric[k] {
		return math.Float64frombits(bits)
	}
	return float64(bits)
}

type cctTxt struct {
	p   *profile
	f   *hpcrun.File
	a   *analysis
	pos cctPos
	n   hpcrun.Node
	raw []byte
}

func (p *profile) startCCTTxt(state any) (render.Cursor, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	a, err := p.analysis()
	if err != nil {
		return nil, err
	}
	c := &cctTxt{p: p, f: f, a: a}
	if s, ok := state.(cctPos); ok {
		c.pos = s
	}
	return c, nil
}

func (c *cctTxt) State() any { return c.pos }

func (c *cctTxt) Next(dst []byte) ([]byte, error) {
	if c.pos.epoch >= len(c.f.Epochs) {
		return dst, io.EOF
	}
	e := c.f.Epochs[c.pos.epoch]
	ea := c.a.epochs[c.pos.epoch]
	if !c.pos.started {
		c.pos.started = true
		if c.pos.epoch > 0 {
			dst = append(dst, '\n')
		}
		dst = append(dst, "# epoch "...)
		dst = strconv.AppendInt(dst, int64(c.pos.epoch), 10)
		if ea.m > 0 {
			dst = append(dst, ", metric "...)
			dst = append(dst, e.Metrics[0].Name...)
		} else {
			dst = append(dst, ", no metrics"...)
		}
		dst = append(dst, ": inclusive %, inclusive, exclusive, load_module+0xip\n"...)
		return dst, nil
	}
	order := ea.cctOrder()
	total := ea.total
	for k := 0; k < rowsPerNext && c.pos.node < uint64(len(order)); k++ {
		i := uint64(order[c.pos.node])
		raw, err := decode.ReadAt(c.f.ReaderAt(), c.f.Size, e.NodesOff+int64(i)*e.NodeSize, e.NodeSize)
		if err != nil {
			return dst, err
		}
		e.DecodeNode(raw, &c.n)
		for d := int32(0); d < ea.depth[i]; d++ {
			dst = append(dst, ' ', ' ')
		}
		if ea.m > 0 {
			v := ea.value(i, 0)
			pct := 0.0
			if total != 0 {
				pct = v / total * 100
			}
			dst = strconv.AppendFloat(dst, pct, 'f', 2, 64)
			dst = append(dst, "% "...)
			real := e.Metrics[0].ValFmt == hpcrun.FmtReal
			dst = appendValue(dst, ea.inc[i*uint64(ea.m)], real)
			dst = append(dst, ' ')
			dst = appendValue(dst, c.n.Values[0], real)
			dst = append(dst, ' ')
		}
		dst = appendLocation(dst, e, c.n.LMID, c.n.IP)
		dst = append(dst, '\n')
		c.pos.node++
	}
	if c.pos.node >= uint64(len(order)) {
		if ea.err != nil {
			return dst, ea.err
		}
		if e.Complete < e.Announced {
			return dst, c.f.Err
		}
		c.pos = cctPos{epoch: c.pos.epoch + 1}
	}
	return dst, nil
}

// appendLocation writes load_module+0xip with the load module's file name.
func appendLocation(dst []byte, e *hpcrun.Epoch, lmID uint16, ip uint64) []byte {
	switch lm := e.LoadModule(lmID); {
	case lmID == 0:
		dst = append(dst, "<root>"...)
	case lm == nil:
		dst = append(dst, "lm"...)
		dst = strconv.AppendUint(dst, uint64(lmID), 10)
	default:
		dst = append(dst, path.Base(lm.Name)...)
	}
	dst = append(dst, "+0x"...)
	return strconv.AppendUint(dst, ip, 16)
}
