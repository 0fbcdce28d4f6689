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

// renderAll renders a view from its start with Next (or measures it with
// NextLen) and returns its size.
func renderAll(b *testing.B, gen render.Generator, measure bool) int64 {
	c, err := gen.Start(nil)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	var buf []byte
	for {
		if l, ok := c.(render.Lengther); ok && measure {
			k, err := l.NextLen()
			n += k
			if err == io.EOF {
				return n
			}
			continue
		}
		buf, err = c.Next(buf[:0])
		n += int64(len(buf))
		if err == io.EOF {
			return n
		}
	}
}

func BenchmarkViews(b *testing.B) {
	p := benchProfile(b)
	p.summary()
	for _, v := range []struct {
		name    string
		gen     render.Generator
		measure bool
	}{
		{"samples.csv/Next", &samplesGen{p: p}, false},
		{"samples.csv/NextLen", &samplesGen{p: p}, true},
		{"samples.txt/Next", &samplesGen{p: p, txt: true}, false},
		{"top.csv/Next", &topGen{p: p}, false},
	} {
		b.Run(v.name, func(b *testing.B) {
			size := renderAll(b, v.gen, v.measure)
			b.SetBytes(size)
			for b.Loop() {
				renderAll(b, v.gen, v.measure)
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
		size = renderAll(b, &topGen{p: fresh}, true)
	}
	b.SetBytes(size)
}
