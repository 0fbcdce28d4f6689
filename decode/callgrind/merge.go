package callgrind

// Merge sums tables the way callgrind_annotate sums several files:
// functions are matched by (file, name), call edges by caller, callee and
// call site, events by name (a table without an event adds nothing to it).
// The result has its own Names; its Header is the first table's, without
// summary and totals.
func Merge(tables []*Table) *Table {
	m := &Table{Names: newNames(), fnIndex: map[uint64]int32{}, edgeIndex: map[edgeKey]int32{}}
	evIndex := map[string]int{}
	for _, t := range tables {
		for _, e := range t.Events {
			if _, ok := evIndex[e]; !ok {
				evIndex[e] = len(m.Events)
				m.Events = append(m.Events, e)
			}
		}
	}
	if len(tables) > 0 {
		m.Header = tables[0].Header
		m.Header.Summary, m.Header.Totals = nil, nil
	}
	m.Header.Events = m.Events
	ne := len(m.Events)
	m.LineTotals = make([]int64, ne)
	for _, t := range tables {
		tne := len(t.Events)
		col := make([]int, tne)
		for k, e := range t.Events {
			col[k] = evIndex[e]
		}
		nr := make([]int32, len(t.Funcs))
		for i, f := range t.Funcs {
			j := m.fn(m.Names.intern(t.Names.Name(f.File)), m.Names.intern(t.Names.Name(f.Name)))
			nr[i] = j
			mf := &m.Funcs[j]
			if mf.Obj == 0 {
				mf.Obj = m.Names.intern(t.Names.Name(f.Obj))
			}
			mf.Called = mf.Called || f.Called
			mf.Calls += f.Calls
			src := t.costs[i*3*tne : (i+1)*3*tne]
			dst := m.costs[int(j)*3*ne : (int(j)+1)*3*ne]
			for g := 0; g < 3; g++ {
				for k := 0; k < tne; k++ {
					dst[g*ne+col[k]] += src[g*tne+k]
				}
			}
		}
		for i, f := range t.Funcs {
			if f.Host > 0 && m.Funcs[nr[i]].Host == 0 {
				m.Funcs[nr[i]].Host = nr[f.Host-1] + 1
			}
		}
		for i, e := range t.Edges {
			k := edgeKey{nr[e.Caller], nr[e.Callee], e.Line, e.Instr}
			x, ok := m.edgeIndex[k]
			if !ok {
				x = int32(len(m.Edges))
				m.edgeIndex[k] = x
				m.Edges = append(m.Edges, Edge{Caller: k.caller, Callee: k.callee, Line: e.Line, Instr: e.Instr})
				m.edgeCosts = append(m.edgeCosts, make([]int64, ne)...)
			}
			m.Edges[x].Count += e.Count
			for c, v := range t.EdgeCost(i) {
				m.edgeCosts[int(x)*ne+col[c]] += v
			}
		}
		for k, v := range t.LineTotals {
			m.LineTotals[col[k]] += v
		}
		m.CostLines += t.CostLines
		m.CallLines += t.CallLines
		m.JumpLines += t.JumpLines
		m.Parts += t.Parts
	}
	m.Names.frozen = true
	m.edgeIndex = nil
	m.byName = nil
	return m
}
