package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	hpcdbgen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
	"github.com/hpcfs/hpcfs/testdata/lotest"
)

var hpcdbSamples = []string{"db-4.0-xml-pipit-ping-pong", "db-4.0-xml-hpcviewer-empty-trace"}

// The dump views are byte-identical to hpcproftt's output, through a
// mount and through `hpcfs cat`.
func TestHpcdbDumpsThroughMountAndCat(t *testing.T) {
	for _, sample := range hpcdbSamples {
		dir := testdata.Corpus(t, "hpctoolkit", sample)
		mnt := mountCLI(t, dir)
		for _, name := range []string{"profile.db", "cct.db", "trace.db"} {
			want, err := os.ReadFile(filepath.Join(dir, "expected-hpcproftt-"+name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			view := "dump/" + name + ".txt"
			fsnodetest.CheckFile(t, filepath.Join(mnt, view), want)
			if got := runCLI(t, "cat", dir, view); !bytes.Equal(got, want) {
				t.Errorf("%s: hpcfs cat %s differs from hpcproftt", sample, view)
			}
		}
		// read everything once so that _errors.txt is complete before
		// TestFS checks it
		fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				os.ReadFile(filepath.Join(mnt, p))
			}
			return nil
		})
		// the cct.db check runs in the background once the model is
		// built; wait for its line so that _errors.txt holds still
		for {
			errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
			if bytes.Contains(errs, []byte("contexts/ derived from profile.db")) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "header.txt", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"); err != nil {
			t.Fatal(err)
		}
	}
}

// The ping-pong sample's contexts 9 and 18 have values in profile.db but
// no tag in experiment.xml (research §3.7): unlisted.csv lists them, not
// cct.csv.
func TestHpcdbUnlistedContexts(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	tree := string(runCLI(t, "cat", dir, "cct.csv"))
	out := string(runCLI(t, "cat", dir, "unlisted.csv"))
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("unlisted.csv has %d lines, want the header and 2 rows:\n%s", n, out)
	}
	for _, id := range []string{"9", "18"} {
		if !strings.Contains(out, "\n"+id+",") {
			t.Errorf("unlisted.csv has no row for context %s", id)
		}
		if strings.Contains(tree, "\n"+id+",") {
			t.Errorf("cct.csv has a row for the unlisted context %s", id)
		}
	}
}

// Every CSV of the ping-pong sample converts to xlsx in LibreOffice and
// reads back (xlsx -> csv) with the same rows, columns and values.
func TestHpcdbLibreOffice(t *testing.T) {
	lotest.Require(t)
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	mnt := mountCLI(t, dir)
	var csvs []string
	fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".csv") && !strings.HasPrefix(p, "raw/") {
			if strings.HasPrefix(p, "contexts/") && !strings.HasPrefix(p, "contexts/3") {
				return nil // contexts/3*.csv stand for the 117 alike files
			}
			csvs = append(csvs, filepath.Join(mnt, p))
		}
		return nil
	})
	lotest.Check(t, csvs)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var metaSamples = []string{"pipit-ping-pong", "hpctoolkit-loops-cuda-nvidia-t"}

// A meta.db-generation database mounts: `hpcfs info` names the
// generation, every view reads the same through the mount as through
// `hpcfs cat`, and the mounted tree passes fstest.TestFS.
func TestMetaDBMount(t *testing.T) {
	for _, sample := range metaSamples {
		t.Run(sample, func(t *testing.T) {
			dir := testdata.Corpus(t, "hpctoolkit-metadb", sample)
			info := string(runCLI(t, "info", dir))
			if !strings.Contains(info, "meta.db generation") || !strings.Contains(info, "format: hpcdb-meta") {
				t.Errorf("hpcfs info does not name the generation:\n%s", info)
			}
			mnt := mountCLI(t, dir)
			for _, view := range []string{"README.txt", "header.txt", "metrics.csv", "profiles.csv", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"} {
				fsnodetest.CheckFile(t, filepath.Join(mnt, view), runCLI(t, "cat", dir, view))
			}
			readme := mustRead(t, filepath.Join(mnt, "README.txt"))
			if !bytes.Contains(readme, []byte("meta.db generation")) {
				t.Errorf("README.txt does not name the generation")
			}
			traces, _ := os.ReadDir(filepath.Join(mnt, "traces"))
			if len(traces) == 0 {
				t.Errorf("no traces/")
			}
			if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "header.txt", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"); err != nil {
				t.Fatal(err)
			}
			if errs := mustRead(t, filepath.Join(mnt, "_errors.txt")); len(errs) > 0 {
				t.Errorf("_errors.txt of a sound database: %s", errs)
			}
		})
	}
}

// A folder holding a database of each generation mounts both.
func TestMetaDBFolderOfBothGenerations(t *testing.T) {
	dir := t.TempDir()
	testdata.CopyDir(t, testdata.Corpus(t, "hpctoolkit-metadb", "pipit-ping-pong"), filepath.Join(dir, "new"))
	testdata.CopyDir(t, testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"), filepath.Join(dir, "old"))
	mnt := mountCLI(t, dir)
	for _, p := range []string{"new/cct.csv", "old/cct.csv", "new/traces", "old/dump/profile.db.txt"} {
		if _, err := os.Stat(filepath.Join(mnt, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	readme := string(mustRead(t, filepath.Join(mnt, "README.txt")))
	if !strings.Contains(readme, "new/") || !strings.Contains(readme, "old/") {
		t.Errorf("README.txt does not list both databases:\n%s", readme)
	}
	head := string(mustRead(t, filepath.Join(mnt, "new", "cct.csv")))
	if !strings.HasPrefix(head, "ctx_id,parent_id,depth,kind,relation,") {
		t.Errorf("new/cct.csv is not of the meta.db generation: %.80s", head)
	}
}

// Every CSV of a meta.db-generation database converts to xlsx in
// LibreOffice and reads back with the same rows, columns and values.
func TestMetaDBLibreOffice(t *testing.T) {
	lotest.Require(t)
	mnt := mountCLI(t, testdata.Corpus(t, "hpctoolkit-metadb", "pipit-ping-pong"))
	var csvs []string
	fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".csv") && !strings.HasPrefix(p, "raw/") {
			if strings.HasPrefix(p, "contexts/") && !strings.HasPrefix(p, "contexts/12") {
				return nil // contexts/12*.csv stand for the alike files
			}
			csvs = append(csvs, filepath.Join(mnt, p))
		}
		return nil
	})
	// and the taxonomic metrics' values, empty cells included (pipit has no metrics/)
	tax := mountCLI(t, testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cuda-nvidia-t"))
	csvs = append(csvs, filepath.Join(tax, "taxonomy", "default.csv"))
	lotest.Check(t, csvs)
}

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
