package interchange_test

import (
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// callGraph is what a call-graph case's CSVs say about one metric: per
// function (name and file) its inclusive cost, self cost plus calls made,
// the cost of the calls to it, and whether it is in a recursion cycle
// (reaches itself through calls).
type callGraph struct {
	inc, whole, in map[[2]string]float64
	cyclic         map[[2]string]bool
}

// csvColumns are the columns of functions.csv and calls.csv that hold a
// metric's costs.
func csvColumns(format, event string) (inc, exc, call string) {
	if format == "webgrind" {
		return "cost_inc", "cost_exc", "call_cost"
	}
	return event + "_inc", event + "_exc", event + "_inc"
}

func column(t *testing.T, head []string, name string) int {
	t.Helper()
	for i, h := range head {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s in %v", name, head)
	return -1
}

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}

// readCallGraph reads the call graph of pprof metric m, its costs in
// pprof's units.
func readCallGraph(t *testing.T, fsys fs.FS, format, m string) callGraph {
	event, factor := csvEvent(m)
	number := func(t *testing.T, s string) float64 { return number(t, s) * factor }
	incCol, excCol, callCol := csvColumns(format, event)
	head, rows := readCSV(t, fsys, "functions.csv")
	id, name, file, inc, exc := column(t, head, "function_id"), column(t, head, "function"), column(t, head, "file"), column(t, head, incCol), column(t, head, excCol)
	g := callGraph{inc: map[[2]string]float64{}, whole: map[[2]string]float64{}, in: map[[2]string]float64{}, cyclic: map[[2]string]bool{}}
	key := map[string][2]string{}
	for _, r := range rows {
		k := [2]string{r[name], r[file]}
		key[r[id]] = k
		g.inc[k] += number(t, r[inc])
		g.whole[k] += number(t, r[exc])
	}
	head, rows = readCSV(t, fsys, "calls.csv")
	caller, callee, count, cost := column(t, head, "caller_id"), column(t, head, "callee_id"), column(t, head, "call_count"), column(t, head, callCol)
	calls := map[[2]string][][2]string{}
	for _, r := range rows {
		if r[count] == "0" {
			continue // still running when dumped: the caller's self cost
		}
		from, to := key[r[caller]], key[r[callee]]
		g.whole[from] += number(t, r[cost])
		g.in[to] += number(t, r[cost])
		calls[from] = append(calls[from], to)
	}
	// A function is in a cycle when it reaches itself.
	for f := range g.inc {
		seen := map[[2]string]bool{}
		stack := append([][2]string(nil), calls[f]...)
		for len(stack) > 0 && !g.cyclic[f] {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if x == f {
				g.cyclic[f] = true
			}
			if !seen[x] {
				seen[x] = true
				stack = append(stack, calls[x]...)
			}
		}
	}
	return g
}

// TestGraphCumIsInclusive checks the expansion of callgrind's and
// webgrind's call graphs on every corpus case: for every function outside
// a recursion cycle, pprof's cum (the positive samples whose stack holds
// it) is its inclusive cost in functions.csv, within rounding. Where the
// file is not consistent, a function gets the largest of its inclusive
// cost, its self cost plus the calls it makes (a thread's start function
// is entered from outside its recorded calls: callgrind_annotate's
// inclusive cost, the calls to it, is smaller) and the cost of the calls
// to it (webgrind's inclusive cost is self plus calls made, and some calls
// carry more). It also checks that a call graph's stacks are not left at
// the root: callgrind's default profile gives work 87.32 % as
// callgrind_annotate does.
func TestGraphCumIsInclusive(t *testing.T) {
	for _, c := range profileCases(t) {
		format, _, _ := strings.Cut(c.name, "/")
		if format != "callgrind" && format != "webgrind" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			pb, err := fs.ReadFile(c.fsys, "profile.pb.gz")
			if err != nil {
				t.Fatal(err)
			}
			prof, err := profile.ParseData(pb)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for k, st := range prof.SampleType {
				g := readCallGraph(t, c.fsys, format, st.Type)
				cum := map[[2]string]float64{}
				var total float64
				for _, s := range prof.Sample {
					total += float64(s.Value[k])
					if s.Value[k] < 0 {
						continue
					}
					seen := map[[2]string]bool{}
					for _, l := range s.Location {
						f := l.Line[0].Function
						key := [2]string{f.Name, f.Filename}
						if !seen[key] {
							seen[key] = true
							cum[key] += float64(s.Value[k])
						}
					}
				}
				names := map[string]int{}
				for f := range g.inc {
					names[f[0]]++
				}
				for f, inc := range g.inc {
					if g.cyclic[f] || names[f[0]] > 1 {
						continue // stacks merge frames by name
					}
					want := max(inc, g.whole[f], g.in[f])
					if tol := max(2, want*1e-5); math.Abs(cum[f]-want) > tol {
						t.Errorf("%s %s: pprof cum %v, inclusive %v (self+calls %v, calls in %v)", st.Type, f, cum[f], inc, g.whole[f], g.in[f])
					}
					checked++
				}
				if c.name == "callgrind/valgrind-3.19-generated/callgrind.out.default" {
					work := [2]string{"work", ""}
					for f := range cum {
						if f[0] == "work" && strings.HasSuffix(f[1], "prog.c") {
							work = f
						}
					}
					if pct := math.Round(cum[work]/total*1e4) / 100; pct != 87.32 {
						t.Errorf("work: cum %.2f %%, callgrind_annotate says 87.32 %%", pct)
					}
				}
			}
			if checked == 0 {
				t.Error("no function checked")
			}
		})
	}
}

var pprofTotal = regexp.MustCompile(`of ([0-9.]+)([a-zµ]*[A-Z]?) total`)

// TestPprofUnits: Xdebug's Time_(10ns) reaches go tool pprof as
// nanoseconds and Memory_(bytes) as bytes: the totals -top prints, in
// its own units, are the CSV totals converted (they were 10x too large
// when the unit was "10ns").
func TestPprofUnits(t *testing.T) {
	scale := map[string]float64{"ns": 1, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "B": 1, "kB": 1024, "MB": 1 << 20}
	for _, c := range profileCases(t) {
		if !strings.Contains(c.name, "xdebug") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			pb, err := fs.ReadFile(c.fsys, "profile.pb.gz")
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "p.pb.gz")
			if err := os.WriteFile(file, pb, 0o644); err != nil {
				t.Fatal(err)
			}
			prof, err := profile.ParseData(pb)
			if err != nil {
				t.Fatal(err)
			}
			for k, st := range prof.SampleType {
				want, _ := c.totals(t, st.Type)
				out, err := exec.Command(pprofTool(t), "-top", "-sample_index="+strconv.Itoa(k), file).CombinedOutput()
				m := pprofTotal.FindStringSubmatch(string(out))
				if err != nil || m == nil {
					t.Fatalf("go tool pprof -top: %v\n%s", err, out)
				}
				f, ok := scale[m[2]]
				if !ok {
					t.Fatalf("%s: pprof total %s%s in a unit it does not scale", st.Type, m[1], m[2])
				}
				got := number(t, m[1]) * f
				// pprof prints 2 decimals (or 4 significant digits).
				if math.Abs(got-want) > max(f/100, want*1e-3) {
					t.Errorf("%s (%s): pprof -top total %s%s, CSV total %v", st.Type, st.Unit, m[1], m[2], want)
				}
			}
			if len(prof.SampleType) == 0 || prof.SampleType[0].Unit != "nanoseconds" {
				t.Errorf("sample types %v, want Time_ns in nanoseconds first", prof.SampleType)
			}
		})
	}
}
