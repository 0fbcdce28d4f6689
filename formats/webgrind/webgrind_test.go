package webgrind

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	wg "github.com/hpcfs/hpcfs/decode/webgrind"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
	"github.com/hpcfs/hpcfs/testdata/wgoracle"
)

var corpusCases = []string{"xdebug-app-v7", "xdebug2-app-v6", "valgrind-calls-v7"}

// loadOracle returns a corpus case's preprocessed file and its oracle.json.
func loadOracle(t testing.TB, name string) (string, wgoracle.Oracle) {
	dir := testdata.Corpus(t, "webgrind", name)
	return filepath.Join(dir, "callgrind.out.webgrind"), wgoracle.Load(t, dir)
}

// CheckOracle compares functions.csv and calls.csv with webgrind's own
// reading, field by field. Exported to the cmd/hpcfs tests through
// OracleRows.
func checkOracle(t testing.TB, o wgoracle.Oracle, functionsCSV, callsCSV []byte) {
	t.Helper()
	wantF, wantC := OracleRows(o.Version, o.Functions)
	gotF, gotC := testdata.ReadCSV(t, functionsCSV), testdata.ReadCSV(t, callsCSV)
	testdata.SameRows(t, "functions.csv", gotF, wantF)
	testdata.SameRows(t, "calls.csv", gotC, wantC)
}

// The header rows of functions.csv and calls.csv, as the README gives them.
const (
	functionsHeader = "function_id,function,file,line,kind,call_count,cost_inc,cost_exc,cost_inc_pct,cost_exc_pct\n"
	callsHeader     = "caller_id,caller,callee_id,callee,line,call_count,call_cost,call_cost_pct\n"
)

// OracleRows builds the expected functions.csv and calls.csv records from
// oracle.json data, independently of the package's rendering.
func OracleRows(version int, fns []wgoracle.Function) (functions, calls [][]string) {
	functions = [][]string{strings.Split(strings.TrimSpace(functionsHeader), ",")}
	calls = [][]string{strings.Split(strings.TrimSpace(callsHeader), ",")}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, f := range fns {
		line := ""
		if version == 7 && f.Line != nil {
			line = u(uint64(*f.Line))
		}
		functions = append(functions, []string{strconv.Itoa(f.Nr), f.FunctionName, f.File, line, humanKind(f.FunctionName),
			u(f.InvocationCount), u(f.SummedInclusiveCost), u(f.SummedSelfCost),
			f.Formatted.Percent.SummedInclusiveCost, f.Formatted.Percent.SummedSelfCost})
		for _, c := range f.SubCalls {
			calls = append(calls, []string{strconv.Itoa(f.Nr), f.FunctionName, u(c.FunctionNr), fns[c.FunctionNr].FunctionName,
				u(c.Line), u(c.CallCount), u(c.SummedCallCost), c.Formatted.Percent})
		}
	}
	return functions, calls
}

func TestCorpusOracle(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			path, o := loadOracle(t, name)
			src := testdata.Open(t, Open, path)
			fsys := src.FS()
			checkOracle(t, o, testdata.ReadFS(t, fsys, "functions.csv"), testdata.ReadFS(t, fsys, "calls.csv"))
			// per-function tables against the oracle's lists
			for _, f := range o.Functions {
				dir := functionDir(t, fsys, f.Nr)
				callers := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, dir+"/callers.csv"))[1:]
				callees := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, dir+"/callees.csv"))[1:]
				checkList(t, o.Functions, callers, f.CalledFrom)
				checkList(t, o.Functions, callees, f.SubCalls)
			}
			if errs := src.Errors.Lines(); len(errs) != 0 {
				t.Errorf("errors: %q", errs)
			}
			if o.FormattedSummary != nil {
				total := fmt.Sprintf("%v milliseconds", o.FormattedSummary.Msec)
				if o.Headers["events"] == "Ir" {
					// webgrind calls valgrind's instruction counts milliseconds too.
					total = fmt.Sprint(o.Headers["summary"]) + " instructions"
				}
				want := fmt.Sprintf("%d different functions called in %s (%d runs, %d shown)\n",
					o.FunctionCount, total, int(o.Headers["runs"].(float64)), o.FunctionCount)
				txt := string(testdata.ReadFS(t, fsys, "functions.txt"))
				if !strings.HasPrefix(txt, want) {
					t.Errorf("functions.txt starts %q, want %q", txt[:min(len(txt), 80)], want)
				}
			}
		})
	}
}

func checkList(t *testing.T, fns []wgoracle.Function, got [][]string, want []wgoracle.Call) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, oracle %d", len(got), len(want))
	}
	for j, w := range want {
		u := func(v uint64) string { return strconv.FormatUint(v, 10) }
		exp := []string{u(w.FunctionNr), fns[w.FunctionNr].FunctionName, u(w.Line), u(w.CallCount), u(w.SummedCallCost), w.Formatted.Percent}
		if !slices.Equal(got[j], exp) {
			t.Errorf("row %d: %q, oracle %q", j, got[j], exp)
		}
	}
}

func functionDir(t testing.TB, fsys fs.FS, nr int) string {
	t.Helper()
	des, err := fs.ReadDir(fsys, "functions")
	if err != nil {
		t.Fatal(err)
	}
	if nr >= len(des) {
		t.Fatalf("functions/ has %d entries", len(des))
	}
	name := des[nr].Name()
	if n, err := strconv.Atoi(name[:strings.IndexByte(name, '-')]); err != nil || n != nr {
		t.Fatalf("entry %d is %q", nr, name)
	}
	return "functions/" + name
}

// TestUIOracle compares callers.csv percentages with what webgrind's own
// index.php returned for op=callinfo_list.
func TestUIOracle(t *testing.T) {
	for _, name := range []string{"xdebug-app-v7", "valgrind-calls-v7"} {
		t.Run(name, func(t *testing.T) {
			path, _ := loadOracle(t, name)
			b, err := os.ReadFile(filepath.Join(filepath.Dir(path), "ui.json"))
			if err != nil {
				t.Fatal(err)
			}
			var ui struct {
				CallinfoList []struct {
					CalledFrom, SubCalls []struct {
						FunctionNr, Line, CallCount int
						SummedCallCost              string
						CallerFunctionName          string
					}
				} `json:"callinfo_list"`
			}
			if err := json.Unmarshal(b, &ui); err != nil {
				t.Fatal(err)
			}
			src := testdata.Open(t, Open, path)
			fsys := src.FS()
			checkFunctionList(t, b, testdata.ReadFS(t, fsys, "functions.txt"))
			for nr, ci := range ui.CallinfoList {
				dir := functionDir(t, fsys, nr)
				for _, part := range []struct {
					file string
					want []struct {
						FunctionNr, Line, CallCount int
						SummedCallCost              string
						CallerFunctionName          string
					}
				}{{"callers.csv", ci.CalledFrom}, {"callees.csv", ci.SubCalls}} {
					got := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, dir+"/"+part.file))[1:]
					if len(got) != len(part.want) {
						t.Fatalf("%s/%s: %d rows, ui %d", dir, part.file, len(got), len(part.want))
					}
					for j, w := range part.want {
						exp := []string{strconv.Itoa(w.FunctionNr), w.CallerFunctionName, strconv.Itoa(w.Line), strconv.Itoa(w.CallCount), got[j][4], w.SummedCallCost}
						if !slices.Equal(got[j], exp) {
							t.Errorf("%s/%s row %d: %q, ui %q", dir, part.file, j, got[j], exp)
						}
					}
				}
			}
		})
	}
}

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		cost    uint64
		summary float64
		want    string
	}{
		{0, 0, "0.00"}, {5, 0, "0.00"}, {127, 823756, "0.02"}, {1, 8, "12.50"}, {1, 800, "0.13"},
		{2214717, 808383, "273.97"}, {1, 3, "33.33"}, {2, 3, "66.67"}, {100, 100, "100.00"}, {1, 200000, "0.00"}, {1, 2000, "0.05"},
	} {
		if got := string(render.AppendPctHalfUp(nil, pctOf(c.cost, c.summary))); got != c.want {
			t.Errorf("pct(%d, %v) = %s, want %s", c.cost, c.summary, got, c.want)
		}
	}
}

func writeGen(t testing.TB, dir string, g *gen.Graph, v int) string {
	p := filepath.Join(dir, "v"+strconv.Itoa(v)+".webgrind")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Write(f, v); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func sortedRows(recs [][]string) [][]string {
	out := slices.Clone(recs[1:])
	slices.SortFunc(out, func(a, b []string) int { return slices.Compare(a, b) })
	return out
}

func dropColumn(recs [][]string, col int) [][]string {
	out := make([][]string, len(recs))
	for i, r := range recs {
		out[i] = append(slices.Clone(r[:col]), r[col+1:]...)
	}
	return out
}

// TestVersionsAgree writes one synthetic call graph as versions 4 to 7
// and checks that the trees agree wherever the versions carry the same
// information.
func TestVersionsAgree(t *testing.T) {
	g := gen.Random(42, 4000, 15)
	dir := t.TempDir()
	trees := map[int]fs.FS{}
	for _, v := range []int{4, 5, 6, 7} {
		src := testdata.Open(t, Open, writeGen(t, dir, g, v))
		if errs := src.Errors.Lines(); len(errs) != 0 {
			t.Fatalf("v%d errors %q", v, errs)
		}
		trees[v] = src.FS()
	}
	// independent expectation from the generator's aggregation
	sums := g.Summaries()
	f7 := testdata.ReadCSV(t, testdata.ReadFS(t, trees[7], "functions.csv"))
	c7 := testdata.ReadCSV(t, testdata.ReadFS(t, trees[7], "calls.csv"))
	if len(f7) != len(sums)+1 {
		t.Fatalf("v7 functions.csv has %d rows, want %d", len(f7)-1, len(sums))
	}
	t.Run("v7 functions against the generator", func(t *testing.T) {
		for i, s := range sums {
			r := f7[i+1]
			want := []string{strconv.Itoa(i), s.Name, s.File, strconv.Itoa(int(s.Line)), humanKind(s.Name), strconv.Itoa(int(s.Count)),
				strconv.Itoa(int(s.Inclusive)), strconv.Itoa(int(s.Self))}
			if !slices.Equal(r[:8], want) {
				t.Fatalf("v7 row %d = %q, want %q", i, r, want)
			}
		}
	})
	t.Run("functions.csv of v4-v6", func(t *testing.T) {
		noLine := dropColumn(f7, 3)
		for _, v := range []int{4, 5, 6} {
			fv := testdata.ReadCSV(t, testdata.ReadFS(t, trees[v], "functions.csv"))
			for _, r := range fv[1:] {
				if r[3] != "" {
					t.Fatalf("v%d has a line: %q", v, r)
				}
			}
			testdata.SameRows(t, "functions.csv v"+strconv.Itoa(v), dropColumn(fv, 3), noLine)
		}
	})
	t.Run("calls.csv", func(t *testing.T) {
		for _, v := range []int{4, 6} {
			testdata.SameRows(t, "calls.csv v"+strconv.Itoa(v), testdata.ReadCSV(t, testdata.ReadFS(t, trees[v], "calls.csv")), c7)
		}
		testdata.SameRows(t, "calls.csv v5 (derived, sorted)", sortedRows(testdata.ReadCSV(t, testdata.ReadFS(t, trees[5], "calls.csv"))), sortedRows(c7))
	})
	t.Run("callers and callees", func(t *testing.T) {
		for nr := 0; nr < len(sums); nr++ {
			d := functionDir(t, trees[7], nr)
			callers := testdata.ReadFS(t, trees[7], d+"/callers.csv")
			callees := testdata.ReadCSV(t, testdata.ReadFS(t, trees[7], d+"/callees.csv"))
			for _, v := range []int{4, 5, 6} {
				if got := testdata.ReadFS(t, trees[v], d+"/callers.csv"); !bytes.Equal(got, callers) {
					t.Fatalf("v%d %s/callers.csv differs:\n%s\nv7:\n%s", v, d, got, callers)
				}
				got := testdata.ReadCSV(t, testdata.ReadFS(t, trees[v], d+"/callees.csv"))
				if v == 5 {
					testdata.SameRows(t, "v5 callees", sortedRows(got), sortedRows(callees))
				} else {
					testdata.SameRows(t, "callees", got, callees)
				}
			}
		}
	})
	t.Run("invocations.csv", func(t *testing.T) {
		// v4 invocations.csv against the graph
		inv := testdata.ReadCSV(t, testdata.ReadFS(t, trees[4], "invocations.csv"))
		k := 1
		for nr, f := range g.Funcs {
			for j, v := range f.Invs {
				want := []string{strconv.Itoa(nr), f.Name, strconv.Itoa(j), strconv.Itoa(int(v.Inclusive())), strconv.Itoa(int(v.Self)), strconv.Itoa(int(v.CallCost)), "", "", ""}
				if v.Caller != gen.NoCaller {
					want[6], want[7], want[8] = strconv.Itoa(v.Caller), strconv.Itoa(v.CallerInv), strconv.Itoa(int(v.CallerLine))
				}
				if !slices.Equal(inv[k], want) {
					t.Fatalf("invocations.csv row %d = %q, want %q", k, inv[k], want)
				}
				k++
			}
		}
		if k != len(inv) {
			t.Fatalf("invocations.csv has %d rows, want %d", len(inv)-1, k-1)
		}
		for _, v := range []int{5, 6, 7} {
			if _, err := fs.Stat(trees[v], "invocations.csv"); err == nil {
				t.Fatalf("v%d has invocations.csv", v)
			}
		}
	})
}

func TestTreeFS(t *testing.T) {
	dir := t.TempDir()
	g := gen.Random(9, 600, 15)
	for _, v := range []int{4, 5, 7} {
		src := testdata.Open(t, Open, writeGen(t, dir, g, v))
		want := []string{"README.txt", "_errors.txt", "header.txt", "functions.csv", "functions.txt", "calls.csv", "raw/v" + strconv.Itoa(v) + ".webgrind"}
		if v == 4 {
			want = append(want, "invocations.csv")
		}
		if err := fstest.TestFS(src.FS(), want...); err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
	}
}

func TestDirectorySource(t *testing.T) {
	dir := t.TempDir()
	g := gen.Random(9, 300, 15)
	for _, v := range []int{4, 5, 6, 7} {
		writeGen(t, dir, g, v)
	}
	os.WriteFile(filepath.Join(dir, "callgrind.out.1"), []byte("version: 1\nevents: Time\n"), 0o644)
	if _, ok := Detect(dir); !ok {
		t.Fatal("directory not detected")
	}
	if s, ok := Detect(filepath.Join(dir, "callgrind.out.1")); ok {
		t.Fatalf("text file detected: %s", s)
	}
	src := testdata.Open(t, Open, dir)
	fsys := src.FS()
	files := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "files.csv"))
	if len(files) != 5 || files[1][0] != "v4.webgrind" || files[4][2] != "7" || files[1][4] != strconv.Itoa(len(g.Funcs)) {
		t.Fatalf("files.csv = %q", files)
	}
	a := testdata.ReadFS(t, fsys, "v6.webgrind/calls.csv")
	b := testdata.ReadFS(t, fsys, "v7.webgrind/calls.csv")
	if !bytes.Equal(a, b) {
		t.Fatal("v6 and v7 calls.csv differ")
	}
	if err := fstest.TestFS(fsys, "files.csv", "README.txt", "v4.webgrind/invocations.csv", "v7.webgrind/functions.csv", "raw/callgrind.out.1"); err != nil {
		t.Fatal(err)
	}
}

func le(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}

func openBytes(t *testing.T, b []byte) (*vfs.Source, fs.FS) {
	p := filepath.Join(t.TempDir(), "x.webgrind")
	os.WriteFile(p, b, 0o644)
	src, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, src.FS()
}

func TestBadInput(t *testing.T) {
	t.Run("zero functions", func(t *testing.T) {
		src, fsys := openBytes(t, append(le(7, 12, 0), "events: Time\nsummary: 0\n"...))
		for name, want := range map[string]string{"functions.csv": functionsHeader, "calls.csv": callsHeader, "functions.txt": "0 different functions called in 0 milliseconds (1 runs, 0 shown)\n\n" + functionsTxtHead} {
			if got := string(testdata.ReadFS(t, fsys, name)); got != want {
				t.Errorf("%s = %q", name, got)
			}
		}
		if des, _ := fs.ReadDir(fsys, "functions"); len(des) != 0 {
			t.Errorf("functions/ has %d entries", len(des))
		}
		if len(src.Errors.Lines()) != 0 {
			t.Errorf("errors: %q", src.Errors.Lines())
		}
	})
	var good bytes.Buffer
	g := gen.Random(5, 300, 15)
	g.Write(&good, 7)
	n := len(g.Funcs)
	t.Run("record address past the end", func(t *testing.T) {
		b := bytes.Clone(good.Bytes())
		copy(b[12+4*3:], le(uint32(len(b)+5)))
		src, fsys := openBytes(t, b)
		f := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions.csv"))
		if len(f) != 1+3 {
			t.Fatalf("functions.csv has %d rows, want the 3 before the bad record", len(f)-1)
		}
		errs := src.Errors.Lines()
		if len(errs) != 1 || !strings.HasPrefix(errs[0], "functions.csv: webgrind: function 3 ") || !strings.Contains(errs[0], "past the end") {
			t.Fatalf("errors %q", errs)
		}
	})
	t.Run("header address past the end", func(t *testing.T) {
		b := bytes.Clone(good.Bytes())
		copy(b[4:], le(uint32(len(b)+5)))
		src, fsys := openBytes(t, b)
		if f := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions.csv")); len(f) != n+1 || f[1][9] != "0.00" {
			t.Fatalf("functions.csv rows %d", len(f))
		}
		if errs := src.Errors.Lines(); len(errs) != 1 || !strings.HasPrefix(errs[0], "header.txt: ") {
			t.Fatalf("errors %q", errs)
		}
	})
	t.Run("impossible count", func(t *testing.T) {
		b := bytes.Clone(good.Bytes())
		copy(b[8:], le(1<<30))
		src, fsys := openBytes(t, b)
		_ = testdata.ReadFS(t, fsys, "functions.csv")
		if errs := src.Errors.Lines(); len(errs) == 0 {
			t.Fatal("no error for an impossible function count")
		}
		b = bytes.Clone(good.Bytes())
		a := int(wgAddr(b, 2))
		copy(b[a+16:], le(1<<28)) // called-from count of function 2
		src, fsys = openBytes(t, b)
		f := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions.csv"))
		if len(f) != 3 {
			t.Fatalf("functions.csv has %d rows", len(f)-1)
		}
		if errs := src.Errors.Lines(); len(errs) != 1 || !strings.Contains(errs[0], "cannot fit") {
			t.Fatalf("errors %q", errs)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		b := good.Bytes()
		for cut := 13; cut < len(b); cut += len(b) / 7 {
			src, fsys := openBytes(t, b[:cut])
			for _, name := range []string{"functions.csv", "calls.csv", "functions.txt", "header.txt"} {
				testdata.ReadFS(t, fsys, name)
			}
			if len(src.Errors.Lines()) == 0 {
				t.Fatalf("cut at %d: no error", cut)
			}
		}
	})
}

func wgAddr(b []byte, i int) uint32 {
	o := 12 + 4*i
	return uint32(b[o]) | uint32(b[o+1])<<8 | uint32(b[o+2])<<16 | uint32(b[o+3])<<24
}

func TestMounted(t *testing.T) {
	path, o := loadOracle(t, "xdebug-app-v7")
	src := testdata.Open(t, Open, path)
	fsys := src.FS()
	mnt := fsnodetest.Mount(t, fsys)
	functions, _ := os.ReadFile(filepath.Join(mnt, "functions.csv"))
	calls, _ := os.ReadFile(filepath.Join(mnt, "calls.csv"))
	checkOracle(t, o, functions, calls)
	for _, name := range []string{"functions.csv", "calls.csv", "functions.txt", "header.txt", "README.txt", functionDir(t, fsys, 27) + "/callees.csv"} {
		fsnodetest.CheckFile(t, filepath.Join(mnt, name), testdata.ReadFS(t, fsys, name))
	}
	if err := fstest.TestFS(os.DirFS(mnt), "functions.csv", "calls.csv", "header.txt", "raw/callgrind.out.webgrind"); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(filepath.Join(mnt, "raw", "callgrind.out.webgrind")); !bytes.Equal(raw, mustRead(t, path)) {
		t.Fatal("raw/ differs from the original")
	}
	_ = wg.V7
}

func mustRead(t testing.TB, p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkFunctionList compares functions.txt with webgrind's function list
// (percent, show 100 %): same order, same percentages and invocations.
func checkFunctionList(t *testing.T, uiJSON, txt []byte) {
	t.Helper()
	var ui struct {
		FunctionList map[string]json.RawMessage `json:"function_list"`
	}
	if err := json.Unmarshal(uiJSON, &ui); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Functions []struct {
			FunctionName                        string
			SummedSelfCost, SummedInclusiveCost string
			InvocationCount                     int
		}
	}
	if err := json.Unmarshal(ui.FunctionList["costFormat=percent,showFraction=1,hideInternals=0"], &list); err != nil {
		t.Fatalf("ui.json full percent function list: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(string(txt), "\n"), "\n")[3:]
	if len(lines) != len(list.Functions) {
		t.Fatalf("functions.txt has %d rows, webgrind %d", len(lines), len(list.Functions))
	}
	for i, f := range list.Functions {
		fields := strings.Fields(lines[i])
		if fields[0] != f.SummedSelfCost || fields[1] != f.SummedInclusiveCost || fields[2] != strconv.Itoa(f.InvocationCount) ||
			!strings.HasPrefix(strings.Join(fields[3:], " "), f.FunctionName+" ") {
			t.Errorf("functions.txt row %d %q, webgrind %+v", i, lines[i], f)
		}
	}
}

// TestMountedBadInput serves a file whose fourth record address is past
// the end: the mount shows the three functions before it and one
// _errors.txt line.
func TestMountedBadInput(t *testing.T) {
	var buf bytes.Buffer
	g := gen.Random(5, 300, 15)
	g.Write(&buf, 6)
	b := buf.Bytes()
	copy(b[12+4*3:], le(uint32(len(b)+5)))
	src, fsys := openBytes(t, b)
	want := testdata.ReadFS(t, fsys, "functions.csv")
	mnt := fsnodetest.Mount(t, fsys)
	fsnodetest.CheckFile(t, filepath.Join(mnt, "functions.csv"), want)
	if rows := testdata.ReadCSV(t, want); len(rows) != 4 {
		t.Fatalf("functions.csv has %d rows", len(rows)-1)
	}
	errs, err := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
	if err != nil || !strings.HasPrefix(string(errs), "functions.csv: webgrind: function 3 at byte 24 (0x18): record address past the end of the file") {
		t.Fatalf("_errors.txt %q %v", errs, err)
	}
	// _errors.txt grows while views are first read: read them all, then
	// check the mounted tree.
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			fs.ReadFile(fsys, p)
		}
		return nil
	})
	if n := len(src.Errors.Lines()); n < 3 {
		t.Fatalf("%d error lines after reading every view", n)
	}
	if err := fstest.TestFS(os.DirFS(mnt), "functions.csv", "calls.csv", "header.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestNamesEscaped: a function and a file named with a CR, a NUL, a byte
// that is not UTF-8 and an escape character, and a 400-byte function
// name, reach no view raw (issue 27): functions.txt writes them as \xNN,
// every text view stays UTF-8 without control bytes, every CSV parses.
func TestNamesEscaped(t *testing.T) {
	bad := strings.ReplaceAll(testdata.BadName, "\n", "")
	g := gen.Random(5, 60, 5)
	g.Funcs[0].Name = bad
	g.Funcs[1].File = bad
	g.Funcs[2].Name = strings.Repeat("L", 400)
	src, err := Open(writeGen(t, t.TempDir(), g, 7))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	views := testdata.CheckTextViews(t, src.FS())
	if esc := `badna\x0dme\x00x\xff\x1b`; bytes.Count(views["functions.txt"], []byte(esc)) != 2 {
		t.Errorf("functions.txt does not hold %s as function and file:\n%s", esc, views["functions.txt"])
	}
}
