package webgrind

import (
	"strings"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// metric is the one cost of a preprocessed file, the first event, in a
// unit pprof knows (interchange.EventMetric: Xdebug's Time_(10ns) is
// Time_ns, x10; webgrind's Time is microseconds), with its factor.
func (p *profile) metric() (interchange.Metric, int64) {
	first, _, _ := strings.Cut(strings.TrimSpace(p.hdr.Get("events")), " ")
	switch first {
	case "":
		return interchange.Metric{Name: "cost", Unit: "count"}, 1
	case "Time":
		return interchange.Metric{Name: "Time", Unit: "microseconds"}, 1
	}
	return interchange.EventMetric(first)
}

// tree expands the call graph of the function table; a table cut short
// by damage gives the functions read before it, with the damage reported.
func (p *profile) tree() (*interchange.Tree, error) {
	g, err := p.graph()
	return g.Tree(), err
}

// graph is the call graph of the function table, as far as it reads.
func (p *profile) graph() (*interchange.Graph, error) {
	t := p.functions()
	m, factor := p.metric()
	f := []int64{factor}
	g := &interchange.Graph{Metrics: []interchange.Metric{m}}
	for _, fn := range t.fns {
		g.AddFunc(interchange.Frame{Name: fn.Name, File: fn.File, Line: int64(fn.Line)}, interchange.Scale([]int64{clamp(fn.Self)}, f)...)
	}
	rd := p.f.NewReader()
	err := t.err
	for i := range t.fns {
		sc, serr := p.subCalls(rd, i)
		if serr != nil {
			err = serr
			break
		}
		for _, c := range sc {
			if int(c.Function) < len(t.fns) {
				g.AddEdge(i, int(c.Function), interchange.Scale([]int64{clamp(c.Cost)}, f)...)
			}
		}
	}
	return g, err
}

func clamp(v uint64) int64 { return int64(min(v, 1<<62)) }

func (p *profile) addInterchange(dir *vfs.Dir, title string) {
	interchange.NewProfile(p.tree, title, []string{"hpcfs: webgrind " + title}).AddViews(dir)
}
