package symbols

import (
	"os"
	"runtime"
	"testing"

	"github.com/hpcfs/hpcfs/testdata/addr2line"
	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

// benchAddrs are 200,000 addresses spread over the .text of the C++
// program (which addresses mostly hit inlined code).
func benchAddrs(b *testing.B) (program.Binary, []uint64) {
	bin := compile(b, program.CXX)
	lo, hi, err := program.Text(bin.Path)
	if err != nil {
		b.Fatal(err)
	}
	addrs := make([]uint64, 200000)
	for i := range addrs {
		addrs[i] = lo + uint64(i*7919)%(hi-lo)
	}
	return bin, addrs
}

// BenchmarkLookup200k times 200,000 lookups in a built table.
func BenchmarkLookup200k(b *testing.B) {
	bin, addrs := benchAddrs(b)
	lookups(b, NewResolver(nil, nil).Module(bin.Path), addrs)
}

// lookups times looking up addrs in m, its table built first.
func lookups(b *testing.B, m *Module, addrs []uint64) {
	if err := m.Err(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		for _, a := range addrs {
			m.Lookup(a)
		}
	}
}

// BenchmarkLookup200kSpilled times 200,000 lookups in the same table
// spilled to the on-disk index (read back with pread).
func BenchmarkLookup200kSpilled(b *testing.B) {
	bin, addrs := benchAddrs(b)
	lookups(b, spillResolver(b.TempDir()).Module(bin.Path), addrs)
}

// BenchmarkAddr2line200k times addr2line -f -i -C on the same 200,000
// addresses (one process, addresses on its standard input).
func BenchmarkAddr2line200k(b *testing.B) {
	bin, addrs := benchAddrs(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := addr2line.Lookup(bin.Path, addrs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBinary times building the table of the binary named by
// $HPCFS_BENCH_BINARY (say hpcfs itself, go build -ldflags=-compressdwarf=false)
// and 200,000 lookups spread over its .text, in memory, spilled to the
// index and with addr2line; it reports the heap the build left in use.
func BenchmarkBinary(b *testing.B) {
	path := os.Getenv("HPCFS_BENCH_BINARY")
	if path == "" {
		b.Skip("HPCFS_BENCH_BINARY names no binary")
	}
	lo, hi, err := program.Text(path)
	if err != nil {
		b.Fatal(err)
	}
	addrs := make([]uint64, 200000)
	for i := range addrs {
		addrs[i] = lo + uint64(i)*7919%(hi-lo)
	}
	// heap is the heap in use, collected.
	heap := func() int64 {
		var st runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&st)
		return int64(st.HeapAlloc)
	}
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			if err := NewResolver(nil, nil).Module(path).Err(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, c := range []struct {
		name string
		r    func(b *testing.B) *Resolver
	}{{"memory", func(*testing.B) *Resolver { return NewResolver(nil, nil) }}, {"spilled", func(b *testing.B) *Resolver { return spillResolver(b.TempDir()) }}} {
		b.Run(c.name, func(b *testing.B) {
			before := heap()
			m := c.r(b).Module(path)
			lookups(b, m, addrs)
			b.ReportMetric(float64(heap()-before)/(1<<20), "MB-held")
			runtime.KeepAlive(m)
		})
	}
	b.Run("addr2line", func(b *testing.B) {
		for b.Loop() {
			if _, err := addr2line.Lookup(path, addrs); err != nil {
				b.Fatal(err)
			}
		}
	})
}
