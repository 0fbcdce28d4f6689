// Package stats accumulates the statistics of a value over profiles
// (threads, ranks) that the imbalance views show: count, minimum, maximum
// and where it is, mean and population standard deviation, computed as
// HPCToolkit's summary statistics are (a profile without a value does not
// count; StdDev is sqrt(sum of squares / count - mean^2)).
package stats

import "math"

// An Acc is the statistics of one value so far; the zero Acc has none.
type Acc struct {
	Min, Max, Sum, SumSq float64
	Count                int32
	ArgMax               int32 // who holds Max
}

// Add counts value v of profile who; a 0 is no value.
func (a *Acc) Add(v float64, who int32) {
	if v == 0 {
		return
	}
	if a.Count == 0 || v < a.Min {
		a.Min = v
	}
	if a.Count == 0 || v > a.Max {
		a.Max, a.ArgMax = v, who
	}
	a.Count++
	a.Sum += v
	a.SumSq += v * v
}

// Mean is Sum / Count.
func (a *Acc) Mean() float64 { return a.Sum / float64(a.Count) }

// StdDev is the population standard deviation.
func (a *Acc) StdDev() float64 {
	m := a.Mean()
	return math.Sqrt(max(0, a.SumSq/float64(a.Count)-m*m))
}

// Worse orders accumulators worst first for slices.SortFunc: the larger
// Max / Mean (pipit's load_imbalance), then the more time beyond the mean.
func Worse(a, b *Acc) int {
	ra, rb := a.Max/a.Mean(), b.Max/b.Mean()
	switch {
	case ra > rb:
		return -1
	case ra < rb:
		return 1
	}
	da, db := a.Max-a.Mean(), b.Max-b.Mean()
	switch {
	case da > db:
		return -1
	case da < db:
		return 1
	}
	return 0
}
