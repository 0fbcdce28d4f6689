package callgrind_test

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/wgoracle"
)

// annotateRow is one function row of callgrind_annotate's output.
type annotateRow struct {
	costs []int64
	obj   string
}

var objSuffix = regexp.MustCompile(` \[([^\[\]]*)\]$`)

// parseAnnotateCosts reads n cost columns ("1,234 (5.6%)" or ".") from the
// start of s and returns them with the rest of the line.
func parseAnnotateCosts(s string, n int) ([]int64, string, bool) {
	var out []int64
	for k := 0; k < n; k++ {
		s = strings.TrimLeft(s, " ")
		j := strings.IndexByte(s, ' ')
		if j < 0 {
			return nil, "", false
		}
		tok := s[:j]
		s = s[j:]
		if tok == "." {
			out = append(out, 0)
		} else {
			v, err := strconv.ParseInt(strings.ReplaceAll(tok, ",", ""), 10, 64)
			if err != nil {
				return nil, "", false
			}
			out = append(out, v)
		}
		t := strings.TrimLeft(s, " ")
		if strings.HasPrefix(t, "(") {
			e := strings.IndexByte(t, ')')
			s = t[e+1:]
		}
	}
	return out, s, true
}

// readAnnotate parses the function table of callgrind_annotate or
// cg_annotate output: "file:function" -> costs. With tree, only the
// "*" rows (the function's own line) count.
func readAnnotate(t *testing.T, path string, nev int, tree bool) map[string]annotateRow {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	rows := map[string]annotateRow{}
	in := false
	dashes := 0
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "-----") {
			if in {
				dashes++
			}
			continue
		}
		if strings.HasSuffix(l, "file:function") {
			in = true
			continue
		}
		if !in || dashes > 1 {
			continue
		}
		if dashes == 1 && l == "" && !tree {
			break
		}
		if l == "" {
			continue
		}
		costs, rest, ok := parseAnnotateCosts(l, nev)
		if !ok {
			if dashes == 1 {
				continue
			}
			t.Fatalf("%s: cannot parse %q", path, l)
		}
		rest = strings.TrimLeft(rest, " ")
		if tree {
			if !strings.HasPrefix(rest, "*  ") {
				continue
			}
			rest = rest[3:]
		}
		var obj string
		if m := objSuffix.FindStringSubmatch(rest); m != nil {
			obj = m[1]
			rest = rest[:len(rest)-len(m[0])]
		}
		rows[rest] = annotateRow{costs, obj}
	}
	return rows
}

type corpusFile struct {
	set, name string
}

func corpusFiles(t *testing.T) []corpusFile {
	var out []corpusFile
	for _, set := range []string{"speedscope-samples", "valgrind-3.19-generated", "xdebug-3.2.0-generated"} {
		dir := testdata.Corpus(t, "callgrind", set)
		des, err := os.ReadDir(filepath.Join(dir, "oracle-callgrind_annotate"))
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			if n, ok := strings.CutSuffix(de.Name(), ".inclusive.txt"); ok {
				out = append(out, corpusFile{set, n})
			}
		}
	}
	return out
}

func key(tab *callgrind.Table, i int) string {
	f := tab.Funcs[i]
	return tab.Names.Name(f.File) + ":" + tab.Names.Name(f.Name)
}

// TestAnnotateOracle checks self and inclusive costs of every function
// for every event against callgrind_annotate on every corpus file.
func TestAnnotateOracle(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		t.Run(cf.name, func(t *testing.T) {
			dir := testdata.Corpus(t, "callgrind", cf.set)
			f, err := callgrind.Open(filepath.Join(dir, cf.name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tab := f.Summarize()
			if tab.Stopped {
				t.Fatal(tab.Problems)
			}
			var problems []string
			for _, err := range tab.Problems {
				problems = append(problems, err.Error())
			}
			nev := len(tab.Events)
			incl := readAnnotate(t, filepath.Join(dir, "oracle-callgrind_annotate", cf.name+".inclusive.txt"), nev, false)
			self := readAnnotate(t, filepath.Join(dir, "oracle-callgrind_annotate", cf.name+".tree-caller.txt"), nev, true)
			if len(incl) == 0 {
				t.Fatal("oracle has no rows")
			}
			seen := map[string]bool{}
			for i := range tab.Funcs {
				k := key(tab, i)
				if seen[k] {
					t.Errorf("function %q twice", k)
				}
				seen[k] = true
				o, ok := incl[k]
				if !ok {
					t.Errorf("function %q not in callgrind_annotate's output", k)
					continue
				}
				if got := tab.Inclusive(i); fmt.Sprint(got) != fmt.Sprint(o.costs) {
					t.Errorf("%s inclusive %v, callgrind_annotate %v", k, got, o.costs)
				}
				if s, ok := self[k]; !ok {
					t.Errorf("function %q not in the tree output", k)
				} else if got := tab.Self(i); fmt.Sprint(got) != fmt.Sprint(s.costs) {
					t.Errorf("%s self %v, callgrind_annotate %v", k, got, s.costs)
				}
			}
			for k := range incl {
				if !seen[k] {
					t.Errorf("callgrind_annotate has %q, we do not", k)
				}
			}
			t.Logf("%d functions, %d edges, %d problems %q", len(tab.Funcs), len(tab.Edges), len(problems), problems[:min(len(problems), 3)])
		})
	}
}

// TestCgAnnotateOracle checks the self costs of cachegrind files (and the
// program totals) against cg_annotate, which lists the functions above
// its default threshold.
func TestCgAnnotateOracle(t *testing.T) {
	for _, c := range []corpusFile{
		{"valgrind-3.19-generated", "cachegrind.out.default"},
		{"valgrind-3.19-generated", "cachegrind.out.cachesim"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testdata.Corpus(t, "callgrind", c.set)
			f, err := callgrind.Open(filepath.Join(dir, c.name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tab := f.Summarize()
			rows := readAnnotate(t, filepath.Join(dir, "oracle-cg_annotate", c.name+".txt"), len(tab.Events), false)
			if len(rows) < 10 {
				t.Fatalf("only %d oracle rows", len(rows))
			}
			byKey := map[string]int{}
			for i := range tab.Funcs {
				byKey[key(tab, i)] = i
			}
			for k, r := range rows {
				i, ok := byKey[k]
				if !ok {
					t.Errorf("cg_annotate has %q, we do not", k)
					continue
				}
				if got := tab.Self(i); fmt.Sprint(got) != fmt.Sprint(r.costs) {
					t.Errorf("%s self %v, cg_annotate %v", k, got, r.costs)
				}
			}
			if fmt.Sprint(tab.Sum()) != fmt.Sprint(tab.Header.Summary) {
				t.Errorf("sum of self costs %v, summary: %v", tab.Sum(), tab.Header.Summary)
			}
		})
	}
}

// TestWebgrindOracle checks Xdebug files against webgrind's own reading:
// raw self cost, inclusive cost in webgrind's microseconds, invocations
// and the called-from lists (caller, line, count, cost).
func TestWebgrindOracle(t *testing.T) {
	for _, name := range []string{"cachegrind.out.12174", "cachegrind.out.12174.gz"} {
		t.Run(name, func(t *testing.T) {
			dir := testdata.Corpus(t, "callgrind", "xdebug-3.2.0-generated")
			o := wgoracle.Read(t, filepath.Join(dir, "oracle-webgrind", name+".reader.json"))
			f, err := callgrind.Open(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tab := f.Summarize()
			byName := map[string]int{}
			for i, fn := range tab.Funcs {
				byName[tab.Names.Name(fn.Name)] = i
			}
			if len(byName) != len(o.Functions) {
				t.Errorf("%d functions, webgrind %d", len(byName), len(o.Functions))
			}
			for _, w := range o.Functions {
				i, ok := byName[w.FunctionName]
				if !ok {
					t.Errorf("webgrind has %q, we do not", w.FunctionName)
					continue
				}
				if got := tab.Names.Name(tab.Funcs[i].File); got != w.File {
					t.Errorf("%s: file %q, webgrind %q", w.FunctionName, got, w.File)
				}
				if got := tab.Self(i)[0]; got != int64(w.SummedSelfCostRaw) {
					t.Errorf("%s: self %d, webgrind %d", w.FunctionName, got, w.SummedSelfCostRaw)
				}
				// webgrind's inclusive cost is self + the calls made; for
				// recursive functions in a timing profile it differs from the
				// sum of the calls made to it (callgrind_annotate's).
				if got := int64(math.Round(float64(tab.SelfPlusCalls(i)[0]) / 100)); got != int64(w.SummedInclusiveCost) {
					t.Errorf("%s: self+calls %d us, webgrind %d", w.FunctionName, got, w.SummedInclusiveCost)
				}
				if incl := int64(math.Round(float64(tab.Inclusive(i)[0]) / 100)); incl != int64(w.SummedInclusiveCost) {
					t.Logf("%s: inclusive %d us, webgrind %d", w.FunctionName, incl, w.SummedInclusiveCost)
				}
				if got := int64(tab.Funcs[i].Calls); tab.Funcs[i].Called && got != int64(w.InvocationCount) {
					t.Errorf("%s: %d calls, webgrind %d invocations", w.FunctionName, got, w.InvocationCount)
				}
				var callers []string
				for e, ed := range tab.Edges {
					if int(ed.Callee) == i {
						callers = append(callers, fmt.Sprintf("%s@%d x%d %d", tab.Names.Name(tab.Funcs[ed.Caller].Name), ed.Line, ed.Count, int64(math.Round(float64(tab.EdgeCost(e)[0])/100))))
					}
				}
				var want []string
				for _, c := range w.CalledFrom {
					want = append(want, fmt.Sprintf("%s@%d x%d %d", o.Functions[c.FunctionNr].FunctionName, c.Line, c.CallCount, c.SummedCallCost))
				}
				slices.Sort(callers)
				slices.Sort(want)
				if !slices.Equal(callers, want) {
					t.Errorf("%s: callers %q, webgrind %q", w.FunctionName, callers, want)
				}
			}
		})
	}
}

// TestGzipTwins decodes the gzip copies of corpus files to the same tables
// as the plain files.
func TestGzipTwins(t *testing.T) {
	for _, c := range []corpusFile{
		{"valgrind-3.19-generated", "callgrind.out.default"},
		{"xdebug-3.2.0-generated", "cachegrind.out.12174"},
	} {
		dir := testdata.Corpus(t, "callgrind", c.set)
		var dumps [2]string
		for k, name := range []string{c.name, c.name + ".gz"} {
			f, err := callgrind.Open(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			tab := f.Summarize()
			f.Close()
			var b strings.Builder
			for i := range tab.Funcs {
				fmt.Fprintln(&b, key(tab, i), tab.Self(i), tab.Inclusive(i), tab.Funcs[i].Calls)
			}
			for i, e := range tab.Edges {
				fmt.Fprintln(&b, e.Caller, e.Callee, e.Line, e.Count, tab.EdgeCost(i))
			}
			dumps[k] = b.String()
		}
		if dumps[0] != dumps[1] || len(dumps[0]) < 1000 {
			t.Errorf("%s: gzip copy decodes differently", c.name)
		}
	}
}
