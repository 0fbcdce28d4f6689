package hpcdb_test

import (
	"math"
	"strconv"
	"strings"
	"testing"

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
