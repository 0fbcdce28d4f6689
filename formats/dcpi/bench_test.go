package dcpi

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
)

// benchProfile writes a synthetic profile of DCPI_BENCH_ADDRESSES sampled
// addresses (default 1,000,000) and opens it as a profile of a source.
func benchProfile(b *testing.B) *profile {
	b.Helper()
	n := 1_000_000
	if s := os.Getenv("DCPI_BENCH_ADDRESSES"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	path := filepath.Join(b.TempDir(), "bench.prof")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := (gen.Synthetic{Seed: 1, Addresses: n, MaxChunk: 64, Zeros: 0.2, MaxGap: 16}).WriteTo(f); err != nil {
		b.Fatal(err)
	}
	f.Close()
	df, err := dcpi.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	df.Close()
	files := &openFiles{}
	b.Cleanup(func() { files.Close() })
	return &profile{rel: "bench.prof", path: path, hdr: df.Header, size: df.Size, dir: "bench.prof", errs: vfs.NewSource("dcpi", "", path).Errors, files: files}
}

// view makes p's view called name afresh (nothing sized or cached).
func view(p *profile, name string) render.View {
	p.viewDir = vfs.NewDir()
	addViews(p)
	return p.viewDir.Lookup(name).(*vfs.File).View
}

// measure sizes a fresh view (counting, not rendering); with read it then
// reads it whole. It returns the size.
func measure(b *testing.B, p *profile, name string, read bool) int64 {
	v := view(p, name)
	size, err := v.Size()
	if err != nil {
		b.Fatal(err)
	}
	if read {
		buf := make([]byte, 1<<20)
		for off := int64(0); off < size; off += int64(len(buf)) {
			if _, err := v.ReadAt(buf, off); err != nil && err != io.EOF {
				b.Fatal(err)
			}
		}
	}
	return size
}

func BenchmarkViews(b *testing.B) {
	p := benchProfile(b)
	p.summary()
	for _, v := range []struct {
		name string
		read bool
	}{
		{"samples.csv", true},
		{"samples.csv", false},
		{"samples.txt", true},
		{"top.csv", true},
	} {
		what := "/size"
		if v.read {
			what = "/size+read"
		}
		b.Run(v.name+what, func(b *testing.B) {
			size := measure(b, p, v.name, v.read)
			b.SetBytes(size)
			for b.Loop() {
				measure(b, p, v.name, v.read)
			}
		})
	}
}

// BenchmarkTopFirstStat is the first stat of top.csv on a fresh mount:
// planning, sorting every band and measuring.
func BenchmarkTopFirstStat(b *testing.B) {
	p := benchProfile(b)
	p.summary()
	var size int64
	for b.Loop() {
		fresh := &profile{rel: p.rel, path: p.path, hdr: p.hdr, size: p.size, dir: p.dir, errs: p.errs, files: p.files}
		fresh.summary()
		size = measure(b, fresh, "top.csv", false)
	}
	b.SetBytes(size)
}
