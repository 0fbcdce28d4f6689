package hpcrun

import (
	"math"
	"math/bits"

	"github.com/hpcfs/hpcfs/render"
)

// appendValue appends a metric value: the uint64 itself for Int metrics,
// the shortest round-trip decimal of its float64 bits for Real metrics.
func appendValue(dst []byte, v uint64, real bool) []byte {
	if real {
		return render.AppendFloat(dst, math.Float64frombits(v))
	}
	return render.AppendUint(dst, v)
}

// appendReadable appends v for text views: Real values rounded to 6
// significant digits (render.AppendReadable), integers in full.
func appendReadable(dst []byte, v uint64, real bool) []byte {
	if real {
		return render.AppendReadable(dst, math.Float64frombits(v))
	}
	return render.AppendUint(dst, v)
}

// valueLen is len(appendValue(nil, v, real)).
func valueLen(v uint64, real bool) int {
	if real {
		return render.FloatLen(math.Float64frombits(v))
	}
	return render.DecimalLen(v)
}

// hexLen is the number of hex digits of v.
func hexLen(v uint64) int {
	return max((bits.Len64(v)+3)/4, 1)
}
