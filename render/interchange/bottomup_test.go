package interchange

import (
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

// TestBottomUpRecursion: a recursive procedure's inclusive value counts
// its outermost context only; exclusive values count every context;
// worked by hand on main -> f -> f -> g and main -> g.
func TestBottomUpRecursion(t *testing.T) {
	tr := NewTree([]Metric{{"n", "count"}})
	main := tr.Child(Root, Frame{Name: "main"})
	f1 := tr.Child(main, Frame{Name: "f"})
	f2 := tr.Child(f1, Frame{Name: "f"})
	g1 := tr.Child(f2, Frame{Name: "g"})
	g2 := tr.Child(main, Frame{Name: "g"})
	for n, v := range map[int32]int64{main: 1, f1: 2, f2: 4, g1: 8, g2: 16} {
		tr.Add(n, 0, v)
	}
	tr.Done()
	b := newBottomUp(tr)
	table := &render.Table{Columns: b.columns(), Open: render.Counted(int64(len(b.order)), b.fill)}
	csv, err := table.AppendCSV(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(strings.TrimSuffix(string(csv), "\n"), "\n")
	if got[0] != "function,depth,caller,path,n_inc,n_exc" {
		t.Errorf("header %q", got[0])
	}
	got = got[1:]
	want := []string{
		"main,0,,main,31,1",
		"main,1,[root],main;[root],31,1",
		"g,0,,g,24,24",
		"g,1,main,g;main,16,16",
		"g,2,[root],g;main;[root],16,16",
		"g,1,f,g;f,8,8",
		"g,2,f,g;f;f,8,8",
		"g,3,main,g;f;f;main,8,8",
		"g,4,[root],g;f;f;main;[root],8,8",
		"f,0,,f,14,6",
		"f,1,main,f;main,14,2",
		"f,2,[root],f;main;[root],14,2",
		"f,1,f,f;f,0,4",
		"f,2,main,f;f;main,0,4",
		"f,3,[root],f;f;main;[root],0,4",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("bottom-up rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
