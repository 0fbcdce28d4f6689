package interchange

import (
	"cmp"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// TimeBins is the number of time bins of summary/time-profile.csv.
const TimeBins = 100

// A summary is what summary/ shows of a trace: per track and region
// (event name) its count and its inclusive and exclusive time, and the
// exclusive time of each region in each of TimeBins bins. It reads every
// track once per view on first use and keeps only the sums.
type summary struct {
	tr Trace

	once    sync.Once
	regions []regionRow
	end     int64 // the latest event end: the bins span [0, end]
	err     error // the first data error (the rows hold what came before)

	binOnce sync.Once
	bins    []binRow
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

type binKey struct {
	bin       int
	name, cat string
}

type binRow struct {
	binKey
	exc int64
}

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
	})
	return s.regions, s.err
}

// binEdge is where bin k starts: k/TimeBins of end, rounded down.
func binEdge(end int64, k int) int64 {
	return end/TimeBins*int64(k) + end%TimeBins*int64(k)/TimeBins
}

// addBins adds v times the overlap of [ts, end) with each bin to row's
// cells of those bins.
func addBins(cells map[binKey]int64, name, cat string, span, ts, end, v int64) {
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
			cells[binKey{k, name, cat}] += v * (hi - lo)
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
		if _, s.binErr = s.regionRows(); s.binErr != nil && !render.IsDataError(s.binErr) {
			return
		}
		end := s.end
		cells := map[binKey]int64{}
		s.binErr = walk(s.tr, func(track int, e *Event, children []span) {
			if e.Instant {
				return
			}
			addBins(cells, e.Name, e.Cat, end, e.TS, e.End(), 1)
			for _, c := range children {
				addBins(cells, e.Name, e.Cat, end, c.ts, c.end, -1)
			}
		})
		for k, v := range cells {
			if v != 0 {
				s.bins = append(s.bins, binRow{k, v})
			}
		}
		slices.SortFunc(s.bins, func(a, b binRow) int {
			return cmp.Or(cmp.Compare(a.bin, b.bin), cmp.Compare(b.exc, a.exc), cmp.Compare(a.name, b.name), cmp.Compare(a.cat, b.cat))
		})
	})
	return s.bins, s.binErr
}

func (s *summary) regionsCSV() ([]byte, error) {
	rows, err := s.regionRows()
	if err != nil && !render.IsDataError(err) {
		return nil, err
	}
	tracks := s.tr.Tracks()
	b := []byte("pid,tid,thread,name,category,count,duration_ns_inc,duration_ns_exc\n")
	for _, r := range rows {
		t := &tracks[r.track]
		b = render.AppendCSVRow(b, strconv.FormatInt(t.Pid, 10), strconv.FormatInt(t.Tid, 10), t.Thread, r.name, r.cat,
			strconv.FormatInt(r.count, 10), strconv.FormatInt(r.inc, 10), strconv.FormatInt(r.exc, 10))
	}
	return b, err
}

func (s *summary) timeProfileCSV() ([]byte, error) {
	rows, err := s.binRows()
	if err != nil && !render.IsDataError(err) {
		return nil, err
	}
	b := []byte("bin,t_ns,end_t_ns,name,category,duration_ns_exc\n")
	for _, r := range rows {
		end := binEdge(s.end, r.bin+1)
		b = render.AppendCSVRow(b, strconv.Itoa(r.bin), strconv.FormatInt(binEdge(s.end, r.bin), 10), strconv.FormatInt(end, 10),
			r.name, r.cat, strconv.FormatInt(r.exc, 10))
	}
	return b, err
}

// summaryDir is summary/ of a trace.
func summaryDir(tr Trace, report func(view string) func(error)) *vfs.Dir {
	s := &summary{tr: tr}
	dir := vfs.NewDir()
	dir.AddFile("regions.csv", render.Bytes(s.regionsCSV, report("summary/regions.csv")))
	dir.AddFile("time-profile.csv", render.Bytes(s.timeProfileCSV, report("summary/time-profile.csv")))
	return dir
}
