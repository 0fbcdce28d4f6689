package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// memoryFloor is the smallest Go memory limit: with the render cache's
	// few MB of segments and the binary's own pages (about 15 MiB
	// resident, outside the Go limit) it keeps a mount's resident memory
	// under the design's 64 MB.
	memoryFloor = 36 << 20
	// memoryHeadroom is what the limit leaves above the live heap for
	// rendering garbage, up to memoryCeiling. A fixed limit below a large
	// live heap (the model of a database with many contexts) made the
	// collector run without pause and halved throughput. It is fixed, not
	// a share of the live heap: what a collection costs here hardly grows
	// with the live heap (models are pointer-free tables), what makes
	// collections frequent is rendering garbage (about one byte per byte
	// served, the render cache's segments) over the room the limit leaves,
	// and about 8 MB of that room goes to the runtime's own overhead.
	// Measured on a trace view (HPCToolkit benchmark, 2 cores): 24 MiB 51
	// collections, 20 MiB 90 (+6 to 12 % CPU, 4 MB less resident), 16 MiB
	// 227 (+30 %).
	memoryHeadroom = 20 << 20
	// memoryCeiling caps live + memoryHeadroom, for the budget: a live
	// heap passing 20 MiB for a moment (an ovni trace whose jumbo payloads
	// are 3.7 MB cells of a Parquet twin: near 30 MiB live while one is
	// encoded) left 50 MiB of heap and 64-72 MiB resident. Above the
	// ceiling the limit keeps memoryMinHeadroom over the live heap, so the
	// collector never thrashes. Measured: v3-1.14.0-test-flush-jumbo
	// mounted and read whole, peak VmHWM of 12 runs 50-58 MiB (floor 40
	// and live + 20 MiB, with the same render changes: 54-67 MiB);
	// `hpcfs cat` of trace.pftrace of a 200k-context hpcdb database (33
	// MiB live): 211 collections instead of 123, 53-54 MiB resident
	// instead of 58-61, about 20 % more user CPU.
	memoryCeiling     = 40 << 20
	memoryMinHeadroom = 8 << 20
)

// memoryLimit is the Go memory limit for a live heap of live bytes.
func memoryLimit(live int64) int64 {
	return max(memoryFloor, live+memoryMinHeadroom, min(live+memoryHeadroom, memoryCeiling))
}

// followLiveHeap keeps the Go memory limit at memoryLimit of the live
// heap, so that memory stays bounded by what the sources need and the
// collector never thrashes. GOMEMLIMIT turns it off.
func followLiveHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	limit := int64(memoryFloor)
	debug.SetMemoryLimit(limit)
	for range time.Tick(250 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		if want := memoryLimit(int64(sample[0].Value.Uint64())); want != limit {
			limit = want
			debug.SetMemoryLimit(limit)
		}
	}
}
