// Package fsnodetest mounts trees for tests and checks that ordinary tools
// see a mounted file exactly as the tree serves it.
package fsnodetest

import (
	"bytes"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hpcfs/hpcfs/fsnode"
)

// Available reports whether this machine can mount FUSE file systems.
func Available() bool {
	if _, err := os.Stat("/dev/fuse"); err != nil {
		return false
	}
	if os.Geteuid() == 0 {
		return true
	}
	_, err := exec.LookPath("fusermount3")
	return err == nil
}

// Require skips the test when FUSE is missing, except under CI=true,
// where a missing FUSE fails it: CI must run every mounted test.
func Require(t testing.TB) {
	t.Helper()
	if Available() {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("FUSE is not available, and CI must run mounted tests (install fuse3, provide /dev/fuse)")
	}
	t.Skip("FUSE not available (/dev/fuse or fusermount3 missing)")
}

// Mount serves fsys in this process on a fresh directory, unmounted when
// the test ends, and returns the directory.
func Mount(t testing.TB, fsys fs.FS) string {
	t.Helper()
	return MountWith(t, fsys, fsnode.Options{})
}

// MountWith is Mount with options (FsName and DirectMount are set here).
func MountWith(t testing.TB, fsys fs.FS, opts fsnode.Options) string {
	t.Helper()
	Require(t)
	dir := t.TempDir()
	opts.FsName, opts.DirectMount = "hpcfs-test", os.Geteuid() == 0
	srv, err := fsnode.Mount(dir, fsys, opts)
	if err != nil {
		t.Fatalf("mount: %v", err)
	}
	if err := srv.WaitMount(); err != nil {
		t.Fatalf("wait mount: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
	})
	return dir
}

// CheckFile checks a mounted file against want with the tools people use:
// stat and wc -c give len(want), cat and cp copy it whole, tail -n 3 gives
// its last lines, grep -c counts its lines, and 16 goroutines reading at
// random offsets see the same bytes.
func CheckFile(t testing.TB, path string, want []byte) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatalf("stat: %v", err)
	}
	if fi.Size() != int64(len(want)) {
		t.Fatalf("%s: stat size %d, want %d", path, fi.Size(), len(want))
	}
	run := func(name string, args ...string) []byte {
		t.Helper()
		out, err := exec.Command(name, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return out
	}
	if got := run("cat", path); !bytes.Equal(got, want) {
		t.Fatalf("cat %s: %d bytes differ from the %d expected", path, len(got), len(want))
	}
	if got := strings.Fields(string(run("wc", "-c", path)))[0]; got != strconv.Itoa(len(want)) {
		t.Fatalf("wc -c %s = %s, want %d", path, got, len(want))
	}
	lines := bytes.SplitAfter(want, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	tail := bytes.Join(lines[max(0, len(lines)-3):], nil)
	if got := run("tail", "-n", "3", path); !bytes.Equal(got, tail) {
		t.Fatalf("tail -n 3 %s = %q, want %q", path, got, tail)
	}
	copyPath := filepath.Join(t.TempDir(), "copy")
	run("cp", path, copyPath)
	if got, _ := os.ReadFile(copyPath); !bytes.Equal(got, want) {
		t.Fatalf("cp %s: copy differs", path)
	}
	CheckRandomReads(t, path, want)
}

// CheckRandomReads reads path from 16 goroutines at random offsets and
// lengths and compares every read with want.
func CheckRandomReads(t testing.TB, path string, want []byte) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			f, err := os.Open(path)
			if err != nil {
				errs <- err.Error()
				return
			}
			defer f.Close()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < 50; i++ {
				off := rng.Int63n(int64(len(want)) + 1)
				n := rng.Intn(256 << 10)
				buf := make([]byte, n)
				k, err := f.ReadAt(buf, off)
				if err != nil && err != io.EOF {
					errs <- err.Error()
					return
				}
				end := min(off+int64(n), int64(len(want)))
				if !bytes.Equal(buf[:k], want[off:end]) {
					errs <- "random read at " + strconv.FormatInt(off, 10) + " differs"
					return
				}
			}
		}(int64(g))
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("%s: %s", path, e)
	}
}
