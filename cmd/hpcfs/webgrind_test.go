package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
	"github.com/hpcfs/hpcfs/testdata/lotest"
	"github.com/hpcfs/hpcfs/testdata/wgoracle"
)

// webgrindExpected builds functions.csv and calls.csv records from
// webgrind's own reading of a corpus file (oracle.json).
func webgrindExpected(t *testing.T, dir string) (functions, calls [][]string) {
	o := wgoracle.Load(t, dir)
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	kinds := webgrindKinds(t, dir)
	kind := func(name string) string {
		k, ok := kinds[name]
		if !ok {
			t.Fatalf("%s: no humanKind in ui.json", name)
		}
		return k
	}
	functions = [][]string{{"function_id", "function", "file", "line", "kind", "call_count", "cost_inc", "cost_exc", "cost_inc_pct", "cost_exc_pct"}}
	calls = [][]string{{"caller_id", "caller", "callee_id", "callee", "line", "call_count", "call_cost", "call_cost_pct"}}
	for _, f := range o.Functions {
		line := ""
		if o.Version == 7 {
			line = u(uint64(*f.Line))
		}
		functions = append(functions, []string{strconv.Itoa(f.Nr), f.FunctionName, f.File, line, kind(f.FunctionName),
			u(f.InvocationCount), u(f.SummedInclusiveCost), u(f.SummedSelfCost),
			f.Formatted.Percent.SummedInclusiveCost, f.Formatted.Percent.SummedSelfCost})
		for _, c := range f.SubCalls {
			calls = append(calls, []string{strconv.Itoa(f.Nr), f.FunctionName, u(c.FunctionNr), o.Functions[c.FunctionNr].FunctionName,
				u(c.Line), u(c.CallCount), u(c.SummedCallCost), c.Formatted.Percent})
		}
	}
	return functions, calls
}

// webgrindKinds maps function names to the humanKind webgrind's web UI
// gives them (ui.json, its function_list answers). The Xdebug 2 case has no
// ui.json: it is the same PHP profile as xdebug-app-v7, whose kinds it uses.
func webgrindKinds(t *testing.T, dir string) map[string]string {
	t.Helper()
	path := filepath.Join(dir, "ui.json")
	if _, err := os.Stat(path); err != nil {
		path = filepath.Join(dir, "..", "xdebug-app-v7", "ui.json")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ui struct {
		FunctionList map[string]struct {
			Functions []struct{ FunctionName, HumanKind string }
		} `json:"function_list"`
	}
	if err := json.Unmarshal(b, &ui); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, l := range ui.FunctionList {
		for _, f := range l.Functions {
			kinds[f.FunctionName] = f.HumanKind
		}
	}
	if len(kinds) == 0 {
		t.Fatalf("%s: no functions", path)
	}
	return kinds
}

func TestWebgrindCorpusThroughMountAndCat(t *testing.T) {
	for _, c := range []string{"xdebug-app-v7", "xdebug2-app-v6", "valgrind-calls-v7"} {
		t.Run(c, func(t *testing.T) {
			dir := testdata.Corpus(t, "webgrind", c)
			wantF, wantC := webgrindExpected(t, dir)
			src := filepath.Join(dir, "callgrind.out.webgrind")
			catF := runCLI(t, "cat", src, "functions.csv")
			catC := runCLI(t, "cat", src, "calls.csv")
			testdata.SameRows(t, "hpcfs cat functions.csv", testdata.ReadCSV(t, catF), wantF)
			testdata.SameRows(t, "hpcfs cat calls.csv", testdata.ReadCSV(t, catC), wantC)

			mnt := mountCLI(t, src)
			for name, want := range map[string][]byte{"functions.csv": catF, "calls.csv": catC} {
				got, err := os.ReadFile(filepath.Join(mnt, name))
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("mounted %s differs from hpcfs cat: %v", name, err)
				}
			}
			errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
			if len(errs) != 0 {
				t.Fatalf("_errors.txt: %s", errs)
			}
			info := string(runCLI(t, "info", src))
			if !strings.Contains(info, "format: webgrind") {
				t.Fatalf("hpcfs info:\n%s", info)
			}
			ls := string(runCLI(t, "ls", src))
			for _, name := range []string{"README.txt", "_errors.txt", "header.txt", "functions.csv", "functions.txt", "calls.csv", "functions/", "raw/"} {
				if !strings.Contains(ls, name) {
					t.Fatalf("hpcfs ls lacks %s:\n%s", name, ls)
				}
			}
			// awk over the mount: self costs add up to what functions.csv says
			out, err := exec.Command("awk", "-F,", `NR>1 {n++} END {print n}`, filepath.Join(mnt, "functions.csv")).Output()
			if err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(len(wantF)-1) {
				t.Fatalf("awk row count %q %v", out, err)
			}
		})
	}
}

func TestWebgrindStorageDirectory(t *testing.T) {
	dir := t.TempDir()
	g := gen.Random(4, 500, 15)
	for _, v := range []int{4, 5, 6, 7} {
		f, err := os.Create(filepath.Join(dir, "cachegrind.out."+strconv.Itoa(v)+".webgrind"))
		if err != nil {
			t.Fatal(err)
		}
		g.Write(f, v)
		f.Close()
	}
	mnt := mountCLI(t, dir)
	files := testdata.ReadCSV(t, mustReadFile(t, filepath.Join(mnt, "files.csv")))
	if len(files) != 5 {
		t.Fatalf("files.csv: %q", files)
	}
	a := mustReadFile(t, filepath.Join(mnt, "cachegrind.out.6.webgrind", "calls.csv"))
	b := mustReadFile(t, filepath.Join(mnt, "cachegrind.out.7.webgrind", "calls.csv"))
	if !bytes.Equal(a, b) || len(testdata.ReadCSV(t, a)) < 2 {
		t.Fatal("v6 and v7 calls.csv differ or are empty")
	}
	if _, err := os.Stat(filepath.Join(mnt, "cachegrind.out.4.webgrind", "invocations.csv")); err != nil {
		t.Fatal(err)
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWebgrindLibreOffice opens the mounted functions.csv and calls.csv
// in LibreOffice and checks that it sees the same rows, columns and values.
func TestWebgrindLibreOffice(t *testing.T) {
	lotest.Require(t)
	dir := testdata.Corpus(t, "webgrind", "xdebug-app-v7")
	mnt := mountCLI(t, filepath.Join(dir, "callgrind.out.webgrind"))
	lotest.Check(t, []string{filepath.Join(mnt, "functions.csv"), filepath.Join(mnt, "calls.csv")})
}
