package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/lotest"
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

// TestHpcrunSparse mounts the 04.00 sample: hpcfs info names its version,
// and its views read the same through `hpcfs cat` and the mount.
func TestHpcrunSparse(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small")
	const p = "testmeas-small-000000-000-11ac0300-5560-0"
	for _, src := range []string{dir, filepath.Join(dir, p+".hpcrun")} {
		if info := string(runCLI(t, "info", src)); !strings.Contains(info, "version: 04.00\n") {
			t.Fatalf("hpcfs info %s:\n%s", src, info)
		}
	}
	mnt := mountCLI(t, dir)
	for _, v := range []string{"cct.csv", "cct.txt", "header.txt", "metrics.csv", "loadmap.csv", "trace.txt", "trace.csv"} {
		want := runCLI(t, "cat", dir, p+"/"+v)
		got, err := os.ReadFile(filepath.Join(mnt, p, v))
		if err != nil || !bytes.Equal(got, want) || len(got) == 0 {
			t.Fatalf("%s through the mount differs from hpcfs cat: %v", v, err)
		}
	}
	if !strings.Contains(string(runCLI(t, "cat", dir, p+"/cct.csv")), "\n0,12,0,0,0,0,^Primary,0x5e5072696d617279,,,,,,1.210259,0\n") {
		t.Fatal("cct.csv root row")
	}
	// The sample's program is not on this machine: its one line.
	if errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt")); strings.Count(string(errs), "\n") != 1 || !strings.Contains(string(errs), "symbols of /builds/hpctoolkit/") {
		t.Fatalf("_errors.txt:\n%s", errs)
	}
}

// TestHpcrunLibreOffice opens every CSV of both corpus samples (02.00 and
// 04.00) through the mount in LibreOffice and reads them back unchanged.
func TestHpcrunLibreOffice(t *testing.T) {
	lotest.Require(t)
	var csvs []string
	for _, sample := range []string{"hpcrun-02.00-testvdso", "hpcrun-04.00-small"} {
		mnt := mountCLI(t, testdata.Corpus(t, "hpctoolkit", sample))
		fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".csv") && !strings.HasPrefix(p, "raw/") {
				csvs = append(csvs, filepath.Join(mnt, p))
			}
			return nil
		})
	}
	if len(csvs) < 8 {
		t.Fatalf("only %d CSVs: %q", len(csvs), csvs)
	}
	lotest.Check(t, csvs)
}
