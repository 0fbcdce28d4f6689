package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	hpcdbgen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// taxonomy/default.csv (the taxonomic metrics' values per context, derived
// ones with empty cells included) reads the same through a FUSE mount as
// through `hpcfs cat` (TestMetaDBLibreOffice round-trips it through
// LibreOffice).
func TestMetaDBTaxonomyValues(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cuda-nvidia-t")
	mnt := mountCLI(t, dir)
	view := filepath.Join(mnt, "taxonomy", "default.csv")
	fsnodetest.CheckFile(t, view, runCLI(t, "cat", dir, "taxonomy/default.csv"))
	b := mustRead(t, view)
	if !strings.HasPrefix(string(b), "ctx_id,parent_id,depth,kind,name,gpuop_sec_sum_inc,") || !strings.Contains(string(b), ",,") {
		t.Errorf("taxonomy/default.csv: %.200s", b)
	}
	if errs := mustRead(t, filepath.Join(mnt, "_errors.txt")); len(errs) > 0 {
		t.Errorf("_errors.txt: %s", errs)
	}
}

// A metrics/*.yaml that does not parse leaves the mount up: an
// _errors.txt line, no view of it, the other views readable.
func TestMetaDBTaxonomyMalformed(t *testing.T) {
	dir := t.TempDir()
	if _, err := hpcdbgen.WriteMeta(dir, hpcdbgen.Config{Threads: 2, Contexts: 50, Metrics: 1, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "metrics"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "metrics", "bad.yaml"), []byte("roots: [ {name: X\n  - :\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	mnt := mountCLI(t, dir)
	ents, err := os.ReadDir(filepath.Join(mnt, "taxonomy"))
	if err != nil || len(ents) != 0 {
		t.Errorf("taxonomy/: %v, %v", ents, err)
	}
	if errs := string(mustRead(t, filepath.Join(mnt, "_errors.txt"))); !strings.Contains(errs, "metrics/bad.yaml") {
		t.Errorf("_errors.txt: %q", errs)
	}
	if cct := mustRead(t, filepath.Join(mnt, "cct.csv")); !strings.HasPrefix(string(cct), "ctx_id,") {
		t.Errorf("cct.csv: %.100s", cct)
	}
	if tax := mustRead(t, filepath.Join(mnt, "taxonomy.csv")); !strings.HasPrefix(string(tax), "file,") {
		t.Errorf("taxonomy.csv: %.100s", tax)
	}
}
