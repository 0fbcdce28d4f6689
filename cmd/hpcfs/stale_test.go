package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

// runBounded runs hpcfs with args, killed if it takes longer than limit,
// and returns its exit code and standard error.
func runBounded(t *testing.T, limit time.Duration, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, hpcfsBin(t), args...)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("hpcfs %s: still running after %v\n%s", strings.Join(args, " "), limit, stderr.String())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatalf("hpcfs %s: %v", strings.Join(args, " "), err)
	}
	return 0, stderr.String()
}

// killMount mounts the demo at mnt in the foreground, reads from it (so
// the kernel caches attributes), kills the server with SIGKILL and reaps
// it: what is left is a dead mount.
func killMount(t *testing.T, mnt string) {
	t.Helper()
	cmd := exec.Command(hpcfsBin(t), "mount", "-f", mnt)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for !mounted(mnt) {
		select {
		case err := <-exited:
			t.Fatalf("hpcfs mount exited early: %v\n%s", err, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	// The server is alive here: reading waits for it.
	if _, err := os.ReadFile(filepath.Join(mnt, "README.txt")); err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	<-exited // reaped: the mount is dead, not dying
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
