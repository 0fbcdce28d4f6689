package callgrind

import (
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// metrics are the events as interchange metrics in units pprof knows
// (interchange.EventMetric: Xdebug's Time_(10ns) is Time_ns, x10), with
// the factor of each.
func metrics(events []string) ([]interchange.Metric, []int64) {
	out := make([]interchange.Metric, len(events))
	factors := make([]int64, len(events))
	names := make([]string, len(events))
	for i, e := range events {
		out[i], factors[i] = interchange.EventMetric(e)
		names[i] = out[i].Name
	}
	for i, n := range render.FileNames(names) {
		out[i].Name = n
	}
	return out, factors
}

func (p *profile) metrics() []interchange.Metric {
	ms, _ := metrics(p.f.Header.Events)
	return ms
}

// graph is the call graph of the function table: functions by (name,
// file, object), calls with their inclusive costs. Calls still running
// when the part was dumped (count 0) are their caller's self cost, as
// in the tables. Code inlined from another file (fi=/fe=) that nothing
// calls is a call from the function it was inlined into, carrying its
// self cost and calls: the calls into that function carry it too.
func (m *model) graph() *interchange.Graph {
	t := m.table()
	ms, factors := metrics(t.Events)
	g := &interchange.Graph{Metrics: ms}
	for i, f := range t.Funcs {
		g.AddFunc(interchange.Frame{Name: t.Names.Name(f.Name), File: t.Names.Name(f.File), Module: t.Names.Name(f.Obj)}, interchange.Scale(t.Self(i), factors)...)
	}
	for i, e := range t.Edges {
		if e.Count > 0 {
			g.AddEdge(int(e.Caller), int(e.Callee), interchange.Scale(t.EdgeCost(i), factors)...)
		}
	}
	for i, f := range t.Funcs {
		if f.Host > 0 && !f.Called {
			g.AddEdge(int(f.Host-1), i, interchange.Scale(t.SelfPlusCalls(i), factors)...)
		}
	}
	return g
}

func (m *model) tree() (*interchange.Tree, error) { return m.graph().Tree(), nil }

// addInterchange adds flame/ and profile.pb.gz.
func (m *model) addInterchange(dir *vfs.Dir, title string) {
	interchange.NewProfile(m.tree, title, []string{"hpcfs: callgrind " + title}).AddViews(dir)
}
