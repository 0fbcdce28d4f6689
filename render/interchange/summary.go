package interchange

import (
	"cmp"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"unsafe"

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
// The sums are render.Retained: a listing that sizes the views of many
// traces does not keep every trace's sums at once.
type summary struct {
	tr Trace

	regSaved, binSaved render.Saved // set by Bind, before first use

	reg render.Retained[*regionSums]
	bin render.Retained[*binSums]
}

// regionSums are the rows of regions.csv: row i is rows[order[i]].
// A trace of one sampled track has a region per distinct sample location
// (171,000 of a 250,000-node hpcrun profile), so the pass keeps them
// compact: rows in fixed blocks that grow without copying, found again
// through an idTable of their positions (4 bytes a slot), and sorted as
// int32 positions. Its peak is about the rows themselves; a map of keys
// to rows, the rows it pointed to and their sorted copy were 2.5 times
// that (+34 MB of server RSS for that profile's regions.csv).
type regionSums struct {
	rows  blocks[regionRow]
	order []int32
	end   int64 // the latest event end: the bins span [0, end]
	err   error // the first data error (the rows hold what came before)
}

// row is the i-th row of regions.csv.
func (v *regionSums) row(i int) *regionRow { return v.rows.at(int(v.order[i])) }

// add appends r as the next row in order.
func (v *regionSums) add(r regionRow) {
	v.order = append(v.order, int32(v.rows.Len()))
	v.rows.append(r)
}

// binSums are the cells of time-profile.csv.
type binSums struct {
	end   int64 // regionSums.end when the bins were made
	rows  []binRow
	names [][2]string // name and category of each binRow.region
	err   error
}

type regionKey struct {
	track     int
	name, cat string
}

// hash is k's hash under seed.
func (k *regionKey) hash(seed maphash.Seed) uint64 {
	return mix(maphash.String(seed, k.name) ^ maphash.String(seed, k.cat)*31 ^ uint64(k.track))
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

// binCells are time-profile.csv's cells while they are summed: like
// regionSums, in blocks found again through an idTable rather than in a
// map (whose slots, grown by doubling, were three times the cells).
type binCells struct {
	cells blocks[binRow]
	index idTable
}

func (c *binCells) hashOf(id int32) uint64 {
	r := c.cells.at(int(id))
	return mix(uint64(r.bin)<<32 | uint64(uint32(r.region)))
}

// add adds x to the cell of bin and region.
func (c *binCells) add(bin int, region int32, x int64) {
	h := mix(uint64(bin)<<32 | uint64(uint32(region)))
	id, slot := c.index.find(h, func(id int32) bool {
		r := c.cells.at(int(id))
		return int(r.bin) == bin && r.region == region
	})
	if id < 0 {
		id = int32(c.cells.Len())
		c.cells.append(binRow{bin: int32(bin), region: region})
		c.index.insert(slot, id, h, c.hashOf)
	}
	c.cells.at(int(id)).exc += x
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

// sums is what summary/ keeps of a whole pass: regionSums or binSums.
type sums interface {
	encode() []byte // what its render.Saved keeps
	partial() error // the data error that ended the pass, if any
	bytes() int64   // about what it keeps in memory
}

// retained is r's value: loaded from what sv kept when load finds it, else
// summed (and kept in sv when no data error ended the pass).
func retained[T sums](r *render.Retained[T], sv render.Saved, load func() (T, bool), sum func() T) T {
	return r.Get(func() (T, int64) {
		v, ok := load()
		if !ok {
			v = sum()
			keep(sv, v.partial(), v.encode)
		}
		return v, v.bytes()
	})
}

func (s *summary) regionRows() *regionSums {
	return retained(&s.reg, s.regSaved, func() (*regionSums, bool) { v := s.loadRegions(); return v, v != nil }, s.sumRegions)
}

func (v *regionSums) partial() error { return v.err }

func (v *regionSums) bytes() int64 {
	n := int64(v.rows.Len())*int64(unsafe.Sizeof(regionRow{})) + 4*int64(cap(v.order))
	for i := range v.rows.Len() {
		r := v.rows.at(i)
		n += int64(len(r.name) + len(r.cat))
	}
	return n
}

// sumRegions reads the trace for regions.csv.
func (s *summary) sumRegions() *regionSums {
	v := &regionSums{}
	var index idTable
	seed := maphash.MakeSeed()
	hashOf := func(id int32) uint64 { return v.rows.at(int(id)).hash(seed) }
	v.err = walk(s.tr, func(track int, e *Event, children []span) {
		k := regionKey{track, e.Name, e.Cat}
		h := k.hash(seed)
		id, slot := index.find(h, func(id int32) bool { return v.rows.at(int(id)).regionKey == k })
		if id < 0 {
			id = int32(v.rows.Len())
			v.add(regionRow{regionKey: k})
			index.insert(slot, id, h, hashOf)
		}
		r := v.rows.at(int(id))
		r.count++
		v.end = max(v.end, e.End())
		if e.Instant {
			return
		}
		r.inc += e.Dur
		r.exc += e.Dur
		for _, c := range children {
			r.exc -= c.end - c.ts
		}
	})
	slices.SortFunc(v.order, func(i, j int32) int {
		a, b := v.rows.at(int(i)), v.rows.at(int(j))
		return cmp.Or(cmp.Compare(a.track, b.track), cmp.Compare(b.inc, a.inc), cmp.Compare(b.count, a.count),
			cmp.Compare(a.name, b.name), cmp.Compare(a.cat, b.cat))
	})
	return v
}

// encode is what regSaved keeps: the end, then the rows.
func (v *regionSums) encode() []byte {
	w := startSaved(v.end, len(v.order))
	for i := range v.order {
		r := v.row(i)
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
// damaged file is removed (and the rows computed again): nil then.
func (s *summary) loadRegions() *regionSums {
	r, end, size := openSaved(s.regSaved)
	if r == nil {
		return nil
	}
	n := r.Uint(size / 6) // a row is 6 fields of a byte at least
	tracks := uint64(len(s.tr.Tracks()))
	v := &regionSums{end: end}
	for range n {
		row := regionRow{regionKey: regionKey{track: int(r.Uint(max(tracks, 1) - 1)), name: r.String(), cat: r.String()}}
		row.count, row.inc, row.exc = r.Int(0, math.MaxInt64), r.Int(math.MinInt64, math.MaxInt64), r.Int(math.MinInt64, math.MaxInt64)
		v.add(row)
	}
	if r.Err() != nil || (n > 0 && tracks == 0) {
		s.regSaved.Discard()
		return nil
	}
	return v
}

// binEdge is where bin k starts: k/TimeBins of end, rounded down.
func binEdge(end int64, k int) int64 {
	return end/TimeBins*int64(k) + end%TimeBins*int64(k)/TimeBins
}

// addBins adds v times the overlap of [ts, end) with each bin to row's
// cells of those bins.
func addBins(cells *binCells, region int32, span, ts, end, v int64) {
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
			cells.add(k, region, v*(hi-lo))
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

func (s *summary) binRows() *binSums {
	return retained(&s.bin, s.binSaved, func() (*binSums, bool) { v := s.loadBins(); return v, v != nil }, s.sumBins)
}

func (v *binSums) partial() error { return v.err }

func (v *binSums) bytes() int64 {
	n := int64(len(v.rows)) * int64(unsafe.Sizeof(binRow{}))
	for _, x := range v.names {
		n += int64(len(x[0]) + len(x[1]))
	}
	return n
}

// sumBins reads the trace for time-profile.csv, after regionRows (for
// the end of the trace).
func (s *summary) sumBins() *binSums {
	v := &binSums{}
	reg := s.regionRows()
	if v.err = reg.err; v.err != nil && !render.IsDataError(v.err) {
		return v
	}
	end := reg.end
	v.end = end
	cells := new(binCells)
	var regions idTable // v.names' ids
	seed := maphash.MakeSeed()
	nameHash := func(name, cat string) uint64 { return mix(maphash.String(seed, name) ^ maphash.String(seed, cat)*31) }
	hashOf := func(id int32) uint64 { return nameHash(v.names[id][0], v.names[id][1]) }
	v.err = walk(s.tr, func(track int, e *Event, children []span) {
		if e.Instant {
			return
		}
		h := nameHash(e.Name, e.Cat)
		r, slot := regions.find(h, func(id int32) bool { return v.names[id] == [2]string{e.Name, e.Cat} })
		if r < 0 {
			r = int32(len(v.names))
			v.names = append(v.names, [2]string{e.Name, e.Cat})
			regions.insert(slot, r, h, hashOf)
		}
		addBins(cells, r, end, e.TS, e.End(), 1)
		for _, c := range children {
			addBins(cells, r, end, c.ts, c.end, -1)
		}
	})
	n := 0
	for i := range cells.cells.Len() {
		if cells.cells.at(i).exc != 0 {
			n++
		}
	}
	v.rows = make([]binRow, 0, n)
	for i := range cells.cells.Len() {
		if c := cells.cells.at(i); c.exc != 0 {
			v.rows = append(v.rows, *c)
		}
	}
	slices.SortFunc(v.rows, func(a, b binRow) int {
		na, nb := &v.names[a.region], &v.names[b.region]
		return cmp.Or(cmp.Compare(a.bin, b.bin), cmp.Compare(b.exc, a.exc), cmp.Compare(na[0], nb[0]), cmp.Compare(na[1], nb[1]))
	})
	return v
}

// encode is what binSaved keeps: the end, the region names, the cells.
func (v *binSums) encode() []byte {
	w := startSaved(v.end, len(v.names))
	for _, n := range v.names {
		w.String(n[0]).String(n[1])
	}
	w.Uint(uint64(len(v.rows)))
	for _, c := range v.rows {
		w.Uint(uint64(c.bin)).Uint(uint64(c.region)).Int(c.exc)
	}
	return w.Bytes()
}

// loadBins reads the cells binSaved kept, checking every field; nil when
// there are none (or they were damaged).
func (s *summary) loadBins() *binSums {
	r, end, size := openSaved(s.binSaved)
	if r == nil {
		return nil
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
		return nil
	}
	return &binSums{end: end, names: names, rows: bins}
}

// partialTable is a table whose rows open gives on first use (their
// count and what fills row i, bound to the rows it read); a data error
// ends the table after the rows (as the rows hold what came before it),
// any other error fails it.
func partialTable(cols []render.Column, open func() (int64, func(i int64, row *render.Row), error)) *render.Table {
	return &render.Table{Columns: cols, Open: func(pos []byte) (render.Scanner, error) {
		n, fill, err := open()
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
	t := partialTable(regionColumns, func() (int64, func(int64, *render.Row), error) {
		v := s.regionRows()
		return int64(len(v.order)), func(i int64, row *render.Row) {
			r := v.row(int(i))
			t := &s.tr.Tracks()[r.track]
			row.Int(t.Pid).Int(t.Tid).Str(t.Thread).Str(r.name).Str(r.cat).Int(r.count).Int(r.inc).Int(r.exc)
		}, v.err
	})
	t.Bind = func(b render.Binding) { s.regSaved = render.SavedFor(b, "regions") }
	return t
}

var binColumns = []render.Column{{Name: "bin", Kind: render.Int}, {Name: "t_ns", Kind: render.Ns},
	{Name: "end_t_ns", Kind: render.Ns}, {Name: "name"}, {Name: "category"}, {Name: "duration_ns_exc", Kind: render.Ns}}

// timeProfileTable is summary/time-profile.csv.
func (s *summary) timeProfileTable() *render.Table {
	t := partialTable(binColumns, func() (int64, func(int64, *render.Row), error) {
		v := s.binRows()
		return int64(len(v.rows)), func(i int64, row *render.Row) {
			r := &v.rows[i]
			k := int(r.bin)
			name := &v.names[r.region]
			row.Int(int64(k)).Int(binEdge(v.end, k)).Int(binEdge(v.end, k+1)).Str(name[0]).Str(name[1]).Int(r.exc)
		}, v.err
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
