package ovni

import (
	"io/fs"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// BenchmarkEventsTxt renders the merged events.txt of 4 x 250,000 events
// through the view, as sequential 128 KiB reads (what the kernel sends).
func BenchmarkEventsTxt(b *testing.B) {
	dir, _, err := gen.WriteLarge(b.TempDir(), 4, 250_000)
	if err != nil {
		b.Fatal(err)
	}
	benchEventsTxt(b, dir, false)
}

// BenchmarkEventsTxtSized reads an already sized events.txt, so it
// measures rendering alone (prefetching included).
func BenchmarkEventsTxtSized(b *testing.B) {
	dir, _, err := gen.WriteLarge(b.TempDir(), 4, 250_000)
	if err != nil {
		b.Fatal(err)
	}
	benchEventsTxt(b, dir, true)
}

// BenchmarkEventsTxtV3Sized is BenchmarkEventsTxtSized for a spec v3
// trace (ovnidump -x lines).
func BenchmarkEventsTxtV3Sized(b *testing.B) {
	dir, _, err := gen.WriteLargeAs(b.TempDir(), gen.LayoutV3, 4, 250_000)
	if err != nil {
		b.Fatal(err)
	}
	benchEventsTxt(b, dir, true)
}

// benchEventsTxt reads events.txt of a fresh open of dir in each round;
// sized, the open and the sizing stat are left out of the time.
func benchEventsTxt(b *testing.B, dir string, sized bool) {
	for b.Loop() {
		if sized {
			b.StopTimer()
		}
		src, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		if sized {
			if _, err := fs.Stat(src.FS(), "events.txt"); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		b.SetBytes(testdata.ReadViews(b, src.FS(), "events.txt"))
	}
}
