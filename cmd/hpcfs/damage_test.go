package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata/clitest"
	callgrindgen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// TestMountFIFO: a named pipe is never opened to detect its format (open
// blocks until a writer comes): as a source it is refused at once, and
// in a folder it is listed as not read while the rest mounts.
func TestMountFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg := runBounded(t, 60*time.Second, "mount", "-f", fifo, t.TempDir())
	if code != exitSource || !strings.Contains(msg, "named pipe") {
		t.Errorf("mount of a FIFO: exit %d, %q; want %d naming the pipe", code, msg, exitSource)
	}
	if code, msg := runBounded(t, 60*time.Second, "ls", fifo); code != exitSource {
		t.Errorf("ls of a FIFO: exit %d, %q", code, msg)
	}
	// A folder of two sources and the pipe: the folder scan lists it.
	os.Mkdir(filepath.Join(dir, "cg"), 0o755)
	writeFile(t, filepath.Join(dir, "cg", "callgrind.out.1"), callgrindgen.Bytes(callgrindgen.Config{Seed: 1, Functions: 5, Records: 20}))
	if _, err := ovnigen.WriteDemo(filepath.Join(dir, "ovni")); err != nil {
		t.Fatal(err)
	}
	if code, msg := runBounded(t, 60*time.Second, "ls", dir); code != 0 {
		t.Fatalf("ls of a folder holding a FIFO: exit %d, %s", code, msg)
	}
	readme := string(runCLI(t, "cat", dir, "README.txt"))
	if !strings.Contains(readme, "pipe") || !strings.Contains(readme, "named pipe (FIFO), not read") {
		t.Errorf("README.txt does not list the pipe as not read:\n%s", readme)
	}
}

// startDemo mounts the demo at mnt in the foreground (startMount: ready
// once go-fuse's own first requests are answered, which a server stopped
// earlier would leave in flight); at cleanup it is killed.
func startDemo(t *testing.T, mnt string) *clitest.Server {
	t.Helper()
	s := startMount(t, mnt, "mount", "-f", mnt)
	t.Cleanup(func() {
		s.Cmd.Process.Signal(syscall.SIGCONT)
		s.Cmd.Process.Kill()
		if mounted(mnt) {
			lazyUnmount(mnt)
		}
	})
	return s
}

// TestUnmountStoppedServer: `hpcfs unmount` of a mount whose server is
// stopped (SIGSTOP) asks the server nothing and unmounts; the server,
// continued, sees the mount gone and exits.
func TestUnmountStoppedServer(t *testing.T) {
	fsnodetest.Require(t)
	mnt := t.TempDir()
	s := startDemo(t, mnt)
	if err := s.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	if code, msg := runBounded(t, 60*time.Second, "unmount", mnt); code != 0 {
		t.Fatalf("unmount of a stopped server's mount: exit %d\n%s", code, msg)
	}
	if mounted(mnt) {
		t.Fatal("still mounted")
	}
	s.Cmd.Process.Signal(syscall.SIGCONT)
	if err := <-s.Exited; err != nil {
		t.Errorf("the continued server: %v", err)
	}
}

// TestUnmountBusy: a mount in use stays, and the message names the
// command that detaches it; -z does.
func TestUnmountBusy(t *testing.T) {
	fsnodetest.Require(t)
	mnt := t.TempDir()
	s := startDemo(t, mnt)
	f, err := os.Open(filepath.Join(mnt, "events.txt"))
	if err != nil {
		t.Fatal(err)
	}
	code, msg := runBounded(t, 60*time.Second, "unmount", mnt)
	if code != exitInUse || !strings.Contains(msg, "fusermount3 -u -z "+mnt) {
		t.Errorf("unmount of a busy mount: exit %d, %q; want %d and the clearing command", code, msg, exitInUse)
	}
	if !mounted(mnt) {
		t.Fatal("a busy mount was unmounted")
	}
	if code, msg := runBounded(t, 60*time.Second, "unmount", "-z", mnt); code != 0 || mounted(mnt) {
		t.Fatalf("unmount -z: exit %d, %q, mounted %v", code, msg, mounted(mnt))
	}
	f.Close()
	if err := <-s.Exited; err != nil {
		t.Errorf("the server after a lazy unmount: %v", err)
	}
}

// TestCatDirectory: cat of a directory of the tree says so.
func TestCatDirectory(t *testing.T) {
	code, msg := runCLIExit(t, "cat", "", "raw")
	if code != exitFailure || !strings.Contains(msg, "raw is a directory") {
		t.Errorf("cat of a directory: exit %d, %q", code, msg)
	}
}

// TestExportIntoNonEmptyFolder: export refuses a folder with files in it
// (which would mix with the export) unless --force.
func TestExportIntoNonEmptyFolder(t *testing.T) {
	out := t.TempDir()
	writeFile(t, filepath.Join(out, "stale.csv"), []byte("old\n"))
	code, msg := runCLIExit(t, "export", "", out)
	if code != exitFailure || !strings.Contains(msg, "not empty") {
		t.Errorf("export into a non-empty folder: exit %d, %q", code, msg)
	}
	if _, err := os.Stat(filepath.Join(out, "events.txt")); err == nil {
		t.Error("export wrote into the non-empty folder")
	}
	runCLI(t, "export", "--force", "", out)
	if _, err := os.Stat(filepath.Join(out, "events.txt")); err != nil {
		t.Errorf("export --force: %v", err)
	}
	runCLI(t, "export", "", filepath.Join(t.TempDir(), "new"))
}

// TestMountFailureSaysWhy: a mount refused by fusermount3 (here: a
// normal user without write access to the mountpoint) reports the
// helper's reason, not just its exit code. Needs root, to run as nobody.
func TestMountFailureSaysWhy(t *testing.T) {
	fsnodetest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to run the command as another user")
	}
	bin := hpcfsBin(t)
	os.Chmod(filepath.Dir(bin), 0o755)
	mnt := t.TempDir()
	os.Chmod(filepath.Dir(mnt), 0o755)
	os.Chmod(mnt, 0o755) // owned by root: nobody may not mount on it
	cmd := exec.Command(bin, "mount", "-f", mnt)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	msg := stderr.String()
	var last string
	if lines := strings.Split(strings.TrimSpace(msg), "\n"); len(lines) > 0 {
		last = lines[len(lines)-1]
	}
	if err == nil || !strings.HasPrefix(last, "hpcfs: mount "+mnt+": ") || !strings.Contains(last, "fusermount3: ") ||
		strings.Index(last, "fusermount exited") < strings.Index(last, "fusermount3: ") {
		t.Errorf("mount refused by fusermount3: %v, last line %q; want the helper's reason\n%s", err, last, msg)
	}
}

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
