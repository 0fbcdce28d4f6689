package fsnode_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

func sample() fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := 0; i < 300; i++ {
		fsys[fmt.Sprintf("dir%d/file%03d.txt", i%3, i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "content %d\n", i), ModTime: time.Unix(1700000000, 0)}
	}
	return fsys
}

func TestMountedMapFS(t *testing.T) {
	fsys := sample()
	mnt := fsnodetest.Mount(t, fsys)
	if err := fstest.TestFS(os.DirFS(mnt), "dir0/file000.txt", "dir2/file299.txt"); err != nil {
		t.Fatal(err)
	}
}

func TestReadOnly(t *testing.T) {
	mnt := fsnodetest.Mount(t, sample())
	file := filepath.Join(mnt, "dir0/file000.txt")
	for name, op := range map[string]func() error{
		"write":  func() error { return os.WriteFile(file, []byte("x"), 0o644) },
		"create": func() error { _, err := os.Create(filepath.Join(mnt, "new")); return err },
		"mkdir":  func() error { return os.Mkdir(filepath.Join(mnt, "d"), 0o755) },
		"rename": func() error { return os.Rename(file, filepath.Join(mnt, "moved")) },
		"remove": func() error { return os.Remove(file) },
		"chmod":  func() error { return os.Chmod(file, 0o777) },
	} {
		if err := op(); !errors.Is(err, syscall.EROFS) {
			t.Errorf("%s: %v, want EROFS", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(mnt, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat of a missing name: %v", err)
	}
}

func TestStableInodesAndOrder(t *testing.T) {
	mnt := fsnodetest.Mount(t, sample())
	ino := func(p string) uint64 {
		fi, err := os.Stat(filepath.Join(mnt, p))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	seen := map[uint64]string{}
	for _, p := range []string{"dir0", "dir1", "dir0/file000.txt", "dir0/file003.txt", "dir1/file001.txt"} {
		i := ino(p)
		if other, dup := seen[i]; dup {
			t.Fatalf("%s and %s share inode %d", p, other, i)
		}
		seen[i] = p
		if again := ino(p); again != i {
			t.Fatalf("%s: inode %d then %d", p, i, again)
		}
	}
	list := func() []string {
		des, err := os.ReadDir(filepath.Join(mnt, "dir1"))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		return names
	}
	first := list()
	if len(first) != 100 || !slices.IsSorted(first) || !slices.Equal(first, list()) {
		t.Fatalf("directory listing is not complete, sorted and stable: %d entries", len(first))
	}
}

func TestStatfs(t *testing.T) {
	mnt := fsnodetest.Mount(t, sample())
	var st syscall.Statfs_t
	if err := syscall.Statfs(filepath.Join(mnt, "dir0"), &st); err != nil {
		t.Fatal(err)
	}
	if st.Bsize != 4096 || st.Frsize != 4096 || st.Namelen != 255 {
		t.Errorf("statfs: bsize %d frsize %d namelen %d, want 4096 4096 255", st.Bsize, st.Frsize, st.Namelen)
	}
}
