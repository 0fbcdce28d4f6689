package render

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// pct is a percentage as the views compute it.
func pct(part, whole uint64) float64 { return float64(part) * 100 / float64(whole) }

// TestShortestMatchesStrconv compares AppendFloat and FloatLen with strconv
// on pct-like ratios of integers (the values dcpi's views print), on
// doubles next to them, and on random doubles across shortest's fast range
// and beyond, positive and negative.
func TestShortestMatchesStrconv(t *testing.T) {
	n := 1_000_000
	if testing.Short() || raceEnabled {
		n = 50_000
	}
	check := func(x float64) {
		checkOne(t, x)
		checkOne(t, -x)
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
		check(float64(rng.IntN(1e6)) / float64(pow10u[rng.IntN(7)]))
	}
	// every ratio of a small total, where short decimals and ties abound
	for total := uint64(1); total <= 300; total++ {
		for part := uint64(0); part <= total; part++ {
			check(pct(part, total))
		}
	}
}

func checkOne(t *testing.T, x float64) {
	t.Helper()
	want := strconv.FormatFloat(x, 'f', -1, 64)
	if a := math.Abs(x); a < 1e-6 || a >= 1e21 {
		want = strconv.FormatFloat(x, 'g', -1, 64)
	}
	if math.IsInf(x, 0) {
		want = map[bool]string{false: "inf", true: "-inf"}[x < 0]
	}
	if x == 0 {
		want = "0"
		if math.Signbit(x) {
			want = "-0"
		}
	}
	if got := string(AppendFloat(nil, x)); got != want {
		t.Fatalf("AppendFloat(%v) = %s, strconv says %s", x, got, want)
	}
	if got := FloatLen(x); got != len(want) {
		t.Fatalf("FloatLen(%v) = %d, want %d", x, got, len(want))
	}
}

// BenchmarkPct compares AppendFloat and FloatLen on percentages (shortest's
// fast path) with strconv.
func BenchmarkPct(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, 4096)
	const total = 61234567
	for i := range vals {
		vals[i] = pct(rng.Uint64N(total), total)
	}
	var buf []byte
	b.Run("AppendFloat", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = AppendFloat(buf[:0], vals[i&4095])
		}
	})
	b.Run("FloatLen", func(b *testing.B) {
		n := 0
		for i := 0; b.Loop(); i++ {
			n += FloatLen(vals[i&4095])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = strconv.AppendFloat(buf[:0], vals[i&4095], 'f', -1, 64)
		}
	})
}
