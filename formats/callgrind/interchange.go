package callgrind

import (
	"strings"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// metrics are the events as interchange metrics: the file's integer
// counts, the unit taken from a "Name_(unit)" event name (Xdebug's
// Time_(10ns), Memory_(bytes)), else "count".
func metrics(events []string) []interchange.Metric {
	names := vfs.UniqueNames(events)
	out := make([]interchange.Metric, len(events))
	for i, e := range events {
		unit := "count"
		if a, b, ok := strings.Cut(e, "_("); ok && a != "" && strings.HasSuffix(b, ")") {
			unit = strings.TrimSuffix(b, ")")
		}
		out[i] = interchange.Metric{Name: names[i], Unit: unit}
	}
	return out
}

// graph is the call graph of the function table: functions by (name,
// file, object), calls with their inclusive costs. Calls still running
// when the part was dumped (count 0) are their caller's self cost, as
// in the tables. Code inlined from another file (fi=/fe=) that nothing
// calls is a call from the function it was inlined into, carrying its
// self cost and calls: the calls into that function carry it too.
func (m *model) graph() *interchange.Graph {
	t := m.table()
	g := &interchange.Graph{Metrics: metrics(t.Events)}
	for i, f := range t.Funcs {
		g.AddFunc(interchange.Frame{Name: t.Names.Name(f.Name), File: t.Names.Name(f.File), Module: t.Names.Name(f.Obj)}, t.Self(i)...)
	}
	for i, e := range t.Edges {
		if e.Count > 0 {
			g.AddEdge(int(e.Caller), int(e.Callee), t.EdgeCost(i)...)
		}
	}
	for i, f := range t.Funcs {
		if f.Host > 0 && !f.Called {
			g.AddEdge(int(f.Host-1), i, t.SelfPlusCalls(i)...)
		}
	}
	return g
}

func (m *model) tree() (*interchange.Tree, error) { return m.graph().Tree(), nil }

// addInterchange adds flame/ and profile.pb.gz.
func (m *model) addInterchange(dir *vfs.Dir, title string) {
	interchange.NewProfile(m.tree, title, []string{"hpcfs: callgrind " + title}, m.reporter).AddViews(dir)
}
