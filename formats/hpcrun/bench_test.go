package hpcrun

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

var benchFile struct {
	once sync.Once
	dir  string
	path string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if benchFile.dir != "" {
		os.RemoveAll(benchFile.dir)
	}
	os.Exit(code)
}

// benchProfile is a profile of 200,000 nodes and 4 metrics, shared by the
// benchmarks of one run, or the file $HPCRUN_BENCH_FILE.
func benchProfile(b testing.TB) *profile {
	benchFile.once.Do(func() {
		if path := os.Getenv("HPCRUN_BENCH_FILE"); path != "" {
			benchFile.path = path // e.g. from testdata/cmd/genhpcrun
			return
		}
		dir, err := os.MkdirTemp("", "hpcrun-bench-")
		if err != nil {
			b.Fatal(err)
		}
		benchFile.dir, benchFile.path = dir, filepath.Join(dir, "big.hpcrun")
		f, err := os.Create(benchFile.path)
		if err != nil {
			b.Fatal(err)
		}
		p := gen.Random(gen.Options{Seed: 1, Layout: dec.LayoutC, Epochs: 1, Nodes: 200000, Metrics: 4, LoadMods: 8, Program: "app"})
		if err := gen.Write(f, p); err != nil {
			b.Fatal(err)
		}
		f.Close()
	})
	m := &mount{src: vfs.NewSource("hpcrun", "02.00", benchFile.path), symErr: func(error) {}}
	p := &profile{m: m, name: "big", file: "big.hpcrun", path: benchFile.path}
	m.profiles = []*profile{p}
	b.Cleanup(func() { m.Close() })
	return p
}

// drain renders a whole view with one cursor, on one goroutine.
func drain(b *testing.B, start func(any) (render.Cursor, error)) int64 {
	c, err := start(nil)
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	var n int64
	for {
		buf, err = c.Next(buf[:0])
		n += int64(len(buf))
		if err == io.EOF {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func benchCursor(b *testing.B, start func(*profile) func(any) (render.Cursor, error)) {
	p := benchProfile(b)
	if _, err := p.analysis(); err != nil {
		b.Fatal(err)
	}
	n := drain(b, start(p))
	b.SetBytes(n)
	b.ResetTimer()
	for range b.N {
		drain(b, start(p))
	}
}

// BenchmarkCCTCSV renders cct.csv whole (render.Table, sized by counting
// then read), as a mount's first read does.
func BenchmarkCCTCSV(b *testing.B) {
	p := benchProfile(b)
	if _, err := p.analysis(); err != nil {
		b.Fatal(err)
	}
	var n int64
	for range b.N {
		v := p.cctTable().CSV()
		size, err := v.Size()
		if err != nil {
			b.Fatal(err)
		}
		r, err := render.NewReader(v, 0)
		if err != nil {
			b.Fatal(err)
		}
		if k, err := io.Copy(io.Discard, r); err != nil || k != size {
			b.Fatalf("read %d of %d: %v", k, size, err)
		}
		n = size
	}
	b.SetBytes(n)
}

func BenchmarkCCTTxt(b *testing.B) {
	benchCursor(b, func(p *profile) func(any) (render.Cursor, error) { return p.startCCTTxt })
}

func BenchmarkAnalyze(b *testing.B) {
	p := benchProfile(b)
	f, err := p.open()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := analyze(f); err != nil {
			b.Fatal(err)
		}
	}
}
