package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// failingFS fails to open the paths in fail and records the order of opens.
type failingFS struct {
	fstest.MapFS
	fail   map[string]bool
	opened *[]string
}

func (f failingFS) Open(name string) (fs.File, error) {
	if f.fail[name] {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("view failed")}
	}
	if fi, err := fs.Stat(f.MapFS, name); err == nil && !fi.IsDir() {
		*f.opened = append(*f.opened, name)
	}
	return f.MapFS.Open(name)
}

func TestExportGoesOnAndWritesErrorsLast(t *testing.T) {
	var opened []string
	fsys := failingFS{
		MapFS: fstest.MapFS{
			"README.txt":      {Data: []byte("readme\n")},
			"_errors.txt":     {Data: []byte("a problem\n")},
			"a.csv":           {Data: []byte("a\n")},
			"b.csv":           {Data: []byte("b\n")},
			"sub/c.csv":       {Data: []byte("c\n")},
			"sub/_errors.txt": {Data: []byte("")},
			"z/d.txt":         {Data: []byte("d\n")},
			"raw/x.bin":       {Data: []byte("raw\n")},
		},
		fail:   map[string]bool{"b.csv": true, "sub/c.csv": true},
		opened: &opened,
	}
	dir := t.TempDir()
	err := export(fsys, dir)
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != exitFailure || !strings.Contains(err.Error(), "b.csv: ") || !strings.Contains(err.Error(), "sub/c.csv: ") {
		t.Fatalf("export: %v; want exit %d naming b.csv and sub/c.csv", err, exitFailure)
	}
	for p, want := range map[string]string{"README.txt": "readme\n", "a.csv": "a\n", "z/d.txt": "d\n", "_errors.txt": "a problem\n", "sub/_errors.txt": ""} {
		if got, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", p, got, err, want)
		}
	}
	for _, p := range []string{"b.csv", "sub/c.csv", "raw"} {
		if _, err := os.Stat(filepath.Join(dir, p)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s exported: %v", p, err)
		}
	}
	if n := len(opened); n < 2 || filepath.Base(opened[n-1]) != "_errors.txt" || filepath.Base(opened[n-2]) != "_errors.txt" {
		t.Errorf("open order %q: the _errors.txt files come last", opened)
	}
}

// TestExportTruncatedOvni: the damage rendering finds is in the exported
// _errors.txt.
func TestExportTruncatedOvni(t *testing.T) {
	trace, err := ovnigen.WriteDemo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	streams, _ := filepath.Glob(filepath.Join(trace, "loom.*", "proc.*", "thread.*"))
	if len(streams) == 0 {
		t.Fatal("no streams in the demo trace")
	}
	fi, err := os.Stat(streams[0])
	if err != nil {
		t.Fatal(err)
	}
	os.Truncate(streams[0], fi.Size()-7)
	dir := t.TempDir()
	runCLI(t, "export", trace, dir)
	errs, err := os.ReadFile(filepath.Join(dir, "_errors.txt"))
	rel, _ := filepath.Rel(trace, streams[0])
	if err != nil || !strings.Contains(string(errs), rel) {
		t.Errorf("exported _errors.txt = %q %v, want a line naming %s", errs, err, rel)
	}
}
