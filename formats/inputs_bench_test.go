package formats

import (
	"io"
	"testing"

	"github.com/hpcfs/hpcfs/formats/ovni"
	"github.com/hpcfs/hpcfs/internal/vfs"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// BenchmarkWatchedRead reads a sized events.txt in 128 KiB reads (what the
// kernel sends) with and without the check of the inputs after each read.
func BenchmarkWatchedRead(b *testing.B) {
	dir, _, err := gen.WriteLarge(b.TempDir(), 4, 250_000)
	if err != nil {
		b.Fatal(err)
	}
	for _, watched := range []bool{false, true} {
		name := "unwatched"
		if watched {
			name = "watched"
		}
		b.Run(name, func(b *testing.B) {
			var src *vfs.Source
			if watched {
				src, err = Open(dir)
			} else {
				src, err = ovni.Format.Open(dir)
			}
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			f, err := src.FS().Open("events.txt")
			if err != nil {
				b.Fatal(err)
			}
			r := f.(io.ReaderAt)
			info, _ := f.Stat()
			buf := make([]byte, 128<<10)
			b.SetBytes(info.Size())
			for b.Loop() {
				for off := int64(0); off < info.Size(); off += int64(len(buf)) {
					if _, err := r.ReadAt(buf, off); err != nil && err != io.EOF {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
