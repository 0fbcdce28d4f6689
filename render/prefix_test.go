package render

import (
	"math"
	"strconv"
	"testing"
)

// DecimalPrefix formats like strconv for every magnitude, in any order.
func TestDecimalPrefix(t *testing.T) {
	vals := []uint64{0, 1, 9, 10, 999_999_999, 1_000_000_000, 1_000_000_001, 1_999_999_999, 2_000_000_000,
		1_600_000_000_000_000_000, 1_600_000_000_999_999_999, 1_600_000_001_000_000_000, 1_600_000_000_000_000_007,
		12_345, math.MaxUint64, math.MaxUint64 - 1_000_000_000, 1_000_000_000_000_000_000}
	for x := uint64(1); x < 1<<62; x = x*3 + 7 {
		vals = append(vals, x)
	}
	var p DecimalPrefix
	for _, v := range vals {
		if got, want := string(p.AppendUint(nil, v)), strconv.FormatUint(v, 10); got != want {
			t.Fatalf("append(%d) = %s", v, got)
		}
		for _, s := range []int64{int64(v >> 1), -int64(v >> 1), math.MinInt64} {
			if got, want := string(p.AppendInt(nil, s)), strconv.FormatInt(s, 10); got != want {
				t.Fatalf("appendInt(%d) = %s", s, got)
			}
		}
	}
}

func BenchmarkDecimalPrefix(b *testing.B) {
	var p DecimalPrefix
	var dst []byte
	for i := 0; i < b.N; i++ {
		dst = p.AppendUint(dst[:0], 1_600_000_000_000_000_000+uint64(i)*1000)
	}
}

func BenchmarkStrconvTimes(b *testing.B) {
	var dst []byte
	for i := 0; i < b.N; i++ {
		dst = strconv.AppendUint(dst[:0], 1_600_000_000_000_000_000+uint64(i)*1000, 10)
	}
}

func BenchmarkAppendUintTimes(b *testing.B) {
	var dst []byte
	for i := 0; i < b.N; i++ {
		dst = AppendUint(dst[:0], 1_600_000_000_000_000_000+uint64(i)*1000)
	}
}
