package hpcdb

import (
	"runtime"
	"strconv"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// modelBytesPerContext bounds the heap the model of a database keeps per
// context, summary-value index included, for both generations. The
// per-context tables add up to 60 bytes: parent, depth, frame, sibling,
// procedure, file, module, line and rows (4 bytes each), the tag (4),
// the address (8), the summary index (8) and contexts/' listing order
// (4); each procedure frame adds 32 (its context, the four frame-path
// lengths and its link), 14 a context with the generator's share of
// frames. The bound leaves about 35 bytes for the tables of procedures,
// files and modules, the decoded metadata and measurement noise
// (measured: 80 bytes for 4.0, 86 for meta.db). Holding the tree's nodes
// (80 bytes) or the summary values (64 bytes with 8 visible columns)
// again fails it; the model that did both took 240 bytes and more.
const modelBytesPerContext = 110

// TestModelMemoryPerContext pins the model's memory per context: the live
// heap after the model of a generated database with 100,000 contexts is
// built and its summary values are indexed, over the number of contexts.
// Neither the number of profiles nor of samples may show in it.
func TestModelMemoryPerContext(t *testing.T) {
	const n = 100000
	for _, meta := range []bool{false, true} {
		t.Run("meta="+strconv.FormatBool(meta), func(t *testing.T) {
			dir := t.TempDir()
			c := gen.Config{Threads: 2, Contexts: n, Metrics: 4, Density: 0.5, Samples: 10, Seed: 7}
			var err error
			if meta {
				_, err = gen.WriteMeta(dir, c)
			} else {
				_, err = gen.Write(dir, c)
			}
			if err != nil {
				t.Fatal(err)
			}
			before := testdata.LiveHeap()
			d, err := openDB(dir, meta)
			if err != nil {
				t.Fatal(err)
			}
			defer d.src.Close()
			m := d.model.get()
			m.summaryIndex(d)
			d.warmContexts() // what model.get starts in the background: wait for it

			after := testdata.LiveHeap()
			runtime.KeepAlive(d)
			per := float64(int64(after)-int64(before)) / n
			t.Logf("%.1f bytes per context (%d visible columns)", per, len(m.visible))
			if per > modelBytesPerContext {
				t.Errorf("the model keeps %.1f bytes per context, more than %d", per, modelBytesPerContext)
			}
		})
	}
}
