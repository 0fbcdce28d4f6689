package dcpi

import (
	"cmp"
	"io"
	"slices"
	"sync"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/render"
)

// top.csv holds the rows of samples.csv by count descending (ties by
// address), with cum_pct accumulated in that order. Sorting uses bounded
// memory: the count values are split into bands of consecutive values
// holding at most bandRows addresses each, and each band costs one pass
// over the body when it is sorted.
//
// Planning is one pass that counts the addresses of every value below
// denseValues exactly (a 512 KiB table) and those of higher values in
// histogram buckets; a bucket of high values holding more than bandRows
// addresses is split by another pass over its range (rare: it takes more
// than bandRows addresses with counts ≥ 65536). A band of exactly counted
// values is filled in sorted order in one pass (a counting sort: the
// position of each value's rows is known), as 8-byte packed rows; a band
// of high values is collected and stably sorted (16-byte rows). A single
// value held by more than bandRows addresses is streamed in address order
// without sorting. The last bandCache sorted bands are kept, shared by all
// profiles: at most bandCache·bandRows·16 bytes (32 MiB), 16 MiB when the
// bands hold counts below 65536, which is the common case.

const (
	histogram = 4096 // buckets per planning pass
	bandCache = 2
)

// bandRows bounds the addresses of a sorted band, and denseValues the
// count values counted exactly (variables for tests).
var (
	bandRows    int64  = 1 << 20
	denseValues uint32 = 1 << 16
)

// A band is the count values lo..hi (hi ≥ lo), rendered in that order
// from hi down.
type band struct {
	lo, hi uint32
	stream bool    // one value held by more than bandRows addresses
	exact  []int64 // addresses of each value lo..hi when counted exactly
}

type entry struct {
	off   uint64
	count uint32
}

// plan splits the count values of the profile into bands, from the
// highest counts down.
func (p *profile) plan() ([]band, error) {
	p.planOnce.Do(func() {
		s, err := p.summary()
		if err != nil {
			p.planErr = err
			return
		}
		if s.Addresses == 0 {
			return
		}
		p.planErr = p.planAll(s.MinCount, s.MaxCount)
	})
	return p.bands, p.planErr
}

// planAll counts the values below denseValues exactly and the others in
// buckets, in one pass.
func (p *profile) planAll(lo, hi uint32) error {
	dense := make([]int64, min(uint64(hi), uint64(denseValues)-1)+1)
	highLo := max(lo, denseValues)
	width := uint64(1)
	var hist []int64
	if hi >= denseValues {
		width = (uint64(hi)-uint64(highLo))/histogram + 1
		hist = make([]int64, (uint64(hi)-uint64(highLo))/width+1)
	}
	err := p.eachSample(func(s dcpi.Sample) {
		if s.Count > hi || s.Count < lo {
			return // the body changed since the summary; sorting will notice
		}
		if s.Count < denseValues {
			dense[s.Count]++
		} else {
			hist[(uint64(s.Count)-uint64(highLo))/width]++
		}
	})
	if err != nil {
		return err
	}
	if hist != nil {
		if err := p.bandsOf(hist, highLo, hi, width, &p.bands); err != nil {
			return err
		}
	}
	// the exactly counted values, from the highest down
	var cur band
	var rows int64
	flush := func() {
		if rows > 0 {
			cur.exact = dense[cur.lo : cur.hi+1]
			p.bands = append(p.bands, cur)
		}
		rows = 0
	}
	for v := len(dense) - 1; v >= int(lo) && v >= 1; v-- {
		n := dense[v]
		switch {
		case n == 0:
			continue
		case n > bandRows:
			flush()
			p.bands = append(p.bands, band{lo: uint32(v), hi: uint32(v), stream: true})
		case rows+n > bandRows || rows == 0:
			flush()
			cur, rows = band{lo: uint32(v), hi: uint32(v)}, n
		default:
			cur.lo, rows = uint32(v), rows+n
		}
	}
	flush()
	return nil
}

// planRange splits the values lo..hi (all ≥ denseValues) by a histogram
// pass over them.
func (p *profile) planRange(lo, hi uint32, out *[]band) error {
	width := (uint64(hi)-uint64(lo))/histogram + 1
	hist := make([]int64, (uint64(hi)-uint64(lo))/width+1)
	err := p.eachSample(func(s dcpi.Sample) {
		if s.Count >= lo && s.Count <= hi {
			hist[(uint64(s.Count)-uint64(lo))/width]++
		}
	})
	if err != nil {
		return err
	}
	return p.bandsOf(hist, lo, hi, width, out)
}

// bandsOf turns a histogram of the values lo..hi in buckets of width
// values into bands, splitting buckets that hold too many addresses.
func (p *profile) bandsOf(hist []int64, lo, hi uint32, width uint64, out *[]band) error {
	var cur band
	var rows int64
	flush := func() {
		if rows > 0 {
			*out = append(*out, cur)
		}
		rows = 0
	}
	for i := len(hist) - 1; i >= 0; i-- {
		n := hist[i]
		if n == 0 {
			continue
		}
		blo := uint32(uint64(lo) + uint64(i)*width)
		bhi := uint32(min(uint64(blo)+width-1, uint64(hi)))
		switch {
		case n > bandRows:
			flush()
			if blo == bhi {
				*out = append(*out, band{lo: blo, hi: bhi, stream: true})
			} else if err := p.planRange(blo, bhi, out); err != nil {
				return err
			}
		case rows+n > bandRows:
			flush()
			cur, rows = band{lo: blo, hi: bhi}, n
		case rows == 0:
			cur, rows = band{lo: blo, hi: bhi}, n
		default:
			cur.lo, rows = blo, rows+n
		}
	}
	flush()
	return nil
}

// eachSample calls fn for every sample with a count ≥ 1, up to the end
// of the chunks or the first bad chunk.
func (p *profile) eachSample(fn func(dcpi.Sample)) error {
	f, err := p.open()
	if err != nil {
		return err
	}
	sr := f.Samples(f.Start())
	for {
		off, counts, err := sr.NextRun()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if render.IsDataError(err) {
				return nil
			}
			return err
		}
		for i := 0; i+4 <= len(counts); i += 4 {
			if c := dcpi.CountAt(counts, i); c != 0 {
				fn(dcpi.Sample{Offset: off + uint64(i), Count: c})
			}
		}
	}
}

type bandKey struct {
	p *profile
	i int
}

type sortedBand struct {
	key    bandKey
	once   sync.Once
	packed []uint64 // count<<48 | offset, for exactly counted bands
	rows   []entry  // for other bands
	err    error
}

// sortedBands keeps the last sorted bands of all profiles.
var sortedBands struct {
	mu    sync.Mutex
	bands []*sortedBand // oldest first
}

// sorted returns band i of the profile sorted by count descending, then
// offset. Concurrent readers of one band share its sorting; at most
// bandCache bands stay cached (plus those that cursors still render).
func (p *profile) sorted(i int, b band) (*sortedBand, error) {
	c := &sortedBands
	key := bandKey{p, i}
	c.mu.Lock()
	var sb *sortedBand
	for _, e := range c.bands {
		if e.key == key {
			sb = e
		}
	}
	if sb == nil {
		sb = &sortedBand{key: key}
		if len(c.bands) >= bandCache {
			c.bands = c.bands[1:]
		}
		c.bands = append(c.bands, sb)
	}
	c.mu.Unlock()
	sb.once.Do(func() { sb.err = p.sortBand(b, sb) })
	return sb, sb.err
}

// packedOffsets bounds the offsets of packed rows (count<<48 | offset).
const packedOffsets = 1 << 48

// sortBand collects the samples of band b in sorted order. The samples
// come in offset order, so a stable sort by value suffices; an exactly
// counted band is placed by counting sort in the same pass.
func (p *profile) sortBand(b band, sb *sortedBand) error {
	if b.exact != nil && b.hi < 1<<16 {
		next := make([]int64, len(b.exact)) // next row of each value, lo..hi
		var n int64
		for k := len(b.exact) - 1; k >= 0; k-- {
			next[k] = n
			n += b.exact[k]
		}
		rows := make([]uint64, n)
		wide := false
		err := p.eachSample(func(s dcpi.Sample) {
			if s.Count < b.lo || s.Count > b.hi {
				return
			}
			k := s.Count - b.lo
			if i := next[k]; i < n && s.Offset < packedOffsets {
				rows[i] = uint64(s.Count)<<48 | s.Offset
				next[k]++
				return
			}
			wide = true
		})
		if err != nil {
			return err
		}
		if !wide {
			sb.packed = rows
			return nil
		}
		// an offset beyond 2^48 or a body that changed: sort generally
	}
	var rows []entry
	err := p.eachSample(func(s dcpi.Sample) {
		if s.Count >= b.lo && s.Count <= b.hi {
			rows = append(rows, entry{s.Offset, s.Count})
		}
	})
	if err != nil {
		return err
	}
	slices.SortStableFunc(rows, func(a, b entry) int { return cmp.Compare(b.count, a.count) })
	sb.rows = rows
	return nil
}

// topScan yields top.csv's rows: band by band, each band's rows sorted
// or streamed.
type topScan struct {
	rowSums
	f     *dcpi.File
	bands []band
	band  int
	row   int      // next row of a sorted band
	pos   dcpi.Pos // next sample of a streamed band

	sorted *sortedBand        // the current sorted band
	sr     *dcpi.SampleReader // the current streamed band
}

func (p *profile) openTop(pos []byte) (render.Scanner, error) {
	f, sums, err := p.start()
	if err != nil {
		return nil, err
	}
	bands, err := p.plan()
	if err != nil {
		return nil, err
	}
	s := &topScan{rowSums: sums, f: f, bands: bands}
	if len(pos) > 0 {
		var band, row uint64
		if s.pos, s.cum, err = decodePos(pos, &band, &row); err != nil {
			return nil, err
		}
		s.band, s.row = int(band), int(row)
	}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// load prepares the current band.
func (s *topScan) load() error {
	s.sorted, s.sr = nil, nil
	if s.band >= len(s.bands) {
		return nil
	}
	b := s.bands[s.band]
	if b.stream {
		if s.row == 0 && s.pos == (dcpi.Pos{}) {
			s.pos = s.f.Start()
		}
		s.sr = s.f.Samples(s.pos)
		return nil
	}
	sb, err := s.p.sorted(s.band, b)
	s.sorted = sb
	return err
}

func (s *topScan) Pos() []byte {
	pos := s.pos
	if s.sr != nil {
		pos = s.sr.Pos()
	}
	return encodePos(pos, s.cum, uint64(s.band), uint64(s.row))
}

func (s *topScan) Scan(row *render.Row) error {
	e, ok, err := s.next()
	if err != nil {
		return err
	}
	if !ok {
		return io.EOF
	}
	s.csvRow(row, e.off, e.count)
	return nil
}

func (s *topScan) next() (entry, bool, error) {
	for s.band < len(s.bands) {
		if s.sr != nil {
			v := s.bands[s.band].lo
			for {
				smp, err := s.sr.Next()
				if err != nil {
					break
				}
				if smp.Count == v {
					s.row++
					return entry{smp.Offset, smp.Count}, true, nil
				}
			}
		} else if s.sorted.packed != nil {
			if s.row < len(s.sorted.packed) {
				r := s.sorted.packed[s.row]
				s.row++
				return entry{r & (packedOffsets - 1), uint32(r >> 48)}, true, nil
			}
		} else if s.row < len(s.sorted.rows) {
			e := s.sorted.rows[s.row]
			s.row++
			return e, true, nil
		}
		s.band++
		s.row, s.pos = 0, dcpi.Pos{}
		if err := s.load(); err != nil {
			return entry{}, false, err
		}
	}
	return entry{}, false, nil
}
