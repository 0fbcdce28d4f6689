package hpcdb_test

import (
	"cmp"
	"slices"
	"strconv"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

// TestMetaSummaryTiles: in summary/regions.csv each trace line's regions
// (runs of samples in one context, lasting to the next run) add up to the
// time from its first to its last sample, in as many events as it has
// runs, as counted from hpctesttool's trace.csv, on every corpus database
// with a trace.
func TestMetaSummaryTiles(t *testing.T) {
	for _, dir := range metaCases(t) {
		rows, idx, ok := oracle(t, dir, "trace.csv")
		if !ok || len(rows) == 0 {
			continue
		}
		t.Run(dir[len(dir)-20:], func(t *testing.T) {
			type line struct {
				first, last int64
				runs        int64
				ctx         string
			}
			lines := map[string]*line{}
			for _, r := range rows {
				ts, _ := strconv.ParseInt(r[idx["timestamp"]], 10, 64)
				l := lines[r[idx["prof_index"]]]
				if l == nil {
					l = &line{first: ts, ctx: "-"}
					lines[r[idx["prof_index"]]] = l
				}
				l.last = ts
				if r[idx["ctx_id"]] != l.ctx {
					l.runs++
					l.ctx = r[idx["ctx_id"]]
				}
			}
			var want [][2]int64
			for _, l := range lines {
				want = append(want, [2]int64{l.last - l.first, l.runs})
			}
			src, err := hpcdb.OpenMeta(dir)
			if err != nil {
				t.Fatal(err)
			}
			csv := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "summary/regions.csv"))
			sums := map[string]*[2]int64{}
			for _, r := range csv[1:] {
				key := r[0] + "," + r[1]
				if sums[key] == nil {
					sums[key] = new([2]int64)
				}
				n, _ := strconv.ParseInt(r[5], 10, 64)
				inc, _ := strconv.ParseInt(r[6], 10, 64)
				sums[key][0] += inc
				sums[key][1] += n
				if r[6] != r[7] {
					t.Errorf("%v: sample runs do not nest, exclusive time differs", r)
				}
			}
			var got [][2]int64
			for _, s := range sums {
				got = append(got, *s)
			}
			byValues := func(a, b [2]int64) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) }
			slices.SortFunc(want, byValues)
			slices.SortFunc(got, byValues)
			if !slices.Equal(got, want) {
				t.Errorf("per line (time, runs): %v, the oracle %v", got, want)
			}
		})
	}
}
