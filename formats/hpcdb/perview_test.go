package hpcdb

import (
	"sort"
	"strconv"
	"testing"
)

func TestLexicalOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 9, 10, 11, 99, 100, 101, 117, 1000, 4321} {
		got := lexicalOrder(n)
		want := make([]string, n)
		for i := range want {
			want[i] = strconv.Itoa(i) + ".csv"
		}
		sort.Strings(want)
		if len(got) != n {
			t.Fatalf("n=%d: %d names", n, len(got))
		}
		for i := range got {
			if strconv.Itoa(int(got[i]))+".csv" != want[i] {
				t.Fatalf("n=%d: position %d = %d, want %s", n, i, got[i], want[i])
			}
		}
	}
}
