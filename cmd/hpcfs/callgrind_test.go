package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/lotest"
)

// TestCallgrindThroughMountAndCat mounts raw profiles (plain, gzip,
// cachegrind, Xdebug) with the CLI and uses them as a user would.
func TestCallgrindThroughMountAndCat(t *testing.T) {
	for _, c := range []struct{ set, name string }{
		{"valgrind-3.19-generated", "callgrind.out.default"},
		{"valgrind-3.19-generated", "callgrind.out.default.gz"},
		{"valgrind-3.19-generated", "cachegrind.out.cachesim"},
		{"xdebug-3.2.0-generated", "cachegrind.out.12174"},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(testdata.Corpus(t, "callgrind", c.set), c.name)
			info := string(runCLI(t, "info", src))
			if !strings.Contains(info, "format: callgrind") {
				t.Fatalf("hpcfs info:\n%s", info)
			}
			catF := runCLI(t, "cat", src, "functions.csv")
			mnt := mountCLI(t, src)
			got, err := os.ReadFile(filepath.Join(mnt, "functions.csv"))
			if err != nil || !bytes.Equal(got, catF) {
				t.Fatalf("mounted functions.csv differs from hpcfs cat: %v", err)
			}
			if errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt")); len(errs) != 0 {
				t.Fatalf("_errors.txt: %s", errs)
			}
			// awk over lines.csv: the self costs of the first event add up
			// to the sum of self costs in functions.csv.
			sum := func(file, col string) string {
				out, err := exec.Command("awk", "-F,", `NR==1{for(i=1;i<=NF;i++) if($i==c) k=i; next} {s+=$k} END {printf "%d", s}`, "c="+col, filepath.Join(mnt, file)).Output()
				if err != nil {
					t.Fatal(err)
				}
				return string(out)
			}
			rows := testdata.ReadCSV(t, got)
			ev := strings.TrimSuffix(rows[0][6], "_exc")
			if a, b := sum("functions.csv", ev+"_exc"), sum("lines.csv", ev); a != b || a == "0" {
				t.Errorf("self %s: functions.csv %s, lines.csv %s", ev, a, b)
			}
			if _, err := os.Stat(filepath.Join(mnt, "functions")); err != nil {
				t.Fatal(err)
			}
			if n, _ := os.ReadDir(filepath.Join(mnt, "functions")); len(n) != len(rows)-1 {
				t.Errorf("functions/ has %d entries for %d rows", len(n), len(rows)-1)
			}
			if !strings.HasSuffix(c.name, ".gz") {
				checkAnnotateMounted(t, mnt, src)
			}
			hdr, _ := os.ReadFile(filepath.Join(mnt, "header.txt"))
			if !strings.Contains(string(hdr), "events: ") || strings.Contains(string(hdr), "totals_check: differs") {
				t.Errorf("header.txt:\n%s", hdr)
			}
		})
	}
}

// TestCallgrindDirectory mounts the parts of a --dump-after run.
func TestCallgrindDirectory(t *testing.T) {
	corpusDir := testdata.Corpus(t, "callgrind", "valgrind-3.19-generated")
	dir := t.TempDir()
	for _, n := range []string{"callgrind.out.parts.2", "callgrind.out.parts.3"} {
		b, err := os.ReadFile(filepath.Join(corpusDir, n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	mnt := mountCLI(t, dir)
	for _, d := range []string{"sum", "callgrind.out.parts.2", "callgrind.out.parts.3"} {
		rows := testdata.ReadCSV(t, mustReadFile(t, filepath.Join(mnt, d, "functions.csv")))
		if len(rows) < 10 {
			t.Errorf("%s/functions.csv: %d rows", d, len(rows))
		}
	}
	readme := string(mustReadFile(t, filepath.Join(mnt, "README.txt")))
	if !strings.Contains(readme, "part 3") || !strings.Contains(readme, "sum/") {
		t.Errorf("README.txt:\n%s", readme)
	}
	if err := fstest.TestFS(os.DirFS(mnt), "sum/functions.csv", "sum/calls.csv", "sum/header.txt", "callgrind.out.parts.2/lines.csv", "README.txt"); err != nil {
		t.Fatal(err)
	}
	// 2 profiles, sum/, README.txt, _errors.txt, raw/
	if des, _ := os.ReadDir(mnt); len(des) != 6 {
		t.Errorf("%d entries at the root", len(des))
	}
}

// TestCallgrindLibreOffice opens the mounted functions.csv and calls.csv
// in LibreOffice and checks that it sees the same rows, columns and values.
func TestCallgrindLibreOffice(t *testing.T) {
	lotest.Require(t)
	src := filepath.Join(testdata.Corpus(t, "callgrind", "xdebug-3.2.0-generated"), "cachegrind.out.12174")
	mnt := mountCLI(t, src)
	lotest.Check(t, []string{filepath.Join(mnt, "functions.csv"), filepath.Join(mnt, "calls.csv")})
}

// checkAnnotateMounted compares the mounted annotate.txt and
// annotate-inclusive.txt with valgrind's callgrind_annotate on src (run
// from an empty directory: no file name prefix stripped) bar the
// "Profile data file" line, and their sizes with what reading gives.
func checkAnnotateMounted(t *testing.T, mnt, src string) {
	t.Helper()
	if _, err := exec.LookPath("callgrind_annotate"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("callgrind_annotate missing in CI (.ci/setup installs valgrind)")
		}
		t.Skip("callgrind_annotate not installed (apt-get install valgrind)")
	}
	// the line naming the input (the tool's argument) aside
	dropSecond := func(b []byte) string {
		var out []string
		for i, l := range strings.SplitAfter(string(b), "\n") {
			if i != 1 && !strings.HasPrefix(l, "Data file:") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "")
	}
	views := map[string][]string{
		"annotate.txt":           {"callgrind_annotate", "--auto=no", src},
		"annotate-inclusive.txt": {"callgrind_annotate", "--inclusive=yes", "--auto=no", src},
	}
	if strings.HasPrefix(filepath.Base(src), "cachegrind.out.cachesim") {
		views = map[string][]string{"annotate.txt": {"cg_annotate", "--auto=no", src}}
	}
	for view, args := range views {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = t.TempDir()
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("callgrind_annotate %v: %v", args, err)
		}
		got, err := os.ReadFile(filepath.Join(mnt, view))
		if err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(filepath.Join(mnt, view)); err != nil || fi.Size() != int64(len(got)) {
			t.Errorf("%s: stat size differs from the %d bytes read (%v)", view, len(got), err)
		}
		if dropSecond(got) != dropSecond(want) {
			t.Errorf("mounted %s differs from callgrind_annotate %v:\n%s\n---\n%s", view, args, got, want)
		}
	}
}
