package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

// killMount mounts the demo at mnt in the foreground, reads from it (so
// the kernel caches attributes), kills the server with SIGKILL and reaps
// it: what is left is a dead mount.
func killMount(t *testing.T, mnt string) {
	t.Helper()
	s := startMount(t, mnt, "mount", "-f", mnt)
	// The server is alive here: reading waits for it.
	if _, err := os.ReadFile(filepath.Join(mnt, "README.txt")); err != nil {
		t.Fatal(err)
	}
	s.Cmd.Process.Kill()
	<-s.Exited // reaped: the mount is dead, not dying
	if !mounted(mnt) {
		t.Fatal("no mount left after kill -9: nothing to test")
	}
}

// TestStaleMountAfterKill9: after the server of a mount is killed with
// SIGKILL, `hpcfs mount` on the same mountpoint clears the dead mount and
// mounts, and `hpcfs unmount` unmounts it. Steps wait for events, not
// for a time: a hang is go test's timeout to catch.
func TestStaleMountAfterKill9(t *testing.T) {
	fsnodetest.Require(t)
	mnt := t.TempDir()
	t.Cleanup(func() {
		if mounted(mnt) {
			lazyUnmount(mnt)
			t.Errorf("%s left mounted", mnt)
		}
	})
	logFile := filepath.Join(t.TempDir(), "hpcfs.log")

	killMount(t, mnt)
	code, msg := runBounded(t, 60*time.Second, "mount", "--log-file", logFile, mnt)
	if code != 0 || !strings.Contains(msg, "stale fuse.hpcfs mount") {
		t.Fatalf("mount over a dead mount: exit %d\n%s", code, msg)
	}
	if _, err := os.Stat(filepath.Join(mnt, "README.txt")); err != nil {
		t.Fatalf("the new mount does not answer: %v", err)
	}
	if _, err := os.Stat(filepath.Join(mnt, "events.txt")); err != nil {
		t.Fatalf("the new mount: %v", err)
	}
	if code, msg := runBounded(t, 60*time.Second, "unmount", mnt); code != 0 {
		t.Fatalf("unmount: exit %d\n%s", code, msg)
	}
	waitUnmounted(t, mnt)

	killMount(t, mnt)
	if err := probe(mnt, time.Minute); !errors.Is(err, syscall.ENOTCONN) && !errors.Is(err, syscall.ECONNABORTED) {
		t.Fatalf("probe of a dead mount: %v, want ENOTCONN", err)
	}
	code, msg = runBounded(t, 60*time.Second, "unmount", mnt)
	if code != 0 {
		t.Fatalf("unmount of a dead mount: exit %d\n%s", code, msg)
	}
	if mounted(mnt) {
		t.Fatal("still mounted after hpcfs unmount")
	}
}

// waitUnmounted waits for the background server to go.
func waitUnmounted(t *testing.T, mnt string) {
	t.Helper()
	for mounted(mnt) {
		time.Sleep(10 * time.Millisecond)
	}
}
