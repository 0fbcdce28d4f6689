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

// TestColumnSpill: a column past SpillValues holds what a slice would
// through random growth, appends, sets, adds, reads, rows and a
// truncation, with far more values than its page cache holds, for each
// width of value (int64 values, int32 ids, uint32 offsets, bytes).
func TestColumnSpill(t *testing.T) {
	t.Run("int64", func(t *testing.T) { testColumnSpill(t, func(r *rand.Rand) int64 { return r.Int64N(1<<40) - 1<<39 }) })
	t.Run("int32", func(t *testing.T) { testColumnSpill(t, func(r *rand.Rand) int32 { return r.Int32() - 1<<30 }) })
	t.Run("uint32", func(t *testing.T) { testColumnSpill(t, func(r *rand.Rand) uint32 { return r.Uint32() }) })
	t.Run("uint64", func(t *testing.T) { testColumnSpill(t, func(r *rand.Rand) uint64 { return r.Uint64() }) })
	t.Run("uint8", func(t *testing.T) { testColumnSpill(t, func(r *rand.Rand) uint8 { return uint8(r.Uint32()) }) })
}

func testColumnSpill[T word](t *testing.T, random func(*rand.Rand) T) {
	spillAt(t, 1000)
	r := rand.New(rand.NewPCG(7, 8))
	var a column[T]
	var want []T
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
	per := spillPageBytes / width[T]()
	for len(want) < 3*per*spillPages {
		k := 1 + r.IntN(9)
		a.grow(k)
		want = append(want, make([]T, k)...)
		v := random(r)
		a.append(v)
		want = append(want, v)
		for range 3 {
			i, v := r.IntN(len(want)), random(r)
			a.add(i, v)
			want[i] += v
			j, w := r.IntN(len(want)), random(r)
			a.set(j, w)
			want[j] = w
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
	a.setRow(4000, row)
	copy(want[4000:], row)
	check("row written")
	cut := len(want)/2 + 3
	a.truncate(cut)
	want = want[:cut]
	check("truncated")
	a.grow(per)
	want = append(want, make([]T, per)...)
	check("grown again (zeros past the cut)")
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestSpilledViewsIdentical: the profile views of a tree whose columns
// (and bottom-up's) moved to files are byte for byte those of the same
// tree in memory.
func TestSpilledViewsIdentical(t *testing.T) {
	views := func() map[string][]byte {
		tr := deepTree(5_000)
		p := &Profile{build: func() (*Tree, error) { return tr, nil },
			title: "t", comment: []string{"c"}}
		root := vfs.NewDir()
		p.AddViews(root)
		out := readTree(t, vfs.NewFS(root, time.Unix(1700000000, 0)))
		if spilled := tr.vals.f != nil && tr.parent.f != nil && tr.strs.blob.f != nil; spilled != (SpillValues > 0) {
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
