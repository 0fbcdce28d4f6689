package hpcrun

import (
	"io"
	"sort"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/symbols"
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
	scale   uint64 // time_ns per unit of the trace's times
	first   uint64 // time_ns of the first sample, the origin of t_ns
	i       int64  // next record; -1 = header
	samples []hpcrun.Sample
}

func (g *traceGen) Start(state any) (render.Cursor, error) {
	t, l, err := g.p.openTrace()
	if err != nil {
		return nil, err
	}
	c := &traceCursor{g: g, t: t, l: l, i: -1, samples: make([]hpcrun.Sample, rowsPerNext), scale: 1}
	if g.text {
		c.i = 0
	} else {
		if f, _ := g.p.open(); f != nil && f.Version < "03.00" {
			c.scale = 1000 // hpcrun 02.00 wrote microseconds
		}
		if n, _ := t.ReadSamples(c.samples[:1], 0); n == 1 {
			c.first = c.samples[0].Time * c.scale
		}
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
		dst = append(dst, "time_ns,t_ns,ctx_id,module_id,module,offset,"+symbols.CSVColumns...)
		if c.t.DataCentric() {
			dst = append(dst, ",metric_id"...)
		}
		return append(dst, '\n'), nil
	}
	n, err := c.t.ReadSamples(c.samples, c.i)
	if err == io.EOF {
		if c.t.Problems.Err() != nil {
			return dst, c.t.Problems.Err()
		}
		return dst, io.EOF
	}
	if err != nil {
		return dst, err
	}
	for _, s := range c.samples[:n] {
		k, ok := c.l.find(s.NodeID)
		if !c.g.text {
			ns := s.Time * c.scale
			dst = strconv.AppendUint(dst, ns, 10)
			dst = append(dst, ',')
			if ns >= c.first {
				dst = strconv.AppendUint(dst, ns-c.first, 10)
			} else {
				dst = append(dst, '-')
				dst = strconv.AppendUint(dst, c.first-ns, 10)
			}
		} else {
			dst = strconv.AppendUint(dst, s.Time, 10)
		}
		if c.g.text {
			dst = append(dst, "  "...)
			dst = strconv.AppendUint(dst, uint64(s.NodeID), 10)
			dst = append(dst, "  "...)
			if ok {
				dst = appendLocation(dst, c.l.e, c.l.lm[k], c.l.ip[k])
				dst = c.g.p.m.appendFrame(dst, c.l.e, c.l.lm[k], c.l.ip[k], false)
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
			switch {
			case lm == 0 && c.l.e != nil && c.l.e.Sparse: // a placeholder, named as in cct.csv
				dst = render.AppendCSVField(dst, hpcrun.PlaceholderName(c.l.ip[k]))
			case int(lm) < len(c.l.field):
				dst = append(dst, c.l.field[lm]...)
			}
			dst = append(dst, ",0x"...)
			dst = strconv.AppendUint(dst, c.l.ip[k], 16)
			dst = append(dst, ',')
			dst = symbols.AppendCSV(dst, c.g.p.m.frames(c.l.e, c.l.lm[k], c.l.ip[k], false))
		} else {
			dst = append(dst, ",,,"...)
			dst = symbols.AppendCSV(dst, nil)
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
