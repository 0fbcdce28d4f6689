package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

const hpcrunSample = "testvdso-000000-000-007f0101-19750-0"

// TestHpcrunOracle compares hpcproftt.txt with HPCToolkit's own dump of
// the corpus sample, through `hpcfs cat` and through `hpcfs mount`.
func TestHpcrunOracle(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-02.00-testvdso")
	want, err := os.ReadFile(filepath.Join(dir, "expected-hpcproftt-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{dir, filepath.Join(dir, hpcrunSample+".hpcrun")} {
		if got := runCLI(t, "cat", src, hpcrunSample+"/hpcproftt.txt"); !bytes.Equal(got, want) {
			t.Fatalf("hpcfs cat %s: hpcproftt.txt differs from the golden dump", src)
		}
	}
	mnt := mountCLI(t, dir)
	got, err := os.ReadFile(filepath.Join(mnt, hpcrunSample, "hpcproftt.txt"))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("mounted hpcproftt.txt differs: %v", err)
	}
	ls := string(runCLI(t, "ls", dir, hpcrunSample))
	for _, v := range []string{"hpcproftt.txt", "header.txt", "metrics.csv", "loadmap.csv", "cct.csv", "cct.txt"} {
		if !strings.Contains(ls, v) {
			t.Fatalf("hpcfs ls lacks %s:\n%s", v, ls)
		}
	}
	if info := string(runCLI(t, "info", dir)); !strings.Contains(info, "hpcrun") {
		t.Fatalf("hpcfs info:\n%s", info)
	}
}

// TestHpcrunNewerVersion mounts the 04.00 sample: detected, and
// _errors.txt says the version is not supported.
func TestHpcrunNewerVersion(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small")
	errs := string(runCLI(t, "cat", dir, "_errors.txt"))
	if !strings.Contains(errs, "04.00") || !strings.Contains(errs, "not supported") {
		// profiles.csv triggers the header decode of every profile.
		runCLI(t, "cat", dir, "profiles.csv")
		mnt := mountCLI(t, dir)
		os.ReadFile(filepath.Join(mnt, "profiles.csv"))
		b, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
		errs = string(b)
	}
	if !strings.Contains(errs, "version 04.00") || !strings.Contains(errs, "not supported") {
		t.Fatalf("_errors.txt = %q", errs)
	}
}
