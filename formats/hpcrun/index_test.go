package hpcrun_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

// A second mount reads the big views' sizes and checkpoints from the
// on-disk index; reads anywhere give the same bytes as the first mount.
func TestIndexedSecondMount(t *testing.T) {
	index := t.TempDir()
	dir := t.TempDir()
	p := gen.Random(gen.Options{Seed: 8, Layout: dec.LayoutC, Epochs: 2, Nodes: 20000, Metrics: 3, Lush: true})
	writeFile(t, filepath.Join(dir, "p.hpcrun"), p)
	tf, _ := os.Create(filepath.Join(dir, "p.hpctrace"))
	gen.WriteTrace(tf, "01.01", 0, gen.TraceSamples(p.Epochs[1].Tree, 20000, 5, 3))
	tf.Close()
	views := []string{"cct.csv", "cct.txt", "hpcproftt.txt", "trace.csv", "trace.txt"}
	want := map[string][]byte{}
	for round := 0; round < 2; round++ {
		src := open(t, filepath.Join(dir, "p.hpcrun"))
		src.Options.IndexDir = index
		fsys := src.FS()
		for _, v := range views {
			name := "p/" + v
			if round == 0 {
				want[v] = testdata.ReadFS(t, fsys, name)
				continue
			}
			f, err := fsys.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			// The tail first: the checkpoints come from the index.
			w := want[v]
			buf := make([]byte, 3000)
			n, _ := f.(io.ReaderAt).ReadAt(buf, int64(len(w)-3000))
			if string(buf[:n]) != string(w[len(w)-3000:]) {
				t.Fatalf("tail of %s differs on the second mount", v)
			}
			f.Close()
			if got := testdata.ReadFS(t, fsys, name); string(got) != string(w) {
				t.Fatalf("%s differs on the second mount", v)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(index, "*.idx")); len(files) != len(views) {
			t.Fatalf("round %d: %d index files, want %d", round, len(files), len(views))
		}
	}
}
