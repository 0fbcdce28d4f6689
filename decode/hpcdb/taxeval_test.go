package hpcdb_test

import (
	"math"
	"testing"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
)

// evalTax compiles f with the inputs numbered by metric name and scope and
// evaluates it with vals.
func evalTax(t *testing.T, f *hpcdb.TaxFormula, vals map[string]float64) float64 {
	t.Helper()
	ids := map[string]int{}
	names := map[int]string{}
	e, err := f.Compile(func(in hpcdb.TaxInput) (int, bool) {
		k := in.Metric + "/" + in.Scope + "/" + in.Formula
		if _, ok := vals[k]; !ok {
			return 0, false
		}
		if _, ok := ids[k]; !ok {
			ids[k] = len(ids)
			names[ids[k]] = k
		}
		return ids[k], true
	})
	if err != nil {
		t.Fatal(err)
	}
	return e.Eval(func(id int) float64 { return vals[names[id]] })
}

// The derived formulas of METRICS.yaml.ex evaluate as written there;
// children know their parents.
func TestTaxonomyCompileSpec(t *testing.T) {
	ms := specTaxonomy(t)
	vals := map[string]float64{
		"perf::cycles/execution/$$": 1000, "perf::cycles/execution/1": 8,
		"perf::l1-cache-miss/execution/$$": 70, "perf::l1-cache-miss/execution/1": 7,
		"perf::l2-cache-miss/execution/$$": 30, "perf::l2-cache-miss/execution/1": 5,
		"perf::l3-cache-miss/execution/$$": 10, "perf::l3-cache-miss/execution/1": 2,
	}
	want := map[string]float64{
		"CPU Cycles [Sum]":             1000,
		"CPU Cycles [Mean]":            1000.0 / 8,
		"CPU Cycles / L2 Bound [Sum]":  4 * (70 - 30),
		"CPU Cycles / L2 Bound [Mean]": 4 * (70.0/7 - 30.0/5),
		"CPU Cycles / L3 Bound [Sum]":  64 * (30 - 10),
		"CPU Cycles / L3 Bound [Mean]": 64 * (30.0/5 - 10.0/2),
	}
	for i, m := range ms {
		if wantParent := map[bool]int{true: -1, false: 0}[i == 0]; m.Parent != wantParent {
			t.Errorf("%s: parent %d, want %d", m.Path, m.Parent, wantParent)
		}
		for _, v := range m.Variants {
			k := m.Path + " [" + v.Name + "]"
			w, ok := want[k]
			if !ok {
				t.Errorf("unexpected %s", k)
				continue
			}
			delete(want, k)
			if got := evalTax(t, v.Inclusive, vals); got != w {
				t.Errorf("%s inclusive = %v, want %v", k, got, w)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("missing %v", want)
	}
}

// Functions, their METRICS.yaml names and meanings (log:[a] is the natural
// logarithm), `first`/`sum` formulas and `child variant`.
func TestTaxonomyCompileFunctions(t *testing.T) {
	doc := `
inputs:
  - &x {metric: x, scope: execution}
  - &y {metric: y, scope: execution}
roots:
  - name: f
    variants:
      ln: {formula: {inclusive: {log: [*x]}}}
      log2: {formula: {inclusive: {log: [*x, 2]}}}
      pow: {formula: {inclusive: {pow: [*x, *y]}}}
      prod: {formula: {inclusive: {prod: [*x, *y, 3]}}}
      sum: {formula: {inclusive: {sum: [*x, *y, [1, +, 1]]}}}
      min: {formula: {inclusive: {min: [*x, *y]}}}
      max: {formula: {inclusive: {max: [*x, *y]}}}
      sqrt: {formula: {inclusive: [2, '*', {sqrt: [*x]}]}}
      sfloor: {formula: {inclusive: {strict floor: [*y]}}}
      sceil: {formula: {inclusive: {strict ceil: [*y]}}}
      floor: {formula: {inclusive: {floor: [[*x, /, 3]]}}}
      prec: {formula: {inclusive: [*x, +, *y, '*', 2, ^, 2]}}
      total:
        child variant: [a, b]
        formula: sum
    children:
      - name: g
        variants: {a: {formula: {inclusive: *x}}}
`
	ms, err := hpcdb.ParseTaxonomy([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]float64{"x/execution/$$": 16, "y/execution/$$": 3}
	want := map[string]float64{
		"ln": math.Log(16), "log2": 4, "pow": 4096, "prod": 144, "sum": 21, "min": 3, "max": 16,
		"sqrt": 8, "sfloor": 2, "sceil": 4, "floor": 5, "prec": 28,
	}
	for _, v := range ms[0].Variants {
		if v.Name == "total" {
			if v.Inclusive.Aggregate() != "sum" || len(v.ChildVariants) != 2 || v.ChildVariants[1] != "b" {
				t.Errorf("total: %+v", v)
			}
			continue
		}
		if got := evalTax(t, v.Inclusive, vals); got != want[v.Name] {
			t.Errorf("%s = %v, want %v", v.Name, got, want[v.Name])
		}
	}
	if len(ms) != 2 || ms[1].Parent != 0 || ms[1].Path != "f / g" {
		t.Errorf("child: %+v", ms)
	}
	// an input the database lacks, an unknown function, a reference in text
	for _, bad := range []string{"{frob: [*x]}", "[*z, +, 1]", "['$1', +, *x]"} {
		ms, err := hpcdb.ParseTaxonomy([]byte("inputs:\n  - &x {metric: x, scope: execution}\n  - &z {metric: z}\nroots:\n  - name: f\n    variants: {v: {formula: {inclusive: " + bad + "}}}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ms[0].Variants[0].Inclusive.Compile(func(in hpcdb.TaxInput) (int, bool) { return 0, in.Metric == "x" }); err == nil {
			t.Errorf("%s compiles", bad)
		}
	}
}
