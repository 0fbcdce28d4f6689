package hpcrun_test

import (
	"io/fs"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

// readAll reads every file of a source's tree but raw/ and returns how
// many bytes the reads allocated.
func readAll(t *testing.T, src *vfs.Source) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := fs.WalkDir(src.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p == "raw" {
			return fs.SkipDir
		}
		if !d.IsDir() {
			if _, err := d.Info(); err != nil {
				return err
			}
			_, err = fs.ReadFile(src.FS(), p)
			if err != nil && !strings.HasPrefix(path.Base(p), "trace") {
				t.Logf("%s: %v", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A tree whose parent links are broken (a cycle, a parent after its child,
// a parent id no node has) is cut at the first broken node in every view:
// cct.csv and flame/ keep the nodes before it, each view's problem is one
// line of _errors.txt, and the work stays proportional to the input.
func TestBrokenParents(t *testing.T) {
	metrics := gen.Metrics(1, dec.LayoutC)
	cases := map[string]func([]dec.Node) []dec.Node{
		// node 40 names node 45 as parent, and 45 (through 41..44) leads back to 40
		"cycle": func(n []dec.Node) []dec.Node { n[40].Parent = 45; return n },
		// node 40's parent comes after it
		"after": func(n []dec.Node) []dec.Node { n[40].Parent = 48; return n },
		"self":  func(n []dec.Node) []dec.Node { n[40].Parent = 41; return n },
		// no node has the id
		"missing": func(n []dec.Node) []dec.Node { n[40].Parent = 1 << 25; return n },
	}
	dir := t.TempDir()
	for name, mutate := range cases {
		nodes := mutate(chain(50))
		writeFile(t, filepath.Join(dir, name+".hpcrun"), profileOf(nodes, metrics))
	}
	src := open(t, dir)
	if alloc := readAll(t, src); alloc > 64<<20 {
		t.Errorf("reading every view allocated %d MB", alloc>>20)
	}
	lines := src.Errors.Lines()
	for name := range cases {
		t.Run(name, func(t *testing.T) {
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), name+"/cct.csv"))
			if len(rows) != 41 {
				t.Errorf("cct.csv has %d nodes, want the 40 before the broken one", len(rows)-1)
			}
			for _, view := range []string{"cct.csv", "flame"} {
				n := 0
				for _, l := range lines {
					if strings.HasPrefix(l, name+"/"+view+": ") && strings.Contains(l, "parent id not found among the nodes before") {
						n++
					}
				}
				if n != 1 {
					t.Errorf("_errors.txt has %d lines for %s/%s, want 1:\n%s", n, name, view, strings.Join(lines, "\n"))
				}
			}
			folded := string(testdata.ReadFS(t, src.FS(), name+"/flame/"+firstFolded(t, src, name)))
			if got := strings.Count(folded, "\n"); got != 40 {
				t.Errorf("flame has %d stacks, want the 40 nodes before the broken one", got)
			}
		})
	}
}

func firstFolded(t *testing.T, src *vfs.Source, name string) string {
	ents, err := fs.ReadDir(src.FS(), name+"/flame")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".folded") {
			return e.Name()
		}
	}
	t.Fatal("no folded file")
	return ""
}

// The corpus mutant whose one damaged byte makes a parent id no node has
// (issue 27.2: `ls -l flame/` did not finish and passed 2.8 GB): every
// view reads, allocating little, and the damage is reported.
func TestCorpusDamagedParent(t *testing.T) {
	p := testdata.Corpus(t, "damage", "hpcrun-flipped-byte-memory", "a.hpcrun")
	src := open(t, p)
	if alloc := readAll(t, src); alloc > 64<<20 {
		t.Errorf("reading every view allocated %d MB", alloc>>20)
	}
	found := false
	for _, l := range src.Errors.Lines() {
		found = found || strings.HasPrefix(l, "a/flame: ") && strings.Contains(l, "parent id not found")
	}
	if !found {
		t.Errorf("_errors.txt does not report the broken parent in flame/: %q", src.Errors.Lines())
	}
}
