package columnar

import (
	"bytes"
	"math"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/render"
)

// Encoded row groups are kept once made, so that the reads of one row
// group's column chunks (DuckDB reads each column chunk, and the footer,
// on its own, from several threads) do not encode it again each time the
// segment that holds it has left render's segment cache: in the on-disk
// index folder when the mount has one (a render.Saved per row group,
// sealed, checked against the cursor's position and the plan's kinds at
// load; the folder's limit removes the oldest, Options.IndexLimit), and
// in memory, the most recent ones, within memBudget bytes for every twin
// together.
const memBudget = 8 << 20

// A group is one encoded row group: its column chunks (data), where it
// starts (row, csvOff, off, in the twin's group numbering) and what
// follows it (rows in it, the CSV offset after it).
type group struct {
	gen              *twinGen
	kinds            string // the plan's kinds it was encoded with
	index            int64
	row, csvOff, off int64
	rows, csvEnd     int64
	data             []byte
}

// recent holds the most recently made or loaded row groups of every twin,
// newest last.
var recent struct {
	sync.Mutex
	used   int
	groups []*group
}

func kindsKey(kinds []Kind) string {
	b := make([]byte, len(kinds))
	for i, k := range kinds {
		b[i] = byte(k)
	}
	return string(b)
}

// matches says whether gr is the row group at p of a plan with kinds.
func (gr *group) matches(p *twinPos, kinds string) bool {
	return gr.index == p.group && gr.row == p.row && gr.csvOff == p.csvOff && gr.off == p.off &&
		gr.kinds == kinds && gr.rows > 0 && p.row+gr.rows <= p.plan.rows && gr.csvEnd > gr.csvOff
}

// cachedGroup returns the row group at p when it was kept, in memory or
// on disk; nil when it must be encoded.
func (g *twinGen) cachedGroup(p *twinPos) *group {
	kinds := kindsKey(p.plan.kinds)
	recent.Lock()
	for i := len(recent.groups) - 1; i >= 0; i-- {
		if gr := recent.groups[i]; gr.gen == g && gr.matches(p, kinds) {
			recent.groups = append(append(recent.groups[:i:i], recent.groups[i+1:]...), gr)
			recent.Unlock()
			return gr
		}
	}
	recent.Unlock()
	s, _ := g.savedGroup(p.group)
	b := s.Load()
	if b == nil {
		return nil
	}
	gr := decodeGroup(b)
	if gr == nil {
		s.Discard()
		return nil
	}
	if !gr.matches(p, kinds) {
		return nil // another plan's (a first pass that widened a kind): overwritten when made again
	}
	gr.gen = g
	remember(gr)
	return gr
}

// keepGroup keeps the row group just encoded: in memory when mem (not
// while sizing, which passes over every row group once), and on disk when
// the twin has an index folder.
func (g *twinGen) keepGroup(gr *group, mem bool) {
	gr.gen = g
	if mem {
		gr.data = bytes.Clone(gr.data)
		remember(gr)
	}
	s, ok := g.savedGroup(gr.index)
	if !ok {
		return
	}
	// A row group that cannot be written is encoded again when read: the
	// error is not the user's data's, and is not reported.
	_ = s.Store(encodeGroup(gr))
}

func remember(gr *group) {
	if len(gr.data) > memBudget/4 {
		return
	}
	recent.Lock()
	defer recent.Unlock()
	recent.groups = append(recent.groups, gr)
	recent.used += len(gr.data)
	for recent.used > memBudget {
		recent.used -= len(recent.groups[0].data)
		recent.groups[0] = nil
		recent.groups = recent.groups[1:]
	}
}

// savedGroup is where row group i of the twin is kept on disk; not ok
// (the zero Saved, which keeps nothing) when the twin has no index folder.
func (g *twinGen) savedGroup(i int64) (render.Saved, bool) {
	g.mu.Lock()
	b, ok := g.binding, g.bound
	g.mu.Unlock()
	if !ok || b.Key == "" || b.Options.IndexDir == "" {
		return render.Saved{}, false
	}
	return render.SavedFor(b, "rowgroup "+strconv.FormatInt(i, 10)), true
}

// Bind takes the twin's index key and folder, for its row groups.
func (g *twinGen) Bind(b render.Binding) {
	g.mu.Lock()
	g.binding, g.bound = b, true
	g.mu.Unlock()
}

func encodeGroup(gr *group) []byte {
	var w render.StateWriter
	w.String(gr.kinds).Int(gr.index).Int(gr.row).Int(gr.csvOff).Int(gr.off).Int(gr.rows).Int(gr.csvEnd).Uint(uint64(len(gr.data))).Raw(gr.data)
	return w.Bytes()
}

// decodeGroup reads what encodeGroup wrote; nil when it does not hold
// together.
func decodeGroup(b []byte) *group {
	r := render.NewStateReader(b)
	gr := &group{kinds: r.String(), index: r.Int(0, math.MaxInt64), row: r.Int(0, math.MaxInt64), csvOff: r.Int(0, math.MaxInt64),
		off: r.Int(0, math.MaxInt64), rows: r.Int(1, groupRows), csvEnd: r.Int(0, math.MaxInt64)}
	n := r.Uint(uint64(len(b)))
	gr.data = r.Rest()
	if r.Skip(int(n)); r.Err() != nil {
		return nil
	}
	return gr
}
