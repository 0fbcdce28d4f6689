package hpcdb_test

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// countingReader counts ReadAt calls.
type countingReader struct {
	r     *os.File
	reads atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	c.reads.Add(1)
	return c.r.ReadAt(p, off)
}

// Find agrees with a linear scan of the context index for every id, with
// and without a context-space hint (even a wrong one), and with the right
// hint costs about one read per search.
func TestFindMatchesLinearScan(t *testing.T) {
	for _, c := range []gen.Config{
		{Threads: 2, Contexts: 30000, Metrics: 1, Density: 0.9, Seed: 4},
		{Threads: 2, Contexts: 30000, Metrics: 1, Density: 0.02, Unlisted: 5, Seed: 5},
		{Threads: 1, Contexts: 300, Metrics: 2, Density: 0.5, Seed: 6},
	} {
		dir := t.TempDir()
		g, err := gen.Write(dir, c)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(filepath.Join(dir, "profile.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, _ := f.Stat()
		cr := &countingReader{r: f}
		p, err := hpcdb.NewProfileDB(cr, fi.Size())
		if err != nil {
			t.Fatal(err)
		}
		space := uint32(g.NumContexts())
		for _, hint := range []uint32{0, space, 7} {
			p.CtxSpace = hint
			for i := range p.Profiles {
				pairs, err := p.CtxPairs(i, 0, uint64(p.Profiles[i].NumCtxs)+1, nil)
				if err != nil {
					t.Fatal(err)
				}
				want := map[uint32][2]uint64{}
				for k := 0; k+1 < len(pairs); k++ {
					want[pairs[k].Ctx] = [2]uint64{pairs[k].Index, pairs[k+1].Index}
				}
				before, searches := cr.reads.Load(), 0
				for ctx := uint32(0); ctx < space+3; ctx += 1 + ctx%7 {
					searches++
					lo, hi, ok, err := p.Find(i, ctx)
					w, has := want[ctx]
					if err != nil || ok != has || ok && (lo != w[0] || hi != w[1]) {
						t.Fatalf("%+v hint %d: Find(%d, %d) = %d,%d,%v,%v; want %v,%v", c, hint, i, ctx, lo, hi, ok, err, w, has)
					}
				}
				perSearch := float64(cr.reads.Load()-before) / float64(searches)
				if hint == space && perSearch > 1.6 {
					t.Errorf("%+v: %.2f reads per search of profile %d (%d contexts)", c, perSearch, i, len(pairs)-1)
				}
				t.Logf("%+v hint %d profile %d: %d contexts, %.2f reads per search", c, hint, i, len(pairs)-1, perSearch)
			}
		}
	}
}
