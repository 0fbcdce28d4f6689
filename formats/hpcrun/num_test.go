package hpcrun

import (
	"math"
	"math/rand"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

func TestValueLenMatchesAppendValue(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	vals := []uint64{0, 1, 9, 10, 15, 16, 255, 256, 1 << 63, math.MaxUint64, math.Float64bits(0.1), math.Float64bits(math.Copysign(0, -1)), math.Float64bits(math.NaN())}
	for i := 0; i < 100000; i++ {
		switch i % 3 {
		case 0:
			vals = append(vals, rng.Uint64()>>rng.Intn(64))
		case 1:
			vals = append(vals, math.Float64bits(float64(rng.Int63n(1e12))/math.Pow10(rng.Intn(7))))
		case 2:
			vals = append(vals, math.Float64bits(float64(rng.Intn(1000))*0.01))
		}
	}
	for _, v := range vals {
		for _, real := range []bool{false, true} {
			if got, want := valueLen(v, real), len(appendValue(nil, v, real)); got != want {
				t.Fatalf("valueLen(%#x, %v) = %d, want %d", v, real, got, want)
			}
		}
		if got, want := hexLen(v), len(render.AppendHex(nil, v))-2; got != want {
			t.Fatalf("hexLen(%#x) = %d, want %d", v, got, want)
		}
	}
}
