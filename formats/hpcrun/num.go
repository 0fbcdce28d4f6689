package hpcrun

import (
	"math"

	"github.com/hpcfs/hpcfs/render"
)

// valueCell appends a metric value to a table row: the uint64 itself for
// Int metrics, its float64 bits for Real metrics.
func valueCell(r *render.Row, v uint64, real bool) {
	if real {
		r.Float(math.Float64frombits(v))
	} else {
		r.Uint(v)
	}
}

// appendReadable appends v for text views: Real values rounded to 6
// significant digits (render.AppendReadable), integers in full.
func appendReadable(dst []byte, v uint64, real bool) []byte {
	if real {
		return render.AppendReadable(dst, math.Float64frombits(v))
	}
	return render.AppendUint(dst, v)
}
