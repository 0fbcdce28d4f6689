package hpcdb

import (
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// profileMetric is one inclusive visible metric as an interchange metric:
// seconds become integer nanoseconds, other values are rounded.
type profileMetric struct {
	col   int // index into model.visible
	m     interchange.Metric
	scale float64
}

func (m *model) profileMetrics() []profileMetric {
	var out []profileMetric
	for j, col := range m.visible {
		if !col.inc {
			continue
		}
		name := strings.TrimSuffix(col.column, "_inc")
		pm := profileMetric{col: j, m: interchange.Metric{Name: name, Unit: "count"}, scale: 1}
		if a, b, ok := strings.Cut(name, "_sec"); ok && (b == "" || b[0] == '_') {
			pm.m = interchange.Metric{Name: a + "_ns" + b, Unit: "nanoseconds"}
			pm.scale = 1e9
		}
		out = append(out, pm)
	}
	return out
}

// tree is the summary profile's calling-context tree by procedure frames
// (hpcviewer's top-down view without loops and lines): each context's
// own share, its integer inclusive value minus its children's, goes to
// the frame path that encloses it. The shares add up to the root's
// inclusive value exactly. Unlisted contexts (in profile.db, not in the
// tree) are left out.
func (d *db) tree() (*interchange.Tree, error) {
	m := d.model.get()
	pms := m.profileMetrics()
	ms := make([]interchange.Metric, len(pms))
	for i, pm := range pms {
		ms[i] = pm.m
	}
	t := interchange.NewTree(ms)
	r := m.sumReader(d)
	node := make([]int32, len(m.frameCtx)) // frame -> tree node, 0 until made
	var frameNode func(f int32) int32
	frameNode = func(f int32) int32 {
		if f < 0 {
			return interchange.Root
		}
		if node[f] != 0 {
			return node[f]
		}
		parent := frameNode(m.links[f].up)
		c := int(m.frameCtx[f])
		file, line := m.ctxFile(c)
		node[f] = t.Child(parent, interchange.Frame{Name: string(m.frameName(f)), File: file, Line: line, Module: m.ctxModule(c)})
		return node[f]
	}
	inc := func(c int32, k int) (int64, error) {
		vals, has, err := r.values(int(c))
		if !has {
			return 0, err
		}
		v := math.Round(vals[pms[k].col] * pms[k].scale)
		if math.IsNaN(v) || math.Abs(v) > 1<<62 {
			return 0, nil
		}
		return int64(v), nil
	}
	// each context's own share: its inclusive value less its children's
	self := func(i int, k int) (int64, error) {
		v, err := inc(m.rows[i], k)
		for ch := m.firstChild(i); ch >= 0 && err == nil; ch = m.sibling[ch] {
			var w int64
			w, err = inc(ch, k)
			v -= w
		}
		return v, err
	}
	for i, c := range m.rows {
		if c != 0 && m.parent[c] < 0 {
			continue // unlisted: outside the tree, its values are no one's share
		}
		var n int32 = -1
		for k := range pms {
			v, err := self(i, k)
			if err != nil {
				return nil, err
			}
			if v == 0 {
				continue
			}
			if n < 0 {
				n = frameNode(m.frame[c])
			}
			t.Add(n, k, v)
		}
	}
	return t, nil
}

// traceSet is trace.db for trace.json: one track per trace line, pid the
// rank, tid the thread (the line number when the tuple has neither).
type traceSet struct {
	d *db

	once   sync.Once
	tracks []interchange.Track
}

func (s *traceSet) Tracks() []interchange.Track {
	s.once.Do(func() {
		m := s.d.model.get()
		seen := map[[2]int64]bool{}
		names := map[string]bool{}
		for i, l := range s.d.trace.Lines {
			tr := interchange.Track{Pid: 0, Tid: int64(i), File: "trace-" + strconv.Itoa(i)}
			if int(l.Prof) < len(m.tuples) {
				for _, e := range m.tuples[l.Prof] {
					switch e.Kind() {
					case hpcdb.KindRank:
						tr.Pid = int64(e.Logical)
					case hpcdb.KindThread:
						tr.Tid = int64(e.Logical)
					}
				}
			}
			if int(l.Prof) < len(m.profNames) {
				tr.File = m.profNames[l.Prof]
			}
			if names[tr.File] {
				tr.File += "~" + strconv.Itoa(i)
			}
			names[tr.File] = true
			if seen[[2]int64{tr.Pid, tr.Tid}] {
				tr.Tid = int64(1_000_000 + i)
			}
			seen[[2]int64{tr.Pid, tr.Tid}] = true
			tr.Process = "rank " + strconv.FormatInt(tr.Pid, 10)
			tr.Thread = tr.File
			s.tracks = append(s.tracks, tr)
		}
	})
	return s.tracks
}

// Events reads one trace line: a run of samples in one context is an X
// event named by its procedure frame, lasting until the next sample; a
// line's last run of one sample is an instant event.
func (s *traceSet) Events(i int, pos interchange.Pos) (interchange.Events, error) {
	return &traceEvents{d: s.d, m: s.d.model.get(), line: i, next: uint64(pos.At), stop: math.MaxInt64}, nil
}

type traceEvents struct {
	d     *db
	m     *model
	line  int
	next  uint64
	stop  int64 // StopAt's time
	buf   []hpcdb.Sample
	bufAt uint64
}

func (e *traceEvents) State() interchange.Pos { return interchange.Pos{At: int64(e.next)} }

func (e *traceEvents) StopAt(t int64) { e.stop = t }

func (e *traceEvents) sample(k uint64) (hpcdb.Sample, error) {
	if k < e.bufAt || k >= e.bufAt+uint64(len(e.buf)) {
		avail := e.d.trace.Avail(e.line)
		if k >= avail {
			if avail < e.d.trace.Lines[e.line].NumSamples() {
				return hpcdb.Sample{}, dataErr("trace.db", int64(e.d.trace.Lines[e.line].Start+avail*hpcdb.TraceSampleSize), "trace line runs past the end of the file")
			}
			return hpcdb.Sample{}, io.EOF
		}
		var err error
		e.buf, err = e.d.trace.Samples(e.line, k, min(avail-k, traceBatch), e.buf[:0])
		if err != nil {
			return hpcdb.Sample{}, err
		}
		e.bufAt = k
	}
	return e.buf[k-e.bufAt], nil
}

func (e *traceEvents) Next(emit func(*interchange.Event)) error {
	start := e.next
	first, err := e.sample(start)
	if err != nil {
		return err
	}
	ts := int64(first.Time) - int64(e.m.minTime)
	if ts >= e.stop {
		return io.EOF
	}
	runEnd, until, err := interchange.SampleRun(int64(start), uint64(first.Ctx), first.Time, func(i int64) (uint64, uint64, error) {
		s, err := e.sample(uint64(i))
		return uint64(s.Ctx), s.Time, err
	})
	if err != nil {
		return err
	}
	end := uint64(runEnd)
	e.next = end
	name := "context " + strconv.FormatUint(uint64(first.Ctx), 10)
	if int(first.Ctx) < e.m.numCtx {
		if f := e.m.frame[first.Ctx]; f >= 0 {
			name = string(e.m.frameName(f))
		}
	}
	ev := &interchange.Event{Name: name, Cat: "sample", TS: ts,
		Args: strconv.AppendUint(append(strconv.AppendUint([]byte(`"ctx_id":`), uint64(first.Ctx), 10), `,"samples":`...), end-start, 10)}
	if until == first.Time {
		ev.Instant = true
	} else {
		ev.Dur = int64(until - first.Time)
	}
	emit(ev)
	return nil
}
