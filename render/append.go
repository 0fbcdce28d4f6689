package render

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
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
		if d, exp, ok := shortest(a); ok {
			if f < 0 {
				dst = append(dst, '-')
			}
			return appendShortest(dst, d, exp)
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
	a := math.Abs(v)
	switch {
	case a >= 1e15:
		return 0, 0, false
	case a < 1e9:
		// A decimal m/10^6 that reads back as v is within 0.2 of v*1e6
		// (|m| < 1e15 < 2^50), so rounding the product finds it in one step.
		s := math.Round(v * 1e6)
		if s/1e6 != v {
			return 0, 0, false
		}
		return trimZeros(int64(s), 6)
	}
	for k = 0; k < len(pow10); k++ {
		s := v * pow10[k]
		if s != math.Trunc(s) || math.Abs(s) >= 1e15 {
			continue
		}
		if m = int64(s); float64(m)/pow10[k] == v {
			// v*10^k can round, so a smaller k may have been missed.
			return trimZeros(m, k)
		}
	}
	return 0, 0, false
}

// trimZeros drops the trailing zeros of the decimal m / 10^k (k <= 7),
// four, two and one at a time: no loop whose steps wait on each other.
func trimZeros(m int64, k int) (int64, int, bool) {
	neg := m < 0
	u := uint64(m)
	if neg {
		u = -u
	}
	if k >= 4 && u%10000 == 0 {
		u /= 10000
		k -= 4
	}
	if k >= 2 && u%100 == 0 {
		u /= 100
		k -= 2
	}
	if k >= 1 && u%10 == 0 {
		u /= 10
		k--
	}
	if neg {
		return -int64(u), k, true
	}
	return int64(u), k, true
}

// appendDecimal appends m / 10^k (k < 20) in plain decimal notation.
func appendDecimal(dst []byte, m int64, k int) []byte {
	if m < 0 {
		dst = append(dst, '-')
		m = -m
	}
	u := uint64(m)
	n := DecimalLen(u)
	if k == 0 {
		return appendDigits(dst, u, n)
	}
	if k <= 8 {
		// all the digits (a 0 before the point at least), then the last
		// k moved one byte on for the point, 8 bytes at once within the
		// room appendDigits leaves: no division by a variable power
		at := len(dst)
		w := max(n, k+1)
		dst = appendDigits(dst, u, w)
		dot := at + w - k
		tail := binary.LittleEndian.Uint64(dst[dot : dot+8])
		dst = dst[:at+w+1]
		binary.LittleEndian.PutUint64(dst[dot+1:dot+9], tail)
		dst[dot] = '.'
		return dst
	}
	p := pow10u[k]
	dst = appendDigits(dst, u/p, max(n-k, 1))
	dst = append(dst, '.')
	return appendDigits(dst, u%p, k)
}

// appendDigits appends v in decimal as exactly n digits, zero-padded on
// the left; n must be at least DecimalLen(v).
func appendDigits(dst []byte, v uint64, n int) []byte {
	for n > 24 {
		dst = append(dst, '0')
		n--
	}
	at := len(dst)
	dst = slices.Grow(dst, n+8) // eight bytes are stored at a time
	switch {
	case n <= 8:
		put8(dst[at:at+8], v, n)
	case n <= 16:
		put8(dst[at:at+8], v/1e8, n-8)
		put8(dst[at+n-8:at+n], v%1e8, 8)
	default:
		put8(dst[at:at+8], v/1e16, n-16)
		put8(dst[at+n-16:at+n-8], v/1e8%1e8, 8)
		put8(dst[at+n-8:at+n], v%1e8, 8)
	}
	return dst[:at+n]
}

// put8 stores the last n (1 to 8) of the eight digits of v < 1e8 in the
// eight bytes of b. It is inlined.
func put8(b []byte, v uint64, n int) {
	// Split v into lanes in parallel: two of four digits, four of two,
	// eight of one, most significant digit in the lowest byte.
	hi := v / 10000
	x := hi | (v-hi*10000)<<32
	q := (x * 10486 >> 20) & 0x0000007f0000007f // lane/100 for lanes < 10000
	x = q | (x-q*100)<<16
	q = (x * 103 >> 10) & 0x000f000f000f000f // lane/10 for lanes < 100
	x = q | (x-q*10)<<8
	binary.LittleEndian.PutUint64(b, (x|0x3030303030303030)>>(8*(8-n)))
}

// AppendUint is strconv.AppendUint(dst, v, 10), written in place.
func AppendUint(dst []byte, v uint64) []byte {
	if v < 10 { // flags, depths, small ids
		return append(dst, '0'+byte(v))
	}
	return appendDigits(dst, v, DecimalLen(v))
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
		if d, exp, ok := shortest(a); ok {
			n := shortestLen(d, exp)
			if f < 0 {
				n++
			}
			return n
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
	n := max(width, HexLen(v))
	at := len(dst) + 2
	dst = slices.Grow(dst, n+2)[:at+n]
	dst[at-2], dst[at-1] = '0', 'x'
	for i := at + n - 1; i >= at; i-- {
		dst[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return dst
}

// hexTail is the room AppendHexBytes leaves after the digits, so that the
// end of a record line does not copy a long one again.
const hexTail = 256

// AppendHexBytes appends each byte of b as two lower-case hex digits.
// It grows dst once, with room for the rest of a line (hexTail): growing
// it two digits at a time made an ovni jumbo payload (3.7 MB of hex) cost
// a dozen copies of its line, 181 MB allocated to size one Parquet twin.
func AppendHexBytes(dst []byte, b []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 2*len(b)+hexTail)[:n+2*len(b)]
	for i, c := range b {
		dst[n+2*i], dst[n+2*i+1] = hexDigits[c>>4], hexDigits[c&0xf]
	}
	return dst
}

// AppendPadded appends v in decimal, zero-padded to width digits.
func AppendPadded(dst []byte, v uint64, width int) []byte {
	return appendDigits(dst, v, max(DecimalLen(v), width))
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
// encoding/csv's quoting (quotes doubled). Control characters but tab
// and LF (NUL, CR, ...), DEL and bytes that are not UTF-8 are written as
// \xNN (see AppendName): every format's CSV views share this escaping.
func AppendCSVField(dst []byte, s string) []byte {
	var quote bool
	if acc := scanClasses(s); acc&(clEscLF|clHigh) == 0 {
		quote = asciiNeedsQuotes(s, acc) // the common name: one pass
	} else {
		s = EscapeCSV(s)
		quote = FieldNeedsQuotes(s)
	}
	if !quote {
		return append(dst, s...)
	}
	return appendQuoted(dst, s)
}

// appendQuoted appends s in quotes, its quotes doubled.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '"')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// asciiNeedsQuotes is FieldNeedsQuotes for an s of printable ASCII, tab
// and LF whose byte classes OR to acc: such an s starts with a space only
// if its first byte is a blank or tab (an LF is clQuote).
func asciiNeedsQuotes(s string, acc uint8) bool {
	if acc&(clQuote|clDQ) != 0 {
		return true
	}
	return s != "" && (s[0] == ' ' || s[0] == '\t') || s == `\.`
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

// AppendC appends v as C's printf with verb 'g', 'f' or 'e' and the
// default precision 6 does, for text that must match C tools' output
// byte for byte (nan, -nan, inf and -inf included).
func AppendC(dst []byte, v float64, verb byte) []byte {
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case math.IsInf(v, 1):
		return append(dst, "inf"...)
	case math.IsInf(v, -1):
		return append(dst, "-inf"...)
	}
	return strconv.AppendFloat(dst, v, verb, 6, 64)
}
