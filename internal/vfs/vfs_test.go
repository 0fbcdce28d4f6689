package vfs_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

func sampleTree(t *testing.T) (*vfs.FS, []byte) {
	src := t.TempDir()
	raw := []byte("original bytes\n")
	os.WriteFile(filepath.Join(src, "data.bin"), raw, 0o644)
	s := vfs.NewSource("test", "1", src)
	var big []byte
	for i := 0; i < 50000; i++ {
		big = fmt.Appendf(big, "%d,row %d\n", i, i)
	}
	s.Root.AddFile("README.txt", render.Static([]byte("hello\n")))
	s.Root.AddFile("big.csv", render.Bytes(func() ([]byte, error) { return big, nil }, nil))
	s.Root.Add("items", vfs.Indexed(1000, func(i int) string { return fmt.Sprintf("%04d.txt", i) },
		func(i int) vfs.Node { return vfs.NewFile(render.Static(fmt.Appendf(nil, "item %d\n", i))) }))
	s.Root.Add("later", vfs.LazyIndexed(func() (int, func(int) string, func(int) vfs.Node) {
		return 3, func(i int) string { return fmt.Sprintf("%c.txt", 'a'+i) },
			func(i int) vfs.Node { return vfs.NewFile(render.Static(fmt.Appendf(nil, "later %d\n", i))) }
	}))
	s.Errors.Report("big.csv", fmt.Errorf("something odd"))
	return vfs.NewFS(s.Root, time.Unix(1700000000, 0)), big
}

func TestTreeFS(t *testing.T) {
	fsys, _ := sampleTree(t)
	if err := fstest.TestFS(fsys, "README.txt", "big.csv", "_errors.txt", "raw/data.bin", "items/0999.txt", "later/a.txt", "later/c.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestLazyIndexed: a LazyIndexed directory does its work on first use
// only, once, and then lists and looks up as Indexed does.
func TestLazyIndexed(t *testing.T) {
	calls := 0
	d := vfs.LazyIndexed(func() (int, func(int) string, func(int) vfs.Node) {
		calls++
		return 2, func(i int) string { return []string{"x.csv", "y.csv"}[i] },
			func(i int) vfs.Node { return vfs.NewFile(render.Static([]byte{byte('0' + i)})) }
	})
	root := vfs.NewDir()
	root.Add("d", d)
	if calls != 0 {
		t.Fatalf("work done before use")
	}
	fsys := vfs.NewFS(root, time.Unix(1700000000, 0))
	if b, err := fs.ReadFile(fsys, "d/y.csv"); err != nil || string(b) != "1" {
		t.Fatalf("d/y.csv: %q, %v", b, err)
	}
	if _, err := fs.Stat(fsys, "d/z.csv"); err == nil {
		t.Fatal("d/z.csv found")
	}
	if es, err := fs.ReadDir(fsys, "d"); err != nil || len(es) != 2 || es[0].Name() != "x.csv" || calls != 1 {
		t.Fatalf("listing %v, %v; %d calls", es, err, calls)
	}
}

func TestTreeMounted(t *testing.T) {
	fsys, big := sampleTree(t)
	mnt := fsnodetest.Mount(t, fsys)
	if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "big.csv", "_errors.txt", "raw/data.bin", "items/0999.txt"); err != nil {
		t.Fatal(err)
	}
	fsnodetest.CheckFile(t, filepath.Join(mnt, "big.csv"), big)
	errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
	if !bytes.Equal(errs, []byte("big.csv: something odd\n")) {
		t.Fatalf("_errors.txt = %q", errs)
	}
	if err := os.WriteFile(filepath.Join(mnt, "README.txt"), []byte("x"), 0o644); err == nil {
		t.Fatal("write to the mount succeeded")
	}
}

func TestVolatileFileGrowsThroughTheMount(t *testing.T) {
	s := vfs.NewSource("test", "1", t.TempDir())
	mnt := fsnodetest.Mount(t, s.FS())
	path := filepath.Join(mnt, "_errors.txt")
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Fatalf("empty _errors.txt: %v %v", fi, err)
	}
	s.Errors.Report("x.csv", fmt.Errorf("first problem"))
	want := "x.csv: first problem\n"
	if fi, err := os.Stat(path); err != nil || fi.Size() != int64(len(want)) {
		t.Fatalf("stat after a report: size %d, %v; want %d", fi.Size(), err, len(want))
	}
	fsnodetest.CheckFile(t, path, []byte(want))
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "loom", "1 loom"}, {0, "loom", "0 looms"}, {2, "source", "2 sources"},
		{1, "process", "1 process"}, {3, "process", "3 processes"}, {2, "entry", "2 entries"},
	} {
		if got := vfs.Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
