package render

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// AppendFloat appends the shortest decimal that reads back as f. Numbers
// with magnitude in [1e-6, 1e21) are written without an exponent, so that
// spreadsheets and awk see plain decimals; others use strconv's 'g' form.
// NaN and infinities are written as nan, inf and -inf.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		if m, k, ok := shortDecimal(f); ok {
			return appendDecimal(dst, m, k)
		}
		return strconv.AppendFloat(dst, f, 'f', -1, 64)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
}

var pow10 = [...]float64{1, 10, 100, 1000, 10000, 100000, 1000000}

// shortDecimal finds m and a small k with m / 10^k == v and |m| < 1e15.
// Such a decimal has at most 15 significant digits, and no two decimals of
// at most 15 digits read back as the same double, so with trailing zeros
// removed it is the shortest decimal that reads back as v: what strconv
// finds, far cheaper. Counts, times and most measured values qualify.
func shortDecimal(v float64) (m int64, k int, ok bool) {
	if math.Abs(v) >= 1e15 {
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

// appendDecimal appends m / 10^k in plain decimal notation.
func appendDecimal(dst []byte, m int64, k int) []byte {
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

// FloatLen is len(AppendFloat(nil, f)), counted without rendering when f
// is a short decimal.
func FloatLen(f float64) int {
	if f == 0 && !math.Signbit(f) {
		return 1
	}
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		if m, k, ok := shortDecimal(f); ok {
			return decimalLen(m, k)
		}
	}
	var buf [32]byte
	return len(AppendFloat(buf[:0], f))
}

// decimalLen is len(appendDecimal(nil, m, k)).
func decimalLen(m int64, k int) int {
	n := 0
	if m < 0 {
		n, m = 1, -m
	}
	d := DecimalLen(uint64(m))
	switch {
	case k == 0:
		return n + d
	case d <= k:
		return n + 2 + k
	}
	return n + d + 1
}

// FormatFloat is AppendFloat as a string.
func FormatFloat(f float64) string { return string(AppendFloat(nil, f)) }

const hexDigits = "0123456789abcdef"

// AppendHex appends v as 0x followed by lower-case hex digits.
func AppendHex(dst []byte, v uint64) []byte {
	dst = append(dst, '0', 'x')
	return strconv.AppendUint(dst, v, 16)
}

// AppendHexPadded appends v as 0x and exactly width lower-case hex digits
// (more when v needs them).
func AppendHexPadded(dst []byte, v uint64, width int) []byte {
	dst = append(dst, '0', 'x')
	var buf [16]byte
	i := len(buf)
	for v != 0 || i == len(buf) {
		i--
		buf[i] = hexDigits[v&0xf]
		v >>= 4
	}
	for n := len(buf) - i; n < width; n++ {
		dst = append(dst, '0')
	}
	return append(dst, buf[i:]...)
}

// AppendHexBytes appends each byte of b as two lower-case hex digits.
func AppendHexBytes(dst []byte, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return dst
}

// AppendPadded appends v in decimal, zero-padded to width digits.
func AppendPadded(dst []byte, v uint64, width int) []byte {
	n := DecimalLen(v)
	for ; n < width; n++ {
		dst = append(dst, '0')
	}
	return strconv.AppendUint(dst, v, 10)
}

var pow10u = [...]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
	1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// DecimalLen is the number of decimal digits of v.
func DecimalLen(v uint64) int {
	// log10(2) ≈ 1233/4096 gives the digit count or one less.
	n := (bits.Len64(v) * 1233) >> 12
	if n < len(pow10u) && v >= pow10u[n] {
		n++
	}
	return max(n, 1)
}

// FieldNeedsQuotes reports whether s must be quoted in a CSV field. It
// follows encoding/csv's rule, so the output reads back with encoding/csv
// and with RFC 4180 readers.
func FieldNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` {
		return true
	}
	if strings.ContainsAny(s, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// AppendCSVField appends s as one CSV field, quoted when needed, with
// encoding/csv's quoting (quotes doubled, \r\n kept as written).
func AppendCSVField(dst []byte, s string) []byte {
	if !FieldNeedsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			dst = append(dst, '"', '"')
		} else {
			dst = append(dst, s[i])
		}
	}
	return append(dst, '"')
}

// AppendCSVRow appends fields as one CSV record ending in \n.
func AppendCSVRow(dst []byte, fields ...string) []byte {
	for i, f := range fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendCSVField(dst, f)
	}
	return append(dst, '\n')
}
