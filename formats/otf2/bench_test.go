package otf2

import (
	"io"
	"testing"

	gen "github.com/hpcfs/hpcfs/testdata/gen/otf2"
)

// BenchmarkEventsTxt renders events.txt of 4 x 200,000 generated events
// through the view (sizing, then sequential 128 KiB reads).
func BenchmarkEventsTxt(b *testing.B) {
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
		f, err := src.FS().Open("events.txt")
		if err != nil {
			b.Fatal(err)
		}
		info, _ := f.Stat()
		b.SetBytes(info.Size())
		r := f.(io.ReaderAt)
		for off := int64(0); off < info.Size(); off += int64(len(buf)) {
			r.ReadAt(buf, off)
		}
		src.Close()
	}
}

// BenchmarkEventsCSV renders every location's events.csv of 4 x 200,000
// generated events.
func BenchmarkEventsCSV(b *testing.B) {
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
		for _, l := range []string{"0", "1", "2", "3"} {
			f, err := src.FS().Open("locations/" + l + "/events.csv")
			if err != nil {
				b.Fatal(err)
			}
			info, _ := f.Stat()
			b.SetBytes(info.Size())
			r := f.(io.ReaderAt)
			for off := int64(0); off < info.Size(); off += int64(len(buf)) {
				r.ReadAt(buf, off)
			}
		}
		src.Close()
	}
}
