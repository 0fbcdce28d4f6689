package hpcrun

import (
	"io"
	"sort"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/render"
)

// nodeLookup finds a trace sample's CCT node (in the last epoch) by id.
type nodeLookup struct {
	e     *hpcrun.Epoch
	ids   []uint32 // sorted
	lm    []uint16
	ip    []uint64
	field [][]byte // CSV field of each load module id
}

func (p *profile) openTrace() (*hpcrun.Trace, *nodeLookup, error) {
	p.traceOnce.Do(func() {
		f, err := p.open()
		if err != nil {
			p.traceErr = err
			return
		}
		p.trace, p.traceErr = hpcrun.OpenTrace(p.tracePath)
		if p.traceErr != nil {
			return
		}
		p.lookup = buildLookup(f)
	})
	return p.trace, p.lookup, p.traceErr
}

func buildLookup(f *hpcrun.File) *nodeLookup {
	l := &nodeLookup{}
	if len(f.Epochs) == 0 {
		return l
	}
	e := f.Epochs[len(f.Epochs)-1]
	l.e = e
	type ent struct {
		id uint32
		lm uint16
		ip uint64
	}
	ents := make([]ent, 0, e.Complete)
	nr := f.NodeReader(e, 0)
	var n hpcrun.Node
	for nr.Next(&n) == nil {
		ents = append(ents, ent{n.AbsID(), n.LMID, n.IP})
	}
	sort.SliceStable(ents, func(a, b int) bool { return ents[a].id < ents[b].id })
	l.ids = make([]uint32, len(ents))
	l.lm = make([]uint16, len(ents))
	l.ip = make([]uint64, len(ents))
	for i, x := range ents {
		l.ids[i], l.lm[i], l.ip[i] = x.id, x.lm, x.ip
	}
	for _, lm := range e.LoadModules {
		for len(l.field) <= int(lm.ID) {
			l.field = append(l.field, nil)
		}
		l.field[lm.ID] = render.AppendCSVField(nil, lm.Name)
	}
	return l
}

// find returns the node with id, trying the id without and with the
// trace-retain bit.
func (l *nodeLookup) find(id uint32) (int, bool) {
	for _, cand := range []uint32{id, id ^ 1} {
		i := sort.Search(len(l.ids), func(k int) bool { return l.ids[k] >= cand })
		if i < len(l.ids) && l.ids[i] == cand {
			return i, true
		}
	}
	return 0, false
}

type traceGen struct {
	p    *profile
	text bool
}

type traceCursor struct {
	g       *traceGen
	t       *hpcrun.Trace
	l       *nodeLookup
	i       int64 // next record; -1 = header
	samples []hpcrun.Sample
}

func (g *traceGen) Start(state any) (render.Cursor, error) {
	t, l, err := g.p.openTrace()
	if err != nil {
		return nil, err
	}
	c := &traceCursor{g: g, t: t, l: l, i: -1, samples: make([]hpcrun.Sample, rowsPerNext)}
	if g.text {
		c.i = 0
	}
	if s, ok := state.(int64); ok {
		c.i = s
	}
	return c, nil
}

func (c *traceCursor) State() any { return c.i }

func (c *traceCursor) Next(dst []byte) ([]byte, error) {
	if c.i < 0 {
		c.i = 0
		dst = append(dst, "time,node_id,lm_id,load_module,ip"...)
		if c.t.DataCentric() {
			dst = append(dst, ",metric_id"...)
		}
		return append(dst, '\n'), nil
	}
	n, err := c.t.ReadSamples(c.samples, c.i)
	if err == io.EOF {
		if c.t.Err != nil {
			return dst, c.t.Err
		}
		return dst, io.EOF
	}
	if err != nil {
		return dst, err
	}
	for _, s := range c.samples[:n] {
		k, ok := c.l.find(s.NodeID)
		dst = strconv.AppendUint(dst, s.Time, 10)
		if c.g.text {
			dst = append(dst, "  "...)
			dst = strconv.AppendUint(dst, uint64(s.NodeID), 10)
			dst = append(dst, "  "...)
			if ok {
				dst = appendLocation(dst, c.l.e, c.l.lm[k], c.l.ip[k])
			} else {
				dst = append(dst, '?')
			}
			dst = append(dst, '\n')
			continue
		}
		dst = append(dst, ',')
		dst = strconv.AppendUint(dst, uint64(s.NodeID), 10)
		dst = append(dst, ',')
		if ok {
			lm := c.l.lm[k]
			dst = strconv.AppendUint(dst, uint64(lm), 10)
			dst = append(dst, ',')
			if int(lm) < len(c.l.field) {
				dst = append(dst, c.l.field[lm]...)
			}
			dst = append(dst, ",0x"...)
			dst = strconv.AppendUint(dst, c.l.ip[k], 16)
		} else {
			dst = append(dst, ",,"...)
		}
		if c.t.DataCentric() {
			dst = append(dst, ',')
			dst = strconv.AppendUint(dst, uint64(s.MetricID), 10)
		}
		dst = append(dst, '\n')
	}
	c.i += int64(n)
	return dst, nil
}
