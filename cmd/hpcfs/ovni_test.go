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
	"testing/fstest"

	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/lotest"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

func TestOvniCorpusThroughMountAndCat(t *testing.T) {
	for _, c := range []string{"v1-basic-mix", "v1-two-procs"} {
		t.Run(c, func(t *testing.T) {
			dir := testdata.Corpus(t, "ovni", c)
			want, err := os.ReadFile(filepath.Join(dir, "ovnidump.txt"))
			if err != nil {
				t.Fatal(err)
			}
			src := filepath.Join(dir, "ovni")
			if got := runCLI(t, "cat", src, "events.txt"); !bytes.Equal(got, want) {
				t.Fatal("hpcfs cat events.txt differs from ovnidump.txt")
			}
			mnt := mountCLI(t, src)
			got, err := os.ReadFile(filepath.Join(mnt, "events.txt"))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("mounted events.txt differs from ovnidump.txt: %v", err)
			}
			tail, err := exec.Command("tail", "-n", "3", filepath.Join(mnt, "events.txt")).Output()
			lines := strings.SplitAfter(string(want), "\n")
			if err != nil || string(tail) != strings.Join(lines[len(lines)-4:], "") {
				t.Fatalf("tail -n 3: %q %v", tail, err)
			}
			grep, _ := exec.Command("grep", "-c", " VU]", filepath.Join(mnt, "events.txt")).Output()
			if strings.TrimSpace(string(grep)) != strconv.Itoa(strings.Count(string(want), " VU]")) {
				t.Fatalf("grep -c: %s", grep)
			}
			ls := string(runCLI(t, "ls", src))
			for _, name := range []string{"README.txt", "_errors.txt", "cpus.csv", "events.txt", "loom.nodeA/", "raw/", "streams.csv"} {
				if !strings.Contains(ls, name) {
					t.Fatalf("hpcfs ls lacks %s:\n%s", name, ls)
				}
			}
			info := string(runCLI(t, "info", src))
			if !strings.Contains(info, "format: ovni") || !strings.Contains(info, "headerless") {
				t.Fatalf("hpcfs info:\n%s", info)
			}
		})
	}
}

func TestOvniAwkOnThreadCSV(t *testing.T) {
	dir := testdata.Corpus(t, "ovni", "v1-basic-mix")
	mnt := mountCLI(t, filepath.Join(dir, "ovni"))
	out, err := exec.Command("awk", "-F,", `NR>1 {n[$3]++} END {for (m in n) print m, n[m]}`,
		filepath.Join(mnt, "loom.nodeA/proc.10856/thread.10857/events.csv")).Output()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		counts[f[0]] = f[1]
	}
	// From ovnidump.txt: thread 10857 has two VYc jumbos, one OHx and one OHe.
	dump, _ := os.ReadFile(filepath.Join(dir, "ovnidump.txt"))
	for _, mcv := range []string{"VYc", "OHx", "OHe", "ZS2", "ZSg"} {
		want := 0
		for _, l := range strings.Split(string(dump), "\n") {
			if ev, ok := ovnidump.Parse(l); ok && ev.Stream == "nodeA.10856.10857" && ev.MCV == mcv {
				want++
			}
		}
		if counts[mcv] != strconv.Itoa(want) {
			t.Errorf("awk count of %s = %q, ovnidump has %d", mcv, counts[mcv], want)
		}
	}
}

// TestOvniLibreOffice opens every CSV of a mounted corpus trace in
// LibreOffice and checks the spreadsheet holds the same rows and values.
func TestOvniLibreOffice(t *testing.T) {
	lotest.Require(t)
	dir := testdata.Corpus(t, "ovni", "v1-basic-mix")
	mnt := mountCLI(t, filepath.Join(dir, "ovni"))
	files, _ := filepath.Glob(filepath.Join(mnt, "loom.*/proc.*/thread.*/events.csv"))
	files = append(files, filepath.Join(mnt, "streams.csv"), filepath.Join(mnt, "cpus.csv"))
	lotest.Check(t, files)
}

// TestOvni1xMounted mounts a trace written by libovni 1.14 (spec v3) with
// the hpcfs binary and uses it as a user would: ls, cat, grep and awk,
// checked against the oracle ovnidump -x output of the same release.
func TestOvni1xMounted(t *testing.T) {
	dir := testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks")
	want, err := os.ReadFile(filepath.Join(dir, "ovnidump-x.txt"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "ovni")
	if got := runCLI(t, "cat", src, "events.txt"); !bytes.Equal(got, want) {
		t.Fatal("hpcfs cat events.txt differs from ovnidump-x.txt")
	}
	if info := string(runCLI(t, "info", src)); !strings.Contains(info, "ovni 1.11+ (spec v3)") {
		t.Fatalf("hpcfs info does not name the release family:\n%s", info)
	}
	mnt := mountCLI(t, src)
	got, err := os.ReadFile(filepath.Join(mnt, "events.txt"))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("mounted events.txt differs from ovnidump-x.txt: %v", err)
	}
	ls, err := exec.Command("ls", filepath.Join(mnt, "loom.nodeB/proc.8893/thread.8893")).Output()
	if err != nil || string(ls) != "events.csv\nevents.parquet\nevents.txt\nheader.txt\nstream.json\n" {
		t.Fatalf("ls of a thread directory: %q %v", ls, err)
	}
	grep, _ := exec.Command("grep", "-c", "  OHx  ", filepath.Join(mnt, "events.txt")).Output()
	if strings.TrimSpace(string(grep)) != strconv.Itoa(bytes.Count(want, []byte("  OHx  "))) {
		t.Fatalf("grep -c OHx: %s", grep)
	}
	// awk over the event name column: one "ovni thread execute" per stream.
	csvs, _ := filepath.Glob(filepath.Join(mnt, "loom.*/proc.*/thread.*/events.csv"))
	args := append([]string{"-F,", `FNR>1 && $10 == "ovni thread execute" {n++} END {print n}`}, csvs...)
	awk, err := exec.Command("awk", args...).Output()
	if err != nil || strings.TrimSpace(string(awk)) != strconv.Itoa(len(csvs)) || len(csvs) != 9 {
		t.Fatalf("awk over %d events.csv: %q %v", len(csvs), awk, err)
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "_errors.txt")); err != nil || len(b) != 0 {
		t.Fatalf("_errors.txt = %q, %v", b, err)
	}
	if err := fstest.TestFS(os.DirFS(mnt), "events.txt", "streams.csv", "cpus.csv", "README.txt", "_errors.txt", "raw",
		"loom.nodeA/proc.8891/thread.8891/header.txt", "loom.nodeA/proc.8891/thread.8891/stream.json"); err != nil {
		t.Fatal(err)
	}
}

// TestOvni1xOlderReleasesCat checks the views of the traces of 1.4.1
// (plain ovnidump lines with deltas) and 1.10.0 (-x lines, .obs paths).
func TestOvni1xOlderReleasesCat(t *testing.T) {
	for _, c := range []struct{ name, oracle string }{
		{"v1-1.4.1-shapes-threads", "ovnidump-1.4.1.txt"},
		{"v2-1.10.0-shapes-threads", "ovnidump-1.10.0-x.txt"},
	} {
		dir := testdata.Corpus(t, "ovni-1x", c.name)
		want, err := os.ReadFile(filepath.Join(dir, c.oracle))
		if err != nil {
			t.Fatal(err)
		}
		if got := runCLI(t, "cat", filepath.Join(dir, "ovni"), "events.txt"); !bytes.Equal(got, want) {
			t.Errorf("%s: hpcfs cat events.txt differs from %s", c.name, c.oracle)
		}
	}
}

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
