package interchange

import (
	"cmp"
	"io"
	"math"
	"slices"
	"sync"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// TimeBins is the number of time bins of summary/time-profile.csv.
const TimeBins = 100

// A summary is what summary/ shows of a trace: per track and region
// (event name) its count and its inclusive and exclusive time, and the
// exclusive time of each region in each of TimeBins bins. It reads every
// track once per view on first use and keeps only the sums, which it
// saves beside the on-disk index (render.Saved) when no track ended on a
// data error: a later mount of the same trace reads them back instead.
type summary struct {
	tr Trace

	regSaved, binSaved render.Saved // set by Bind, before first use

	once    sync.Once
	regions []regionRow
	end     int64 // the latest event end: the bins span [0, end]
	err     error // the first data error (the rows hold what came before)

	binOnce sync.Once
	binEnd  int64 // end when the bins were made
	bins    []binRow
	names   [][2]string // name and category of each binRow.region
	binErr  error
}

type regionKey struct {
	track     int
	name, cat string
}

type regionRow struct {
	regionKey
	count, inc, exc int64
}

// A binRow is one cell of time-profile.csv: 16 bytes, the region by its
// index in summary.names (a trace has few distinct regions and a hundred
// bins of each).
type binRow struct {
	bin, region int32
	exc         int64
}

// cellKey is a bin and a region in one map key.
func cellKey(bin int, region int32) uint64 { return uint64(bin)<<32 | uint64(uint32(region)) }

// A span is an emitted complete event not yet claimed by an enclosing one.
type span struct{ ts, end int64 }

// walk reads every track and calls fn for each event with the complete
// events it directly encloses (those emitted before it, inside it, and
// not inside another one). A data error ends its track and is returned
// (the first one) after the other tracks are read; any other error stops.
func walk(tr Trace, fn func(track int, e *Event, children []span)) error {
	var first error
	var stack []span
	for i := range tr.Tracks() {
		stack = stack[:0]
		ev, err := tr.Events(i, Pos{})
		emit := func(e *Event) {
			if e.Instant {
				fn(i, e, nil)
				return
			}
			k := len(stack)
			for k > 0 && stack[k-1].ts >= e.TS && stack[k-1].end <= e.End() {
				k--
			}
			fn(i, e, stack[k:])
			stack = append(stack[:k], span{e.TS, e.End()})
		}
		for err == nil {
			err = ev.Next(emit)
		}
		switch {
		case err == io.EOF:
		case render.IsDataError(err):
			if first == nil {
				first = err
			}
		default:
			return err
		}
	}
	return first
}

func (s *summary) regionRows() ([]regionRow, error) {
	s.once.Do(func() {
		if s.loadRegions() {
			return
		}
		rows := map[regionKey]*regionRow{}
		s.err = walk(s.tr, func(track int, e *Event, children []span) {
			k := regionKey{track, e.Name, e.Cat}
			r := rows[k]
			if r == nil {
				r = &regionRow{regionKey: k}
				rows[k] = r
			}
			r.count++
			s.end = max(s.end, e.End())
			if e.Instant {
				return
			}
			r.inc += e.Dur
			r.exc += e.Dur
			for _, c := range children {
				r.exc -= c.end - c.ts
			}
		})
		for _, r := range rows {
			s.regions = append(s.regions, *r)
		}
		slices.SortFunc(s.regions, func(a, b regionRow) int {
			return cmp.Or(cmp.Compare(a.track, b.track), cmp.Compare(b.inc, a.inc), cmp.Compare(b.count, a.count),
				cmp.Compare(a.name, b.name), cmp.Compare(a.cat, b.cat))
		})
		keep(s.regSaved, s.err, s.encodeRegions)
	})
	return s.regions, s.err
}

// encodeRegions is what regSaved keeps: the end, then the rows.
func (s *summary) encodeRegions() []byte {
	w := startSaved(s.end, len(s.regions))
	for _, r := range s.regions {
		w.Uint(uint64(r.track)).String(r.name).String(r.cat).Int(r.count).Int(r.inc).Int(r.exc)
	}
	return w.Bytes()
}

// keep saves what encode writes in sv when err is nil: a data error
// means the sums are partial, and a later mount reads the trace again.
func keep(sv render.Saved, err error, encode func() []byte) {
	if err == nil {
		sv.Store(encode())
	}
}

// startSaved begins the bytes openSaved reads: the end, then a count.
func startSaved(end int64, n int) *render.StateWriter {
	w := new(render.StateWriter)
	w.Int(end).Uint(uint64(n))
	return w
}

// openSaved is a reader of the bytes sv kept (nil when none), the end
// they start with, and their length (which bounds every count in them).
func openSaved(sv render.Saved) (r *render.StateReader, end int64, size uint64) {
	b := sv.Load()
	if b == nil {
		return nil, 0, 0
	}
	r = render.NewStateReader(b)
	return r, r.Int(0, math.MaxInt64), uint64(len(b))
}

// loadRegions reads the rows regSaved kept, checking every field; a
// damaged file is removed (and the rows computed again).
func (s *summary) loadRegions() bool {
	r, end, size := openSaved(s.regSaved)
	if r == nil {
		return false
	}
	n := r.Uint(size / 6) // a row is 6 fields of a byte at least
	tracks := uint64(len(s.tr.Tracks()))
	rows := make([]regionRow, 0, n)
	for range n {
		row := regionRow{regionKey: regionKey{track: int(r.Uint(max(tracks, 1) - 1)), name: r.String(), cat: r.String()}}
		row.count, row.inc, row.exc = r.Int(0, math.MaxInt64), r.Int(math.MinInt64, math.MaxInt64), r.Int(math.MinInt64, math.MaxInt64)
		rows = append(rows, row)
	}
	if r.Err() != nil || (n > 0 && tracks == 0) {
		s.regSaved.Discard()
		return false
	}
	s.end, s.regions = end, rows
	return true
}

// binEdge is where bin k starts: k/TimeBins of end, rounded down.
func binEdge(end int64, k int) int64 {
	return end/TimeBins*int64(k) + end%TimeBins*int64(k)/TimeBins
}

// addBins adds v times the overlap of [ts, end) with each bin to row's
// cells of those bins.
func addBins(cells map[uint64]int64, region int32, span, ts, end, v int64) {
	if end <= ts {
		return
	}
	k := binOf(span, ts)
	for ; k < TimeBins; k++ {
		lo, hi := max(ts, binEdge(span, k)), min(end, binEdge(span, k+1))
		if k == TimeBins-1 {
			hi = end
		}
		if hi > lo {
			cells[cellKey(k, region)] += v * (hi - lo)
		}
		if hi >= end {
			return
		}
	}
}

// binOf is the bin holding time t.
func binOf(end, t int64) int {
	if end <= 0 || t <= 0 {
		return 0
	}
	k := int(min(t/max(end/TimeBins, 1), TimeBins-1))
	for k > 0 && binEdge(end, k) > t {
		k--
	}
	for k < TimeBins-1 && binEdge(end, k+1) <= t {
		k++
	}
	return k
}

func (s *summary) binRows() ([]binRow, error) {
	s.binOnce.Do(func() {
		if s.loadBins() {
			return
		}
		if _, s.binErr = s.regionRows(); s.binErr != nil && !render.IsDataError(s.binErr) {
			return
		}
		end := s.end
		s.binEnd = end
		cells := map[uint64]int64{}
		regions := map[[2]string]int32{}
		s.binErr = walk(s.tr, func(track int, e *Event, children []span) {
			if e.Instant {
				return
			}
			r, ok := regions[[2]string{e.Name, e.Cat}]
			if !ok {
				r = int32(len(s.names))
				regions[[2]string{e.Name, e.Cat}] = r
				s.names = append(s.names, [2]string{e.Name, e.Cat})
			}
			addBins(cells, r, end, e.TS, e.End(), 1)
			for _, c := range children {
				addBins(cells, r, end, c.ts, c.end, -1)
			}
		})
		for k, v := range cells {
			if v != 0 {
				s.bins = append(s.bins, binRow{int32(k >> 32), int32(uint32(k)), v})
			}
		}
		slices.SortFunc(s.bins, func(a, b binRow) int {
			na, nb := &s.names[a.region], &s.names[b.region]
			return cmp.Or(cmp.Compare(a.bin, b.bin), cmp.Compare(b.exc, a.exc), cmp.Compare(na[0], nb[0]), cmp.Compare(na[1], nb[1]))
		})
		keep(s.binSaved, s.binErr, s.encodeBins)
	})
	return s.bins, s.binErr
}

// encodeBins is what binSaved keeps: the end, the region names, the cells.
func (s *summary) encodeBins() []byte {
	w := startSaved(s.binEnd, len(s.names))
	for _, n := range s.names {
		w.String(n[0]).String(n[1])
	}
	w.Uint(uint64(len(s.bins)))
	for _, c := range s.bins {
		w.Uint(uint64(c.bin)).Uint(uint64(c.region)).Int(c.exc)
	}
	return w.Bytes()
}

// loadBins reads the cells binSaved kept, checking every field.
func (s *summary) loadBins() bool {
	r, end, size := openSaved(s.binSaved)
	if r == nil {
		return false
	}
	names := make([][2]string, r.Uint(size/2))
	for i := range names {
		names[i] = [2]string{r.String(), r.String()}
	}
	bins := make([]binRow, r.Uint(size/3))
	for i := range bins {
		bins[i] = binRow{int32(r.Uint(TimeBins - 1)), int32(r.Uint(uint64(max(len(names), 1) - 1))), r.Int(math.MinInt64, math.MaxInt64)}
	}
	if r.Err() != nil || (len(bins) > 0 && len(names) == 0) {
		s.binSaved.Discard()
		return false
	}
	s.binEnd, s.names, s.bins = end, names, bins
	return true
}

// partialTable is a table of n rows filled by fill, plan giving n (and
// the rows) on first use; a data error ends the table after the rows (as
// the rows hold what came before it), any other error fails it.
func partialTable(cols []render.Column, plan func() (int64, error), fill func(i int64, row *render.Row)) *render.Table {
	return &render.Table{Columns: cols, Open: func(pos []byte) (render.Scanner, error) {
		n, err := plan()
		if err != nil && !render.IsDataError(err) {
			return nil, err
		}
		return render.Groups(1, func(int64) (int64, func(int64, *render.Row) error, error) {
			return n, func(i int64, row *render.Row) error { fill(i, row); return nil }, err
		})(pos)
	}}
}

var regionColumns = []render.Column{{Name: "pid", Kind: render.Int}, {Name: "tid", Kind: render.Int},
	{Name: "thread"}, {Name: "name"}, {Name: "category"}, {Name: "count", Kind: render.Int},
	{Name: "duration_ns_inc", Kind: render.Ns}, {Name: "duration_ns_exc", Kind: render.Ns}}

// regionsTable is summary/regions.csv.
func (s *summary) regionsTable() *render.Table {
	t := partialTable(regionColumns, func() (int64, error) {
		rows, err := s.regionRows()
		return int64(len(rows)), err
	}, func(i int64, row *render.Row) {
		r := &s.regions[i]
		t := &s.tr.Tracks()[r.track]
		row.Int(t.Pid).Int(t.Tid).Str(t.Thread).Str(r.name).Str(r.cat).Int(r.count).Int(r.inc).Int(r.exc)
	})
	t.Bind = func(b render.Binding) { s.regSaved = render.SavedFor(b, "regions") }
	return t
}

var binColumns = []render.Column{{Name: "bin", Kind: render.Int}, {Name: "t_ns", Kind: render.Ns},
	{Name: "end_t_ns", Kind: render.Ns}, {Name: "name"}, {Name: "category"}, {Name: "duration_ns_exc", Kind: render.Ns}}

// timeProfileTable is summary/time-profile.csv.
func (s *summary) timeProfileTable() *render.Table {
	t := partialTable(binColumns, func() (int64, error) {
		rows, err := s.binRows()
		return int64(len(rows)), err
	}, func(i int64, row *render.Row) {
		r := &s.bins[i]
		k := int(r.bin)
		name := &s.names[r.region]
		row.Int(int64(k)).Int(binEdge(s.binEnd, k)).Int(binEdge(s.binEnd, k+1)).Str(name[0]).Str(name[1]).Int(r.exc)
	})
	t.Bind = func(b render.Binding) { s.binSaved = render.SavedFor(b, "bins") }
	return t
}

// summaryDir is summary/ of a trace; its tables report through their
// Binding.
func summaryDir(tr Trace) *vfs.Dir {
	s := &summary{tr: tr}
	dir := vfs.NewDir()
	dir.AddFile("regions.csv", s.regionsTable().CSV())
	dir.AddFile("time-profile.csv", s.timeProfileTable().CSV())
	return dir
}
