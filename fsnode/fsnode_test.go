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

	"github.com/hpcfs/hpcfs/fsnode"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
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

// TestReadOnly: every write fails with EROFS, also (as root) after
// `mount -o remount,rw`, when the kernel passes the requests on.
func TestReadOnly(t *testing.T) {
	mnt := fsnodetest.Mount(t, sample())
	file := filepath.Join(mnt, "dir0/file000.txt")
	dir := filepath.Join(mnt, "dir1")
	ops := map[string]func() error{
		"write":    func() error { return os.WriteFile(file, []byte("x"), 0o644) },
		"create":   func() error { _, err := os.Create(filepath.Join(mnt, "new")); return err },
		"mkdir":    func() error { return os.Mkdir(filepath.Join(mnt, "d"), 0o755) },
		"rename":   func() error { return os.Rename(file, filepath.Join(mnt, "moved")) },
		"remove":   func() error { return os.Remove(file) },
		"unlink":   func() error { return syscall.Unlink(file) },
		"rmdir":    func() error { return syscall.Rmdir(dir) },
		"chmod":    func() error { return os.Chmod(file, 0o777) },
		"truncate": func() error { return os.Truncate(file, 0) },
		"utimes":   func() error { return os.Chtimes(file, time.Now(), time.Now()) },
		"link":     func() error { return os.Link(file, filepath.Join(mnt, "hard")) },
		"symlink":  func() error { return os.Symlink("dir0", filepath.Join(mnt, "sym")) },
		"mknod":    func() error { return syscall.Mkfifo(filepath.Join(mnt, "fifo"), 0o644) },
	}
	check := func(when string) {
		for name, op := range ops {
			if err := op(); !errors.Is(err, syscall.EROFS) {
				t.Errorf("%s: %s: %v, want EROFS", when, name, err)
			}
		}
		if _, err := os.Stat(file); err != nil {
			t.Errorf("%s: %v after the writes", when, err)
		}
		if des, err := os.ReadDir(dir); err != nil || len(des) != 100 {
			t.Errorf("%s: dir1 holds %d entries (%v) after the writes, want 100", when, len(des), err)
		}
	}
	check("read-only mount")
	if _, err := os.Stat(filepath.Join(mnt, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stat of a missing name: %v", err)
	}
	if os.Geteuid() != 0 {
		return // only root may remount
	}
	if err := syscall.Mount("", mnt, "", syscall.MS_REMOUNT, ""); err != nil {
		t.Fatalf("remount,rw: %v", err)
	}
	check("after remount,rw")
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
		return testdata.Names(des)
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

// TestDirectIOFiles: files from Options.DirectFrom bytes up are served
// with direct I/O (st_blksize 1 MiB) and read as the cached ones do with
// cat, wc, cp, tail, grep and parallel random reads; smaller files keep
// st_blksize 4096 (the page cache).
func TestDirectIOFiles(t *testing.T) {
	var big []byte
	for i := 0; len(big) < 3<<20; i++ {
		big = fmt.Appendf(big, "line %d of a large generated file\n", i)
	}
	fsys := fstest.MapFS{
		"big.txt":   &fstest.MapFile{Data: big, ModTime: time.Unix(1700000000, 0)},
		"small.txt": &fstest.MapFile{Data: []byte("small\n"), ModTime: time.Unix(1700000000, 0)},
	}
	mnt := fsnodetest.MountWith(t, fsys, fsnode.Options{DirectFrom: 1 << 20})
	for name, want := range map[string]int64{"big.txt": 1 << 20, "small.txt": 4096} {
		fi, err := os.Stat(filepath.Join(mnt, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Sys().(*syscall.Stat_t).Blksize; got != want {
			t.Errorf("%s: st_blksize %d, want %d", name, got, want)
		}
	}
	fsnodetest.CheckFile(t, filepath.Join(mnt, "big.txt"), big)
	fsnodetest.CheckFile(t, filepath.Join(mnt, "small.txt"), []byte("small\n"))
}
