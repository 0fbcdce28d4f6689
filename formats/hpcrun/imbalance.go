package hpcrun

import (
	"slices"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/stats"
	"github.com/hpcfs/hpcfs/render"
)

// imbalanceLimit bounds the calling contexts imbalance.csv merges over
// the profiles (about 100 bytes each, with the statistics of one metric).
const imbalanceLimit = 1 << 18

// imbalance is imbalance.csv of a measurement directory: the calling
// contexts of all profiles merged by path (load module and address of
// every frame), with statistics of each inclusive metric over the
// profiles that have a value there.
type imbalance struct {
	once   sync.Once
	parent []int32  // merged context -> its parent, -1 for a root
	label  []string // module+0xoffset of its frame
	rows   []ctxStat
	cols   []string // metric columns (cct.csv's names without _inc)
	err    error
}

type ctxKey struct {
	parent int32
	module string
	ip     uint64
}

// ctxStat is one row: the statistics of one metric at one merged
// context over the profiles.
type ctxStat struct {
	stats.Acc
	ctx, metric int32
}

func (m *mount) imbalance() *imbalance {
	im := &m.imb
	im.once.Do(func() {
		byKey := map[ctxKey]int32{}
		colOf := map[string]int{}
		var byMetric [][]ctxStat // metric -> merged context -> statistics
		var cut bool
		for pi, p := range m.profiles {
			f, err := p.open()
			if err != nil {
				continue // reported by the profile's own views
			}
			a, err := p.analysis()
			if err != nil {
				continue
			}
			cols := p.cctLayout(f)
			local := map[int32][]float64{} // merged context -> this profile's inclusive values by metric
			for ei, ea := range a.epochs {
				e := ea.e
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
					k := ctxKey{par, module, ip}
					c, ok := byKey[k]
					if !ok {
						if len(im.parent) >= imbalanceLimit {
							cut = true
							return
						}
						c = int32(len(im.parent))
						byKey[k] = c
						im.parent = append(im.parent, par)
						name = appendLocation(name[:0], e, lmID, ip)
						im.label = append(im.label, string(name))
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
						j, ok := colOf[name]
						if !ok {
							j = len(im.cols)
							colOf[name] = j
							im.cols = append(im.cols, name)
							byMetric = append(byMetric, nil)
						}
						vals := local[c]
						for len(vals) <= j {
							vals = append(vals, 0)
						}
						vals[j] += v
						local[c] = vals
					}
				})
			}
			for c, vals := range local {
				for j, v := range vals {
					if v == 0 {
						continue
					}
					for len(byMetric[j]) <= int(c) {
						byMetric[j] = append(byMetric[j], ctxStat{ctx: int32(len(byMetric[j])), metric: int32(j)})
					}
					byMetric[j][c].Add(v, int32(pi))
				}
			}
		}
		if cut {
			m.src.Errors.Report("imbalance.csv", errString("more than 262144 distinct calling contexts: the others are left out"))
		}
		for _, st := range byMetric {
			for _, s := range st {
				if s.Count > 0 {
					im.rows = append(im.rows, s)
				}
			}
		}
		slices.SortStableFunc(im.rows, func(a, b ctxStat) int { return stats.Worse(&a.Acc, &b.Acc) })
	})
	return im
}

type errString string

func (e errString) Error() string { return string(e) }

// path is root;...;leaf of merged context c.
func (im *imbalance) path(c int32) string {
	var parts []string
	for ; c >= 0; c = im.parent[c] {
		parts = append(parts, im.label[c])
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
	return &render.Table{Columns: cols, Open: func(pos []byte) (render.Scanner, error) {
		im := m.imbalance()
		if im.err != nil {
			return nil, im.err
		}
		return render.Counted(int64(len(im.rows)), func(i int64, r *render.Row) error {
			s := &im.rows[i]
			mean, sd := s.Mean(), s.StdDev()
			r.Str("context").Str(im.path(s.ctx)).Str(im.label[s.ctx]).Str(im.cols[s.metric] + "_inc").Int(int64(s.Count))
			r.Float(s.Min).Float(mean).Float(s.Max).Float(sd).Float(sd / mean).Float(s.Max / mean)
			r.Str(m.profiles[s.ArgMax].name)
			return nil
		})(pos)
	}}
}
