package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata/clitest"
)

// The command as the tests run it (testdata/clitest): hpcfsBin builds it
// once; runCLI returns its standard output, a non-zero exit failing the
// test; runCLIExit returns its exit code and standard error, and
// runBounded the same for a command killed (and failed) past a limit.
var (
	hpcfsBin   = clitest.Bin
	runCLI     = clitest.Run
	runCLIExit = clitest.Exit
	runBounded = clitest.ExitWithin
)

// startMount runs hpcfs with args (holding "mount -f MNT") and returns
// the server once it says it has mounted; a refusal fails the test.
func startMount(t testing.TB, mnt string, args ...string) *clitest.Server {
	t.Helper()
	s := clitest.Start(t, nil, args...)
	if !s.Mounted() || !mounted(mnt) {
		err := <-s.Exited
		t.Fatalf("hpcfs mount: %q, exit %v\n%s", s.Ready, err, s.Stderr)
	}
	return s
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
	s := startMount(t, mnt, args...)
	t.Cleanup(func() {
		s.Cmd.Process.Signal(syscall.SIGTERM)
		if err := <-s.Exited; err != nil {
			t.Errorf("hpcfs mount exited with %v after SIGTERM\n%s", err, s.Stderr)
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
