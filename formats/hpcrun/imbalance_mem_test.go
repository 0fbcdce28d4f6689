package hpcrun

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
)

// TestImbalanceMemory pins imbalance.csv's memory to imbalanceBudget:
// four generated profiles of 100,000 nodes and 4 metrics each, every one
// its own tree (about 400,000 distinct contexts, more than fit), add at
// most the budget to the live heap once their analyses are built, and
// the contexts left out are said in _errors.txt.
func TestImbalanceMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 4 profiles of 100,000 nodes")
	}
	const profiles, nodes = 4, 100000
	dir := t.TempDir()
	m := &mount{}
	m.src = vfs.NewSource("hpcrun", "", dir)
	t.Cleanup(func() { m.src.Close() })
	for i := range profiles {
		name := fmt.Sprintf("app-%06d-000-7f0101-42-0", i)
		path := filepath.Join(dir, name+profileExt)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		err = gen.Write(f, gen.Random(gen.Options{Seed: int64(100 * i), Layout: dec.LayoutC, Nodes: nodes, Metrics: 4, LoadMods: 8, Rank: i}))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		p := &profile{m: m, name: name, file: name + profileExt, path: path}
		m.profiles = append(m.profiles, p)
		t.Cleanup(p.close)
	}
	for _, p := range m.profiles { // the profiles' own state, kept for their other views
		if _, err := p.analysis(); err != nil {
			t.Fatal(err)
		}
	}
	before := testdata.LiveHeap()
	im := m.imbalance()
	after := testdata.LiveHeap()
	runtime.KeepAlive(m)
	if im.err != nil {
		t.Fatal(im.err)
	}
	grew := int64(after) - int64(before)
	n := len(im.parent)
	t.Logf("%d merged contexts, %d rows: %.1f MB, %.0f bytes per context", n, len(im.rows), float64(grew)/(1<<20), float64(grew)/float64(n))
	if grew > imbalanceBudget {
		t.Errorf("imbalance.csv keeps %.1f MB, more than its %d MB budget", float64(grew)/(1<<20), imbalanceBudget>>20)
	}
	if n < imbalanceBudget/400 || n >= profiles*nodes {
		t.Errorf("%d merged contexts: want the budget's share of %d", n, profiles*nodes)
	}
	// the view reports what the merge left out through its binding
	m.src.Root.AddFile("imbalance.csv", m.imbalanceTable().CSV())
	if _, err := m.src.FS().Stat("imbalance.csv"); err != nil {
		t.Fatal(err)
	}
	errs := string(testdata.ReadFS(t, m.src.FS(), "_errors.txt"))
	if !strings.Contains(errs, fmt.Sprintf("imbalance.csv: more than %d distinct calling contexts", n)) {
		t.Errorf("_errors.txt does not say the contexts left out:\n%s", errs)
	}
}
