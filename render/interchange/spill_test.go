package interchange

import (
	"bytes"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/internal/vfs"
)

// spillAt sets SpillValues and a page cache of 4 pages for the rest of
// the test.
func spillAt(t *testing.T, n int) {
	old, pages := SpillValues, spillPages
	SpillValues, spillPages = n, 4
	t.Cleanup(func() { SpillValues, spillPages = old, pages })
}

// TestInt64sSpill: an int64s past SpillValues holds what a slice would
// through random growth, adds, reads, rows and a truncation, with far
// more values than its page cache holds.
func TestInt64sSpill(t *testing.T) {
	spillAt(t, 1000)
	r := rand.New(rand.NewPCG(7, 8))
	var a int64s
	var want []int64
	check := func(what string) {
		t.Helper()
		if a.Len() != len(want) {
			t.Fatalf("%s: %d values, want %d", what, a.Len(), len(want))
		}
		for range 2000 {
			i := r.IntN(len(want))
			if got := a.get(i); got != want[i] {
				t.Fatalf("%s: value %d = %d, want %d", what, i, got, want[i])
			}
		}
	}
	for len(want) < 3*spillPage*spillPages {
		k := 1 + r.IntN(9)
		a.grow(k)
		want = append(want, make([]int64, k)...)
		for range 3 {
			i, v := r.IntN(len(want)), r.Int64N(1<<40)-1<<39
			a.add(i, v)
			want[i] += v
		}
	}
	if a.f == nil {
		t.Fatal("not spilled")
	}
	check("grown")
	row := a.row(nil, 5000, 17)
	if !slices.Equal(row, want[5000:5017]) {
		t.Fatalf("row %v, want %v", row, want[5000:5017])
	}
	cut := len(want)/2 + 3
	a.truncate(cut)
	want = want[:cut]
	check("truncated")
	a.grow(spillPage)
	want = append(want, make([]int64, spillPage)...)
	check("grown again (zeros past the cut)")
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSpilledViewsIdentical: the profile views of a tree whose values
// (and bottom-up's) moved to a file are byte for byte those of the same
// tree in memory.
func TestSpilledViewsIdentical(t *testing.T) {
	views := func() map[string][]byte {
		tr := deepTree(5_000)
		p := &Profile{build: func() (*Tree, error) { return tr, nil },
			title: "t", comment: []string{"c"}}
		root := vfs.NewDir()
		p.AddViews(root)
		out := readTree(t, vfs.NewFS(root, time.Unix(1700000000, 0)))
		if spilled := tr.vals.f != nil; spilled != (SpillValues > 0) {
			t.Fatalf("spilled %v with SpillValues %d", spilled, SpillValues)
		}
		return out
	}
	spillAt(t, 0)
	mem := views()
	spillAt(t, 1000)
	spilled := views()
	if len(mem) != len(spilled) || len(mem) < 10 {
		t.Fatalf("%d files in memory, %d spilled", len(mem), len(spilled))
	}
	for name, b := range mem {
		if !bytes.Equal(b, spilled[name]) {
			t.Errorf("%s: %d bytes in memory, %d spilled, different", name, len(b), len(spilled[name]))
		}
	}
}

// readTree reads every file of fsys (callers/ up to 200 files).
func readTree(t *testing.T, fsys fs.FS) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	callers := 0
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if path.Ext(p) == ".parquet" { // a twin of bottom-up.csv
			return nil
		}
		if path.Dir(p) == "callers" {
			if callers++; callers > 200 {
				return nil
			}
		}
		b, err := fs.ReadFile(fsys, p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
