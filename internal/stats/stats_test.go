package stats

import (
	"math"
	"testing"
)

func TestAcc(t *testing.T) {
	var a Acc
	for i, v := range []float64{2, 0, 4, 4, 4, 5, 5, 7, 9} {
		a.Add(v, int32(i))
	}
	if a.Count != 8 || a.Min != 2 || a.Max != 9 || a.ArgMax != 8 || a.Mean() != 5 || math.Abs(a.StdDev()-2) > 1e-12 {
		t.Fatalf("%+v mean %v stddev %v", a, a.Mean(), a.StdDev())
	}
	flat := Acc{}
	flat.Add(3, 0)
	flat.Add(3, 1)
	if Worse(&a, &flat) != -1 || Worse(&flat, &a) != 1 || Worse(&a, &a) != 0 {
		t.Fatal("Worse does not put the larger max/mean first")
	}
}
