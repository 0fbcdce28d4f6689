package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

const (
	// memoryFloor is the smallest Go memory limit: with the render cache's
	// few MB of segments it keeps a mount's resident memory near the
	// design's 64 MB.
	memoryFloor = 40 << 20
	// memoryHeadroom is what the limit leaves above the live heap for
	// rendering garbage. A fixed limit below a large live heap (the model
	// of a database with many contexts) made the collector run without
	// pause and halved throughput. It is fixed, not a share of the live
	// heap: what a collection costs here hardly grows with the live heap
	// (models are pointer-free tables), what makes collections frequent
	// is rendering garbage (about one byte per byte served, the render
	// cache's segments) over the room the limit leaves, and about 8 MB of
	// that room goes to the runtime's own overhead. Measured on a trace
	// view (HPCToolkit benchmark, 2 cores): 24 MiB 51 collections, 20 MiB
	// 90 (+6 to 12 % CPU, 4 MB less resident), 16 MiB 227 (+30 %).
	memoryHeadroom = 20 << 20
)

// followLiveHeap keeps the Go memory limit at the live heap plus a
// headroom, never below memoryFloor, so that memory stays bounded by what
// the sources need and the collector never thrashes. GOMEMLIMIT turns it
// off.
func followLiveHeap() {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	limit := int64(memoryFloor)
	debug.SetMemoryLimit(limit)
	for range time.Tick(250 * time.Millisecond) {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		want := max(int64(memoryFloor), int64(sample[0].Value.Uint64())+memoryHeadroom)
		if want != limit {
			limit = want
			debug.SetMemoryLimit(limit)
		}
	}
}
