package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

// waitUnmountLogged waits until the background mount logs its end.
func waitUnmountLogged(t *testing.T, logFile, mnt string) {
	t.Helper()
	for {
		if b, _ := os.ReadFile(logFile); strings.Contains(string(b), mnt+" was unmounted") {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMountBackground checks that `hpcfs mount` returns once the mount is
// ready, that errors found before mounting come back with their exit code
// and message, and that the background process logs to --log-file and
// ends when the mount is unmounted.
func TestMountBackground(t *testing.T) {
	fsnodetest.Require(t)
	logFile := filepath.Join(t.TempDir(), "hpcfs.log")
	mnt := t.TempDir()
	if code, msg := runCLIExit(t, "mount", "--log-file", logFile, mnt); code != 0 {
		t.Fatalf("hpcfs mount (demo): exit %d, %s", code, msg)
	}
	if !mounted(mnt) {
		t.Fatal("hpcfs mount returned before the mount was ready")
	}
	if b, err := os.ReadFile(filepath.Join(mnt, "README.txt")); err != nil || !strings.Contains(string(b), "ovni") {
		t.Errorf("README.txt through the background mount: %v %q", err, b)
	}
	if code, msg := runCLIExit(t, "mount", "--log-file", logFile, mnt); code != exitInUse || !strings.Contains(msg, "in use") {
		t.Errorf("busy mountpoint: exit %d, %q", code, msg)
	}
	if code, msg := runCLIExit(t, "mount", "--log-file", logFile, filepath.Join(mnt, "..", "no-such-source"), t.TempDir()); code != exitSource || strings.Count(msg, "\n") != 1 {
		t.Errorf("missing source: exit %d, %q", code, msg)
	}
	runCLI(t, "unmount", mnt)
	if mounted(mnt) {
		t.Fatal("still mounted after hpcfs unmount")
	}
	waitUnmountLogged(t, logFile, mnt)
	if b, _ := os.ReadFile(logFile); !strings.Contains(string(b), "mounted the demo trace") {
		t.Errorf("log file lacks the mount line:\n%s", b)
	}
}

// TestMountTypeFuseHpcfs mounts with `mount -t fuse.hpcfs SOURCE MNT`, as an
// fstab line does, through the mount.fuse.hpcfs link that install-helper
// makes in /sbin (where mount(8) looks for helpers) to the binary it
// installs in --bin-dir. It needs root.
func TestMountTypeFuseHpcfs(t *testing.T) {
	fsnodetest.Require(t)
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI runs as root and must test mount -t fuse.hpcfs")
		}
		t.Skip("mount -t fuse.hpcfs needs root")
	}
	mountCmd, err := exec.LookPath("mount")
	if err != nil {
		t.Fatal("mount(8) missing:", err)
	}
	link := filepath.Join("/sbin", helperName)
	if _, err := os.Lstat(link); err == nil {
		t.Skipf("%s exists already; not replacing it", link)
	}
	binDir := t.TempDir()
	runCLI(t, "install-helper", "--bin-dir", binDir, "/sbin")
	defer os.Remove(link)
	installed := filepath.Join(binDir, "hpcfs")
	if target, err := os.Readlink(link); err != nil || target != installed {
		t.Fatalf("%s -> %q, %v; want %s", link, target, err, installed)
	}
	// A copy, not a link into the build: the mount helper outlives the
	// checkout and the test's build directory.
	fi, err := os.Lstat(installed)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(hpcfsBin(t))
	if got, _ := os.ReadFile(installed); !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o755 || !bytes.Equal(got, want) {
		t.Fatalf("%s: mode %v; want a 0755 copy of the binary", installed, fi.Mode())
	}

	dir := t.TempDir()
	source := filepath.Join(dir, "callgrind.out.1")
	os.WriteFile(source, []byte("events: Ir\nfn=main\n1 10\n"), 0o644)
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	out, err := exec.Command(mountCmd, "-t", "fuse.hpcfs", "-o", "ro,noatime", source, mnt).CombinedOutput()
	if err != nil {
		t.Fatalf("mount -t fuse.hpcfs: %v\n%s", err, out)
	}
	if !mounted(mnt) {
		t.Fatal("mount -t fuse.hpcfs returned without a mount")
	}
	defer lazyUnmount(mnt)
	if b, err := os.ReadFile(filepath.Join(mnt, "functions.csv")); err != nil || !strings.Contains(string(b), "main") {
		t.Errorf("functions.csv through the mount: %v %q", err, b)
	}
	if out, err := exec.Command(mountCmd, "-t", "fuse.hpcfs", "-o", "nosuch_option", source, t.TempDir()).CombinedOutput(); err == nil ||
		!strings.Contains(string(out), `"nosuch_option"`) {
		t.Errorf("mount -o nosuch_option: %v, %q", err, out)
	}
	if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v\n%s", err, out)
	}
	if mounted(mnt) {
		t.Error("still mounted after umount")
	}
}

func TestHelperArgs(t *testing.T) {
	commands := map[string]bool{"mount": true, "ls": true}
	dir := t.TempDir()
	for _, c := range []struct{ in, want string }{
		{"/sbin/mount.fuse.hpcfs src mnt -o rw,noatime", "/sbin/mount.fuse.hpcfs mount -o noatime src mnt"},
		{"/sbin/mount.fuse.hpcfs src mnt -n -o ro", "/sbin/mount.fuse.hpcfs mount -o ro src mnt"},
		{"hpcfs " + dir + " mnt -o ro", "hpcfs mount -o ro " + dir + " mnt"},
		{"hpcfs ls " + dir, "hpcfs ls " + dir},
		{"hpcfs mount " + dir + " mnt", "hpcfs mount " + dir + " mnt"},
		{"hpcfs nosuchpath mnt", "hpcfs nosuchpath mnt"},
	} {
		if got := strings.Join(helperArgs(strings.Fields(c.in), commands), " "); got != c.want {
			t.Errorf("helperArgs(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
