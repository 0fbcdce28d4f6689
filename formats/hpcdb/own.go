package hpcdb

import (
	"math"
	"strings"
)

// ownCols are the visible inclusive sums that get an <metric>_own
// column in cct.csv, with the name of that column. (A mean, minimum or
// maximum over profiles does not add up along the tree.)
func (m *model) ownCols() (cols []int, names []string) {
	for j, v := range m.visible {
		if v.inc && strings.HasSuffix(v.column, "_sum_inc") {
			cols = append(cols, j)
			names = append(names, strings.TrimSuffix(v.column, "_inc")+"_own")
		}
	}
	return cols, names
}

// ownValue is the <metric>_own value of visible column j at the listed
// context c of row i, whose value there is v: its inclusive value less its
// children's in the tree, subtracted in tree order. Exclusive values of a
// procedure repeat those of its lines and loops, so summing an _exc
// column counts them twice; the _own values of the tree's rows add up to
// the root's inclusive value. It is computed when rendered, not held: the
// sibling lists cost 4 bytes a context, a table of the values 8 bytes a
// context and column.
func (m *model) ownValue(r *sumReader, v float64, i, j int) (float64, error) {
	own := 0.0
	own += v // as a sum starting from 0: -0 becomes 0
	for k := m.firstChild(i); k >= 0; k = m.sibling[k] {
		w, err := r.value(int(k), j)
		if err != nil {
			return 0, err
		}
		own -= w
	}
	// What is left of a context whose children hold all of its value is
	// rounding noise of the sums, not a value.
	if math.Abs(own) <= 1e-9*math.Abs(v) {
		return 0, nil
	}
	return own, nil
}
