package main

import "testing"

// TestMemoryLimit: the Go memory limit stays at the floor for small live
// heaps and above it keeps the headroom over the live heap, never the
// live heap itself.
func TestMemoryLimit(t *testing.T) {
	const MiB = 1 << 20
	for _, c := range []struct{ live, want int64 }{
		{0, 32 * MiB},
		{10 * MiB, 32 * MiB},
		{24 * MiB, 32 * MiB},
		{30 * MiB, 38 * MiB}, // an ovni jumbo cell being encoded
		{33 * MiB, 41 * MiB}, // a 200k-context database's model
		{200 * MiB, 208 * MiB},
	} {
		if got := memoryLimit(c.live); got != c.want {
			t.Errorf("live %d MiB: limit %d MiB, want %d", c.live/MiB, got/MiB, c.want/MiB)
		}
	}
}
