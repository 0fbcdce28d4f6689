package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// memoryFloor is the smallest Go memory limit: with the binary's own
	// pages (about 15 MiB resident, outside the Go limit) it keeps a
	// mount's resident memory under the design's 64 MB while the live heap
	// stays below 24 MiB. Rendering garbage (about one byte per byte
	// served, the render cache's segments) is collected within it. It was
	// 36 MiB until the -long fault run, on a machine at load 33, saw the
	// jumbo ovni trace's server at 65 MiB once (a collector starved of
	// CPU lets the heap pass the limit while it runs).
	memoryFloor = 32 << 20
	// memoryHeadroom is the least the limit leaves above a larger live
	// heap (the model of a database with many contexts), so that the
	// collector never runs without pause: a fixed limit below the live
	// heap halved throughput. It was 20 MiB (measured on a trace view,
	// HPCToolkit benchmark, 2 cores: 24 MiB 51 collections, 20 MiB 90, 16
	// MiB 227, +30 % CPU), but a live heap passing 20 MiB for a moment (an
	// ovni trace whose jumbo payloads are 3.7 MB cells of a Parquet twin:
	// near 30 MiB live while one is encoded) then left 50 MiB of heap and
	// 62-75 MiB resident. Measured with 8 MiB, mounting
	// v3-1.14.0-test-flush-jumbo and reading every view, peak VmHWM of 10
	// runs (min/median/max, load average 32 on 2 cores): 49.6/53.1/59.5
	// MiB with an index directory, 49.6/51.9/61.3 without (the commit
	// before the jumbo work: 63.5/66.0/72.2 and 60.9/67.2/75.3); `hpcfs
	// cat` of trace.pftrace of a 200k-context hpcdb database (33 MiB
	// live): 298 collections instead of 123, 53-56 MiB resident instead
	// of 57-60, user CPU within the noise of the loaded machine (2.6-3.2 s
	// either way).
	memoryHeadroom = 8 << 20
)

// memoryLimit is the Go memory limit for a live heap of live bytes.
func memoryLimit(live int64) int64 { return max(memoryFloor, live+memoryHeadroom) }

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
