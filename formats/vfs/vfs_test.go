package vfs_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/formats/vfs"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
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
	s.Errors.Report("big.csv", fmt.Errorf("something odd"))
	return vfs.NewFS(s.Root, time.Unix(1700000000, 0)), big
}

func TestTreeFS(t *testing.T) {
	fsys, _ := sampleTree(t)
	if err := fstest.TestFS(fsys, "README.txt", "big.csv", "_errors.txt", "raw/data.bin", "items/0999.txt"); err != nil {
		t.Fatal(err)
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

func TestSafeNames(t *testing.T) {
	got := vfs.UniqueNames([]string{"a/b", "..", "", "x.csv", "x.csv", "x.csv"})
	want := []string{"a_b", "_..", "_", "x.csv", "x~2.csv", "x~3.csv"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("UniqueNames = %q, want %q", got, want)
	}
}
