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
	// pause and halved throughput.
	memoryHeadroom = 24 << 20
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
