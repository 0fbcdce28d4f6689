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

	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
)

func TestMountDemoAndSIGTERM(t *testing.T) {
	mnt := mountCLI(t, "")
	readme, err := os.ReadFile(filepath.Join(mnt, "README.txt"))
	if err != nil || !strings.Contains(string(readme), "ovni") {
		t.Fatalf("README.txt: %v %q", err, readme)
	}
	events, err := os.ReadFile(filepath.Join(mnt, "events.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(events), "\n"); n != 2000 {
		t.Fatalf("demo events.txt has %d lines, want 2000", n)
	}
}

func TestMountErrors(t *testing.T) {
	fsnodetest.Require(t)
	demo := t.TempDir()
	if code, msg := runCLIExit(t, "mount", filepath.Join(demo, "missing"), t.TempDir()); code != exitSource || strings.Count(msg, "\n") != 1 {
		t.Errorf("unknown source: exit %d, stderr %q", code, msg)
	}
	if code, msg := runCLIExit(t, "mount", filepath.Join(demo, "nowhere")); code != exitMountpoint || strings.Count(msg, "\n") != 1 {
		t.Errorf("missing mountpoint: exit %d, stderr %q", code, msg)
	}
	full := t.TempDir()
	os.WriteFile(filepath.Join(full, "x"), nil, 0o644)
	if code, msg := runCLIExit(t, "mount", full); code != exitMountpoint || !strings.Contains(msg, "not empty") {
		t.Errorf("non-empty mountpoint: exit %d, stderr %q", code, msg)
	}
	mnt := mountCLI(t, "")
	if code, msg := runCLIExit(t, "mount", mnt); code != exitInUse || !strings.Contains(msg, "in use") {
		t.Errorf("busy mountpoint: exit %d, stderr %q", code, msg)
	}
	if code, msg := runCLIExit(t, "mount", "-o", "rw", t.TempDir()); code != exitUsage {
		t.Errorf("-o rw: exit %d, stderr %q", code, msg)
	}
	if code, msg := runCLIExit(t, "mount", "-o", "ro,nosuch_option", t.TempDir()); code != exitUsage || !strings.Contains(msg, `"nosuch_option"`) {
		t.Errorf("-o nosuch_option: exit %d, stderr %q", code, msg)
	}
	source := filepath.Join(demo, "trace")
	os.WriteFile(source, []byte("events: Ir\nfn=main\n1 10\n"), 0o644)
	if code, msg := runCLIExit(t, "mount", source); code != exitUsage || !strings.HasPrefix(msg, "hpcfs: missing MOUNTPOINT") {
		t.Errorf("mount SOURCE alone: exit %d, stderr %q", code, msg)
	}
	if code, _ := runCLIExit(t, "cat", "", "no/such/file"); code != exitNotFound && code != exitSource {
		t.Errorf("cat of a missing path: exit %d", code)
	}
}

func TestVersionAndFormats(t *testing.T) {
	if out := string(runCLI(t, "--version")); !strings.HasPrefix(out, "hpcfs version ") || strings.Count(out, "\n") != 1 {
		t.Errorf("hpcfs --version: %q", out)
	}
	out := string(runCLI(t, "formats"))
	for _, f := range formats.All {
		if !strings.Contains(out, f.Name) || !strings.Contains(out, f.Supports) {
			t.Errorf("hpcfs formats lacks %s:\n%s", f.Name, out)
		}
	}
}

// TestVersionNamesCommit: --version names the commit Go recorded in the
// binary, or says why it is unknown; in a clone (.git a folder, as in
// CI) the commit must be there and be the checkout's.
func TestVersionNamesCommit(t *testing.T) {
	bin := hpcfsBin(t)
	out := string(runCLI(t, "--version"))
	info, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	var rev string
	for _, line := range strings.Split(string(info), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision=") {
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		}
	}
	if fi, err := os.Stat("../../.git"); err == nil && fi.IsDir() {
		head, err := exec.Command("git", "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatalf("git rev-parse HEAD: %v", err)
		}
		if rev != strings.TrimSpace(string(head)) {
			t.Fatalf("built in a clone at %s, the binary records commit %q", head, rev)
		}
	}
	switch {
	case rev != "" && !strings.Contains(out, "commit "+rev[:12]):
		t.Errorf("--version %q does not name commit %s", out, rev)
	case rev == "" && !strings.Contains(out, "commit unknown (built without VCS information"):
		t.Errorf("--version %q does not say why the commit is unknown", out)
	}
}

func TestUnmountCommand(t *testing.T) {
	fsnodetest.Require(t)
	mnt := mountCLI(t, "")
	runCLI(t, "unmount", mnt)
	if mounted(mnt) {
		t.Fatal("still mounted after hpcfs unmount")
	}
}

// TestPermissionDenied: an unreadable source (file or folder) is named as
// such, with its own exit code. As root the command runs as nobody, since
// root reads everything.
func TestPermissionDenied(t *testing.T) {
	bin := hpcfsBin(t)
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755)
	os.Chmod(dir, 0o755)
	file := filepath.Join(dir, "trace.out")
	os.WriteFile(file, []byte("events: Ir\nfn=main\n1 10\n"), 0o000)
	folder := filepath.Join(dir, "results")
	os.Mkdir(folder, 0o000)
	unknown := filepath.Join(dir, "notes.txt")
	os.WriteFile(unknown, []byte("just text\n"), 0o644)
	for src, want := range map[string]int{file: exitPermission, folder: exitPermission, unknown: exitSource} {
		cmd := exec.Command(bin, "ls", src)
		if os.Getuid() == 0 {
			os.Chmod(filepath.Dir(bin), 0o755)
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != want {
			t.Errorf("ls %s: %v, stderr %q; want exit %d", src, err, stderr.String(), want)
		}
		if denied := "hpcfs: permission denied: " + src + "\n"; (want == exitPermission) != (stderr.String() == denied) {
			t.Errorf("ls %s: stderr %q", src, stderr.String())
		}
	}
}
