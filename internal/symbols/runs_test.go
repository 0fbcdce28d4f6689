package symbols

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortRuns checks that records written in runs of every size and
// merged come out as one stable sort of them all, with many equal keys
// (which the small test binaries do not have across runs).
func TestSortRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rows := make([]lineRow, 1000)
	for i := range rows {
		// Few addresses, ends of sequences and lines: many ties, the
		// line telling the order in which the rows came.
		rows[i] = lineRow{uint64(rng.IntN(20)), int32(rng.IntN(3)) - 1, int32(i)}
	}
	want := slices.Clone(rows)
	slices.SortStableFunc(want, lessLine)
	for _, n := range []int{1, 2, 7, 100, 1000} {
		l, err := newSortRuns(t.TempDir(), lineRecordOf)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(rows); i += n {
			l.add(slices.Clone(rows[i:min(i+n, len(rows))]))
		}
		var got []lineRow
		if err := l.merge(func(r lineRow) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		l.close()
		if !slices.Equal(got, want) {
			t.Errorf("runs of %d: merged differs from one stable sort", n)
		}
	}
}
