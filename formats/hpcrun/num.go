package hpcrun

import (
	"math"
	"strconv"

	"github.com/hpcfs/hpcfs/render"
)

var pow10 = [...]float64{1, 10, 100, 1000, 10000, 100000, 1000000}

// shortDecimal finds a decimal m / 10^k (small k, |m| < 1e15) that reads
// back as v. It has at most 15 significant digits, and no two such
// decimals read back as the same double, so it is the shortest one. Most
// measured values qualify.
func shortDecimal(v float64) (m int64, k int, ok bool) {
	if v == 0 || math.Abs(v) >= 1e15 || math.Abs(v) < 1e-6 {
		return 0, 0, false
	}
	for k = 0; k < len(pow10); k++ {
		s := v * pow10[k]
		if s != math.Trunc(s) || math.Abs(s) >= 1e15 {
			continue
		}
		m = int64(s)
		if float64(m)/pow10[k] == v {
			// v*10^k can round, so a smaller k may have been missed.
			for k > 0 && m%10 == 0 {
				m /= 10
				k--
			}
			return m, k, true
		}
	}
	return 0, 0, false
}

// appendReal is render.AppendFloat with a fast path for short decimals.
func appendReal(dst []byte, v float64) []byte {
	m, k, ok := shortDecimal(v)
	if !ok {
		return render.AppendFloat(dst, v)
	}
	if m < 0 {
		dst = append(dst, '-')
		m = -m
	}
	if k == 0 {
		return strconv.AppendInt(dst, m, 10)
	}
	var buf [24]byte
	digits := strconv.AppendInt(buf[:0], m, 10)
	if len(digits) <= k {
		dst = append(dst, '0', '.')
		for i := len(digits); i < k; i++ {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-k]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-k:]...)
}

// realLen is len(appendReal(nil, v)) without rendering in the common case.
func realLen(v float64) int {
	m, k, ok := shortDecimal(v)
	if !ok {
		var buf [32]byte
		return len(render.AppendFloat(buf[:0], v))
	}
	n := 0
	if m < 0 {
		n, m = 1, -m
	}
	d := decLen(uint64(m))
	if k == 0 {
		return n + d
	}
	if d <= k {
		return n + 2 + k
	}
	return n + d + 1
}

// decLen is the number of decimal digits of v.
func decLen(v uint64) int {
	n := 1
	for v >= 10000 {
		v /= 10000
		n += 4
	}
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

func hexLen(v uint64) int {
	n := 1
	for v >= 16 {
		v >>= 4
		n++
	}
	return n
}

func valueLen(bits uint64, real bool) int {
	if real {
		return realLen(math.Float64frombits(bits))
	}
	return decLen(bits)
}
