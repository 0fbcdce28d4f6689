package hpcdb

import (
	"cmp"
	"slices"
)

// txtOrder is cct.txt's order of the tree's contexts: depth first, the
// children of each context by descending inclusive value of the first
// visible inclusive metric, as hpcviewer shows them and as hpcrun's
// cct.txt lists them; equal values keep tree order. It is made once, on
// the first render of cct.txt: 4 bytes a context are kept, about 24 more
// while it is made.
func (m *model) txtOrder(d *db) ([]int32, error) {
	m.orderOnce.Do(func() { m.order, m.orderErr = m.makeTxtOrder(d) })
	return m.order, m.orderErr
}

func (m *model) makeTxtOrder(d *db) ([]int32, error) {
	rows := m.rows[:m.numListed]
	n := len(rows)
	rowOf := make([]int32, m.numCtx)
	for i, c := range rows {
		rowOf[c] = int32(i)
	}
	// children of row i, in tree order: kids[start[i]:start[i+1]]
	start := make([]int32, n+1)
	parentRow := func(i int) int32 {
		if p := m.parent[rows[i]]; i > 0 && p >= 0 {
			return rowOf[p]
		}
		return -1
	}
	var roots []int32
	for i := range rows {
		if p := parentRow(i); p >= 0 {
			start[p+1]++
		} else {
			roots = append(roots, int32(i))
		}
	}
	for i := range n {
		start[i+1] += start[i]
	}
	kids := make([]int32, start[n])
	next := slices.Clone(start[:n])
	for i := range rows {
		if p := parentRow(i); p >= 0 {
			kids[next[p]] = int32(i)
			next[p]++
		}
	}
	key := make([]float64, n)
	if inc, _ := m.firstPair(); inc >= 0 {
		r := m.sumReader(d)
		for i, c := range rows {
			v, err := r.value(int(c), inc)
			if err != nil {
				return nil, err
			}
			key[i] = v
		}
	}
	byValue := func(a, b int32) int { return cmp.Compare(key[b], key[a]) }
	order := make([]int32, 0, n)
	seen := make([]bool, n)
	slices.SortStableFunc(roots, byValue)
	stack := slices.Clone(roots)
	slices.Reverse(stack)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[i] {
			continue
		}
		seen[i] = true
		order = append(order, rows[i])
		ks := kids[start[i]:start[i+1]]
		slices.SortStableFunc(ks, byValue)
		for k := len(ks) - 1; k >= 0; k-- {
			stack = append(stack, ks[k])
		}
	}
	return order, nil
}
