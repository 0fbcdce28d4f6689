package render

import (
	"encoding/hex"
	"fmt"
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

func TestAppendUintAndPadded(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	vals := []uint64{0, 1, 9, 10, 99, 100, 101, 999, 1000, 1<<64 - 1}
	for p := uint64(1); p < 1e19; p *= 10 {
		vals = append(vals, p-1, p, p+1)
	}
	for i := 0; i < 100000; i++ {
		vals = append(vals, rng.Uint64()>>rng.Intn(64))
	}
	for _, v := range vals {
		if got, want := string(AppendUint([]byte("x"), v)), "x"+strconv.FormatUint(v, 10); got != want {
			t.Fatalf("AppendUint(%d) = %q, want %q", v, got, want)
		}
		width := rng.Intn(22)
		want := strconv.FormatUint(v, 10)
		for len(want) < width {
			want = "0" + want
		}
		if got := string(AppendPadded(nil, v, width)); got != want {
			t.Fatalf("AppendPadded(%d, %d) = %q, want %q", v, width, got, want)
		}
	}
}

// TestShortDecimalEdges covers both ways shortDecimal searches (one
// rounding below 1e9, a loop above) near their limits.
func TestShortDecimalEdges(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	check := func(f float64) {
		t.Helper()
		want := strconv.FormatFloat(f, 'f', -1, 64)
		if got := FormatFloat(f); got != want {
			t.Fatalf("FormatFloat(%v) = %q, strconv says %q", f, got, want)
		}
	}
	for _, f := range []float64{999999999.999999, 1e9, 1e9 + 0.5, 1e9 - 1e-6, 0.000001, -0.000001, 0.0000015, 0.29, 0.57, 1.005,
		123456.789012, 999999999999999, 99999999999999.9, 0.1 + 0.2, 1.0000001, 8.5e8 + 0.000001} {
		check(f)
		check(-f)
	}
	for i := 0; i < 200000; i++ {
		check(float64(rng.Int63n(1e15)) / math.Pow10(rng.Intn(7)))
		check(math.Nextafter(float64(rng.Int63n(1e12))/1e6, math.Inf(1)))
		check(float64(rng.Int63n(1e9)) + float64(rng.Intn(1e6))/1e6)
	}
}

func TestAppendC(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		verb byte
		want string
	}{
		{1.5, 'g', "1.5"}, {1e6, 'g', "1e+06"}, {123456789, 'g', "1.23457e+08"}, {0.0001, 'g', "0.0001"},
		{1e-5, 'g', "1e-05"}, {2.5, 'f', "2.500000"}, {math.NaN(), 'g', "nan"}, {math.Copysign(math.NaN(), -1), 'g', "-nan"},
		{math.Inf(1), 'f', "inf"}, {math.Inf(-1), 'g', "-inf"}, {0, 'g', "0"},
	} {
		if got := string(AppendC(nil, tc.v, tc.verb)); got != tc.want {
			t.Errorf("AppendC(%v, %c) = %q, C prints %q", tc.v, tc.verb, got, tc.want)
		}
	}
}

// TestAppendHexBytes: the digits are encoding/hex's, after what dst held.
func TestAppendHexBytes(t *testing.T) {
	for _, n := range []int{0, 1, 255, 1 << 20} {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		if got, want := string(AppendHexBytes([]byte("x,"), b)), "x,"+hex.EncodeToString(b); got != want {
			t.Errorf("%d bytes: %.40q, want %.40q", n, got, want)
		}
	}
}

// TestAppendHexPadded: every width and magnitude as fmt's %0*x writes it,
// and HexLen is the unpadded length.
func TestAppendHexPadded(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	vals := []uint64{0, 1, 15, 16, 255, 256, 1<<64 - 1}
	for i := 0; i < 20000; i++ {
		vals = append(vals, rng.Uint64()>>rng.Intn(64))
	}
	for _, v := range vals {
		if got, want := HexLen(v), len(strconv.FormatUint(v, 16)); got != want {
			t.Fatalf("HexLen(%#x) = %d, want %d", v, got, want)
		}
		for _, width := range []int{0, 1, 4, 8, 16, 20} {
			if got, want := string(AppendHexPadded([]byte("x"), v, width)), fmt.Sprintf("x0x%0*x", width, v); got != want {
				t.Fatalf("AppendHexPadded(%#x, %d) = %q, want %q", v, width, got, want)
			}
		}
	}
}
