package otf2

import (
	"io"
	"testing"

	gen "github.com/hpcfs/hpcfs/testdata/gen/otf2"
)

// benchViews reads views of a fresh mount of 4 x 200,000 generated events
// through the view, as sequential 128 KiB reads (sizing included).
func benchViews(b *testing.B, views ...string) {
	dir := b.TempDir()
	if _, err := gen.Random(1, 4, 200_000).Write(dir); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 128<<10)
	for b.Loop() {
		src, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		var total int64
		for _, v := range views {
			f, err := src.FS().Open(v)
			if err != nil {
				b.Fatal(err)
			}
			info, _ := f.Stat()
			total += info.Size()
			r := f.(io.ReaderAt)
			for off := int64(0); off < info.Size(); off += int64(len(buf)) {
				r.ReadAt(buf, off)
			}
		}
		b.SetBytes(total)
		src.Close()
	}
}

// BenchmarkEventsTxt renders the merged events.txt.
func BenchmarkEventsTxt(b *testing.B) { benchViews(b, "events.txt") }

// BenchmarkEventsCSV renders every location's events.csv.
func BenchmarkEventsCSV(b *testing.B) {
	benchViews(b, "locations/0/events.csv", "locations/1/events.csv", "locations/2/events.csv", "locations/3/events.csv")
}
