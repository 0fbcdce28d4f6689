package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// hpcfsBin builds the command once per test run and returns its path.
func hpcfsBin(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hpcfs-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "hpcfs")
		// -buildvcs=auto (over a GOFLAGS of -buildvcs=false) records the
		// commit when building in a clone, for --version.
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building hpcfs: %v", buildErr)
	}
	return binPath
}

// runCLI runs hpcfs with args and returns its standard output; a non-zero
// exit fails the test.
func runCLI(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(hpcfsBin(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hpcfs %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// runCLIExit runs hpcfs and returns its exit code and standard error.
func runCLIExit(t testing.TB, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(hpcfsBin(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatalf("hpcfs %s: %v", strings.Join(args, " "), err)
	}
	return 0, stderr.String()
}

// mountCLI runs `hpcfs mount -f source mnt` as a separate process, waits
// until the mount is up and returns mnt. At cleanup it sends SIGTERM and
// checks that the process exits 0 and the mount is gone. An empty source
// mounts the demo. flags go before "mount".
func mountCLI(t testing.TB, source string, flags ...string) string {
	t.Helper()
	var sources []string
	if source != "" {
		sources = []string{source}
	}
	return mountCLISources(t, sources, flags...)
}

// mountCLISources is mountCLI of any sources: none (the demo), one, or two
// (a diff mount).
func mountCLISources(t testing.TB, sources []string, flags ...string) string {
	t.Helper()
	fsnodetest.Require(t)
	mnt := t.TempDir()
	args := append(append(append(flags, "mount", "-f"), sources...), mnt)
	cmd := exec.Command(hpcfsBin(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// No deadlines: on a busy machine start-up takes what it takes; a
	// hang is go test's timeout to catch.
	for !mounted(mnt) {
		select {
		case err := <-exited:
			t.Fatalf("hpcfs mount exited early: %v\n%s", err, stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			t.Errorf("hpcfs mount exited with %v after SIGTERM\n%s", err, stderr.String())
		}
		if mounted(mnt) {
			lazyUnmount(mnt)
			t.Errorf("%s still mounted after SIGTERM", mnt)
		}
	})
	return mnt
}

// TestMain gives the commands the tests run cache and state directories
// of their own, so that on-disk indexes and the logs of background
// mounts neither come from nor go to the user's.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "hpcfs-test-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	os.Setenv("XDG_STATE_HOME", filepath.Join(home, "state"))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}
