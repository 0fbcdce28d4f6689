package hpcdb

import (
	"math"
	"strings"
	"sync"
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

// ownState holds the <metric>_own values: a context's inclusive value
// less its children's in the tree. Exclusive values of a procedure repeat
// those of its lines and loops, so summing an _exc column counts them
// twice; the _own values of the tree's rows add up to the root's
// inclusive value.
type ownState struct {
	once sync.Once
	vals []float64 // numCtx × len(ownCols)
}

// ownValues returns the _own values, numCtx × len(ownCols()).
func (m *model) ownValues(d *db) []float64 {
	m.own.once.Do(func() {
		vals, _ := m.summaryValues(d)
		cols, _ := m.ownCols()
		nv, no := len(m.visible), len(cols)
		if no == 0 {
			return
		}
		own := make([]float64, m.numCtx*no)
		for _, r := range m.rows {
			ctx := int(r)
			if m.ctxNode[ctx] < 0 {
				continue
			}
			for k, j := range cols {
				own[ctx*no+k] += vals[ctx*nv+j]
				if p := m.parent[ctx]; p >= 0 {
					own[int(p)*no+k] -= vals[ctx*nv+j]
				}
			}
		}
		// What is left of a context whose children hold all of its
		// value is rounding noise of the sums, not a value.
		for ctx := 0; ctx < m.numCtx; ctx++ {
			for k, j := range cols {
				if math.Abs(own[ctx*no+k]) <= 1e-9*math.Abs(vals[ctx*nv+j]) {
					own[ctx*no+k] = 0
				}
			}
		}
		m.own.vals = own
	})
	return m.own.vals
}
