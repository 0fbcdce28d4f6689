package dcpi

import (
	"math"
	"math/bits"
	"slices"

	"github.com/hpcfs/hpcfs/render"
)

// The pct columns are doubles in [0, 100], printed by render.AppendFloat
// (the shortest decimal that reads back as the double). For the doubles in
// [1e-3, 1e3) that are not a power of two, shortest finds that decimal
// with two 64×64-bit products and shifts: the double's rounding interval,
// scaled by 10^j so that it spans 1.1 to 22 units, has exact integer
// bounds, and the shortest decimal is the multiple of the largest power of
// ten inside it (the one nearest the double when there are several). The
// result equals strconv.FormatFloat(x, 'f', -1, 64), which the tests check
// on millions of values; other doubles go through render.AppendFloat.

var pow10 = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

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
	p10 := pow10[j]
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
		for p+1 < len(pow10) {
			next := pow10[p+1]
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
		q = xi / pow10[p]
		c = q * pow10[p]
	}
	pow := pow10[p]
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

// appendPct appends render.AppendFloat(dst, x) for x ≥ 0.
func appendPct(dst []byte, x float64) []byte {
	d, exp, ok := shortest(x)
	if !ok {
		return render.AppendFloat(dst, x)
	}
	n := render.DecimalLen(d)
	size, point := n, -1 // point: index of '.' in the output
	switch {
	case exp >= 0:
		size = n + exp
	case n > -exp:
		size, point = n+1, n+exp
	default:
		size, point = 2-exp, 1
	}
	dst = slices.Grow(dst, size)
	out := dst[len(dst) : len(dst)+size]
	switch {
	case point < 0:
		putDigits(out[:n], d)
		for i := n; i < size; i++ {
			out[i] = '0'
		}
	default:
		d = putDigits(out[point+1:], d)
		out[point] = '.'
		putDigits(out[:point], d)
	}
	return dst[:len(dst)+size]
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

// putDigits writes the last len(out) decimal digits of d to out, zero
// padded, and returns the digits above them.
func putDigits(out []byte, d uint64) uint64 {
	i := len(out)
	for ; i >= 2; i -= 2 {
		pair := d % 100 * 2
		d /= 100
		out[i-1], out[i-2] = digitPairs[pair+1], digitPairs[pair]
	}
	if i == 1 {
		out[0] = byte('0' + d%10)
		d /= 10
	}
	return d
}

// pctLen is len(appendPct(nil, x)).
func pctLen(x float64) int {
	d, exp, ok := shortest(x)
	if !ok {
		return render.FloatLen(x)
	}
	n := render.DecimalLen(d)
	switch {
	case exp >= 0:
		return n + exp
	case n > -exp:
		return n + 1
	}
	return 2 - exp
}
