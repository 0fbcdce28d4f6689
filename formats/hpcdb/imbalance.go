package hpcdb

import (
	"math"
	"slices"
	"strconv"
	"unsafe"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/stats"
	"github.com/hpcfs/hpcfs/render"
)

// imbalanceBudget bounds the statistics imbalance.csv keeps (48 bytes a
// row): contexts and procedures of the metrics that fit, in metric order.
const imbalanceBudget = 24 << 20

// stat is one row: the statistics of one metric at a context or
// procedure over the thread profiles.
type stat struct {
	stats.Acc
	entity int32 // ctx id, or procedure row for procedures
	metric int16 // index into imbalance.metrics
	proc   bool
}

// imbalance is the statistics of imbalance.csv (render.Retained: let go
// under the process's budget once sized, made again when read).
type imbalance struct {
	metrics []metricCol // the thread profiles' inclusive metrics covered
	procs   []procAgg   // procedure rows
	rows    []stat      // rows with a value, worst first
	err     error       // a thread profile's values unreadable: no rows

	// problems are what the pass left out (a metric past the budget,
	// contexts past an unreadable index), reported by imbalance.csv
	// through its binding
	problems decode.Problems

	fromSummary int // contexts whose statistics are the summary profile's
}

// hpcStats are the statMetricIds of the partials hpcprof --stats writes
// for one propagated metric (src/hpcprof/metric.cpp, Metric::freeze):
// over the thread profiles with a value, their count (formula "1"), sum
// ("$$"), sum of squares ("($$^2)"), all combined by sum, and min and max
// ("$$" combined by min and max).
type hpcStats struct{ count, sum, sq, min, max int }

// hpcStatIDs finds the hpcStats of the thread metric propID in meta.db:
// the summaries of its metric at its scope; false unless all five are
// there (the 4.0 generation and databases made without --stats).
func (m *model) hpcStatIDs(propID int) (hpcStats, bool) {
	if m.meta == nil {
		return hpcStats{}, false
	}
	for _, mt := range m.meta.Metrics {
		for _, sc := range mt.Scopes {
			if int(sc.PropMetricID) != propID {
				continue
			}
			ids := hpcStats{-1, -1, -1, -1, -1}
			partials := []struct {
				formula, combine string
				id               *int
			}{{"1", "sum", &ids.count}, {"$$", "sum", &ids.sum}, {"($$^2)", "sum", &ids.sq}, {"$$", "min", &ids.min}, {"$$", "max", &ids.max}}
			for _, su := range mt.Summaries {
				for _, p := range partials {
					if su.Scope == sc.Scope && su.Formula == p.formula && hpcdb.CombineName(su.Combine) == p.combine {
						*p.id = int(su.StatMetricID)
					}
				}
			}
			return ids, ids.count >= 0 && ids.sum >= 0 && ids.sq >= 0 && ids.min >= 0 && ids.max >= 0
		}
	}
	return hpcStats{}, false
}

// applyHPCStats replaces the count, sum, sum of squares, min and max of
// metric k in every context's stat with the summary profile's (profile 0),
// so that mean and stddev are HPCToolkit's own, whatever order it summed
// the threads in; where the maximum is (ArgMax) stays the threads'. It
// returns how many contexts it set.
func applyHPCStats(p *hpcdb.ProfileDB, ctxStat []stat, nm, k int, ids hpcStats) (int, error) {
	if len(p.Profiles) == 0 || !p.Profiles[0].IsSummary() {
		return 0, nil
	}
	set := 0
	var vals []hpcdb.MetricValue
	var valErr error
	err := forEachCtx(p, 0, func(c uint32, lo, hi uint64) bool {
		if int(c)*nm >= len(ctxStat) {
			return true
		}
		if vals, valErr = p.Values(0, lo, hi, vals[:0]); valErr != nil {
			return false
		}
		s := &ctxStat[int(c)*nm+k]
		var got stats.Acc
		for _, v := range vals {
			switch int(v.Metric) {
			case ids.count:
				got.Count = int32(v.Value)
			case ids.sum:
				got.Sum = v.Value
			case ids.sq:
				got.SumSq = v.Value
			case ids.min:
				got.Min = v.Value
			case ids.max:
				got.Max = v.Value
			}
		}
		if got.Count > 0 {
			got.ArgMax = s.ArgMax
			s.Acc = got
			set++
		}
		return true
	})
	if err == nil {
		err = valErr
	}
	return set, err
}

// procAgg is a row of procedures.csv: a procedure entered one way.
type procAgg struct {
	proc  int32
	rel   uint8
	first int // its first context, for module, file and line
}

// procInstances lists the procedures.csv rows in tree order and, for
// every procedure frame of the tree, its row (-1 elsewhere) and whether
// it is outermost: no enclosing frame is of the same procedure, so its
// inclusive value counts once per call path.
func (m *model) procInstances() (aggs []procAgg, of []int32, outer []bool) {
	of = make([]int32, m.numCtx)
	outer = make([]bool, m.numCtx)
	for i := range of {
		of[i] = -1
	}
	byKey := map[[2]int32]int32{}
	for _, c32 := range m.rows[:m.numListed] {
		c := int(c32)
		if m.kind(c) != hpcdb.NodePF {
			continue
		}
		proc := m.proc[c]
		k := [2]int32{proc, int32(m.tag[c].rel)}
		a, ok := byKey[k]
		if !ok {
			a = int32(len(aggs))
			byKey[k] = a
			aggs = append(aggs, procAgg{proc: proc, rel: m.tag[c].rel, first: c})
		}
		of[c] = a
		outer[c] = true
		for f := m.frame[m.parent[c]]; f >= 0; f = m.frame[m.parent[m.frameCtx[f]]] {
			if m.proc[m.frameCtx[f]] == proc {
				outer[c] = false
				break
			}
		}
	}
	return aggs, of, outer
}

// imbalance computes imbalance.csv's rows in one pass over the thread
// profiles: per context and per procedure (its outermost frames summed in
// each profile) and per inclusive metric, count, min, max, sum and sum of
// squares of the profiles' nonzero values.
func (d *db) imbalance() *imbalance {
	return d.imb.Get(func() (*imbalance, int64) {
		im := &imbalance{}
		d.sumImbalance(im)
		return im, int64(len(im.rows))*int64(unsafe.Sizeof(stat{})) + int64(len(im.procs))*int64(unsafe.Sizeof(procAgg{}))
	})
}

// sumImbalance fills im.
func (d *db) sumImbalance(im *imbalance) {
	m := d.model.get()
	p := d.profile
	if p == nil {
		return
	}
	var cols []int // index in m.thread of each covered metric
	aggs, of, outer := m.procInstances()
	perMetric := int64(m.numCtx+len(aggs)) * 48
	for j, c := range m.thread {
		if c.inc && int64(len(cols)+1)*perMetric <= imbalanceBudget && len(cols) < math.MaxInt16 {
			cols = append(cols, j)
			im.metrics = append(im.metrics, c)
		} else if c.inc {
			im.problems.Add(errString("metric " + c.name + " left out: the statistics of every metric would pass " + strconv.Itoa(imbalanceBudget>>20) + " MB"))
		}
	}
	im.procs = aggs
	colOf := map[int]int{} // thread metric id -> covered metric
	for k, j := range cols {
		colOf[m.thread[j].id] = k
	}
	nm := len(cols)
	ctxStat := make([]stat, m.numCtx*nm)
	procStat := make([]stat, len(aggs)*nm)
	procVal := make([]float64, len(aggs)*nm) // one profile's sums
	var touched []int32
	var vals []hpcdb.MetricValue
	for i := range p.Profiles {
		if i == 0 || p.Profiles[i].IsSummary() {
			continue
		}
		err := forEachCtx(p, i, func(c uint32, lo, hi uint64) bool {
			if int(c) >= m.numCtx {
				return true
			}
			var err error
			if vals, err = p.Values(i, lo, hi, vals[:0]); err != nil {
				im.err = err
				return false
			}
			for _, v := range vals {
				k, ok := colOf[int(v.Metric)]
				if !ok {
					continue
				}
				ctxStat[int(c)*nm+k].Add(v.Value, int32(i))
				if a := of[c]; a >= 0 && outer[c] {
					if procVal[int(a)*nm+k] == 0 {
						touched = append(touched, a*int32(nm)+int32(k))
					}
					procVal[int(a)*nm+k] += v.Value
				}
			}
			return true
		})
		im.problems.Add(err)
		for _, t := range touched {
			procStat[t].Add(procVal[t], int32(i))
			procVal[t] = 0
		}
		touched = touched[:0]
		if im.err != nil {
			return
		}
	}
	for k, c := range im.metrics {
		if ids, ok := m.hpcStatIDs(c.id); ok {
			set, err := applyHPCStats(p, ctxStat, nm, k, ids)
			im.fromSummary += set
			im.problems.Add(err)
		}
	}
	for k, s := range ctxStat {
		if s.Count > 0 && m.listed(k/nm) {
			s.entity, s.metric = int32(k/nm), int16(k%nm)
			im.rows = append(im.rows, s)
		}
	}
	for k, s := range procStat {
		if s.Count > 0 {
			s.entity, s.metric, s.proc = int32(k/nm), int16(k%nm), true
			im.rows = append(im.rows, s)
		}
	}
	slices.SortStableFunc(im.rows, func(a, b stat) int { return stats.Worse(&a.Acc, &b.Acc) })
	im.rows = slices.Clip(im.rows)
}

// imbalanceTable is imbalance.csv: a row per context or procedure and
// metric, the worst imbalance first.
func (d *db) imbalanceTable() *render.Table {
	var report render.Reporter
	return &render.Table{Columns: imbalanceColumns, Bind: report.Bind, Open: func(pos []byte) (render.Scanner, error) {
		im := d.imbalance()
		report.All(im.problems)
		if im.err != nil {
			return nil, im.err
		}
		m := d.model.get()
		return render.Counted(int64(len(im.rows)), func(i int64, r *render.Row) error {
			s := &im.rows[i]
			if s.proc {
				a := im.procs[s.entity]
				r.Str("procedure").Int(-1).Int(m.procIDs[a.proc]).Str(m.procName(a.proc))
			} else {
				r.Str("context").Int(int64(s.entity)).Int(-1).Str(m.ctxName(int(s.entity)))
			}
			mean, sd := s.Mean(), s.StdDev()
			r.Str(im.metrics[s.metric].column).Int(int64(s.Count))
			r.Float(s.Min).Float(mean).Float(s.Max).Float(sd).Float(sd / mean).Float(s.Max / mean)
			r.Str(m.profNames[s.ArgMax])
			return nil
		})(pos)
	}}
}

var imbalanceColumns = []render.Column{
	{Name: "kind"}, {Name: "ctx_id", Kind: render.Int}, {Name: "function_id", Kind: render.Int}, {Name: "name"},
	{Name: "metric"}, {Name: "count", Kind: render.Int},
	{Name: "min", Kind: render.Float}, {Name: "mean", Kind: render.Float}, {Name: "max", Kind: render.Float},
	{Name: "stddev", Kind: render.Float}, {Name: "cv", Kind: render.Float}, {Name: "max_over_mean", Kind: render.Float},
	{Name: "max_profile"},
}
