package fsnode_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
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

// A countedDir is a tree of one directory, big/, of n files named by their
// number, made as they are listed; it records the most entries one
// ReadDir asked for (-1 for a whole listing). It has no fs.ReadDirFS, so
// a listing goes through the open directory's ReadDir.
type countedDir struct {
	n       int
	mu      sync.Mutex
	largest int
}

func (c *countedDir) Open(name string) (iofs.File, error) {
	switch name {
	case ".":
		return &countedList{c: c, names: []string{"big"}, dirs: true}, nil
	case "big":
		return &countedList{c: c, n: c.n}, nil
	}
	if i, err := strconv.Atoi(strings.TrimPrefix(name, "big/f")); err == nil && i < c.n {
		return &countedList{c: c, file: true}, nil
	}
	return nil, &iofs.PathError{Op: "open", Path: name, Err: iofs.ErrNotExist}
}

type countedList struct {
	c     *countedDir
	names []string // the entries when given, else n files f0000000...
	n     int
	dirs  bool // names are directories
	file  bool // a file, not a directory
	next  int
}

func (l *countedList) Stat() (iofs.FileInfo, error) { return l, nil }
func (l *countedList) Read([]byte) (int, error)     { return 0, io.EOF }
func (l *countedList) ReadAt([]byte, int64) (int, error) {
	return 0, io.EOF
}
func (l *countedList) Close() error { return nil }
func (l *countedList) Name() string { return "entry" }
func (l *countedList) Size() int64  { return 0 }
func (l *countedList) Mode() iofs.FileMode {
	if l.file {
		return 0o444
	}
	return iofs.ModeDir | 0o555
}
func (l *countedList) ModTime() time.Time { return time.Unix(1700000000, 0) }
func (l *countedList) IsDir() bool        { return !l.file }
func (l *countedList) Sys() any           { return nil }

func (l *countedList) ReadDir(n int) ([]iofs.DirEntry, error) {
	l.c.mu.Lock()
	if n <= 0 {
		l.c.largest = -1
	} else if l.c.largest >= 0 {
		l.c.largest = max(l.c.largest, n)
	}
	l.c.mu.Unlock()
	total := max(l.n, len(l.names))
	if n <= 0 {
		n = total - l.next
	} else if l.next >= total {
		return nil, io.EOF
	}
	var out []iofs.DirEntry
	for ; n > 0 && l.next < total; n-- {
		name := fmt.Sprintf("f%07d", l.next)
		if l.names != nil {
			name = l.names[l.next]
		}
		info := &countedList{c: l.c, file: !l.dirs}
		out = append(out, iofs.FileInfoToDirEntry(namedInfo{info, name}))
		l.next++
	}
	return out, nil
}

// namedEntry is a directory entry of which only the name is known.
type namedEntry string

func (e namedEntry) Name() string                 { return string(e) }
func (e namedEntry) IsDir() bool                  { return false }
func (e namedEntry) Type() iofs.FileMode          { return 0 }
func (e namedEntry) Info() (iofs.FileInfo, error) { return nil, iofs.ErrInvalid }

type namedInfo struct {
	iofs.FileInfo
	name string
}

func (i namedInfo) Name() string { return i.name }

// TestStreamedListing: a directory of 50,000 entries is listed through
// the mount whole, in order, and again after a rewind, while the tree is
// asked for at most a small batch of entries at a time (never for the
// whole directory: its entries are not all held at once); a seekdir to
// the offset of an entry taken from getdents goes on after it, forwards
// and backwards.
func TestStreamedListing(t *testing.T) {
	const n = 50000
	tree := &countedDir{n: n}
	mnt := fsnodetest.Mount(t, tree)
	dir, err := os.Open(filepath.Join(mnt, "big"))
	if err != nil {
		t.Fatal(err)
	}
	defer dir.Close()
	want := func(i int) string { return fmt.Sprintf("f%07d", i) }
	check := func(what string, des []os.DirEntry, from int) {
		t.Helper()
		names := testdata.Names(des)
		if len(names) != n-from || names[0] != want(from) || names[len(names)-1] != want(n-1) || !slices.IsSorted(names) {
			t.Fatalf("%s: %d entries, want %d from %s", what, len(names), n-from, want(from))
		}
	}
	first, err := dir.ReadDir(10)
	if err != nil || len(first) != 10 || first[0].Name() != want(0) {
		t.Fatalf("first 10 entries: %v, %v", testdata.Names(first), err)
	}
	rest, err := dir.ReadDir(-1)
	if err != nil {
		t.Fatal(err)
	}
	check("listing", append(first, rest...), 0)
	if _, err := dir.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	again, err := dir.ReadDir(-1)
	if err != nil {
		t.Fatal(err)
	}
	check("after a rewind", again, 0)

	// seekdir to offsets getdents gave: the 5000th entry's, then the 3rd's.
	fd := int(dir.Fd())
	type dirent struct {
		name string
		off  int64
	}
	getdents := func() (all []dirent) {
		buf := make([]byte, 1<<16)
		for {
			k, err := syscall.Getdents(fd, buf)
			if err != nil {
				t.Fatalf("getdents: %v", err)
			}
			if k == 0 {
				return all
			}
			for b := buf[:k]; len(b) > 0; {
				reclen := binary.NativeEndian.Uint16(b[16:])
				name, _, _ := strings.Cut(string(b[19:reclen]), "\x00")
				all = append(all, dirent{name, int64(binary.NativeEndian.Uint64(b[8:]))})
				b = b[reclen:]
			}
		}
	}
	if _, err := syscall.Seek(fd, 0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	all := getdents()
	for _, after := range []int{4999, 2} {
		if _, err := syscall.Seek(fd, all[after].off, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		var des []os.DirEntry
		for _, e := range getdents() {
			des = append(des, namedEntry(e.name))
		}
		check(fmt.Sprintf("after seekdir past %s", all[after].name), des, after+1)
	}
	tree.mu.Lock()
	defer tree.mu.Unlock()
	if tree.largest < 0 || tree.largest > 1024 {
		t.Errorf("the tree was asked for %d entries at once (-1: all), want a batch of at most 1024", tree.largest)
	}
}

// TestForgetsOldLookups: once the kernel has looked up more than MaxKnown
// names, the server asks it to forget the oldest, so that it keeps at
// most MaxKnown inodes (go-fuse keeps one per name the kernel holds, and
// the kernel holds names as long as memory allows: a find over a large
// folder kept them all); a forgotten file is looked up again when used.
func TestForgetsOldLookups(t *testing.T) {
	n := 3 * fsnode.MaxKnown
	mnt := fsnodetest.Mount(t, &countedDir{n: n})
	before := fsnode.LiveNodes()
	for i := range n {
		if _, err := os.Lstat(filepath.Join(mnt, "big", fmt.Sprintf("f%07d", i))); err != nil {
			t.Fatal(err)
		}
	}
	// The kernel forgets after the invalidations, which run on their own:
	// wait for it (a server that keeps every inode never gets there).
	for fsnode.LiveNodes()-before > fsnode.MaxKnown+1 { // +1: big/
		time.Sleep(time.Millisecond)
	}
	if fi, err := os.Lstat(filepath.Join(mnt, "big", "f0000000")); err != nil || fi.IsDir() {
		t.Fatalf("a forgotten file looked up again: %v, %v", fi, err)
	}
}
