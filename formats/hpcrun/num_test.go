package hpcrun

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

func TestAppendRealMatchesAppendFloat(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []float64{0, 1, -1, 0.1, 0.2, 0.3, 1e-6, 1e-7, 123.456, 1e15, 999999999999999, 0.000123, 5e-324, math.MaxFloat64, math.Inf(1), math.NaN(), -0.0, 1.5e14, 0.1 + 0.2}
	for i := 0; i < 200000; i++ {
		switch i % 5 {
		case 0:
			vals = append(vals, float64(rng.Intn(1000000))/64)
		case 1:
			vals = append(vals, float64(rng.Int63n(1e12))/math.Pow10(rng.Intn(7)))
		case 2:
			vals = append(vals, rng.NormFloat64()*math.Pow10(rng.Intn(20)-10))
		case 3:
			vals = append(vals, math.Float64frombits(rng.Uint64()))
		case 4:
			vals = append(vals, float64(rng.Intn(1000))*0.01)
		}
	}
	for _, v := range vals {
		want := string(render.AppendFloat(nil, v))
		if got := string(appendReal(nil, v)); got != want {
			t.Fatalf("appendReal(%v) = %q, want %q", v, got, want)
		}
		if got := realLen(v); got != len(want) {
			t.Fatalf("realLen(%v) = %d, want %d", v, got, len(want))
		}
	}
	for _, v := range []uint64{0, 9, 10, 99, 100, 9999, 10000, 12345678, math.MaxUint64} {
		if decLen(v) != len(render.AppendPadded(nil, v, 0)) || hexLen(v) != len(render.AppendHex(nil, v))-2 {
			t.Fatalf("lengths of %d", v)
		}
	}
}
