package hpcdb_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

func inputName(in hpcdb.TaxInput) string {
	return in.Metric + "/" + in.Scope + "/" + in.Formula + "/" + in.Combine
}

// specTaxonomy is METRICS.yaml.ex of the corpus, HPCToolkit's
// specification of the format, parsed.
func specTaxonomy(t *testing.T) []hpcdb.TaxMetric {
	t.Helper()
	b, err := os.ReadFile(testdata.Corpus(t, "hpctoolkit-metadb", "hatchet-cpi-v4", "metrics", "METRICS.yaml.ex"))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := hpcdb.ParseTaxonomy(b)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// METRICS.yaml.ex, HPCToolkit's specification of the format, parses; its
// derived formulas read back infix.
func TestTaxonomySpec(t *testing.T) {
	ms := specTaxonomy(t)
	var all []string
	for _, m := range ms {
		for _, v := range m.Variants {
			s := m.Path + " [" + v.Name + "]"
			if v.Inclusive != nil {
				s += " I=" + v.Inclusive.Render(inputName)
			}
			if v.Exclusive != nil {
				s += " E=" + v.Exclusive.Render(inputName)
			}
			all = append(all, s)
		}
	}
	got := strings.Join(all, "\n")
	for _, want := range []string{
		"CPU Cycles / L2 Bound",
		"I=4*(perf::l1-cache-miss/execution/$$/sum-perf::l2-cache-miss/execution/$$/sum)",
		"E=perf::cycles/function/$$/sum",
		"CPU Cycles / L2 Bound [Sum] I=", // the key is `!!str Sum`: a tag, not part of the name
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	// A folded scalar (`>`) keeps the line breaks of its more-indented lines
	// (YAML 1.2 §8.1.3).
	if want := "Cycles spent:\n - In the CPU doing actual work (FLOPs), or\n - Waiting for outside operations to complete (memory stalls).\n"; ms[0].Description != want {
		t.Errorf("description %q, want %q", ms[0].Description, want)
	}
}

// Every default.yaml of the corpus parses and names one variant per root.
func TestTaxonomyCorpus(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join(testdata.Corpus(t, "hpctoolkit-metadb"), "*", "metrics", "default.yaml"))
	if len(matches) == 0 {
		t.Fatal("no default.yaml in the corpus")
	}
	for _, p := range matches {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := hpcdb.ParseTaxonomy(b)
		if err != nil || len(ms) == 0 || len(ms[0].Variants) == 0 || ms[0].Variants[0].Inclusive == nil || ms[0].Variants[0].Inclusive.Input == nil {
			t.Errorf("%s: %v, %+v", p, err, ms)
		}
	}
}

func FuzzTaxonomy(f *testing.F) {
	for _, c := range []string{"hatchet-cpi-v4/metrics/METRICS.yaml.ex", "hpctoolkit-loops-cuda-nvidia-t/metrics/default.yaml"} {
		if b, err := os.ReadFile(filepath.Join(testdata.CorpusDir(), "hpctoolkit-metadb", c)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("inputs:\n  - &a\n    metric: m\nroots:\n  - name: x\n    variants:\n      Sum:\n        formula: [2*,[*a,+,*a]]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, _ := hpcdb.ParseTaxonomy(b)
		for i, m := range ms {
			if m.Parent >= i {
				t.Fatalf("metric %d: parent %d", i, m.Parent)
			}
			for _, v := range m.Variants {
				if v.Inclusive != nil {
					v.Inclusive.Render(inputName)
				}
				for _, f := range []*hpcdb.TaxFormula{v.Inclusive, v.Exclusive} {
					if e, err := f.Compile(func(hpcdb.TaxInput) (int, bool) { return 1, true }); err == nil {
						e.Eval(func(int) float64 { return 2 })
					}
				}
			}
		}
	})
}
