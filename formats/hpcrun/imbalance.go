package hpcrun

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/stats"
	"github.com/hpcfs/hpcfs/render"
)

// imbalanceBudget bounds the memory imbalance.csv takes while it merges
// the profiles' calling contexts: it holds as many contexts as fit, at
// imbalanceContextBytes each plus imbalanceCellBytes per metric, and
// leaves the others out (said in _errors.txt).
const imbalanceBudget = 24 << 20

// imbalanceContextBytes is the memory of one merged context without its
// metrics: its parent, label and address (16 bytes), the merging map's
// entry (16-byte key and 4-byte value, about 40 bytes with the map's
// slack and its growth) and the profile stamp (4).
// imbalanceCellBytes is that of one metric at one context: its
// statistics (40 bytes), the profile's running sum (8) and its row (8).
const (
	imbalanceContextBytes = 72
	imbalanceCellBytes    = 56
)

// imbalance is imbalance.csv of a measurement directory: the calling
// contexts of all profiles merged by path (load module and address of
// every frame), with statistics of each inclusive metric over the
// profiles that have a value there. Every context is numbers in flat
// slices indexed by the context.
type imbalance struct {
	parent []int32       // merged context -> its parent, -1 for a root
	label  []uint32      // merged context -> its frame's label in labels, labelBare set when it has no +0x<ip>
	ip     []uint64      // merged context -> its frame's address
	labels []string      // the labels' modules (module+0x<ip> without +0x<ip>)
	stats  [][]stats.Acc // metric -> merged context -> statistics
	rows   []uint64      // metric<<32 | merged context, worst first
	cols   []string      // metric columns (cct.csv's names without _inc)
	err    error

	// problems are what the merge left out (contexts past the budget),
	// reported by imbalance.csv through its binding
	problems decode.Problems
}

const labelBare = 1 << 31

// ctxKey is a merged context: its parent, its frame's module (index of
// the module's name) and address.
type ctxKey struct {
	parent int32
	module uint32
	ip     uint64
}

// imbalanceBuild is the state of imbalance while it merges profiles.
type imbalanceBuild struct {
	im      *imbalance
	byKey   map[ctxKey]int32
	modOf   map[string]uint32
	labelOf map[string]uint32
	colOf   map[string]int
	metrics map[string]bool // metric names seen: each costs imbalanceCellBytes per context
	local   [][]float64     // metric -> merged context -> this profile's inclusive value
	stamp   []int32         // merged context -> 1 + the last profile that has it
	touched []int32         // the merged contexts of this profile
	limit   int             // contexts that fit imbalanceBudget, from the metrics seen
	cut     bool
}

func (m *mount) imbalance() *imbalance {
	return m.imb.Get(func() (*imbalance, int64) {
		im := &imbalance{}
		b := &imbalanceBuild{im: im, byKey: map[ctxKey]int32{}, modOf: map[string]uint32{}, labelOf: map[string]uint32{},
			colOf: map[string]int{}, metrics: map[string]bool{}}
		for pi, p := range m.profiles {
			b.profile(p, int32(pi))
		}
		if b.cut {
			im.problems.Add(fmt.Errorf("more than %d distinct calling contexts (%d MB of statistics with %d metrics): the others are left out",
				b.limit, imbalanceBudget>>20, len(b.metrics)))
		}
		for j, st := range im.stats {
			for c := range st {
				if st[c].Count > 0 {
					im.rows = append(im.rows, uint64(j)<<32|uint64(c))
				}
			}
		}
		slices.SortStableFunc(im.rows, func(a, b uint64) int { return stats.Worse(im.acc(a), im.acc(b)) })
		return im, im.bytes()
	})
}

// bytes is about what the statistics keep once merged.
func (im *imbalance) bytes() int64 {
	n := int64(len(im.parent))*4 + int64(len(im.label))*4 + int64(len(im.ip))*8 + int64(len(im.rows))*8
	for _, st := range im.stats {
		n += int64(len(st)) * int64(unsafe.Sizeof(stats.Acc{}))
	}
	for _, l := range im.labels {
		n += int64(len(l))
	}
	return n
}

// profile merges the contexts of profile p (number pi) and counts its
// values.
func (b *imbalanceBuild) profile(p *profile, pi int32) {
	im := b.im
	f, err := p.open()
	if err != nil {
		return // reported by the profile's own views
	}
	a, err := p.analysis()
	if err != nil {
		return
	}
	cols := p.cctLayout(f)
	for ei, ea := range a.epochs {
		e := ea.e
		for k := range e.Metrics {
			b.metrics[cols.names[cols.byEpoch[ei][k]]] = true
		}
		b.limit = imbalanceBudget / (imbalanceContextBytes + imbalanceCellBytes*max(len(b.metrics), 1))
		nodes := newNodeCache(f, e)
		merged := make([]int32, ea.n)
		var name []byte
		var nd hpcrun.Node
		ea.eachParent(func(i uint64, parent int32) {
			merged[i] = -1
			par := int32(-1)
			if parent >= 0 {
				if par = merged[parent]; par < 0 {
					return // under a cut context
				}
			}
			raw, err := nodes.node(i)
			if err != nil {
				im.err = err
				return
			}
			e.DecodeNode(raw, &nd)
			lmID, ip := nd.LMID, nd.IP
			module := ""
			if lm := e.LoadModule(lmID); lm != nil {
				module = lm.Name
			}
			mod, ok := b.modOf[module]
			if !ok {
				mod = uint32(len(b.modOf))
				b.modOf[module] = mod
			}
			k := ctxKey{par, mod, ip}
			c, ok := b.byKey[k]
			if !ok {
				if len(im.parent) >= b.limit {
					b.cut = true
					return
				}
				c = int32(len(im.parent))
				b.byKey[k] = c
				im.parent = append(im.parent, par)
				im.ip = append(im.ip, ip)
				name = appendLocation(name[:0], e, lmID, ip)
				im.label = append(im.label, b.labelID(name, ip))
				b.stamp = append(b.stamp, 0)
			}
			merged[i] = c
			for k := range e.Metrics {
				var bits uint64
				if ea.hasChildren(i) {
					bits = ea.incOf(i)[k]
				} else {
					bits = nd.Values[k]
				}
				v := ea.asFloat(bits, k)
				if v == 0 {
					continue
				}
				name := cols.names[cols.byEpoch[ei][k]]
				j, ok := b.colOf[name]
				if !ok {
					j = len(im.cols)
					b.colOf[name] = j
					im.cols = append(im.cols, name)
					im.stats = append(im.stats, nil)
					b.local = append(b.local, nil)
				}
				if b.stamp[c] != pi+1 {
					b.stamp[c] = pi + 1
					b.touched = append(b.touched, c)
				}
				b.local[j] = grow(b.local[j], int(c)+1)
				b.local[j][c] += v
			}
		})
	}
	for _, c := range b.touched {
		for j, vals := range b.local {
			if int(c) >= len(vals) || vals[c] == 0 {
				continue
			}
			im.stats[j] = grow(im.stats[j], int(c)+1)
			im.stats[j][c].Add(vals[c], pi)
			vals[c] = 0
		}
	}
	b.touched = b.touched[:0]
}

// grow is s with at least n elements, the new ones zero (s never
// shrinks, so the capacity beyond its length is zero).
func grow[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	return slices.Grow(s, n-len(s))[:n]
}

// labelID is the label of a frame at ip named name (appendLocation's):
// the index of its module part in labels, or of the whole name with
// labelBare when it does not end in +0x<ip>.
func (b *imbalanceBuild) labelID(name []byte, ip uint64) uint32 {
	var suffix [20]byte
	s := strconv.AppendUint(append(suffix[:0], "+0x"...), ip, 16)
	var bare uint32
	if bytes.HasSuffix(name, s) {
		name = name[:len(name)-len(s)]
	} else {
		bare = labelBare
	}
	id, ok := b.labelOf[string(name)]
	if !ok {
		id = uint32(len(b.im.labels))
		b.labelOf[string(name)] = id
		b.im.labels = append(b.im.labels, string(name))
	}
	return id | bare
}

// acc is the statistics of row r.
func (im *imbalance) acc(r uint64) *stats.Acc { return &im.stats[r>>32][uint32(r)] }

// name is the label of merged context c: module+0x<ip> of its frame.
func (im *imbalance) name(c int32) string {
	l := im.label[c]
	if l&labelBare != 0 {
		return im.labels[l&^labelBare]
	}
	return im.labels[l] + "+0x" + strconv.FormatUint(im.ip[c], 16)
}

// path is root;...;leaf of merged context c.
func (im *imbalance) path(c int32) string {
	var parts []string
	for ; c >= 0; c = im.parent[c] {
		parts = append(parts, im.name(c))
	}
	slices.Reverse(parts)
	return strings.Join(parts, ";")
}

// imbalanceTable is imbalance.csv.
func (m *mount) imbalanceTable() *render.Table {
	cols := []render.Column{{Name: "kind", Kind: render.String}, {Name: "path", Kind: render.String}, {Name: "name", Kind: render.String},
		{Name: "metric", Kind: render.String}, {Name: "count", Kind: render.Int}}
	for _, n := range []string{"min", "mean", "max", "stddev", "cv", "max_over_mean"} {
		cols = append(cols, render.Column{Name: n, Kind: render.Float})
	}
	cols = append(cols, render.Column{Name: "max_profile", Kind: render.String})
	var report render.Reporter
	return &render.Table{Columns: cols, Bind: report.Bind, Open: func(pos []byte) (render.Scanner, error) {
		im := m.imbalance()
		report.All(im.problems)
		if im.err != nil {
			return nil, im.err
		}
		return render.Counted(int64(len(im.rows)), func(i int64, r *render.Row) error {
			row := im.rows[i]
			s, c := im.acc(row), int32(uint32(row))
			mean, sd := s.Mean(), s.StdDev()
			r.Str("context").Str(im.path(c)).Str(im.name(c)).Str(im.cols[row>>32] + "_inc").Int(int64(s.Count))
			r.Float(s.Min).Float(mean).Float(s.Max).Float(sd).Float(sd / mean).Float(s.Max / mean)
			r.Str(m.profiles[s.ArgMax].name)
			return nil
		})(pos)
	}}
}
