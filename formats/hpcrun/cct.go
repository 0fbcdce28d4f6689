package hpcrun

import (
	"io"
	"math"
	"path"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/render"
)

// cctLayout is the column layout of cct.csv shared by all epochs: the
// union of the metric columns, in order of first appearance.
type cctLayout struct {
	lush    bool
	names   []string
	byEpoch [][]int         // epoch -> metric index -> column
	lmNames [][]render.Text // epoch -> load module id -> name
}

func (p *profile) cctLayout(f *hpcrun.File) *cctLayout {
	c := &cctLayout{}
	col := map[string]int{}
	for _, e := range f.Epochs {
		c.lush = c.lush || e.LogicalUnwind()
		uniq := render.NewUniquer()
		var idx []int
		for _, m := range e.Metrics {
			name := uniq.Unique(render.Name(m.Name, "metric"))
			j, ok := col[name]
			if !ok {
				j = len(c.names)
				col[name] = j
				c.names = append(c.names, name)
			}
			idx = append(idx, j)
		}
		c.byEpoch = append(c.byEpoch, idx)
		var names []render.Text
		for _, lm := range e.LoadModules {
			id := int(lm.ID)
			for len(names) <= id {
				names = append(names, render.Text{})
			}
			names[id] = render.NewText(lm.Name)
		}
		c.lmNames = append(c.lmNames, names)
	}
	return c
}

// columns are cct.csv's columns.
func (c *cctLayout) columns() []render.Column {
	cols := []render.Column{
		{Name: "epoch", Kind: render.Uint},
		{Name: "ctx_id", Kind: render.Uint},
		{Name: "parent_id", Kind: render.Uint},
		{Name: "depth", Kind: render.Uint},
		{Name: "is_leaf", Kind: render.Uint},
	}
	cols = append(cols, frameColumns...)
	if c.lush {
		cols = append(cols, render.Column{Name: "lush_assoc"}, render.Column{Name: "lush_lip"})
	}
	for _, n := range c.names {
		cols = append(cols, render.Column{Name: n + "_inc", Kind: render.Number}, render.Column{Name: n + "_exc", Kind: render.Number})
	}
	return cols
}

// cctTable is cct.csv: one row per CCT node of every epoch, in file
// order, with inclusive sums; positions are (epoch, node).
func (p *profile) cctTable() *render.Table {
	return &render.Table{
		Layout: func() []render.Column {
			f, err := p.open()
			if err != nil {
				return (&cctLayout{}).columns()
			}
			return p.cctLayout(f).columns()
		},
		Inputs: p.symbolFiles, // names come from the binaries
		Open: func(pos []byte) (render.Scanner, error) {
			f, a, err := p.openAnalysed()
			if err != nil {
				return nil, err
			}
			s := &cctScan{p: p, f: f, a: a, cols: p.cctLayout(f)}
			if len(pos) > 0 {
				r := render.NewStateReader(pos)
				s.epoch, s.node = int(r.Uint(uint64(len(f.Epochs)))), r.Uint(math.MaxUint64)
				if err := r.Err(); err != nil {
					return nil, err
				}
			}
			return s, nil
		},
	}
}

type cctScan struct {
	p     *profile
	f     *hpcrun.File
	a     *analysis
	cols  *cctLayout
	epoch int
	node  uint64
	nr    *hpcrun.NodeReader
	n     hpcrun.Node
	vals  []int // column -> metric index in this epoch, -1 for none
	buf   []byte
	mods  moduleCache
}

func (s *cctScan) Pos() []byte {
	return (&render.StateWriter{}).Uint(uint64(s.epoch)).Uint(s.node).Bytes()
}

// seek moves past finished epochs and prepares the node reader; an error
// (io.EOF at the end) ends the view.
func (s *cctScan) seek() error {
	for {
		if s.epoch >= len(s.f.Epochs) {
			return io.EOF
		}
		ea := s.a.epochs[s.epoch]
		if s.node < ea.n {
			break
		}
		if ea.err != nil {
			return ea.err
		}
		if e := s.f.Epochs[s.epoch]; e.Complete < e.Announced {
			return s.f.Problems.Err()
		}
		s.epoch++
		s.node = 0
		s.nr = nil
	}
	if s.nr == nil || s.nr.Index() != s.node {
		s.nr = s.f.NodeReader(s.f.Epochs[s.epoch], s.node)
		s.vals = make([]int, len(s.cols.names))
		for k := range s.vals {
			s.vals[k] = -1
		}
		for mi, col := range s.cols.byEpoch[s.epoch] {
			s.vals[col] = mi
		}
	}
	return nil
}

func (s *cctScan) Scan(row *render.Row) error {
	if err := s.seek(); err != nil {
		return err
	}
	e := s.f.Epochs[s.epoch]
	ea := s.a.epochs[s.epoch]
	i := s.node
	if err := s.nr.Next(&s.n); err != nil {
		return err
	}
	n := &s.n
	inner := ea.hasChildren(i)
	leaf := uint64(0)
	if n.IsLeaf() || e.Sparse && !inner {
		leaf = 1
	}
	row.Uint(uint64(s.epoch)).Uint(uint64(n.AbsID())).Uint(uint64(n.Parent)).Uint(uint64(ea.depth.get(i))).Uint(leaf)
	s.p.frameCells(row, &s.mods, e, s.cols.lmNames[s.epoch], n.LMID, n.IP, inner)
	if s.cols.lush {
		if e.LogicalUnwind() {
			s.buf = appendAssoc(s.buf[:0], n.Assoc)
			row.Str(string(s.buf))
			s.buf = appendLIP(s.buf[:0], n.LIP)
			row.Str(string(s.buf))
		} else {
			row.Empty().Empty()
		}
	}
	var inc []uint64
	if inner {
		inc = ea.incOf(i)
	}
	for _, mi := range s.vals {
		if mi < 0 {
			row.Empty().Empty()
			continue
		}
		real := ea.realMetric[mi]
		if inner {
			valueCell(row, inc[mi], real)
		} else { // a leaf's inclusive value is its exclusive one
			valueCell(row, n.Values[mi], real)
		}
		valueCell(row, n.Values[mi], real)
	}
	s.node++
	return nil
}

// rowsPerNext is the nodes of cct.txt rendered at a time.
const rowsPerNext = 64

// cct.txt is not a table: each epoch is a header line and the tree in
// value order, each line indented by its depth; its cursor walks the
// epochs with a block cache of the nodes (nodeCache), and its positions
// are cctPos values (posGen).

// cctPos is a position in cct.txt: before an epoch's header line, or at
// node (order index) of an epoch.
type cctPos struct {
	started bool
	epoch   int
	node    uint64
}

type cctTxt struct {
	p     *profile
	f     *hpcrun.File
	a     *analysis
	pos   cctPos
	n     hpcrun.Node
	nodes *nodeCache
}

func (p *profile) startCCTTxt(state any) (render.Cursor, error) {
	f, a, err := p.openAnalysed()
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
			dst = render.AppendName(dst, e.Metrics[0].Name)
		} else {
			dst = append(dst, ", no metrics"...)
		}
		dst = append(dst, ": inclusive %, inclusive, exclusive, module+0xip\n"...)
		return dst, nil
	}
	order, err := ea.cctOrder(c.f)
	if err != nil {
		return dst, err
	}
	if c.nodes == nil || c.nodes.e != e {
		c.nodes = newNodeCache(c.f, e)
	}
	total := ea.total
	for k := 0; k < rowsPerNext && c.pos.node < uint64(len(order)); k++ {
		i := uint64(order[c.pos.node])
		raw, err := c.nodes.node(i)
		if err != nil {
			return dst, err
		}
		e.DecodeNode(raw, &c.n)
		for d := ea.depth.get(i); d > 0; d-- {
			dst = append(dst, ' ', ' ')
		}
		if ea.m > 0 {
			inc := ea.inclusive(i, c.n.Values)[0]
			pct := 0.0
			if total != 0 {
				pct = ea.asFloat(inc, 0) / total * 100
			}
			dst = strconv.AppendFloat(dst, pct, 'f', 2, 64)
			dst = append(dst, "% "...)
			real := ea.realMetric[0]
			dst = appendReadable(dst, inc, real)
			dst = append(dst, ' ')
			dst = appendReadable(dst, c.n.Values[0], real)
			dst = append(dst, ' ')
		}
		dst = appendLocation(dst, e, c.n.LMID, c.n.IP)
		dst = c.p.m.appendFrame(dst, e, c.n.LMID, c.n.IP, ea.hasChildren(i))
		dst = append(dst, '\n')
		c.pos.node++
	}
	if c.pos.node >= uint64(len(order)) {
		if ea.err != nil {
			return dst, ea.err
		}
		if e.Complete < e.Announced {
			return dst, c.f.Problems.Err()
		}
		c.pos = cctPos{epoch: c.pos.epoch + 1}
	}
	return dst, nil
}

// appendLocation writes module+0xip with the load module's file name.
func appendLocation(dst []byte, e *hpcrun.Epoch, lmID uint16, ip uint64) []byte {
	switch lm := e.LoadModule(lmID); {
	case lmID == 0 && e.Sparse:
		return append(dst, hpcrun.PlaceholderName(ip)...)
	case lmID == 0:
		dst = append(dst, "<root>"...)
	case lm == nil:
		dst = append(dst, "lm"...)
		dst = strconv.AppendUint(dst, uint64(lmID), 10)
	default:
		dst = render.AppendName(dst, path.Base(lm.Name))
	}
	dst = append(dst, "+0x"...)
	return strconv.AppendUint(dst, ip, 16)
}

// nodeCache reads nodes of one epoch by index through small cached
// blocks (direct-mapped): cct.txt visits the subtrees of a preorder file
// one after the other, but siblings in value order, so its reads jump
// around within the parent's subtree.
type nodeCache struct {
	f      *hpcrun.File
	e      *hpcrun.Epoch
	per    uint64 // nodes per block
	blocks [nodeCacheBlocks]cachedBlock
	misses int
}

type cachedBlock struct {
	first uint64 // index of the block's first node
	n     uint64 // nodes held; 0 for an empty slot
	data  []byte
}

const (
	nodeCacheBlocks = 128
	nodeCacheBlock  = 4 << 10
)

func newNodeCache(f *hpcrun.File, e *hpcrun.Epoch) *nodeCache {
	return &nodeCache{f: f, e: e, per: max(uint64(nodeCacheBlock/e.NodeSize), 1)}
}

// node returns the bytes of node i (< e.Complete), valid until the next call.
func (c *nodeCache) node(i uint64) ([]byte, error) {
	size := uint64(c.e.NodeSize)
	k := i / c.per
	first := k * c.per
	b := &c.blocks[k%nodeCacheBlocks]
	if b.n == 0 || b.first != first {
		c.misses++
		n := min(c.per, c.e.Complete-first)
		if b.data == nil {
			b.data = make([]byte, c.per*size)
		}
		b.n = 0
		if _, err := c.f.ReaderAt().ReadAt(b.data[:n*size], c.e.NodesOff+int64(first*size)); err != nil && err != io.EOF {
			return nil, err
		}
		b.first, b.n = first, n
	}
	return b.data[(i-first)*size:][:size], nil
}
