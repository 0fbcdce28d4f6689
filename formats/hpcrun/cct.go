package hpcrun

import (
	"io"
	"path"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/render"
)

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
	h := []byte("epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset," + symbols.CSVColumns)
	if c.lush {
		h = append(h, ",lush_assoc,lush_lip"...)
	}
	for _, n := range c.names {
		h = append(h, ',')
		h = append(h, n...)
		h = append(h, "_inc,"...)
		h = append(h, n...)
		h = append(h, "_exc"...)
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
	p    *profile
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
	c := &cctCSV{p: p, f: f, a: a, cols: p.columns(f)}
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
			return true, c.f.Problems.Err()
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
	var prefix [24]byte
	epoch := append(strconv.AppendInt(prefix[:0], int64(c.pos.epoch), 10), ',')
	for k := 0; k < rowsPerNext && c.pos.node < ea.n; k++ {
		i := c.pos.node
		if err := c.nr.Next(&c.n); err != nil {
			return dst, err
		}
		n := &c.n
		dst = append(dst, epoch...)
		dst = render.AppendUint(dst, uint64(n.AbsID()))
		dst = append(dst, ',')
		dst = render.AppendUint(dst, uint64(n.Parent))
		dst = append(dst, ',')
		dst = render.AppendUint(dst, uint64(ea.depth.get(i)))
		inner := ea.hasChildren(i)
		if n.IsLeaf() || e.Sparse && !inner {
			dst = append(dst, ",1,"...)
		} else {
			dst = append(dst, ",0,"...)
		}
		dst = render.AppendUint(dst, uint64(n.LMID))
		dst = append(dst, ',')
		dst = appendLMField(dst, e, lmFields, n)
		dst = append(dst, ',')
		dst = render.AppendHexPadded(dst, n.IP, 0)
		dst = append(dst, ',')
		dst = symbols.AppendCSV(dst, c.p.m.frames(e, n.LMID, n.IP, inner))
		if c.cols.lush {
			dst = c.appendLush(dst, e, n)
		}
		var inc []uint64
		if inner {
			inc = ea.incOf(i)
		}
		for _, mi := range c.vals {
			dst = append(dst, ',')
			if mi < 0 {
				dst = append(dst, ',')
				continue
			}
			real := ea.realMetric[mi]
			if !inner { // a leaf's inclusive value is its exclusive one
				at := len(dst)
				dst = appendValue(dst, n.Values[mi], real)
				dst = append(dst, ',')
				dst = append(dst, dst[at:len(dst)-1]...)
				continue
			}
			dst = appendValue(dst, inc[mi], real)
			dst = append(dst, ',')
			dst = appendValue(dst, n.Values[mi], real)
		}
		dst = append(dst, '\n')
		c.pos.node++
	}
	return dst, nil
}

// appendLMField appends the load_module column: the load module's name,
// or for lm_id 0 of a 04.00 file the placeholder name stored in the ip.
func appendLMField(dst []byte, e *hpcrun.Epoch, lmFields [][]byte, n *hpcrun.Node) []byte {
	if e.Sparse && n.LMID == 0 {
		return render.AppendCSVField(dst, hpcrun.PlaceholderName(n.IP))
	}
	if int(n.LMID) < len(lmFields) {
		return append(dst, lmFields[n.LMID]...)
	}
	return dst
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
	epochLen := render.DecimalLen(uint64(c.pos.epoch))
	var total int64
	for k := 0; k < rowsPerNext && c.pos.node < ea.n; k++ {
		i := c.pos.node
		if err := c.nr.Next(&c.n); err != nil {
			return total, err
		}
		n := &c.n
		l := epochLen + 1 + render.DecimalLen(uint64(n.AbsID())) + 1 + render.DecimalLen(uint64(n.Parent)) + 1 + render.DecimalLen(uint64(ea.depth.get(i))) + 3 +
			render.DecimalLen(uint64(n.LMID)) + 1 + 3 + hexLen(n.IP) + 1
		if int(n.LMID) < len(lmFields) && !(e.Sparse && n.LMID == 0) {
			l += len(lmFields[n.LMID])
		} else {
			var buf [32]byte
			l += len(appendLMField(buf[:0], e, lmFields, n))
		}
		if c.cols.lush {
			var buf [96]byte
			l += len(c.appendLush(buf[:0], e, n))
		}
		inner := ea.hasChildren(i)
		var sym [256]byte
		l += 1 + len(symbols.AppendCSV(sym[:0], c.p.m.frames(e, n.LMID, n.IP, inner)))
		var inc []uint64
		if inner {
			inc = ea.incOf(i)
		}
		for _, mi := range c.vals {
			if mi < 0 {
				l += 2
				continue
			}
			real := ea.realMetric[mi]
			exc := valueLen(n.Values[mi], real)
			if !inner {
				l += 2 + 2*exc
				continue
			}
			l += 2 + exc + valueLen(inc[mi], real)
		}
		total += int64(l)
		c.pos.node++
	}
	return total, nil
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
