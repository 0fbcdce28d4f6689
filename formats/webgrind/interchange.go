package webgrind

import (
	"strings"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// metric is the one cost of a preprocessed file: the first event, its
// unit taken from a "Name_(unit)" event name, else a count.
func (p *profile) metric() interchange.Metric {
	first, _, _ := strings.Cut(strings.TrimSpace(p.hdr.Get("events")), " ")
	if first == "" {
		return interchange.Metric{Name: "cost", Unit: "count"}
	}
	unit := "count"
	switch a, b, ok := strings.Cut(first, "_("); {
	case ok && a != "" && strings.HasSuffix(b, ")"):
		unit = strings.TrimSuffix(b, ")")
	case first == "Time":
		unit = "microseconds"
	}
	return interchange.Metric{Name: vfs.SafeName(first), Unit: unit}
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
	g := &interchange.Graph{Metrics: []interchange.Metric{p.metric()}}
	for _, fn := range t.fns {
		g.AddFunc(interchange.Frame{Name: fn.Name, File: fn.File, Line: int64(fn.Line)}, clamp(fn.Self))
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
				g.AddEdge(i, int(c.Function), clamp(c.Cost))
			}
		}
	}
	return g, err
}

func clamp(v uint64) int64 { return int64(min(v, 1<<62)) }

func (p *profile) addInterchange(dir *vfs.Dir, title string) {
	interchange.NewProfile(p.tree, title, []string{"hpcfs: webgrind " + title}, p.reporter).AddViews(dir)
}
