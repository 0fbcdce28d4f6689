package render

import (
	"math"
	"strconv"
)

// AppendReadable appends f rounded for reading, as hpcviewer shows
// metrics: 6 significant digits, trailing zeros dropped, integers below
// 1e15 in full, an exponent only outside [1e-4, 1e15). Text views use it;
// CSVs keep AppendFloat's exact values.
func AppendReadable(dst []byte, f float64) []byte {
	a := math.Abs(f)
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return AppendFloat(dst, f)
	case f == math.Trunc(f) && a < 1e15:
		return strconv.AppendFloat(dst, f, 'f', 0, 64)
	case a < 1e-4 || a >= 1e15:
		return strconv.AppendFloat(dst, f, 'g', 6, 64)
	}
	decimals := max(6-int(math.Floor(math.Log10(a)))-1, 0)
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, 'f', decimals, 64)
	if decimals > 0 {
		for dst[len(dst)-1] == '0' {
			dst = dst[:len(dst)-1]
		}
		if dst[len(dst)-1] == '.' {
			dst = dst[:len(dst)-1]
		}
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
