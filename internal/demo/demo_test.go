package demo_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/internal/demo"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// The embedded trace is byte for byte what the generator writes (after a
// generator change: rm -r internal/demo/trace, write the demo with
// ovnigen.WriteDemo and move its ovni/ folder to internal/demo/trace).
func TestEmbeddedMatchesGenerator(t *testing.T) {
	got, err := demo.Write(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	want, err := ovnigen.WriteDemo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(want, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(want, p)
		w, _ := os.ReadFile(p)
		g, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil || !bytes.Equal(g, w) {
			t.Errorf("%s differs from the generator's (%v)", rel, err)
		}
		files++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(got, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if n != files || files == 0 {
		t.Fatalf("embedded %d files, generator %d", n, files)
	}
}
