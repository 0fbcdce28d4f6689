package formats

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hpcrundec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/testdata"
	callgrindgen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
	hpcrungen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	webgrindgen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

// TestNamesFromDataNeverHide: names from data that equal hpcfs's own names,
// or ids that are numerically equal, get distinct names, each listed in
// _errors.txt, and hpcfs's own files stay what they are.
func TestNamesFromDataNeverHide(t *testing.T) {
	var hpcrun bytes.Buffer
	hpcrungen.Write(&hpcrun, hpcrungen.Random(hpcrungen.Options{Seed: 3, Layout: hpcrundec.LayoutC, Nodes: 50, Metrics: 1}))
	var webgrind bytes.Buffer
	webgrindgen.Random(4, 50, 5).Write(&webgrind, 7)
	callgrind := callgrindgen.Bytes(callgrindgen.Config{Seed: 2, Records: 20})

	for name, c := range map[string]struct {
		files map[string][]byte
		setup func(t *testing.T, dir string)
		want  []string // entries that must exist, "/" ending a directory
	}{
		"hpcrun": {
			files: map[string][]byte{"raw.hpcrun": hpcrun.Bytes(), "README.txt.hpcrun": hpcrun.Bytes(), "profiles.csv.hpcrun": hpcrun.Bytes(), "app.hpcrun": hpcrun.Bytes()},
			want:  []string{"raw/raw.hpcrun", "README.txt", "profiles.csv", "raw~2/", "README~2.txt/", "profiles~2.csv/", "app/"},
		},
		"webgrind": {
			files: map[string][]byte{"files.csv": webgrind.Bytes(), "a.webgrind": webgrind.Bytes()},
			want:  []string{"files.csv", "files~2.csv/", "a.webgrind/", "raw/files.csv"},
		},
		"callgrind": {
			files: map[string][]byte{"callgrind.out.1": callgrind, "README.txt": callgrind},
			want:  []string{"README.txt", "README~2.txt/", "callgrind.out.1/"},
		},
		"folder": {
			files: map[string][]byte{"raw/callgrind.out.1": callgrind, "_errors.txt": hpcrun.Bytes(), "x/callgrind.out.2": callgrind},
			want:  []string{"raw/", "raw~2/callgrind.out.1/", "_errors~2.txt/", "x/callgrind.out.2/"},
		},
		"ovni": {
			setup: func(t *testing.T, dir string) {
				trace, err := ovnigen.WriteDemo(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				testdata.CopyDir(t, trace, dir)
				testdata.CopyDir(t, filepath.Join(dir, "loom.demo", "proc.4100"), filepath.Join(dir, "loom.demo", "proc.04100"))
			},
			want: []string{"loom.demo/proc.4100/thread.4101/", "loom.demo/proc.04100/thread.4101/", "loom.demo/proc.4200/"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for n, b := range c.files {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
				os.WriteFile(filepath.Join(dir, n), b, 0o644)
			}
			if c.setup != nil {
				c.setup(t, dir)
			}
			src := testdata.Open(t, Open, dir)
			fsys := src.FS()
			for _, w := range c.want {
				fi, err := fs.Stat(fsys, strings.TrimSuffix(w, "/"))
				if err != nil || fi.IsDir() != strings.HasSuffix(w, "/") {
					names, _ := fs.Glob(fsys, "*")
					t.Errorf("%s: %v (root: %q)", w, err, names)
				}
			}
			if readme, err := fs.ReadFile(fsys, "README.txt"); err != nil || !strings.HasPrefix(string(readme), "hpcfs") && !strings.Contains(string(readme), "hpcfs") {
				t.Errorf("README.txt is not hpcfs's: %.80q %v", readme, err)
			}
			renamed := 0
			for _, w := range c.want {
				if strings.Contains(w, "~2") || strings.Contains(w, "proc.04100") {
					renamed++
				}
			}
			errs := strings.Join(src.Errors.Lines(), "\n")
			if got := strings.Count(errs, "renamed") + strings.Count(errs, "mounted as"); got != renamed {
				t.Errorf("%d renames listed in _errors.txt, want %d:\n%s", got, renamed, errs)
			}
		})
	}
}
