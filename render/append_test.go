package render

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

func BenchmarkAppendFloat(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	vals := make([]float64, 1024)
	for i := range vals {
		vals[i] = float64(rng.Intn(1e6)) / 100
	}
	var buf []byte
	b.Run("hpcfs", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = AppendFloat(buf[:0], vals[i%len(vals)])
		}
	})
	b.Run("strconv", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			buf = strconv.AppendFloat(buf[:0], vals[i%len(vals)], 'f', -1, 64)
		}
	})
}

func TestDecimalLen(t *testing.T) {
	check := func(v uint64) {
		if got, want := DecimalLen(v), len(strconv.FormatUint(v, 10)); got != want {
			t.Fatalf("DecimalLen(%d) = %d, want %d", v, got, want)
		}
	}
	for v, p := uint64(0), uint64(1); p < 1e19; p *= 10 {
		for _, d := range []uint64{p - 1, p, p + 1} {
			check(d)
		}
		check(v)
	}
	check(1<<64 - 1)
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 100000; i++ {
		check(rng.Uint64() >> rng.Intn(64))
	}
}

func TestFloatLen(t *testing.T) {
	check := func(f float64) {
		if got, want := FloatLen(f), len(AppendFloat(nil, f)); got != want {
			t.Fatalf("FloatLen(%v) = %d, len(AppendFloat) = %d", f, got, want)
		}
	}
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, -0.1, 0.3, 1e-6, -1e-6, 1e-7, 0.000123,
		0.1 + 0.2, 9.999999e14, 1e15, -1e15, 1e20, 1e21, 123456789012345, 5e-324, math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN()} {
		check(f)
	}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 200000; i++ {
		check(float64(rng.Int63n(1e12)) / math.Pow10(rng.Intn(8)))
		check(-float64(rng.Intn(1e6)) / 1000)
		check(rng.NormFloat64() * math.Pow10(rng.Intn(30)-10))
		check(math.Float64frombits(rng.Uint64()))
	}
}
