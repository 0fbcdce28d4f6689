// Package hpcrun writes synthetic hpcrun profiles (02.00 layouts A, B and
// C, 03.00 and the sparse 04.00) and .hpctrace files for tests and benchmarks: any number
// of epochs, with or without LUSH fields, Int and Real metrics, and CCTs
// of any size streamed without holding the nodes in memory.
package hpcrun

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
)

// A Profile describes a file to write.
type Profile struct {
	Version string        // "02.00" when empty
	Layout  hpcrun.Layout // metric-descriptor layout; C for 03.00
	NV      []hpcrun.NVPair
	Epochs  []*Epoch
}

// An Epoch describes one epoch. Its nodes come from Nodes, or, when
// Nodes is nil, from Tree.
type Epoch struct {
	Flags       uint64 // bit 0: logical unwinding (LUSH fields)
	Granularity uint64
	RAOffset    uint32
	NV          []hpcrun.NVPair
	Metrics     []hpcrun.Metric
	LoadModules []hpcrun.LoadModule
	Nodes       []hpcrun.Node
	Tree        *Tree
}

// Write writes p to w; a Version "04.00" profile is written as that
// version's sections (see WriteSparse).
func Write(w io.Writer, p *Profile) error {
	if p.Version == "04.00" {
		return WriteSparse(w, p)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	e := enc{w: bw}
	v := p.Version
	if v == "" {
		v = "02.00"
	}
	e.raw([]byte(hpcrun.ProfileMagic + v + "b"))
	e.nv(p.NV)
	for _, ep := range p.Epochs {
		e.raw([]byte("EPOCH___"))
		e.u64(ep.Flags)
		e.u64(ep.Granularity)
		e.u32(ep.RAOffset)
		e.nv(ep.NV)
		e.u32(uint32(len(ep.Metrics)))
		for _, m := range ep.Metrics {
			e.metric(&m, p.Layout)
		}
		e.u32(uint32(len(ep.LoadModules)))
		for _, lm := range ep.LoadModules {
			e.u16(lm.ID)
			e.str(lm.Name)
			e.u64(lm.Flags)
		}
		lush := ep.Flags&1 != 0
		if ep.Nodes != nil {
			e.u64(uint64(len(ep.Nodes)))
			for i := range ep.Nodes {
				e.node(&ep.Nodes[i], lush)
			}
		} else if ep.Tree != nil {
			e.u64(uint64(ep.Tree.Len()))
			var n hpcrun.Node
			for i := 0; i < ep.Tree.Len(); i++ {
				ep.Tree.Node(i, &n)
				e.node(&n, lush)
			}
		} else {
			e.u64(0)
		}
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

type enc struct {
	w   *bufio.Writer
	b   [8]byte
	err error
}

func (e *enc) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}
func (e *enc) u16(v uint16) { binary.BigEndian.PutUint16(e.b[:], v); e.raw(e.b[:2]) }
func (e *enc) u32(v uint32) { binary.BigEndian.PutUint32(e.b[:], v); e.raw(e.b[:4]) }
func (e *enc) u64(v uint64) { binary.BigEndian.PutUint64(e.b[:], v); e.raw(e.b[:8]) }
func (e *enc) str(s string) { e.u32(uint32(len(s))); e.raw([]byte(s)) }

func (e *enc) nv(ps []hpcrun.NVPair) {
	e.u32(uint32(len(ps)))
	for _, p := range ps {
		e.str(p.Name)
		e.str(p.Value)
	}
}

func (e *enc) metric(m *hpcrun.Metric, layout hpcrun.Layout) {
	e.str(m.Name)
	e.str(m.Description)
	e.raw(Flags(m, layout))
	e.u64(m.Period)
	e.str(m.Formula)
	e.str(m.FormatStr)
	if layout == hpcrun.LayoutC {
		e.u16(m.IsFrequency)
		e.u16(m.IsMultiplexed)
		e.u64(math.Float64bits(m.PeriodMean))
		e.u64(m.NumSamples)
	}
}

// Flags returns the 16 flag bytes of m as the layout writes them: for A,
// two big-endian words of the x86 bit-field; for B and C, the raw bytes of
// the x86 struct (partner little-endian).
func Flags(m *hpcrun.Metric, layout hpcrun.Layout) []byte {
	b := make([]byte, 16)
	if layout == hpcrun.LayoutA {
		w := uint64(m.Type&0xf) | uint64(m.ValType&0xf)<<4 | uint64(m.ValFmt&0xf)<<8 | uint64(m.Partner)<<12 | uint64(m.Show&1)<<28
		if m.ShowPercent {
			w |= 1 << 29
		}
		binary.BigEndian.PutUint64(b, w)
		return b
	}
	b[0], b[1], b[2] = byte(m.Type), byte(m.ValType), byte(m.ValFmt)
	binary.LittleEndian.PutUint16(b[4:], m.Partner)
	b[6] = m.Show
	if m.ShowPercent {
		b[7] = 1
	}
	return b
}

func (e *enc) node(n *hpcrun.Node, lush bool) {
	e.u32(uint32(n.ID))
	e.u32(n.Parent)
	if lush {
		e.u32(n.Assoc)
	}
	e.u16(n.LMID)
	e.u64(n.IP)
	if lush {
		e.u64(n.LIP[0])
		e.u64(n.LIP[1])
	}
	for _, v := range n.Values {
		e.u64(v)
	}
}

// A Tree is a random CCT in preorder, generated from a seed: node i's
// parent and values are reproducible without storing the nodes (only the
// parent indexes, 4 bytes per node).
type Tree struct {
	Seed        int64
	Metrics     []hpcrun.Metric
	NumLMs      int
	Lush        bool
	parent      []int32
	interiorHit int // every interiorHit-th interior node has values too
}

// NewTree returns a random tree of n nodes (n >= 1). Node 0 is the root.
func NewTree(seed int64, n int, metrics []hpcrun.Metric, numLMs int, lush bool) *Tree {
	rng := rand.New(rand.NewSource(seed))
	t := &Tree{Seed: seed, Metrics: metrics, NumLMs: numLMs, Lush: lush, parent: make([]int32, n), interiorHit: 3}
	t.parent[0] = -1
	stack := []int32{0}
	for i := 1; i < n; i++ {
		// Pop a few levels with some probability; stay shallow-ish.
		if len(stack) > 1 {
			k := 0
			switch r := rng.Intn(10); {
			case r < 4:
				k = 0
			case r < 8:
				k = 1
			default:
				k = 1 + rng.Intn(len(stack)-1)
			}
			if len(stack) > 60 {
				k = max(k, 10)
			}
			stack = stack[:max(len(stack)-k, 1)]
		}
		t.parent[i] = stack[len(stack)-1]
		stack = append(stack, int32(i))
	}
	return t
}

// Len is the number of nodes.
func (t *Tree) Len() int { return len(t.parent) }

// Parent is the index of node i's parent, or -1 for the root.
func (t *Tree) Parent(i int) int { return int(t.parent[i]) }

// IsLeaf reports whether node i has no children.
func (t *Tree) IsLeaf(i int) bool { return i+1 >= len(t.parent) || t.parent[i+1] != int32(i) }

// ID is node i's positive persistent id (12, 14, 16, ...).
func ID(i int) uint32 { return uint32(12 + 2*i) }

// Node fills n with node i.
func (t *Tree) Node(i int, n *hpcrun.Node) {
	rng := rand.New(rand.NewSource(t.Seed*1000003 + int64(i)))
	id := int32(ID(i))
	if t.IsLeaf(i) {
		id = -id
	}
	n.ID = id
	n.Parent = 0
	if p := t.parent[i]; p >= 0 {
		n.Parent = ID(int(p))
	}
	n.LMID, n.IP = 0, 0
	if i > 0 {
		n.LMID = uint16(1 + rng.Intn(max(t.NumLMs, 1)))
		n.IP = uint64(0x400000 + rng.Intn(1<<20))
	}
	n.Assoc, n.LIP = 0, [2]uint64{}
	if t.Lush {
		assocs := []uint32{0, 0x11, 0x36, 0x42, 0x54}
		n.Assoc = assocs[rng.Intn(len(assocs))] | uint32(rng.Intn(4))<<8
		n.LIP = [2]uint64{rng.Uint64() >> 16, uint64(rng.Intn(100))}
	}
	n.Values = n.Values[:0]
	withValues := t.IsLeaf(i) || i%t.interiorHit == 0
	for _, m := range t.Metrics {
		var v uint64
		if withValues {
			if m.ValFmt == hpcrun.FmtReal {
				v = math.Float64bits(float64(rng.Intn(1000000)) / 64)
			} else {
				v = uint64(rng.Intn(100000))
			}
		}
		n.Values = append(n.Values, v)
	}
}

// Metrics returns k metric descriptors alternating Int and Real values.
func Metrics(k int, layout hpcrun.Layout) []hpcrun.Metric {
	var ms []hpcrun.Metric
	for i := 0; i < k; i++ {
		m := hpcrun.Metric{Type: hpcrun.TypeRaw, ValType: hpcrun.ValNull, ValFmt: hpcrun.FmtInt, Show: 1, ShowPercent: true, Period: 1}
		switch i % 4 {
		case 0:
			m.Name = "CPUTIME (usec)"
		case 1:
			m.Name, m.ValFmt, m.Period = "REALTIME (sec)", hpcrun.FmtReal, 1
		case 2:
			m.Name, m.Period = "PAPI_TOT_CYC", 4000037
		case 3:
			m.Name, m.ValFmt, m.Partner, m.ShowPercent = "energy (J)", hpcrun.FmtReal, 2, false
		}
		if i >= 4 {
			m.Name += " #" + strconv.Itoa(i)
		}
		m.Description = m.Name + " metric"
		if layout == hpcrun.LayoutC {
			m.HasAux = true
			m.IsFrequency = uint16(i % 2)
			m.IsMultiplexed = uint16(i / 2 % 2)
			m.PeriodMean = float64(m.Period) + 0.25
			m.NumSamples = uint64(1000 + i)
		}
		ms = append(ms, m)
	}
	return ms
}

// LoadModules returns n loadmap entries with ids 1..n.
func LoadModules(n int) []hpcrun.LoadModule {
	lms := make([]hpcrun.LoadModule, n)
	for i := range lms {
		lms[i] = hpcrun.LoadModule{ID: uint16(i + 1), Name: "/usr/lib/lib" + strconv.Itoa(i+1) + ".so"}
	}
	lms[0].Name = "/home/user/app"
	return lms
}

// Options describe a random profile.
type Options struct {
	Seed      int64
	Version   string
	Layout    hpcrun.Layout
	Epochs    int
	Nodes     int // per epoch
	Metrics   int
	LoadMods  int
	Lush      bool
	Program   string
	Rank      int
	Thread    int
	ProcessID int
}

// Random returns a profile built from o.
func Random(o Options) *Profile {
	if o.Epochs == 0 {
		o.Epochs = 1
	}
	if o.LoadMods == 0 {
		o.LoadMods = 3
	}
	if o.Program == "" {
		o.Program = "app"
	}
	p := &Profile{Version: o.Version, Layout: o.Layout, NV: []hpcrun.NVPair{
		{Name: "program-name", Value: o.Program},
		{Name: "program-path", Value: "/home/user/" + o.Program},
		{Name: "env-path", Value: "/usr/bin:/bin"},
		{Name: "job-id", Value: ""},
		{Name: "mpi-rank", Value: strconv.Itoa(o.Rank)},
		{Name: "thread-id", Value: strconv.Itoa(o.Thread)},
		{Name: "host-id", Value: "7f0101"},
		{Name: "process-id", Value: strconv.Itoa(o.ProcessID)},
		{Name: "trace-min-time", Value: "0"},
		{Name: "trace-max-time", Value: "0"},
	}}
	for k := 0; k < o.Epochs; k++ {
		ep := &Epoch{Granularity: 1, RAOffset: 1,
			NV:          []hpcrun.NVPair{{Name: "TODO:epoch-name", Value: "TODO:epoch-value"}},
			Metrics:     Metrics(o.Metrics, o.Layout),
			LoadModules: LoadModules(o.LoadMods),
		}
		if o.Lush {
			ep.Flags = 1
		}
		ep.Tree = NewTree(o.Seed+int64(k), max(o.Nodes, 1), ep.Metrics, o.LoadMods, o.Lush)
		p.Epochs = append(p.Epochs, ep)
	}
	return p
}

// WriteTrace writes a trace: version "01.00" (no flags) or "01.01".
func WriteTrace(w io.Writer, version string, flags uint64, samples []hpcrun.Sample) error {
	bw := bufio.NewWriter(w)
	e := enc{w: bw}
	e.raw([]byte(hpcrun.TraceMagic + version + "b"))
	if version != "01.00" {
		e.u64(flags)
	}
	for _, s := range samples {
		e.u64(s.Time)
		e.u32(s.NodeID)
		if flags&hpcrun.TraceDataCentric != 0 {
			e.u32(s.MetricID)
		}
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

// TraceSamples returns n samples over the leaves of t, times starting at
// t0 and stepping by dt.
func TraceSamples(t *Tree, n int, t0, dt uint64) []hpcrun.Sample {
	var leaves []uint32
	for i := 0; i < t.Len(); i++ {
		if t.IsLeaf(i) {
			leaves = append(leaves, ID(i))
		}
	}
	out := make([]hpcrun.Sample, n)
	for k := range out {
		out[k] = hpcrun.Sample{Time: t0 + uint64(k)*dt, NodeID: leaves[k*7%len(leaves)], MetricID: uint32(k % 2)}
	}
	return out
}

// CallsAndLeaves are the nodes of a CCT that samples each address of
// module lmID once: the root (id 12), then per address a call node whose
// ip is the address + 1 (a return address, named by the call at the
// address) under the root, and a leaf at the address under it, with
// value k+1 (one Int metric) for the k-th address.
func CallsAndLeaves(lmID uint16, addrs []uint64) []hpcrun.Node {
	nodes := []hpcrun.Node{{ID: 12, Values: []uint64{0}}}
	return AppendCallsAndLeaves(nodes, lmID, addrs)
}

// AppendCallsAndLeaves appends the call and leaf nodes of CallsAndLeaves
// for more addresses (of another module) to nodes.
func AppendCallsAndLeaves(nodes []hpcrun.Node, lmID uint16, addrs []uint64) []hpcrun.Node {
	for k, a := range addrs {
		id := int32(12 + 2*len(nodes))
		nodes = append(nodes,
			hpcrun.Node{ID: id, Parent: 12, LMID: lmID, IP: a + 1, Values: []uint64{0}},
			hpcrun.Node{ID: -(id + 2), Parent: uint32(id), LMID: lmID, IP: a, Values: []uint64{uint64(k + 1)}})
	}
	return nodes
}

// WriteSparse writes the first epoch of p as a 04.00 file (HPCToolkit
// 2022.10+): the header and p.NV, the loadmap, the CCT (19-byte nodes,
// leaves not negated), the metric table (layout C), an id-tuple
// dictionary and the node values stored sparsely (the non-zero ones),
// each section at a multiple of 1024 bytes, then the footer that locates
// them. The id tuple is NODE 0, RANK 0, THREAD 0.
func WriteSparse(w io.Writer, p *Profile) error {
	ep := &Epoch{}
	if len(p.Epochs) > 0 {
		ep = p.Epochs[0]
	}
	nodes := ep.Nodes
	if nodes == nil && ep.Tree != nil {
		nodes = make([]hpcrun.Node, ep.Tree.Len())
		for i := range nodes {
			ep.Tree.Node(i, &nodes[i])
		}
	}
	var b bytes.Buffer
	e := enc{w: bufio.NewWriter(&b)}
	var bounds []uint64
	section := func(write func()) {
		e.w.Flush()
		for b.Len()%1024 != 0 && b.Len() > 0 {
			b.WriteByte(0)
		}
		start := uint64(b.Len())
		write()
		e.w.Flush()
		bounds = append(bounds, start, uint64(b.Len()))
	}
	section(func() {
		e.raw([]byte(hpcrun.ProfileMagic + "04.00b"))
		e.nv(p.NV)
	})
	section(func() {
		e.u32(uint32(len(ep.LoadModules)))
		for _, lm := range ep.LoadModules {
			e.u16(lm.ID)
			e.str(lm.Name)
			e.u64(lm.Flags)
		}
	})
	section(func() {
		e.u64(uint64(len(nodes)))
		for _, n := range nodes {
			e.u32(n.AbsID())
			e.u32(n.Parent)
			e.u16(n.LMID)
			e.u64(n.IP)
			e.raw([]byte{n.Flags})
		}
	})
	section(func() {
		e.u32(uint32(len(ep.Metrics)))
		for _, m := range ep.Metrics {
			e.metric(&m, hpcrun.LayoutC)
		}
	})
	kinds := []string{"SUMMARY", "NODE", "RANK", "THREAD"}
	section(func() {
		e.u16(uint16(len(kinds)))
		for k, name := range kinds {
			e.u16(uint16(k))
			e.str(name)
		}
	})
	section(func() {
		e.u16(3)
		for kind := uint16(1); kind <= 3; kind++ {
			e.u16(kind)
			e.u64(0)
			e.u64(0)
		}
		type entry struct {
			id    uint32
			start uint64
		}
		var vals [][2]uint64 // value bits, metric id
		var index []entry
		for _, n := range nodes {
			start := uint64(len(vals))
			for m, v := range n.Values {
				if v != 0 {
					vals = append(vals, [2]uint64{v, uint64(m)})
				}
			}
			if uint64(len(vals)) > start {
				index = append(index, entry{n.AbsID(), start})
			}
		}
		e.u64(uint64(len(vals)))
		e.u32(uint32(len(index)))
		for _, v := range vals {
			e.u64(v[0])
			e.u16(uint16(v[1]))
		}
		for _, x := range index {
			e.u32(x.id)
			e.u64(x.start)
		}
		e.u32(0x656E6421) // "end!"
		e.u64(uint64(len(vals)))
	})
	e.w.Flush()
	for b.Len()%1024 != 0 {
		b.WriteByte(0)
	}
	footer := uint64(b.Len())
	for _, x := range append(bounds, footer) {
		e.u64(x)
	}
	e.raw([]byte("HPCRUNsm"))
	if e.w.Flush(); e.err != nil {
		return e.err
	}
	_, err := w.Write(b.Bytes())
	return err
}
