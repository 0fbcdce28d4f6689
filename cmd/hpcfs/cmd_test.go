package main

import (
	"os"
	"path/filepath"
	"strings"
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

func TestUnmountCommand(t *testing.T) {
	fsnodetest.Require(t)
	mnt := mountCLI(t, "")
	runCLI(t, "unmount", mnt)
	if mounted(mnt) {
		t.Fatal("still mounted after hpcfs unmount")
	}
}
