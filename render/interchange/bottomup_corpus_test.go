package interchange_test

import (
	"bytes"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// TestBottomUpAddsUp, on every corpus case of every profile format: in
// bottom-up.csv the callers under each row (to the last level) add up to
// it; the procedures' exclusive values add up to the format's CSV
// totals; callers/<procedure>.csv holds the procedure's direct callers
// of bottom-up.csv; and where the format lists functions (callgrind,
// webgrind functions.csv), each procedure's exclusive value is the
// function's.
func TestBottomUpAddsUp(t *testing.T) {
	for _, c := range profileCases(t) {
		t.Run(c.name, func(t *testing.T) {
			head, rows := readCSV(t, c.fsys, c.dir+"bottom-up.csv")
			if strings.Join(head[:4], ",") != "function,depth,caller,path" || len(head)%2 != 0 {
				t.Fatalf("header %v", head)
			}
			vals := func(r []string) []int64 {
				out := make([]int64, len(head)-4)
				for i := range out {
					v, err := strconv.ParseInt(r[4+i], 10, 64)
					if err != nil {
						t.Fatalf("row %v: %v", r, err)
					}
					out[i] = v
				}
				return out
			}
			// rows are in preorder: a row's callers follow it, one level down
			type open struct {
				vals, sum []int64
				row       []string
			}
			deepest := 0
			for _, r := range rows {
				d, _ := strconv.Atoi(r[1])
				deepest = max(deepest, d)
			}
			if deepest > interchange.BottomUpLevels {
				t.Errorf("callers %d levels up", deepest)
			}
			var stack []open
			pop := func() {
				o := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				depth, _ := strconv.Atoi(o.row[1])
				if depth == deepest || o.sum == nil {
					if depth < deepest && o.row[2] != "[root]" {
						t.Errorf("%v: no callers and not called from the top", o.row)
					}
					return
				}
				for i := range o.vals {
					if o.sum[i] != o.vals[i] {
						t.Errorf("%s: %s %d, its callers add up to %d", o.row[3], head[4+i], o.vals[i], o.sum[i])
					}
				}
			}
			procExc := map[string][]int64{}
			callers := map[string][]string{}
			for _, r := range rows {
				depth, _ := strconv.Atoi(r[1])
				for len(stack) > depth {
					pop()
				}
				if len(stack) != depth {
					t.Fatalf("row %v after %d open rows", r, len(stack))
				}
				v := vals(r)
				if depth == 0 {
					procExc[r[0]] = v
				} else {
					p := &stack[len(stack)-1]
					if p.sum == nil {
						p.sum = make([]int64, len(v))
					}
					for i := range v {
						p.sum[i] += v[i]
					}
				}
				if depth == 1 {
					callers[r[0]] = append(callers[r[0]], r[2]+","+strings.Join(r[4:], ","))
				}
				stack = append(stack, open{vals: v, row: r})
			}
			for len(stack) > 0 {
				pop()
			}
			for i := 5; i < len(head); i += 2 {
				var sum int64
				for _, v := range procExc {
					sum += v[i-4]
				}
				m := strings.TrimSuffix(head[i], "_exc")
				want, tol := c.totals(t, m)
				if math.Abs(float64(sum)-want) > tol+0.5 {
					t.Errorf("%s: procedures add up to %d, the CSV total is %v", head[i], sum, want)
				}
			}
			for p, want := range callers {
				if len(p) >= 200 {
					continue // cut to a file name that others may share (then "~2")
				}
				_, got := readCSV(t, c.fsys, c.dir+"callers/"+render.SafeName(strings.ReplaceAll(p, "\\", "_"))+".csv")
				var lines []string
				for _, r := range got {
					lines = append(lines, strings.Join(r, ","))
				}
				if strings.Join(lines, "\n") != strings.Join(want, "\n") {
					t.Errorf("callers/%s.csv:\n%s\nbottom-up.csv's callers:\n%s", p, strings.Join(lines, "\n"), strings.Join(want, "\n"))
				}
			}
			if len(procExc) == 0 {
				t.Fatal("no procedures")
			}
		})
	}
}

// TestSpilledCorpusViews: on every corpus case of every profile format,
// the profile views with the tree's columns in files (SpillValues 64)
// are byte for byte those made in memory.
func TestSpilledCorpusViews(t *testing.T) {
	read := func(spill int) map[string][]byte {
		old := interchange.SpillValues
		interchange.SpillValues = spill
		defer func() { interchange.SpillValues = old }()
		out := map[string][]byte{}
		for _, c := range profileCases(t) {
			var names []string
			flame, _ := fs.Glob(c.fsys, c.dir+"flame/*")
			names = append(names, flame...)
			names = append(names, c.dir+"profile.pb.gz", c.dir+"bottom-up.csv")
			for _, name := range names {
				b, err := fs.ReadFile(c.fsys, name)
				if err != nil {
					t.Fatalf("%s: %s: %v", c.name, name, err)
				}
				out[c.name+": "+name] = b
			}
		}
		return out
	}
	mem, spilled := read(0), read(64)
	if len(mem) != len(spilled) || len(mem) == 0 {
		t.Fatalf("%d views in memory, %d spilled", len(mem), len(spilled))
	}
	for name, b := range mem {
		if !bytes.Equal(b, spilled[name]) {
			t.Errorf("%s: %d bytes in memory, %d spilled, different", name, len(b), len(spilled[name]))
		}
	}
}
