package ovni

import (
	"io"
	"testing"

	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// BenchmarkEventsTxt renders the merged events.txt of 4 x 250,000 events
// through the view, as sequential 128 KiB reads (what the kernel sends).
func BenchmarkEventsTxt(b *testing.B) {
	dir, _, err := gen.WriteLarge(b.TempDir(), 4, 250_000)
	if err != nil {
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
		r := f.(io.ReaderAt)
		info, _ := f.Stat()
		b.SetBytes(info.Size())
		for off := int64(0); off < info.Size(); off += int64(len(buf)) {
			r.ReadAt(buf, off)
		}
	}
}

// BenchmarkEventsTxtSized reads an already sized events.txt, so it
// measures rendering alone (prefetching included).
func BenchmarkEventsTxtSized(b *testing.B) {
	dir, _, err := gen.WriteLarge(b.TempDir(), 4, 250_000)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 128<<10)
	for b.Loop() {
		b.StopTimer()
		src, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		f, _ := src.FS().Open("events.txt")
		info, _ := f.Stat()
		b.SetBytes(info.Size())
		r := f.(io.ReaderAt)
		b.StartTimer()
		for off := int64(0); off < info.Size(); off += int64(len(buf)) {
			r.ReadAt(buf, off)
		}
	}
}

// BenchmarkEventsTxtV3Sized is BenchmarkEventsTxtSized for a spec v3
// trace (ovnidump -x lines).
func BenchmarkEventsTxtV3Sized(b *testing.B) {
	dir, _, err := gen.WriteLargeAs(b.TempDir(), gen.LayoutV3, 4, 250_000)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 128<<10)
	for b.Loop() {
		b.StopTimer()
		src, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		f, _ := src.FS().Open("events.txt")
		info, _ := f.Stat()
		b.SetBytes(info.Size())
		r := f.(io.ReaderAt)
		b.StartTimer()
		for off := int64(0); off < info.Size(); off += int64(len(buf)) {
			r.ReadAt(buf, off)
		}
	}
}
