package hpcdb_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// imbalanceRows reads imbalance.csv by (kind, id, metric).
func imbalanceRows(t *testing.T, b []byte) (map[string][]string, map[string]int) {
	rows := testdata.ReadCSV(t, b)
	col := map[string]int{}
	for j, h := range rows[0] {
		col[h] = j
	}
	out := map[string][]string{}
	prev := math.Inf(1)
	for _, r := range rows[1:] {
		id := r[col["ctx_id"]]
		if r[col["kind"]] == "procedure" {
			id = r[col["function_id"]]
		}
		out[r[col["kind"]]+" "+id+" "+r[col["metric"]]] = r
		v, _ := strconv.ParseFloat(r[col["max_over_mean"]], 64)
		if v > prev {
			t.Fatalf("imbalance.csv is not sorted worst first: %v after %v", v, prev)
		}
		prev = v
	}
	return out, col
}

func num(r []string, j int) float64 {
	v, _ := strconv.ParseFloat(r[j], 64)
	return v
}

// Per context, imbalance.csv's statistics over the thread profiles equal
// those computed from the generator's own per-thread values (the profiles
// with a value at the context count, as in HPCToolkit's statistics).
func TestImbalanceGenerated(t *testing.T) {
	c := gen.Config{Threads: 5, Contexts: 300, Metrics: 2, Samples: 3, Density: 0.6, Seed: 11}
	g, src := openGen(t, c)
	rows, col := imbalanceRows(t, testdata.ReadFS(t, src.FS(), "imbalance.csv"))
	profiles := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "profiles.csv"))
	n := len(g.Parent)
	exc, inc := make([]float64, n), make([]float64, n)
	checked := 0
	for k := 0; k < c.Metrics; k++ {
		vals := make([][]float64, c.Threads+1)
		for p := 1; p <= c.Threads; p++ {
			g.Values(p, k, exc, inc)
			vals[p] = append([]float64(nil), inc...)
		}
		for ctx := 0; ctx < n; ctx++ {
			var cnt int
			var sum, sq, lo, hi float64
			arg := 0
			for p := 1; p <= c.Threads; p++ {
				v := vals[p][ctx]
				if v == 0 {
					continue
				}
				if cnt == 0 || v < lo {
					lo = v
				}
				if cnt == 0 || v > hi {
					hi, arg = v, p
				}
				cnt++
				sum += v
				sq += v * v
			}
			r, ok := rows["context "+strconv.Itoa(ctx)+" metric"+strconv.Itoa(k)+"_sec_inc"]
			if cnt == 0 {
				if ok {
					t.Fatalf("context %d has a row without values", ctx)
				}
				continue
			}
			if !ok {
				t.Fatalf("context %d metric %d has no row", ctx, k)
			}
			mean := sum / float64(cnt)
			sd := math.Sqrt(max(0, sq/float64(cnt)-mean*mean))
			if r[col["count"]] != strconv.Itoa(cnt) || !near(num(r, col["min"]), lo) || !near(num(r, col["max"]), hi) ||
				!near(num(r, col["mean"]), mean) || math.Abs(num(r, col["stddev"])-sd) > 1e-9*max(1, mean) ||
				!near(num(r, col["max_over_mean"]), hi/mean) || r[col["max_profile"]] != profiles[arg+1][1] {
				t.Fatalf("context %d metric %d: %v, want count %d min %v mean %v max %v stddev %v in %s", ctx, k, r, cnt, lo, mean, hi, sd, profiles[arg+1][1])
			}
			checked++
		}
	}
	if checked < n/2 {
		t.Fatalf("only %d context rows checked", checked)
	}
}

// On every corpus database count x mean of a context equals HPCToolkit's
// own Sum statistic of the summary profile (cct.csv's _sum_inc column), and
// the procedure rows are procedures.csv's.
func TestImbalanceCorpusSums(t *testing.T) {
	for name, src := range allDatabases(t) {
		t.Run(name, func(t *testing.T) {
			rows, col := imbalanceRows(t, testdata.ReadFS(t, src.FS(), "imbalance.csv"))
			cct := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "cct.csv"))
			checked := 0
			for _, r := range cct[1:] {
				for j, h := range cct[0] {
					base, ok := strings.CutSuffix(h, "_sum_inc")
					if !ok {
						continue
					}
					want := num(r, j)
					im, ok := rows["context "+r[0]+" "+base+"_inc"]
					if !ok {
						if want != 0 {
							t.Errorf("context %s: %s %v but no imbalance row", r[0], h, want)
						}
						continue
					}
					got := num(im, col["count"]) * num(im, col["mean"])
					if math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
						t.Errorf("context %s %s: count x mean %v, Sum %v", r[0], base, got, want)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Error("no context checked")
			}
		})
	}
}

// hpcStatsOf is HPCToolkit's count, min, mean, max and stddev of a
// context from cct.csv's row of its summary partials (hpcprof --stats:
// count, sum, sum of squares, min, max of base's inclusive values), by
// the formulas of its Mean and StdDev (src/hpcprof/metric.cpp).
func hpcStatsOf(r []string, col map[string]int, base string) (cnt int, lo, mean, hi, sd float64) {
	n := num(r, col[base+"_sum_1_inc"]) // formula "1"
	sum, sq := num(r, col[base+"_sum_inc"]), num(r, col[base+"_sum_2_inc"])
	mean = sum / n
	return int(n), num(r, col[base+"_min_inc"]), mean, num(r, col[base+"_max_inc"]), math.Sqrt(sq/n - math.Pow(sum/n, 2))
}

// A meta.db database whose summary profile holds hpcprof --stats's
// partials (generated as hpcprof computes them): every context row of
// imbalance.csv has HPCToolkit's own count, min, mean, max and stddev,
// exactly. hpctesttool (HPCToolkit's Python reader, commit 8697da0d7 of
// github.com/HPCToolkit/hpctoolkit) was run by hand on such a database
// (genhpcdb -meta -stats -threads 5 -contexts 300 -metrics 2 -density 0.6
// -seed 11): the statistics it reads, put through those formulas, equal
// imbalance.csv's in all 330 context rows. Then the stored sum of squares
// of one context is changed in profile.db: imbalance.csv follows the
// stored statistic, not the thread profiles.
func TestImbalanceHPCToolkitStats(t *testing.T) {
	c := gen.Config{Threads: 5, Contexts: 300, Metrics: 2, Samples: 3, Density: 0.6, Seed: 11, Stats: true}
	_, src, dir := openGenMeta(t, c)
	check := func(src *vfs.Source) (map[string][]string, map[string]int, [][]string, map[string]int) {
		t.Helper()
		rows, col := imbalanceRows(t, testdata.ReadFS(t, src.FS(), "imbalance.csv"))
		cct := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "cct.csv"))
		cctCol := map[string]int{}
		for j, h := range cct[0] {
			cctCol[h] = j
		}
		checked := 0
		for _, r := range cct[1:] {
			for _, base := range []string{"costa_s", "costb_s"} {
				cnt, lo, mean, hi, sd := hpcStatsOf(r, cctCol, base)
				im, ok := rows["context "+r[0]+" "+base+"_inc"]
				if cnt == 0 || r[cctCol["kind"]] == "entry_point" {
					continue
				}
				if !ok {
					t.Fatalf("context %s %s: no imbalance.csv row", r[0], base)
				}
				if im[col["count"]] != strconv.Itoa(cnt) || num(im, col["min"]) != lo || num(im, col["mean"]) != mean ||
					num(im, col["max"]) != hi || num(im, col["stddev"]) != sd {
					t.Fatalf("context %s %s: imbalance.csv %v, HPCToolkit's count %d min %v mean %v max %v stddev %v", r[0], base, im, cnt, lo, mean, hi, sd)
				}
				checked++
			}
		}
		if checked < 300 {
			t.Fatalf("only %d context rows checked", checked)
		}
		return rows, col, cct, cctCol
	}
	_, _, cct, cctCol := check(src)

	// change the stored sum of squares of the first context with values
	// on more than one thread (its 8 bytes occur once in profile.db)
	path := filepath.Join(dir, "profile.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cct[1:] {
		if num(r, cctCol["costa_s_sum_1_inc"]) < 2 || r[cctCol["kind"]] == "entry_point" {
			continue
		}
		old := float64LE(num(r, cctCol["costa_s_sum_2_inc"]))
		if bytes.Count(b, old) != 1 {
			continue
		}
		sq := num(r, cctCol["costa_s_sum_2_inc"]) * 1.5
		b = bytes.Replace(b, old, float64LE(sq), 1)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		changed, err := hpcdb.OpenMeta(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer changed.Close()
		rows, col, _, _ := check(changed)
		_, _, mean, _, sd := hpcStatsOf(r, cctCol, "costa_s")
		want := math.Sqrt(sq/num(r, cctCol["costa_s_sum_1_inc"]) - mean*mean)
		if got := num(rows["context "+r[0]+" costa_s_inc"], col["stddev"]); got != want || got == sd {
			t.Fatalf("context %s: stddev %v after the stored sum of squares changed, want %v (was %v)", r[0], got, want, sd)
		}
		return
	}
	t.Fatal("no context's sum of squares occurs once in profile.db")
}

// float64LE is v as profile.db stores it: IEEE 754, little-endian.
func float64LE(v float64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(math.Float64bits(v) >> (8 * i))
	}
	return b
}
