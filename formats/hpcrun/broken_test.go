package hpcrun_test

import (
	"io/fs"
	"os"
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
			for _, view := range []string{"cct.csv", "profile.pb.gz"} {
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
		found = found || strings.HasPrefix(l, "a/profile.pb.gz: ") && strings.Contains(l, "parent id not found")
	}
	if !found {
		t.Errorf("_errors.txt does not report the broken parent under profile.pb.gz: %q", src.Errors.Lines())
	}
}

// TestTraceUnknownNode: a trace sample naming a calling context the
// profile's tree does not hold (a flipped id byte: the fault run's silent
// damage) keeps its row, with the frame left empty (trace.csv) or "?"
// (trace.txt), and is reported once in _errors.txt at the id's byte.
func TestTraceUnknownNode(t *testing.T) {
	dir := t.TempDir()
	p := gen.Random(gen.Options{Seed: 5, Layout: dec.LayoutC, Nodes: 40, Metrics: 1, LoadMods: 2})
	name := "app-000000-000-7f0101-1-0"
	writeFile(t, filepath.Join(dir, name+".hpcrun"), p)
	samples := gen.TraceSamples(p.Epochs[0].Tree, 20, 1000, 7)
	samples[5].NodeID, samples[9].NodeID = 1<<30+1, 1<<30+3 // two damaged samples: one line
	tf, err := os.Create(filepath.Join(dir, name+".hpctrace"))
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.WriteTrace(tf, "01.01", 0, samples); err != nil {
		t.Fatal(err)
	}
	tf.Close()
	src := open(t, dir)
	rows := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), name+"/trace.csv"))
	if len(rows) != 21 || rows[6][2] != "1073741825" || rows[6][3] != "" || rows[5][3] == "" {
		t.Fatalf("trace.csv rows 5-6: %q, %q of %d", rows[5], rows[6], len(rows))
	}
	txt := strings.Split(string(testdata.ReadFS(t, src.FS(), name+"/trace.txt")), "\n")
	if !strings.HasSuffix(txt[5], "  ?") || strings.HasSuffix(txt[4], "  ?") {
		t.Errorf("trace.txt lines of samples 4 and 5 (damaged): %q, %q", txt[4], txt[5])
	}
	var lines []string // the others say the binaries are not on this machine
	for _, l := range src.Errors.Lines() {
		if strings.Contains(l, "calling context") {
			lines = append(lines, l)
		}
	}
	// one line per view, under its path (its binding); header 32 bytes
	// (01.01: 24 + flags), 12-byte records, id at +8
	want := "trace at byte 100 (0x64): sample 5 names a calling context that is not in the profile's tree"
	if len(lines) != 2 || !strings.HasPrefix(lines[0], name+"/trace.csv: ") || !strings.HasPrefix(lines[1], name+"/trace.txt: ") ||
		!strings.Contains(lines[0], want) || !strings.Contains(lines[1], want) {
		t.Errorf("_errors.txt = %q, want a line with %q for trace.csv and one for trace.txt", lines, want)
	}
}
