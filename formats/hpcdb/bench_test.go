package hpcdb_test

import (
	"io/fs"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

// BenchmarkTraceViews sizes and reads every traces/ view of the corpus's
// largest trace (hpcviewer-issue-233: 135 lines, 106k samples), from a
// fresh source each time.
func BenchmarkTraceViews(b *testing.B) {
	dir := testdata.Corpus(b, "hpctoolkit-metadb", "hpcviewer-issue-233")
	var n int64
	for b.Loop() {
		src, err := hpcdb.OpenMeta(dir)
		if err != nil {
			b.Fatal(err)
		}
		ents, err := fs.ReadDir(src.FS(), "traces")
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for _, e := range ents {
			data, err := fs.ReadFile(src.FS(), "traces/"+e.Name())
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(data))
		}
		src.Close()
	}
	b.SetBytes(n)
}
