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
// file, object), calls with their inclusive costs.
func (m *model) graph() (*interchange.Tree, error) {
	t := m.table()
	g := &interchange.Graph{Metrics: metrics(t.Events)}
	for i, f := range t.Funcs {
		g.AddFunc(interchange.Frame{Name: t.Names.Name(f.Name), File: t.Names.Name(f.File), Module: t.Names.Name(f.Obj)}, t.Self(i)...)
	}
	for i, e := range t.Edges {
		g.AddEdge(int(e.Caller), int(e.Callee), t.EdgeCost(i)...)
	}
	return g.Tree(), nil
}

// addInterchange adds flame/ and profile.pb.gz.
func (m *model) addInterchange(dir *vfs.Dir, title string) {
	interchange.NewProfile(m.graph, title, []string{"hpcfs: callgrind " + title}, m.reporter).AddViews(dir)
}
