package dcpi

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

// TestShortestMatchesStrconv compares appendPct and pctLen with strconv on
// pct-like ratios of integers (the values the views print), on doubles
// next to them, and on random doubles across the fast range and beyond.
func TestShortestMatchesStrconv(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 100_000
	}
	check := func(x float64) {
		want := strconv.FormatFloat(x, 'f', -1, 64)
		if x != 0 && (x < 1e-6 || x >= 1e21) {
			want = render.FormatFloat(x)
		}
		if got := string(appendPct(nil, x)); got != want {
			t.Fatalf("appendPct(%v) = %s, strconv says %s", x, got, want)
		}
		if got := pctLen(x); got != len(want) {
			t.Fatalf("pctLen(%v) = %d, want %d", x, got, len(want))
		}
	}
	for _, x := range []float64{0, 1e-7, 1e-3, 0.001, 0.0010000000000000002, 0.01, 0.1, 0.3, 0.1 + 0.2, 1, 2, 3, 5, 10, 50, 99.99999999999999,
		100, 100.00000000000001, 999.9999999999999, 1000, 12.5, 1.0 / 3, 200.0 / 3, 1e-4, 5e-324, math.MaxFloat64} {
		check(x)
		check(math.Nextafter(x, 0))
		check(math.Nextafter(x, math.Inf(1)))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < n; i++ {
		total := 1 + rng.Uint64N(1<<uint(1+rng.IntN(40)))
		part := rng.Uint64N(total + 1)
		x := pct(part, total)
		check(x)
		check(math.Nextafter(x, 0))
		check(math.Float64frombits(rng.Uint64N(math.Float64bits(1e3)-math.Float64bits(1e-3)) + math.Float64bits(1e-3)))
		check(float64(rng.IntN(1e6)) / float64(pow10[rng.IntN(7)]))
	}
	// every ratio of a small total, where short decimals and ties abound
	for total := uint64(1); total <= 300; total++ {
		for part := uint64(0); part <= total; part++ {
			check(pct(part, total))
		}
	}
}

func BenchmarkPct(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4096)
	const total = 61234567
	for i := range vals {
		vals[i] = pct(rng.Uint64N(total), total)
	}
	var buf []byte
	b.Run("appendPct", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = appendPct(buf[:0], vals[i&4095])
		}
	})
	b.Run("pctLen", func(b *testing.B) {
		n := 0
		for i := 0; b.Loop(); i++ {
			n += pctLen(vals[i&4095])
		}
	})
	b.Run("render.AppendFloat", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = render.AppendFloat(buf[:0], vals[i&4095])
		}
	})
}
