package formats

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

func TestDetectByContent(t *testing.T) {
	dir := t.TempDir()
	trace, err := ovnigen.WriteDemo(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, summary, err := Detect(trace)
	if err != nil || f.Name != "ovni" || !strings.Contains(summary, "2 processes") {
		t.Fatalf("Detect(demo) = %q, %q, %v", f.Name, summary, err)
	}
	// A renamed trace directory is still an ovni trace.
	renamed := filepath.Join(dir, "whatever")
	if err := os.Rename(trace, renamed); err != nil {
		t.Fatal(err)
	}
	if f, _, err := Detect(renamed); err != nil || f.Name != "ovni" {
		t.Fatalf("Detect(renamed) = %q, %v", f.Name, err)
	}
}

func TestUnknownSourceSaysWhatIsSupported(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	_, _, err := Detect(filepath.Join(dir, "notes.txt"))
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v", err)
	}
	for _, f := range All {
		if !strings.Contains(err.Error(), f.Supports) {
			t.Errorf("message %q does not list %s", err, f.Name)
		}
	}
	if _, err := Open(dir); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Open(folder without sources) = %v", err)
	}
}

func TestFolderOfSources(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"run1", "run2"} {
		if _, err := ovnigen.WriteDemo(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, p := range []string{"run1/events.txt", "run2/streams.csv", "README.txt", "_errors.txt"} {
		if src.Root.Walk(p) == nil {
			t.Errorf("%s missing from the folder mount", p)
		}
	}
}

func TestCorpusSourcesAreDetected(t *testing.T) {
	root := testdata.Corpus(t)
	for _, tc := range []struct{ path, format string }{
		{"ovni/v1-basic-mix/ovni", "ovni"},
		{"ovni/v1-two-procs/ovni", "ovni"},
	} {
		f, _, err := Detect(filepath.Join(root, tc.path))
		if err != nil || f.Name != tc.format {
			t.Errorf("Detect(%s) = %q, %v; want %s", tc.path, f.Name, err, tc.format)
		}
	}
}
