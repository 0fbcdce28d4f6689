package hpcrun

import (
	"io"
	"math"
	"sort"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
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
	names []render.Text // name of each load module id
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
		for len(l.names) <= int(lm.ID) {
			l.names = append(l.names, render.Text{})
		}
		l.names[lm.ID] = render.NewText(lm.Name)
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

// traceTable is trace.csv, or trace.txt (text): one row per trace
// sample, with its CCT node's location; positions are sample indexes.
func (p *profile) traceTable(text bool) *render.Table {
	// a sample naming a node the tree has not is reported once per view,
	// through its binding (its row stays, its frame unknown)
	var report render.Reporter
	var unknown sync.Once
	unknownNode := func(err error) { unknown.Do(func() { report.All(decode.Problems{err}) }) }
	t := &render.Table{
		Inputs: p.symbolFiles, // the .hpctrace is one of the source's inputs
		Bind:   report.Bind,
		Open: func(pos []byte) (render.Scanner, error) {
			t, l, err := p.openTrace()
			if err != nil {
				return nil, err
			}
			s := &traceScan{p: p, t: t, l: l, text: text, samples: make([]hpcrun.Sample, rowsPerNext), scale: 1, unknownNode: unknownNode}
			if !text {
				if f, _ := p.open(); f != nil && f.Version < "03.00" {
					s.scale = 1000 // hpcrun 02.00 wrote microseconds
				}
				if n, _ := t.ReadSamples(s.samples[:1], 0); n == 1 {
					s.first = s.samples[0].Time * s.scale
				}
			}
			if len(pos) > 0 {
				r := render.NewStateReader(pos)
				s.next = int64(r.Uint(math.MaxInt64))
				if err := r.Err(); err != nil {
					return nil, err
				}
			}
			return s, nil
		},
	}
	if text {
		t.Columns = traceTxtColumns
		return t
	}
	t.Layout = func() []render.Column {
		cols := append(append([]render.Column(nil), traceColumns...), frameColumns...)
		if tr, _, err := p.openTrace(); err == nil && tr.DataCentric() {
			cols = append(cols, render.Column{Name: "metric_id", Kind: render.Uint})
		}
		return cols
	}
	return t
}

var traceColumns = []render.Column{
	{Name: "time_ns", Kind: render.Uint},
	{Name: "t_ns", Kind: render.Number},
	{Name: "ctx_id", Kind: render.Uint},
}

// traceTxtColumns are trace.txt's: the time as stored, the node id and
// its module+0xip with the function at it.
var traceTxtColumns = []render.Column{
	{Name: "time", Kind: render.Uint},
	{Name: "ctx_id", Kind: render.Uint, Sep: "  "},
	{Name: "location", Sep: "  "},
}

type traceScan struct {
	p       *profile
	t       *hpcrun.Trace
	l       *nodeLookup
	text    bool
	scale   uint64 // time_ns per unit of the trace's times
	first   uint64 // time_ns of the first sample, the origin of t_ns
	next    int64  // the next sample's index
	samples []hpcrun.Sample
	buf     []hpcrun.Sample // read ahead: samples next, next+1, ...
	loc     []byte

	unknownNode func(error) // reports a sample naming a node the tree has not
	mods        moduleCache
}

func (s *traceScan) Pos() []byte { return (&render.StateWriter{}).Uint(uint64(s.next)).Bytes() }

func (s *traceScan) Scan(row *render.Row) error {
	if len(s.buf) == 0 {
		n, err := s.t.ReadSamples(s.samples, s.next)
		if err == io.EOF {
			if s.t.Problems.Err() != nil {
				return s.t.Problems.Err()
			}
			return io.EOF
		}
		if err != nil {
			return err
		}
		s.buf = s.samples[:n]
	}
	smp := s.buf[0]
	s.buf = s.buf[1:]
	s.next++
	k, ok := s.l.find(smp.NodeID)
	if !ok {
		s.unknownNode(s.t.UnknownNode(s.next-1, smp.NodeID))
	}
	if s.text {
		s.loc = append(s.loc[:0], '?')
		if ok {
			s.loc = appendLocation(s.loc[:0], s.l.e, s.l.lm[k], s.l.ip[k])
			s.loc = s.p.m.appendFrame(s.loc, s.l.e, s.l.lm[k], s.l.ip[k], false)
		}
		row.Uint(smp.Time).Uint(uint64(smp.NodeID)).Str(string(s.loc))
		return nil
	}
	ns := smp.Time * s.scale
	row.Uint(ns)
	switch {
	case ns >= s.first:
		row.Uint(ns - s.first)
	case s.first-ns <= math.MaxInt64:
		row.Int(-int64(s.first - ns))
	default: // beyond int64 (out of order by centuries): written as it is
		row.Str("-" + string(render.AppendUint(nil, s.first-ns)))
	}
	row.Uint(uint64(smp.NodeID))
	if ok {
		s.p.frameCells(row, &s.mods, s.l.e, s.l.names, s.l.lm[k], s.l.ip[k], false)
	} else {
		row.Empty().Empty().Empty()
		symbols.Cells(row, nil)
	}
	if s.t.DataCentric() {
		row.Uint(uint64(smp.MetricID))
	}
	return nil
}
