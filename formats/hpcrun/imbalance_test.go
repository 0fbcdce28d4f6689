package hpcrun_test

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
)

// imbalance.csv of a measurement directory merges the profiles' calling
// contexts by path: three profiles of one 20-frame chain whose values are
// 1, 2 and 3 times the first's give, at depth d, count 3, min 20-d, mean
// 2(20-d), max 3(20-d) in the third profile, stddev (20-d)·sqrt(2/3),
// sorted worst first (equal max/mean, then the largest max - mean).
func TestImbalanceMeasurements(t *testing.T) {
	metrics := gen.Metrics(1, dec.LayoutC)
	dir := t.TempDir()
	names := []string{"a", "b", "c"}
	for p, name := range names {
		nodes := chain(20)
		for i := range nodes {
			nodes[i].Values = []uint64{uint64(p + 1)}
		}
		writeFile(t, filepath.Join(dir, name+".hpcrun"), profileOf(nodes, metrics))
	}
	rows := testdata.ReadCSV(t, testdata.ReadFS(t, open(t, dir).FS(), "imbalance.csv"))
	if len(rows) != 21 {
		t.Fatalf("imbalance.csv has %d rows, want 20", len(rows)-1)
	}
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	for d, r := range rows[1:] {
		v := float64(20 - d)
		want := map[string]float64{"count": 3, "min": v, "mean": 2 * v, "max": 3 * v, "stddev": v * math.Sqrt(2.0/3), "max_over_mean": 1.5}
		for c, w := range want {
			got, err := strconv.ParseFloat(r[col[c]], 64)
			if err != nil || math.Abs(got-w) > 1e-9*w {
				t.Errorf("row %d %s = %s, want %v", d+1, c, r[col[c]], w)
			}
		}
		if got := strings.Count(r[col["path"]], ";"); got != d {
			t.Errorf("row %d path %q is %d deep, want %d", d+1, r[col["path"]], got, d)
		}
		if r[col["max_profile"]] != "c" || r[col["kind"]] != "context" {
			t.Errorf("row %d: %v", d+1, r)
		}
	}
}
