package render

import (
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
