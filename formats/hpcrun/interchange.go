package hpcrun

import (
	"cmp"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// metricUnit is how one cct.csv metric column becomes an integral
// interchange metric: real values in seconds are scaled to nanoseconds
// (other reals by 1e9 as well), integers are kept.
type metricUnit struct {
	name  string
	unit  string
	scale float64 // 0 for integers
}

func unitOf(col string, m *hpcrun.Metric) metricUnit {
	if m.IsReal() {
		if base, ok := strings.CutSuffix(col, "_sec"); ok {
			return metricUnit{base + "_ns", "nanoseconds", 1e9}
		}
		return metricUnit{col + "_e9", "1e-9 " + col, 1e9}
	}
	switch {
	case strings.HasSuffix(col, "_usec"):
		return metricUnit{col, "microseconds", 0}
	case strings.HasSuffix(col, "_nsec"), strings.HasSuffix(col, "_ns"):
		return metricUnit{col, "nanoseconds", 0}
	}
	return metricUnit{col, "count", 0}
}

// interchangeMetrics are the cct.csv columns as interchange metrics.
func (p *profile) interchangeMetrics(f *hpcrun.File, cols *cctLayout) []metricUnit {
	out := make([]metricUnit, len(cols.names))
	done := make([]bool, len(cols.names))
	for ei, e := range f.Epochs {
		for k := range e.Metrics {
			if j := cols.byEpoch[ei][k]; !done[j] {
				done[j] = true
				out[j] = unitOf(cols.names[j], &e.Metrics[k])
			}
		}
	}
	return out
}

// tree builds the calling-context tree of every epoch (merged: epochs
// of one file are one program's phases), one node per path of
// load_module+0xip frames; the synthetic root is the tree's root.
func (p *profile) tree() (*interchange.Tree, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	cols := p.cctLayout(f)
	units := p.interchangeMetrics(f, cols)
	ms := make([]interchange.Metric, len(units))
	for i, u := range units {
		ms[i] = interchange.Metric{Name: u.name, Unit: u.unit}
	}
	t := interchange.NewTree(ms)
	var firstErr error
	for ei, e := range f.Epochs {
		if err := p.addEpoch(t, f, e, cols.byEpoch[ei], units); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return t, firstErr
}

func (p *profile) addEpoch(t *interchange.Tree, f *hpcrun.File, e *hpcrun.Epoch, col []int, units []metricUnit) error {
	if !preorder(f, e) {
		return p.addEpochAnyOrder(t, f, e, col, units)
	}
	// One pass: each node's parent is on the path of the nodes before it
	// (a stack, as cct.csv's analysis finds it), so nothing per node is
	// kept besides the tree.
	type onPath struct {
		id   uint32
		node int32
	}
	var stack []onPath
	var name []byte
	add := func(n *hpcrun.Node, call bool) {
		parent := interchange.Root
		if n.Parent == 0 {
			stack = stack[:0]
		} else {
			for len(stack) > 0 && stack[len(stack)-1].id != n.Parent {
				stack = stack[:len(stack)-1]
			}
			if len(stack) > 0 {
				parent = stack[len(stack)-1].node
			}
		}
		x := parent
		if n.Parent != 0 || n.LMID != 0 || e.Sparse { // else the synthetic root
			x = p.m.child(t, parent, e, n.LMID, n.IP, call, name)
		}
		stack = append(stack, onPath{n.AbsID(), x})
		addValues(t, x, n.Values, col, units)
	}
	// A node is added once the next is read: a 04.00 file has no leaf
	// sign, and a node is a call (its ip a return address) when the next
	// node is its child.
	nr := f.NodeReader(e, 0)
	var bufs [2]hpcrun.Node
	pending, next := &bufs[0], &bufs[1]
	have := false
	var err error
	for {
		if err = nr.Next(next); err != nil {
			break
		}
		if have {
			add(pending, isCall(e, pending, next.Parent == pending.AbsID()))
		}
		pending, next = next, pending
		have = true
	}
	if have {
		add(pending, isCall(e, pending, false))
	}
	if err == io.EOF {
		err = nil
	}
	return err
}

// isCall says whether n's ip is a return address: n is not a leaf (by
// its sign, or in a 04.00 file by having children).
func isCall(e *hpcrun.Epoch, n *hpcrun.Node, hasChildren bool) bool {
	if e.Sparse {
		return hasChildren
	}
	return !n.IsLeaf()
}

// preorder reports whether every node of e follows its parent on the
// path of the nodes before it.
func preorder(f *hpcrun.File, e *hpcrun.Epoch) bool {
	var stack []uint32
	nr := f.NodeReader(e, 0)
	var n hpcrun.Node
	for nr.Next(&n) == nil {
		if n.Parent != 0 {
			for len(stack) > 0 && stack[len(stack)-1] != n.Parent {
				stack = stack[:len(stack)-1]
			}
			if len(stack) == 0 {
				return false
			}
		} else {
			stack = stack[:0]
		}
		stack = append(stack, n.AbsID())
	}
	return true
}

// addValues adds a node's metric values (bits as the file has them) to
// tree node x.
func addValues(t *interchange.Tree, x int32, values []uint64, col []int, units []metricUnit) {
	for k, bits := range values {
		if k >= len(col) || bits == 0 {
			continue
		}
		j := col[k]
		v := int64(bits)
		if units[j].scale != 0 {
			fv := math.Round(hpcrun.Float(bits) * units[j].scale)
			if math.IsNaN(fv) || math.Abs(fv) > 1<<62 {
				continue
			}
			v = int64(fv)
		}
		t.Add(x, j, v)
	}
}

// addEpochAnyOrder builds the tree of an epoch whose nodes are not in
// preorder: the shapes first, then the values. As for cct.csv
// (analyzeEpoch), a node's parent must be among the nodes before it (the
// first node of its id); the epoch is cut at the first node whose parent
// is not (a later node, itself, a missing id: a damaged file), which also
// rules out cycles, and the error says where.
func (p *profile) addEpochAnyOrder(t *interchange.Tree, f *hpcrun.File, e *hpcrun.Epoch, col []int, units []metricUnit) error {
	type shape struct {
		parent uint32
		lm     uint16
		call   bool // not a leaf: ip is a return address
		ip     uint64
	}
	type idIndex struct {
		id uint32
		i  int32
	}
	var nodes []shape
	var byID []idIndex // sorted by id below; the first node of an id wins
	nr := f.NodeReader(e, 0)
	var n hpcrun.Node
	var err error
	for {
		if err = nr.Next(&n); err != nil {
			break
		}
		byID = append(byID, idIndex{n.AbsID(), int32(len(nodes))})
		nodes = append(nodes, shape{n.Parent, n.LMID, !n.IsLeaf(), n.IP})
	}
	if err == io.EOF {
		err = nil
	}
	if e.Sparse { // no leaf sign: a call is a node with children
		parents := make([]uint32, len(nodes))
		for i, s := range nodes {
			parents[i] = s.parent
		}
		slices.Sort(parents)
		for i := range nodes {
			_, nodes[i].call = slices.BinarySearch(parents, byID[i].id) // byID is in node order until sorted below
		}
	}
	slices.SortStableFunc(byID, func(a, b idIndex) int { return cmp.Compare(a.id, b.id) })
	index := func(id uint32) (int, bool) {
		k := sort.Search(len(byID), func(j int) bool { return byID[j].id >= id })
		if k == len(byID) || byID[k].id != id {
			return 0, false
		}
		return int(byID[k].i), true
	}
	tn := make([]int32, 0, len(nodes))
	for i, s := range nodes {
		parent := interchange.Root
		if s.parent != 0 {
			pi, ok := index(s.parent)
			if !ok || pi >= i {
				err = orphanError(e, uint64(i), s.parent)
				break
			}
			parent = tn[pi]
		}
		if s.parent == 0 && s.lm == 0 && !e.Sparse {
			tn = append(tn, parent) // the synthetic root
			continue
		}
		tn = append(tn, p.m.child(t, parent, e, s.lm, s.ip, s.call, nil))
	}
	// Pass 2: the values of the nodes before the cut.
	nr = f.NodeReader(e, 0)
	for i := 0; i < len(tn) && nr.Next(&n) == nil; i++ {
		addValues(t, tn[i], n.Values, col, units)
	}
	return err
}

// traceSet is the hpcrun trace of every profile with a .hpctrace: one
// track per profile, pid the MPI rank (else the process id), tid the
// thread id; times from the earliest sample of all.
type traceSet struct {
	m        *mount
	profiles []*profile

	once   sync.Once
	tracks []interchange.Track
	origin int64
}

func (s *traceSet) Tracks() []interchange.Track {
	s.once.Do(func() {
		s.origin = math.MaxInt64
		for _, p := range s.profiles {
			tr := interchange.Track{Pid: 0, Tid: 0, Process: p.name, Thread: p.name, File: p.name}
			if f, err := p.open(); err == nil {
				pid, _ := strconv.ParseInt(f.Header("mpi-rank"), 10, 64)
				if pid < 0 {
					pid, _ = strconv.ParseInt(f.Header("process-id"), 10, 64)
				}
				tr.Pid = pid
				tr.Tid, _ = strconv.ParseInt(f.Header("thread-id"), 10, 64)
				tr.Process = "rank " + strconv.FormatInt(pid, 10)
				tr.Thread = "thread " + strconv.FormatInt(tr.Tid, 10) + " (" + p.name + ")"
			}
			if t, _, err := p.openTrace(); err == nil {
				var first [1]hpcrun.Sample
				if n, _ := t.ReadSamples(first[:], 0); n == 1 {
					s.origin = min(s.origin, p.traceNanos(first[0].Time))
				}
			}
			s.tracks = append(s.tracks, tr)
		}
		if s.origin == math.MaxInt64 {
			s.origin = 0
		}
	})
	return s.tracks
}

// traceNanos converts a trace time to nanoseconds: 02.00 profiles write
// microseconds.
func (p *profile) traceNanos(t uint64) int64 {
	if f, err := p.open(); err == nil && f.Version == "02.00" {
		return int64(t) * 1000
	}
	return int64(t)
}

// Events reads a profile's samples: each sample is an X event of its
// node's location lasting until the next sample (runs of samples in one
// node are one event); the last sample is an instant event.
func (s *traceSet) Events(i int, pos interchange.Pos) (interchange.Events, error) {
	s.Tracks()
	p := s.profiles[i]
	t, l, err := p.openTrace()
	if err != nil {
		return nil, err
	}
	return &traceEvents{s: s, p: p, t: t, l: l, next: pos.At, stop: math.MaxInt64, buf: make([]hpcrun.Sample, 256)}, nil
}

type traceEvents struct {
	s     *traceSet
	p     *profile
	t     *hpcrun.Trace
	l     *nodeLookup
	next  int64 // index of the next sample to read
	stop  int64 // StopAt's time
	buf   []hpcrun.Sample
	bufAt int64
	nbuf  int
}

func (e *traceEvents) State() interchange.Pos { return interchange.Pos{At: e.next} }

func (e *traceEvents) StopAt(t int64) { e.stop = t }

func (e *traceEvents) sample(i int64) (hpcrun.Sample, error) {
	if i < e.bufAt || i >= e.bufAt+int64(e.nbuf) {
		n, err := e.t.ReadSamples(e.buf, i)
		if err != nil {
			if err == io.EOF && e.t.Problems.Err() != nil {
				return hpcrun.Sample{}, e.t.Problems.Err()
			}
			return hpcrun.Sample{}, err
		}
		e.bufAt, e.nbuf = i, n
	}
	return e.buf[i-e.bufAt], nil
}

func (e *traceEvents) Next(emit func(*interchange.Event)) error {
	start := e.next
	first, err := e.sample(start)
	if err != nil {
		return err
	}
	ts := e.p.traceNanos(first.Time) - e.s.origin
	if ts >= e.stop {
		return io.EOF
	}
	end, until, err := interchange.SampleRun(start, uint64(first.NodeID), first.Time, func(i int64) (uint64, uint64, error) {
		s, err := e.sample(i)
		return uint64(s.NodeID), s.Time, err
	})
	if err != nil {
		return err
	}
	e.next = end
	ev := &interchange.Event{Name: e.location(first.NodeID), Cat: "sample", TS: ts,
		Args: strconv.AppendInt(append(strconv.AppendUint([]byte(`"ctx_id":`), uint64(first.NodeID), 10), `,"samples":`...), end-start, 10)}
	if until == first.Time {
		ev.Instant = true
	} else {
		ev.Dur = max(e.p.traceNanos(until)-e.p.traceNanos(first.Time), 0)
	}
	emit(ev)
	return nil
}

func (e *traceEvents) location(id uint32) string {
	if k, ok := e.l.find(id); ok {
		if fs := e.p.m.frames(e.l.e, e.l.lm[k], e.l.ip[k], false); len(fs) > 0 && fs[0].Function != "" {
			return fs[0].Function
		}
		return string(appendLocation(nil, e.l.e, e.l.lm[k], e.l.ip[k]))
	}
	return "node " + strconv.FormatUint(uint64(id), 10)
}
