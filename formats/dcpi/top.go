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
// holding at most bandRows addresses each, found by histogram passes over
// the body. A band is sorted in memory (bandRows × 16 bytes = 8 MiB);
// a single count value held by more than bandRows addresses is streamed
// in address order without sorting. Each band costs one pass over the
// body; there are at most about 2·addresses/bandRows bands, and the last
// bandCache sorted bands are kept (16 MiB in all, shared by all profiles).
// A band of at most 65536 consecutive values is sorted by counting (two
// passes), a wider one by a stable sort on the count.

const (
	histogram = 4096 // buckets per planning pass
	bandCache = 2
)

// bandRows bounds the addresses of a sorted band (a variable for tests).
var bandRows int64 = 1 << 19

// A band is the count values lo..hi (hi ≥ lo), rendered in that order
// from hi down.
type band struct {
	lo, hi uint32
	stream bool // one value held by more than bandRows addresses
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
		p.planErr = p.planRange(s.MinCount, s.MaxCount, &p.bands)
	})
	return p.bands, p.planErr
}

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
		s, err := sr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if render.IsDataError(err) {
				return nil
			}
			return err
		}
		if s.Count != 0 {
			fn(s)
		}
	}
}

type bandKey struct {
	p *profile
	i int
}

type sortedBand struct {
	key  bandKey
	once sync.Once
	rows []entry
	err  error
}

// sortedBands keeps the last sorted bands of all profiles.
var sortedBands struct {
	mu    sync.Mutex
	bands []*sortedBand // oldest first
}

// sorted returns band i of the profile sorted by count descending, then
// offset. Concurrent readers of one band share its sorting; at most
// bandCache bands stay cached (plus those that cursors still render).
func (p *profile) sorted(i int, b band) ([]entry, error) {
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
	sb.once.Do(func() { sb.rows, sb.err = p.sortBand(b) })
	return sb.rows, sb.err
}

// countingRange is the widest band sorted by counting its values.
const countingRange = 1 << 16

// sortBand collects the samples of band b and sorts them. The samples come
// in offset order, so a stable counting sort by value suffices when the
// band's range of values is narrow.
func (p *profile) sortBand(b band) ([]entry, error) {
	if width := uint64(b.hi) - uint64(b.lo) + 1; width <= countingRange {
		hist := make([]int, width+1)
		err := p.eachSample(func(s dcpi.Sample) {
			if s.Count >= b.lo && s.Count <= b.hi {
				hist[b.hi-s.Count+1]++
			}
		})
		if err != nil {
			return nil, err
		}
		for k := 1; k < len(hist); k++ {
			hist[k] += hist[k-1]
		}
		rows := make([]entry, hist[len(hist)-1])
		err = p.eachSample(func(s dcpi.Sample) {
			if s.Count >= b.lo && s.Count <= b.hi {
				k := b.hi - s.Count
				rows[hist[k]] = entry{s.Offset, s.Count}
				hist[k]++
			}
		})
		return rows, err
	}
	var rows []entry
	err := p.eachSample(func(s dcpi.Sample) {
		if s.Count >= b.lo && s.Count <= b.hi {
			rows = append(rows, entry{s.Offset, s.Count})
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(rows, func(a, b entry) int { return cmp.Compare(b.count, a.count) })
	return rows, nil
}

type topGen struct{ p *profile }

type topState struct {
	band    int
	row     int      // next row of a sorted band
	pos     dcpi.Pos // next sample of a streamed band
	cum     uint64
	started bool
}

type topCursor struct {
	p     *profile
	f     *dcpi.File
	bands []band
	total uint64
	pcts  [][]byte
	st    topState

	rows []entry            // the current sorted band
	sr   *dcpi.SampleReader // the current streamed band
}

func (g *topGen) Start(state any) (render.Cursor, error) {
	s, err := g.p.summary()
	if err != nil {
		return nil, err
	}
	bands, err := g.p.plan()
	if err != nil {
		return nil, err
	}
	f, err := g.p.open()
	if err != nil {
		return nil, err
	}
	c := &topCursor{p: g.p, f: f, bands: bands, total: total(s)}
	c.pcts = g.p.pctTable(c.total)
	if st, ok := state.(topState); ok {
		c.st = st
	}
	if err := c.load(); err != nil {
		return nil, err
	}
	return c, nil
}

// load prepares the current band.
func (c *topCursor) load() error {
	c.rows, c.sr = nil, nil
	if c.st.band >= len(c.bands) {
		return nil
	}
	b := c.bands[c.st.band]
	if b.stream {
		if c.st.row == 0 && c.st.pos == (dcpi.Pos{}) {
			c.st.pos = c.f.Start()
		}
		c.sr = c.f.Samples(c.st.pos)
		return nil
	}
	rows, err := c.p.sorted(c.st.band, b)
	c.rows = rows
	return err
}

func (c *topCursor) State() any {
	st := c.st
	if c.sr != nil {
		st.pos = c.sr.Pos()
	}
	return st
}

func (c *topCursor) next() (entry, bool, error) {
	for c.st.band < len(c.bands) {
		if c.sr != nil {
			v := c.bands[c.st.band].lo
			for {
				s, err := c.sr.Next()
				if err != nil {
					break
				}
				if s.Count == v {
					c.st.row++
					return entry{s.Offset, s.Count}, true, nil
				}
			}
		} else if c.st.row < len(c.rows) {
			e := c.rows[c.st.row]
			c.st.row++
			return e, true, nil
		}
		c.st.band++
		c.st.row, c.st.pos = 0, dcpi.Pos{}
		if err := c.load(); err != nil {
			return entry{}, false, err
		}
	}
	return entry{}, false, nil
}

func (c *topCursor) Next(dst []byte) ([]byte, error) {
	if !c.st.started {
		c.st.started = true
		return append(dst, csvHeader...), nil
	}
	start := len(dst)
	tstart := c.f.Header.Tstart
	for len(dst)-start < batch {
		e, ok, err := c.next()
		if err != nil {
			return dst, err
		}
		if !ok {
			if len(dst) == start {
				return dst, io.EOF
			}
			return dst, nil
		}
		c.st.cum += uint64(e.count)
		dst = appendCSVRow(dst, dcpi.Sample{Offset: e.off, Count: e.count}, tstart, e.count, c.st.cum, c.total, c.pcts)
	}
	return dst, nil
}
