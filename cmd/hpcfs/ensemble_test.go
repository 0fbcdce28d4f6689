package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestEnsembleDask runs docs/examples/ensemble_dask.py with Debian's
// python3 (python3-distributed, python3-pandas): a Dask LocalCluster of
// two worker processes reads events.csv of every thread of three ovni
// runs through one folder mount, and its counts per run and event equal
// those read here through the same mount.
func TestEnsembleDask(t *testing.T) {
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import distributed, pandas").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s lacks python3-distributed or python3-pandas (.ci/setup installs them): %v", python, err)
		}
		t.Skip("no python3-distributed: run .ci/setup")
	}
	dir := t.TempDir()
	for run, src := range map[string]string{
		"run-a": filepath.Join(testdata.Corpus(t, "ovni", "v1-two-procs"), "ovni"),
		"run-b": filepath.Join(testdata.Corpus(t, "ovni", "v1-basic-mix"), "ovni"),
		"run-c": filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks"), "ovni"),
	} {
		testdata.CopyDir(t, src, filepath.Join(dir, run))
	}
	mnt := mountCLI(t, dir)

	want := map[[2]string]int{}
	files, _ := filepath.Glob(filepath.Join(mnt, "*", "loom.*", "proc.*", "thread.*", "events.csv"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rows := testdata.ReadCSV(t, b)
		col := -1
		for i, name := range rows[0] {
			if name == "event" {
				col = i
			}
		}
		rel, _ := filepath.Rel(mnt, f)
		for _, r := range rows[1:] {
			want[[2]string{strings.SplitN(rel, "/", 2)[0], r[col]}]++
		}
	}
	if len(files) < 3 || len(want) == 0 {
		t.Fatalf("%d events.csv files in the mount", len(files))
	}

	script := filepath.Join(testdata.Dir(), "..", "docs", "examples", "ensemble_dask.py")
	cmd := exec.Command(python, script, mnt, "--workers", "2")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.Bytes())
	}
	recs, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(recs) < 2 || len(recs[0]) != 3 || recs[0][2] != "rows" {
		t.Fatalf("output %q: %v", out, err)
	}
	got := map[[2]string]int{}
	for _, r := range recs[1:] {
		n, err := strconv.Atoi(r[2])
		if err != nil {
			t.Fatalf("row %q", r)
		}
		got[[2]string{r[0], r[1]}] = n
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("run %s event %q: Dask counts %d, the mount %d", k[0], k[1], got[k], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("Dask counts %d (run, event) pairs, the mount %d", len(got), len(want))
	}
}
