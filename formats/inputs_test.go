package formats

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
)

// TestSiblingInputChanged: a source named by one file reads files beside
// it (an hpcrun profile's .hpctrace, an OTF2 anchor's event files). Each
// is an input of the source: rewritten in place with its modification
// time set back, it makes the views that read it fail with
// render.ErrChanged and gives one _errors.txt line naming it.
func TestSiblingInputChanged(t *testing.T) {
	for _, c := range []struct {
		name         string
		files        []string // copied from the corpus case, relative to it
		open, change string   // the source's file, the sibling changed
		view         string
	}{
		{"hpcrun", []string{"testmeas-small-000000-000-11ac0300-5560-0.hpcrun", "testmeas-small-000000-000-11ac0300-5560-0.hpctrace"},
			"testmeas-small-000000-000-11ac0300-5560-0.hpcrun", "testmeas-small-000000-000-11ac0300-5560-0.hpctrace", "trace.json"},
		{"otf2", []string{"traces.otf2", "traces.def", "traces/0.evt", "traces/1.evt", "traces/1.def", "traces/2.evt", "traces/2.def", "traces/3.evt", "traces/3.def"},
			"traces.otf2", "traces/1.evt", "events.txt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			from := map[string]string{"hpcrun": "hpctoolkit/hpcrun-04.00-small", "otf2": "otf2/gen-mpi-rma"}[c.name]
			src := testdata.Corpus(t, from)
			dir := t.TempDir()
			for _, f := range c.files {
				b, err := os.ReadFile(filepath.Join(src, f))
				if err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := Open(filepath.Join(dir, c.open))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			fsys := s.FS()
			before := testdata.ReadFS(t, fsys, c.view)
			rewriteKeepTimes(t, filepath.Join(dir, c.change))
			if b, err := fs.ReadFile(fsys, c.view); !errors.Is(err, render.ErrChanged) {
				t.Fatalf("%s after %s was rewritten: %d bytes (%d before), %v; want %v", c.view, c.change, len(b), len(before), err, render.ErrChanged)
			}
			errs := string(testdata.ReadFS(t, fsys, "_errors.txt"))
			if want := c.change + ": changed under the mount"; strings.Count(errs, want) != 1 {
				t.Errorf("_errors.txt does not name %s once:\n%s", c.change, errs)
			}
		})
	}
}

// rewriteKeepTimes writes p's bytes back in place, with its modification
// time set back: only the change time tells. The change time moves in
// steps of the kernel's clock tick: it writes until it has moved.
func rewriteKeepTimes(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ctime := func() syscall.Timespec {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ctim
	}
	for was := ctime(); ctime() == was; {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCorpusIndexReused opens every corpus case twice with one index
// folder and sizes every file: the second open finds every index the
// first wrote under the same key and measures nothing again (no index
// file written, none added).
func TestCorpusIndexReused(t *testing.T) {
	cases, _ := filepath.Glob(filepath.Join(testdata.Corpus(t), "*", "*"))
	for _, c := range cases {
		rel, _ := filepath.Rel(testdata.CorpusDir(), c)
		if fi, err := os.Stat(c); err != nil || !fi.IsDir() || strings.HasPrefix(rel, "damage") {
			continue
		}
		t.Run(rel, func(t *testing.T) {
			index := t.TempDir()
			sizeAll := func() map[string]os.FileInfo {
				s, err := Open(c)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				s.Options.IndexDir = index
				fsys := s.FS()
				fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() {
						if _, err := fs.Stat(fsys, p); err != nil {
							t.Errorf("stat %s: %v", p, err)
						}
					}
					return nil
				})
				if lines := s.Errors.Lines(); strings.Contains(strings.Join(lines, "\n"), "bad on-disk index") {
					t.Errorf("_errors.txt: %q", lines)
				}
				out := map[string]os.FileInfo{}
				des, _ := os.ReadDir(index)
				for _, de := range des {
					if fi, err := de.Info(); err == nil {
						out[de.Name()] = fi
					}
				}
				return out
			}
			first := sizeAll()
			second := sizeAll()
			for name, fi := range second {
				was, ok := first[name]
				switch {
				case !ok:
					t.Errorf("second open wrote a new index %s: a key changed", name)
				case !os.SameFile(was, fi) || !was.ModTime().Equal(fi.ModTime()):
					t.Errorf("second open rewrote index %s: measured again", name)
				}
			}
			t.Logf("%d indexes reused", len(first))
		})
	}
}
