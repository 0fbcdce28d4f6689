package hpcdb_test

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// taxColumns lists the columns of a taxonomy view in their order: per
// metric and variant the inclusive, then the exclusive formula.
func taxColumns(ms []dec.TaxMetric) (names []string, formulas []*dec.TaxFormula) {
	for _, m := range ms {
		for _, v := range m.Variants {
			for _, f := range []*dec.TaxFormula{v.Inclusive, v.Exclusive} {
				if f != nil {
					names = append(names, m.Path+" ["+v.Name+"]")
					formulas = append(formulas, f)
				}
			}
		}
	}
	return names, formulas
}

// Every variant of every corpus default.yaml that is a single input shows,
// at every context, the summary statistic HPCToolkit's own reader reads
// (oracle profile_values.csv, the summary profile; profiles/summary.csv
// where the case has no oracle).
func TestMetaTaxonomyValues(t *testing.T) {
	for _, dir := range metaCases(t) {
		yml := filepath.Join(dir, "metrics", "default.yaml")
		b, err := os.ReadFile(yml)
		if err != nil {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ms, err := dec.ParseTaxonomy(b)
			if err != nil {
				t.Fatal(err)
			}
			v := openMetaView(t, dir)
			// input -> stat metric id, from metrics.csv
			stat := map[dec.TaxInput]string{}
			mrows := readCSV(t, v.fsys, "metrics.csv")
			h := mrows[0]
			for _, r := range mrows[1:] {
				if r[col(t, h, "table")] == "summary" {
					stat[dec.TaxInput{Metric: r[col(t, h, "metric")], Scope: r[col(t, h, "scope")], Formula: r[col(t, h, "formula")], Combine: r[col(t, h, "combine")]}] = r[col(t, h, "metric_id")]
				}
			}
			// the summary values: ctx id -> stat metric id -> value
			want := map[string]map[string]string{}
			if rows, idx, ok := oracle(t, dir, "profile_values.csv"); ok {
				for _, r := range rows {
					if r[idx["prof_index"]] != "0" {
						continue
					}
					c := r[idx["ctx_id"]]
					if want[c] == nil {
						want[c] = map[string]string{}
					}
					want[c][r[idx["metric_id"]]] = r[idx["value"]]
				}
			} else {
				tb := v.table(t, "profiles/summary.csv", "ctx_id")
				for c := range tb.rows {
					want[c] = map[string]string{}
					for id, column := range v.sumCol {
						want[c][id] = tb.get(c, column)
					}
				}
			}
			rows := quickCSV(t, v.fsys, "taxonomy/default.csv")
			names, formulas := taxColumns(ms)
			if got := len(rows[0]) - 5; got != len(names) {
				t.Fatalf("%d value columns, want %d: %v", got, len(names), rows[0])
			}
			if n := len(quickCSV(t, v.fsys, "cct.csv")); len(rows) != n {
				t.Errorf("%d rows, cct.csv has %d", len(rows), n)
			}
			checked := 0
			for j, f := range formulas {
				if f.Input == nil {
					continue
				}
				id, ok := stat[*f.Input]
				if !ok {
					t.Errorf("%s: input %+v is no summary statistic", names[j], *f.Input)
					continue
				}
				for _, r := range rows[1:] {
					w := want[r[0]][id]
					if w == "" {
						w = "0" // sparse: no value is 0
					}
					if got := r[5+j]; !sameFloat(got, w) {
						t.Fatalf("ctx %s %s (%s): %q, want %s", r[0], names[j], rows[0][5+j], got, w)
					}
					checked++
				}
			}
			if checked == 0 {
				t.Error("no single-input variant checked")
			}
			if errs, _ := fs.ReadFile(v.fsys, "_errors.txt"); len(errs) > 0 {
				t.Errorf("_errors.txt: %s", errs)
			}
		})
	}
}

// testTaxonomy is a METRICS.yaml with derived formulas over the generated
// metrics COSTA, COSTB and COSTC: arithmetic, means (a sum over a count
// statistic, formula 1), ratios, functions, nested children, `sum` and
// `first` formulas, a formula hpcfs cannot read and an input meta.db
// lacks.
const testTaxonomy = `%YAML 1.2
---
version: 0
inputs:
  - &a-I {metric: COSTA (s), scope: execution}
  - &a-E {metric: COSTA (s), scope: function, formula: $$, combine: sum}
  - &b-I {metric: COSTB (s), scope: execution}
  - &b-E {metric: COSTB (s), scope: function}
  - &c-I {metric: COSTC (s), scope: execution}
  - &a-I-cnt {metric: COSTA (s), scope: execution, formula: 1}
  - &a-E-cnt {metric: COSTA (s), scope: function, formula: " 1 ", combine: sum}
  - &nope {metric: NOPE, scope: execution}
roots:
  - name: Cost
    variants:
      Sum:
        formula:
          inclusive: [*a-I, +, *b-I]
          exclusive: [*a-E, +, *b-E]
      Mean:
        formula:
          inclusive: {/: [*a-I, *a-I-cnt]}
          exclusive: [*a-E, /, *a-E-cnt]
      Ratio:
        formula:
          inclusive: {/: [*a-I, *c-I]}
          exclusive: [*a-E, /, *b-E]
      Scaled:
        formula:
          inclusive: [4*, [*a-I, -, *b-I], "+ 1"]
          exclusive: {sqrt: [[*a-E, '*', *a-E]]}
      Fn:
        formula:
          inclusive: {pow: [*a-I, 2]}
          exclusive: {log: [[*b-E, +, 1]]}
    children:
      - name: A
        variants:
          Sum: {formula: {inclusive: *a-I, exclusive: *a-E}}
          Mean: {formula: {inclusive: [2, '*', *a-I]}}
        children:
          - name: A2
            variants:
              Sum: {formula: {inclusive: [*a-I, '^', 2, /, [*c-I, +, 1]]}}
      - name: B
        variants:
          Sum: {formula: {inclusive: *b-I, exclusive: *b-E}}
  - name: Total
    variants:
      Sum:
        formula: sum
      First:
        child variant: Sum
        formula: first
    children:
      - name: A
        variants:
          Sum: {formula: {inclusive: *a-I, exclusive: *a-E}}
      - name: C
        variants:
          Sum: {formula: {inclusive: *c-I}}
  - name: Broken
    variants:
      Bad: {formula: {inclusive: {frobnicate: [*a-I]}, exclusive: [*nope, +, 1]}}
`

// A generated database with a METRICS.yaml of derived formulas: every
// column equals its formula computed here from the same summary values
// (cct.csv's columns, which TestMetaGenerated checks); undefined results
// (0/0, x/0) and unreadable formulas are empty cells, the latter with an
// _errors.txt line each.
func TestMetaTaxonomyDerived(t *testing.T) {
	dir := t.TempDir()
	g, err := gen.WriteMeta(dir, gen.Config{Threads: 3, Contexts: 300, Metrics: 3, Samples: 5, Density: 0.4, Unlisted: 2, Counts: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// the count statistics of COSTA by hand: threads with a value
	n := len(g.Parent)
	cntE, cntI := make([]float64, g.NumContexts()+1), make([]float64, g.NumContexts()+1)
	exc, inc := make([]float64, n), make([]float64, n)
	for p := 1; p <= g.Threads; p++ {
		g.Values(p, 0, exc, inc)
		for c := range n {
			if exc[c] != 0 {
				cntE[c]++
			}
			if inc[c] != 0 {
				cntI[c]++
			}
		}
	}
	cntI[g.EntryID()] = cntI[0] // the entry point holds the whole tree
	if err := os.MkdirAll(filepath.Join(dir, "metrics"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics", "derived.yaml"), []byte(testTaxonomy), 0o644); err != nil {
		t.Fatal(err)
	}
	src := testdata.Open(t, hpcdb.OpenMeta, dir)
	fsys := src.FS()
	cct := readCSV(t, fsys, "cct.csv")
	ch := cct[0]
	rows := readCSV(t, fsys, "taxonomy/derived.csv")
	head := rows[0]
	wantHead := []string{"ctx_id", "parent_id", "depth", "kind", "name",
		"cost_sum_inc", "cost_sum_exc", "cost_mean_inc", "cost_mean_exc", "cost_ratio_inc", "cost_ratio_exc", "cost_scaled_inc", "cost_scaled_exc", "cost_fn_inc", "cost_fn_exc",
		"cost_a_sum_inc", "cost_a_sum_exc", "cost_a_mean_inc", "cost_a_a2_sum_inc", "cost_b_sum_inc", "cost_b_sum_exc",
		"total_sum_inc", "total_sum_exc", "total_first_inc", "total_first_exc", "total_a_sum_inc", "total_a_sum_exc", "total_c_sum_inc",
		"broken_bad_inc", "broken_bad_exc"}
	if !slices.Equal(head, wantHead) {
		t.Fatalf("header\n%v, want\n%v", head, wantHead)
	}
	if len(rows) != len(cct) {
		t.Fatalf("%d rows, cct.csv has %d", len(rows), len(cct))
	}
	nan := math.NaN()
	empty, means := 0, 0
	for i, r := range rows[1:] {
		c := cct[1+i]
		for j, k := range []string{"ctx_id", "parent_id", "depth", "kind", "name"} {
			if r[j] != c[col(t, ch, k)] {
				t.Fatalf("row %d %s: %q, cct.csv %q", i, k, r[j], c[col(t, ch, k)])
			}
		}
		val := func(column string) float64 {
			v, err := strconv.ParseFloat(c[col(t, ch, column)], 64)
			if err != nil {
				t.Fatalf("cct.csv %s: %v", column, err)
			}
			return v
		}
		aI, aE, bI, bE, cI := val("costa_s_sum_inc"), val("costa_s_sum_exc"), val("costb_s_sum_inc"), val("costb_s_sum_exc"), val("costc_s_sum_inc")
		ctx, _ := strconv.Atoi(r[0])
		nE, nI := 0.0, 0.0
		if ctx < len(cntE) {
			nE, nI = cntE[ctx], cntI[ctx]
		}
		want := map[string]float64{
			"cost_sum_inc": aI + bI, "cost_sum_exc": aE + bE,
			"cost_mean_inc": aI / nI, "cost_mean_exc": aE / nE,
			"cost_ratio_inc": aI / cI, "cost_ratio_exc": aE / bE,
			"cost_scaled_inc": 4*(aI-bI) + 1, "cost_scaled_exc": math.Sqrt(aE * aE),
			"cost_fn_inc": math.Pow(aI, 2), "cost_fn_exc": math.Log(bE + 1),
			"cost_a_sum_inc": aI, "cost_a_sum_exc": aE, "cost_a_mean_inc": 2 * aI,
			"cost_a_a2_sum_inc": math.Pow(aI, 2) / (cI + 1),
			"cost_b_sum_inc":    bI, "cost_b_sum_exc": bE,
			"total_sum_inc": aI + cI, "total_sum_exc": nan, // C has no exclusive formula: a null child
			"total_first_inc": aI, "total_first_exc": aE,
			"total_a_sum_inc": aI, "total_a_sum_exc": aE, "total_c_sum_inc": cI,
			"broken_bad_inc": nan, "broken_bad_exc": nan,
		}
		if nI > 1 && r[col(t, head, "cost_mean_inc")] != "" {
			means++ // a mean over more than one thread
		}
		for j, h := range head[5:] {
			w, got := want[h], r[5+j]
			if math.IsNaN(w) || math.IsInf(w, 0) {
				if got != "" {
					t.Errorf("ctx %s %s: %q, want empty", r[0], h, got)
				}
				empty++
				continue
			}
			g, err := strconv.ParseFloat(got, 64)
			if err != nil || g != w {
				t.Errorf("ctx %s %s: %q, want %v", r[0], h, got, w)
			}
		}
	}
	if means == 0 {
		t.Error("no mean over several threads")
	}
	// besides the always-empty columns, divisions by zero did occur
	if empty <= 3*(len(rows)-1) {
		t.Errorf("%d empty cells: no division by zero seen", empty)
	}
	errs := src.Errors.Lines()
	for _, w := range []string{"frobnicate", "NOPE"} {
		if !slices.ContainsFunc(errs, func(l string) bool {
			return strings.Contains(l, "metrics/derived.yaml") && strings.Contains(l, w)
		}) {
			t.Errorf("_errors.txt has no line about %s: %q", w, errs)
		}
	}
	if len(errs) != 2 {
		t.Errorf("_errors.txt: %q", errs)
	}
}

// A metrics/*.yaml that does not parse gives an _errors.txt line and no
// view; the other taxonomy and every other view stay.
func TestMetaTaxonomyMalformed(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteMeta(dir, gen.Config{Threads: 2, Contexts: 50, Metrics: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "metrics"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"bad.yaml":  "roots: [ {name: X, variants: {Sum: {formula: *undefined}}}\n  - :\n",
		"good.yaml": "inputs:\n  - &i {metric: COSTA (s), scope: execution}\nroots:\n  - name: X\n    variants: {Sum: {formula: {inclusive: *i}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, "metrics", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := testdata.Open(t, hpcdb.OpenMeta, dir)
	fsys := src.FS()
	ents, err := fs.ReadDir(fsys, "taxonomy")
	if err != nil {
		t.Fatal(err)
	}
	if ents = withoutParquet(ents); len(ents) != 1 || ents[0].Name() != "good.csv" {
		t.Errorf("taxonomy/ holds %v, want good.csv only", ents)
	}
	good := readCSV(t, fsys, "taxonomy/good.csv")
	if !slices.Equal(good[0], []string{"ctx_id", "parent_id", "depth", "kind", "name", "x_sum_inc"}) || len(good) != len(readCSV(t, fsys, "cct.csv")) {
		t.Errorf("taxonomy/good.csv: %v, %d rows", good[0], len(good))
	}
	errs := src.Errors.Lines()
	if len(errs) != 1 || !strings.Contains(errs[0], "metrics/bad.yaml") {
		t.Errorf("_errors.txt: %q", errs)
	}
}

// A taxonomy of more formulas than a view holds shows the first 4096 and
// says so; a `sum` over children partly cut off is empty.
func TestMetaTaxonomyManyColumns(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteMeta(dir, gen.Config{Threads: 2, Contexts: 50, Metrics: 1, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("inputs:\n  - &i {metric: COSTA (s), scope: execution}\nroots:\n  - name: T\n    variants: {S: {formula: sum}}\n    children:\n")
	for k := range 5000 {
		b.WriteString("      - {name: m" + strconv.Itoa(k) + ", variants: {S: {formula: {inclusive: *i}}}}\n")
	}
	if err := os.MkdirAll(filepath.Join(dir, "metrics"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics", "many.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src := testdata.Open(t, hpcdb.OpenMeta, dir)
	rows := readCSV(t, src.FS(), "taxonomy/many.csv")
	cct := readCSV(t, src.FS(), "cct.csv")
	if len(rows[0]) != 5+4096 || rows[0][5] != "t_s_inc" || rows[0][7] != "t_m0_s_inc" {
		t.Fatalf("%d columns: %v", len(rows[0]), rows[0][:8])
	}
	for i, r := range rows[1:] {
		if r[5] != "" || r[6] != "" || r[7] != cct[1+i][col(t, cct[0], "costa_s_sum_inc")] {
			t.Fatalf("row %v", r[:8])
		}
	}
	if errs := src.Errors.Lines(); len(errs) != 1 || !strings.Contains(errs[0], "more than 4096") {
		t.Errorf("_errors.txt: %q", errs)
	}
}

// With profile.db or meta.db cut, the taxonomy view still reads, with an
// _errors.txt line; for a cut profile.db it agrees with cct.csv, which
// shows the contexts past the damage as 0 (summaryIndex).
func TestMetaTaxonomyDamaged(t *testing.T) {
	c := gen.Config{Threads: 3, Contexts: 300, Metrics: 3, Unlisted: 1, Counts: true, Seed: 5}
	write := func(t *testing.T) string {
		dir := t.TempDir()
		if _, err := gen.WriteMeta(dir, c); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "metrics"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "metrics", "derived.yaml"), []byte(testTaxonomy), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, name := range []string{"profile.db", "meta.db"} {
		for _, frac := range []float64{0.3, 0.6, 0.97} {
			t.Run(name+"@"+strconv.FormatFloat(frac, 'f', -1, 64), func(t *testing.T) {
				dir := write(t)
				p := filepath.Join(dir, name)
				fi, _ := os.Stat(p)
				if err := os.Truncate(p, int64(float64(fi.Size())*frac)); err != nil {
					t.Fatal(err)
				}
				src := testdata.Open(t, hpcdb.OpenMeta, dir)
				fsys := src.FS()
				tax, _ := fs.ReadFile(fsys, "taxonomy/derived.csv")
				if len(src.Errors.Lines()) == 0 {
					t.Error("no _errors.txt line")
				}
				if name != "profile.db" {
					return
				}
				if len(tax) == 0 {
					t.Fatal("taxonomy/derived.csv is empty")
				}
				tl, cl := readCSV(t, fsys, "taxonomy/derived.csv"), readCSV(t, fsys, "cct.csv")
				if len(tl) != len(cl) || len(tl) < 3 {
					t.Fatalf("%d rows, cct.csv %d", len(tl), len(cl))
				}
				ti, ci := col(t, tl[0], "cost_a_sum_inc"), col(t, cl[0], "costa_s_sum_inc")
				for i := 1; i < len(tl); i++ {
					if tl[i][ti] != cl[i][ci] {
						t.Fatalf("row %d: %s, cct.csv %s", i, tl[i][ti], cl[i][ci])
					}
				}
			})
		}
	}
}
