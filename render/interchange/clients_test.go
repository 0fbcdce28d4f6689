package interchange_test

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
	"github.com/hpcfs/hpcfs/testdata"
)

// A profileCase is one profile directory of a corpus source and how its
// CSV totals are found.
type profileCase struct {
	name   string
	fsys   fs.FS
	dir    string // "" or the profile's directory in the tree, with a slash
	totals func(t *testing.T, metric string) (total float64, tolerance float64)
}

func open(t *testing.T, path string) *vfs.Source {
	t.Helper()
	src, err := formats.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func readCSV(t *testing.T, fsys fs.FS, name string) ([]string, [][]string) {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || len(rows) == 0 {
		t.Fatalf("%s: %v", name, err)
	}
	return rows[0], rows[1:]
}

// columnSum adds up column col of a CSV, as a spreadsheet would.
func columnSum(t *testing.T, fsys fs.FS, name, col string) (float64, int) {
	t.Helper()
	head, rows := readCSV(t, fsys, name)
	k := -1
	for i, h := range head {
		if h == col {
			k = i
		}
	}
	if k < 0 {
		t.Fatalf("%s has no column %s: %v", name, col, head)
	}
	var sum float64
	for _, r := range rows {
		v, err := strconv.ParseFloat(r[k], 64)
		if err != nil {
			t.Fatalf("%s: %s = %q", name, col, r[k])
		}
		sum += v
	}
	return sum, len(rows)
}

func profileCases(t *testing.T) []profileCase {
	var cases []profileCase
	for _, set := range []string{"speedscope-samples", "valgrind-3.19-generated", "xdebug-3.2.0-generated"} {
		dir := testdata.Corpus(t, "callgrind", set)
		des, _ := os.ReadDir(dir)
		for _, de := range des {
			if de.IsDir() || strings.HasSuffix(de.Name(), ".md") || strings.Contains(de.Name(), ".snap") {
				continue
			}
			src := open(t, filepath.Join(dir, de.Name()))
			if src.Format != "callgrind" {
				continue
			}
			fsys := src.FS()
			cases = append(cases, profileCase{name: "callgrind/" + set + "/" + de.Name(), fsys: fsys, dir: "",
				totals: func(t *testing.T, m string) (float64, float64) {
					ev, factor := csvEvent(m)
					s, _ := columnSum(t, fsys, "functions.csv", ev+"_exc")
					return s*factor + unrecorded(t, fsys, m), 0
				}})
		}
	}
	for _, c := range []string{"valgrind-calls-v7", "xdebug-app-v7", "xdebug2-app-v6"} {
		fsys := open(t, testdata.Corpus(t, "webgrind", c, "callgrind.out.webgrind")).FS()
		cases = append(cases, profileCase{name: "webgrind/" + c, fsys: fsys, dir: "",
			totals: func(t *testing.T, m string) (float64, float64) {
				_, factor := csvEvent(m)
				s, _ := columnSum(t, fsys, "functions.csv", "cost_exc")
				return s*factor + unrecorded(t, fsys, m), 0
			}})
	}
	for _, c := range []string{"hpcrun-02.00-testvdso", "hpcrun-04.00-small"} {
		path := testdata.Corpus(t, "hpctoolkit", c)
		fsys := open(t, path).FS()
		des, err := fs.ReadDir(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			if !de.IsDir() || de.Name() == "raw" || de.Name() == "trace" || de.Name() == "summary" {
				continue
			}
			dir := de.Name() + "/"
			cases = append(cases, profileCase{name: "hpcrun/" + c + "/" + dir, fsys: fsys, dir: dir,
				totals: func(t *testing.T, m string) (float64, float64) {
					if base, ok := strings.CutSuffix(m, "_ns"); ok {
						s, n := columnSum(t, fsys, dir+"cct.csv", base+"_sec_exc")
						return s * 1e9, float64(n) // each node's value is rounded to ns
					}
					s, _ := columnSum(t, fsys, dir+"cct.csv", m+"_exc")
					return s, 0
				}})
		}
	}
	var dbs []string
	for _, c := range []string{"db-4.0-xml-pipit-ping-pong", "db-4.0-xml-hpcviewer-empty-trace"} {
		dbs = append(dbs, testdata.Corpus(t, "hpctoolkit", c))
	}
	des, _ := os.ReadDir(testdata.Corpus(t, "hpctoolkit-metadb"))
	for _, de := range des {
		if de.IsDir() {
			dbs = append(dbs, testdata.Corpus(t, "hpctoolkit-metadb", de.Name()))
		}
	}
	for _, path := range dbs {
		fsys := open(t, path).FS()
		cases = append(cases, profileCase{name: "hpcdb/" + filepath.Base(path), fsys: fsys, dir: "",
			totals: func(t *testing.T, m string) (float64, float64) {
				col, scale := m+"_inc", 1.0
				if a, b, ok := strings.Cut(m, "_ns"); ok && (b == "" || b[0] == '_') {
					col, scale = a+"_sec"+b+"_inc", 1e9
				}
				return rootValue(t, fsys, col) * scale, 1
			}})
	}
	return cases
}

// csvEvent is the event whose CSV columns hold pprof metric m, and the
// factor from the CSV's units to pprof's: Xdebug's Time_(10ns) reaches
// pprof as Time_ns in nanoseconds.
func csvEvent(m string) (event string, factor float64) {
	switch m {
	case "Time_ns":
		return "time_10ns", 10
	case "Memory_bytes":
		return "memory_bytes", 1
	}
	return render.Name(m, "event"), 1
}

// unrecorded is what README.txt says calls carry of metric m beyond what
// their callees record: a call graph's stacks add it to the CSV total.
func unrecorded(t *testing.T, fsys fs.FS, m string) float64 {
	t.Helper()
	b, err := fs.ReadFile(fsys, "README.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), "Carried by calls beyond")
	if !ok {
		t.Fatal("README.txt does not say what calls carry beyond their callees")
	}
	for _, line := range strings.Split(after, "\n")[2:] {
		if !strings.HasPrefix(line, "    ") {
			break
		}
		f := strings.Fields(line)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == m {
				return number(t, strings.TrimSuffix(f[i+1], ","))
			}
		}
	}
	t.Fatalf("README.txt gives no unrecorded cost of %s", m)
	return 0
}

// rootValue is column col of the root's row (ctx_id 0) of cct.csv.
func rootValue(t *testing.T, fsys fs.FS, col string) float64 {
	t.Helper()
	head, rows := readCSV(t, fsys, "cct.csv")
	for i, h := range head {
		if h != col {
			continue
		}
		for _, r := range rows {
			if r[0] == "0" {
				v, err := strconv.ParseFloat(r[i], 64)
				if err != nil {
					t.Fatalf("cct.csv root %s = %q", col, r[i])
				}
				return v
			}
		}
	}
	t.Fatalf("cct.csv has no column %s or no root row: %v", col, head)
	return 0
}

var pprofPath = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "tool", "-n", "pprof").Output()
	return strings.TrimSpace(string(out)), err
})

// pprofTool is the path of go tool pprof's binary, so that each run
// skips the go command.
func pprofTool(t *testing.T) string {
	p, err := pprofPath()
	if err != nil || p == "" {
		t.Fatalf("go tool -n pprof: %v", err)
	}
	return p
}

// pprofRaw runs go tool pprof -raw and sums the samples per sample type.
// positives sums the positive values only: folded stacks cannot hold
// the others.
func pprofRaw(t *testing.T, file string) (types []string, totals, positives []int64) {
	t.Helper()
	out, err := exec.Command(pprofTool(t), "-raw", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -raw: %v\n%s", err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	state := 0
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && line == "Samples:":
			state = 1
		case state == 1:
			for _, f := range strings.Fields(line) {
				name, _, _ := strings.Cut(f, "/")
				types = append(types, name)
			}
			totals = make([]int64, len(types))
			positives = make([]int64, len(types))
			state = 2
		case state == 2:
			vals, _, ok := strings.Cut(line, ":")
			if !ok {
				return types, totals, positives
			}
			for i, f := range strings.Fields(vals) {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil || i >= len(totals) {
					t.Fatalf("pprof -raw sample line %q", line)
				}
				totals[i] += v
				positives[i] += max(v, 0)
			}
		}
	}
	if state != 2 {
		t.Fatalf("no samples in pprof -raw output:\n%s", out)
	}
	return types, totals, positives
}

var foldedLine = regexp.MustCompile(`^(.+) (\d+)$`)

// foldedTotal checks the folded stacks' syntax and distinctness and sums them.
func foldedTotal(t *testing.T, b []byte) int64 {
	t.Helper()
	seen := map[string]bool{}
	var sum int64
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if line == "" {
			continue
		}
		m := foldedLine.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("folded line %q is not `stack COUNT`", line)
		}
		if seen[m[1]] {
			t.Fatalf("stack %q appears twice", m[1])
		}
		seen[m[1]] = true
		v, _ := strconv.ParseInt(m[2], 10, 64)
		sum += v
	}
	return sum
}

// TestProfileTotals checks, for every corpus profile, that go tool pprof
// -raw totals equal the CSV totals and that each folded file adds up to
// the same root total.
func TestProfileTotals(t *testing.T) {
	tmp := t.TempDir()
	for i, c := range profileCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pb, err := fs.ReadFile(c.fsys, c.dir+"profile.pb.gz")
			if err != nil {
				t.Fatal(err)
			}
			prof, err := profile.ParseData(pb)
			if err != nil {
				t.Fatalf("profile.ParseData: %v", err)
			}
			if err := prof.CheckValid(); err != nil {
				t.Fatal(err)
			}
			for _, f := range prof.Function {
				if f.Name == "" {
					t.Fatalf("function %d has no name", f.ID)
				}
			}
			for _, l := range prof.Location {
				if len(l.Line) != 1 || l.Line[0].Function == nil {
					t.Fatalf("location %d has no function", l.ID)
				}
			}
			file := filepath.Join(tmp, strconv.Itoa(i)+".pb.gz")
			if err := os.WriteFile(file, pb, 0o644); err != nil {
				t.Fatal(err)
			}
			types, totals, positives := pprofRaw(t, file)
			for k, m := range types {
				want, tol := c.totals(t, m)
				if math.Abs(float64(totals[k])-want) > tol {
					t.Errorf("%s: pprof total %d, CSV total %v", m, totals[k], want)
				}
				folded, err := fs.ReadFile(c.fsys, c.dir+"flame/"+render.Name(m, "metric")+".folded")
				if err != nil {
					t.Fatal(err)
				}
				if got := foldedTotal(t, folded); got != positives[k] {
					t.Errorf("%s.folded adds up to %d, pprof total of positive samples %d", m, got, positives[k])
				}
				svg, err := fs.ReadFile(c.fsys, c.dir+"flame/"+render.Name(m, "metric")+".svg")
				if err != nil || !bytes.Contains(svg, []byte(`data-total="`+strconv.FormatInt(totals[k], 10)+`"`)) {
					t.Errorf("%s.svg: %v, total not %d", m, err, totals[k])
				}
			}
		})
	}
}

// TestPprofShowsNamesVerbatim: go tool pprof -top shows function names as
// the source has them. pprof "demangles" a function whose system name
// equals its name, cutting <...> and (...): HPCToolkit's placeholder
// "<omp barrier wait>" became <unknown>, and C++ names lost their
// parameters, which hpcviewer and callgrind_annotate show.
func TestPprofShowsNamesVerbatim(t *testing.T) {
	names := []string{"<omp barrier wait>", "std::vector<int>::push_back(int const&)", "main"}
	p := interchange.NewProfile(func() (*interchange.Tree, error) {
		tr := interchange.NewTree([]interchange.Metric{{Name: "cputime_ns", Unit: "nanoseconds"}})
		for i, n := range names {
			tr.Add(tr.Child(interchange.Root, interchange.Frame{Name: n}), 0, int64(1000*(i+1)))
		}
		return tr, nil
	}, "names", nil)
	dir := vfs.NewDir()
	p.AddViews(dir)
	b, err := fs.ReadFile(vfs.NewFS(dir, time.Time{}), "profile.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "profile.pb.gz")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pprofTool(t), "-top", file).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, out)
	}
	for _, n := range names {
		if !strings.Contains(string(out), "  "+n+"\n") {
			t.Errorf("pprof -top does not show %q:\n%s", n, out)
		}
	}
	if strings.Contains(string(out), "<unknown>") {
		t.Errorf("pprof -top shows <unknown>:\n%s", out)
	}
}
