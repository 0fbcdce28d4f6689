package render

import (
	"math"
	"math/bits"
)

// AppendFloat's second fast path, for the doubles that are no short
// decimal (ratios such as percentages). For the doubles in [1e-3, 1e3)
// that are not a power of two, shortest finds the shortest decimal
// with two 64×64-bit products and shifts: the double's rounding interval,
// scaled by 10^j so that it spans 1.1 to 22 units, has exact integer
// bounds, and the shortest decimal is the multiple of the largest power of
// ten inside it (the one nearest the double when there are several). The
// result equals strconv.FormatFloat(x, 'f', -1, 64), which
// TestShortestMatchesStrconv checks on millions of values.

// shortest returns digits and exp with x = digits·10^exp, digits the
// shortest that reads back as x; ok is false outside the fast range.
func shortest(x float64) (digits uint64, exp int, ok bool) {
	if !(x >= 1e-3 && x < 1e3) {
		return 0, 0, false
	}
	b := math.Float64bits(x)
	frac := b & (1<<52 - 1)
	if frac == 0 {
		return 0, 0, false // a power of two: its interval is asymmetric
	}
	m := frac | 1<<52
	s := uint(1075 + 1 - int(b>>52)) // x = 2m / 2^s; 44 ≤ s ≤ 63 in range
	// j such that x·10^j ∈ [1e16, 1e18)
	j := 19
	for t := 1e-2; j > 14 && x >= t; t *= 10 {
		j--
	}
	p10 := pow10u[j]
	mask := uint64(1)<<s - 1
	hiH, hiL := bits.Mul64(2*m+1, p10)
	loH, loL := bits.Mul64(2*m-1, p10)
	xH, xL := bits.Mul64(2*m, p10)
	hi := hiH<<(64-s) | hiL>>s
	lo := loH<<(64-s) | loL>>s
	if m%2 == 0 { // bounds read back as x (ties to even)
		if loL&mask != 0 {
			lo++
		}
	} else {
		if hiL&mask == 0 {
			hi--
		}
		lo++
	}
	// the largest power of ten with a multiple in [lo, hi]; most doubles
	// need 15 to 17 digits, so p is mostly 0 to 2 (constant divisions)
	p := 0
	if hi/10*10 >= lo {
		p = 1
		for p+1 < len(pow10u) {
			next := pow10u[p+1]
			if hi/next*next < lo {
				break
			}
			p++
		}
	}
	// the multiple nearest x (x·10^j = xi + xf/2^s)
	xi := xH<<(64-s) | xL>>s
	xf := xL & mask
	var c, q uint64 // c = q·pow ≤ xi < c + pow
	switch p {
	case 0:
		c, q = xi, xi
	case 1:
		q = xi / 10
		c = q * 10
	case 2:
		q = xi / 100
		c = q * 100
	default:
		q = xi / pow10u[p]
		c = q * pow10u[p]
	}
	pow := pow10u[p]
	a := xi - c // x·10^j - c = a + xf/2^s, compared with pow/2
	up := false
	switch {
	case 2*a > pow:
		up = true
	case 2*a == pow:
		up = xf != 0 || q%2 == 1
	case p == 0: // a == 0
		half := uint64(1) << (s - 1)
		up = xf > half || xf == half && q%2 == 1
	}
	if up {
		c, q = c+pow, q+1
	}
	if c > hi {
		q--
	} else if c < lo {
		q++
	}
	return q, p - j, true
}

// shortestLen is the length of the decimal digits·10^exp from shortest.
func shortestLen(digits uint64, exp int) int {
	if exp >= 0 {
		return DecimalLen(digits) + exp
	}
	return decimalLen(int64(digits), -exp)
}

// appendShortest appends digits·10^exp from shortest.
func appendShortest(dst []byte, digits uint64, exp int) []byte {
	if exp >= 0 {
		return AppendUint(dst, digits*pow10u[exp])
	}
	return appendDecimal(dst, int64(digits), -exp)
}
