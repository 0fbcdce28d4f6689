// Package interchange renders the views that standard tools open
// unchanged, for any format: Brendan Gregg's folded stacks and a flame
// graph SVG per metric, a pprof profile, and Chrome Trace Event JSON.
//
// A format supplies a small adapter. For profiles it builds a Tree (a
// calling-context tree with exclusive integer values per metric) once, on
// first use of a view; for call graphs without contexts (callgrind,
// webgrind) Graph.Tree expands one. For traces it implements Trace, a
// resumable event reader per thread, so trace.json streams with an exact
// size through render's checkpoints whatever the trace's size.
package interchange

import (
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// A Profile is the tree of one source, built once on first use.
type Profile struct {
	build    func() (*Tree, error)
	title    string
	comment  []string
	buildErr buildError // the build's data error, shared by every view

	once     sync.Once
	t        *Tree
	err      error
	comments []int32 // string ids of comments

	planOnce sync.Once
	plan     *pprofPlan
}

// NewProfile returns a profile whose tree build makes on first use. A
// data error from build is reported once, through the binding of the
// profile's profile.pb.gz (the view of the whole tree, whichever view
// built it), and the tree it returned with it is used; any other error
// fails the views. A view that ends on a data error of its own reports it
// through its binding, under its path. title heads the flame graphs;
// comments go into the pprof profile.
func NewProfile(build func() (*Tree, error), title string, comments []string) *Profile {
	return &Profile{build: build, title: title, comment: comments}
}

// A buildError reports the tree build's data error once through the
// binding it is given, whichever of the two comes first: a tree read
// before its source is bound (a diff reading its runs) still reports.
type buildError struct {
	mu       sync.Mutex
	report   func(error)
	err      error
	reported bool
}

func (b *buildError) bind(report func(error)) {
	b.mu.Lock()
	b.report = report
	b.mu.Unlock()
	b.flush()
}

func (b *buildError) set(err error) {
	b.mu.Lock()
	b.err = err
	b.mu.Unlock()
	b.flush()
}

func (b *buildError) flush() {
	b.mu.Lock()
	report, err := b.report, b.err
	ready := report != nil && err != nil && !b.reported
	b.reported = b.reported || ready
	b.mu.Unlock()
	if ready {
		report(err)
	}
}

func (p *Profile) tree() (*Tree, error) {
	p.once.Do(func() {
		t, err := p.build()
		if err != nil && t != nil && render.IsDataError(err) {
			p.buildErr.set(err)
			err = nil
		}
		if t == nil && err == nil {
			t = NewTree(nil)
		}
		if t != nil {
			p.comments = t.intern(p.comment)
			t.Done()
		}
		p.t, p.err = t, err
	})
	return p.t, p.err
}

// AddViews adds the profile's views (Entries) to dir.
func (p *Profile) AddViews(dir *vfs.Dir) {
	for _, e := range p.Entries() {
		dir.Add(e.Name, e.Node)
	}
}

// Entries are flame/ (listed on first use: listing builds the tree),
// profile.pb.gz (its node's Origin is p, for DiffSource), bottom-up.csv
// and callers/.
func (p *Profile) Entries() []vfs.Entry {
	pb := render.Stream(&pprofGen{p: p}, nil)
	bu := &bottomUpViews{p: p}
	return []vfs.Entry{{Name: "flame", Node: vfs.Lazy(p.flameEntries)}, {Name: "profile.pb.gz", Node: &vfs.File{View: pb, Origin: p}},
		{Name: "bottom-up.csv", Node: vfs.NewFile(bu.csv())}, {Name: "callers", Node: vfs.LazyIndexed(bu.callers)}}
}

// pprofPlan is the profile's pprofPlan, made on first use.
func (p *Profile) pprofPlan() (*pprofPlan, error) {
	t, err := p.tree()
	if err != nil {
		return nil, err
	}
	p.planOnce.Do(func() { p.plan = newPprofPlan(t, p.comments) })
	return p.plan, nil
}

func (p *Profile) flameEntries() []vfs.Entry {
	t, err := p.tree()
	if err != nil {
		return nil
	}
	var out []vfs.Entry
	for i, name := range flameNames(t.Metrics) {
		m := i
		out = append(out,
			vfs.Entry{Name: name + ".folded", Node: vfs.NewFile(render.Stream(&foldedGen{tree: p.tree, m: m, b: -1}, nil))},
			vfs.Entry{Name: name + ".svg", Node: vfs.NewFile(render.Bytes(pinned(func() ([]byte, error) {
				b := svgBytes(t, m, p.title+" — "+t.Metrics[m].Name+" ("+t.Metrics[m].Unit+")")
				return b, t.Err()
			}), nil))})
	}
	return out
}

// flameNames are the file names of the metrics' flame graphs (without
// extension): snake_case (render.Name), each once.
func flameNames(metrics []Metric) []string {
	u := render.NewUniquer()
	out := make([]string, len(metrics))
	for i, m := range metrics {
		out[i] = u.Unique(render.Name(m.Name, "metric"))
	}
	return out
}

// pinned renders fn once and keeps its bytes: an SVG cannot resume from a
// checkpoint, and render.Bytes alone would render such a view again on
// every read once it outgrows the shared cache. The bytes live as long as
// the view; they are the pruned picture, smaller than the tree it comes
// from.
func pinned(fn func() ([]byte, error)) func() ([]byte, error) {
	var once sync.Once
	var b []byte
	var err error
	return func() ([]byte, error) {
		once.Do(func() { b, err = fn() })
		return b, err
	}
}

// AddTraceViews adds trace.json (every track), trace.pftrace (the same in
// Perfetto's protobuf form) and trace/<track>.json (one each) to dir, and
// when trace.json is larger than the window limit, trace/window-<k>.json
// and trace/window-<k>.pftrace (time windows, planWindows, for the mount's
// Options.WindowLimit). Tracks are asked for on first use only. Each view
// is indexed under the key the tree binds it with (its path, the source's
// inputs and the window limit), so that a second mount knows sizes and
// checkpoints at once, and reports the data error that ends it to
// _errors.txt under its path (the tree's Binding: no reporter is passed).
func AddTraceViews(dir *vfs.Dir, tr Trace) {
	all := render.Stream(&traceGen{tr: tr, one: -1}, nil)
	dir.AddFile("trace.json", all)
	dir.AddFile("trace.pftrace", render.Stream(&traceGen{tr: tr, one: -1, pf: true}, nil))
	dir.Add("summary", summaryDir(tr))
	dir.Add("trace", vfs.LazyOptions(func(o render.Options) []vfs.Entry {
		tracks := tr.Tracks()
		var names []string
		for _, t := range tracks {
			names = append(names, t.File+".json")
		}
		var wins []*window
		if size, err := all.Size(); err == nil && size > windowLimit(o) {
			wins = planWindows(tr, windowLimit(o))
		}
		for _, w := range wins {
			names = append(names, windowName(w.k, w.n)+".json", windowName(w.k, w.n)+".pftrace")
		}
		names = render.FileNames(names)
		var out []vfs.Entry
		for i, name := range names {
			g := &traceGen{tr: tr, one: i}
			if i >= len(tracks) {
				w := wins[(i-len(tracks))/2]
				g = &traceGen{tr: tr, one: -1, win: w, pf: (i-len(tracks))%2 == 1}
			}
			out = append(out, vfs.Entry{Name: name, Node: vfs.NewFile(render.Stream(g, nil))})
		}
		return out
	}))
}

// ProfileReadme describes flame/ and profile.pb.gz for a README.txt, with
// the metrics and their units when known (nil: not listed).
func ProfileReadme(metrics []Metric) string {
	var b strings.Builder
	b.WriteString(`Interchange views of the calling-context tree:
  flame/<metric>.folded  Brendan Gregg's folded stacks ("root;...;leaf VALUE"), one line
                         per distinct stack, EXCLUSIVE integer values: they add up to the
                         root's inclusive total (flamegraph.pl, speedscope, inferno read it)
  flame/<metric>.svg     that flame graph as an SVG picture (click to zoom, Search box)
  profile.pb.gz          pprof profile, one sample type per metric: go tool pprof -top,
                         -traces, -http; totals equal the CSV totals
  bottom-up.csv          hpcviewer's Bottom-up view: function,depth,caller,path and
                         <metric>_inc,<metric>_exc per metric. Per procedure (a frame of the
                         flame graphs) a row of depth 0 with its totals, then its callers
                         (depth 1), their callers (depth 2), ... up to depth ` + strconv.Itoa(BottomUpLevels) + `, each
                         with the procedure's cost attributed through that call path (fewer
                         levels when one more would take the table past ` + strconv.Itoa(maxBottomUpRows) + ` rows) (path:
                         the procedure, then the callers, joined by ';'); [root] is "called
                         from the top of the tree". The rows right under a row add up to it.
                         Exclusive values count every context of the procedure, inclusive
                         ones its outermost contexts only (a recursive procedure once per
                         path); costs at the tree's root itself are left out. Procedures and
                         callers in decreasing order of the first metric's inclusive value
  callers/<procedure>.csv  caller and the values: the depth-1 rows of bottom-up.csv of one
                         procedure (go tool pprof -peek shows the same)
`)
	if len(metrics) > 0 {
		b.WriteString("  metrics (name: integral unit):\n")
		for _, m := range metrics {
			b.WriteString("    " + m.Name + ": " + m.Unit + "\n")
		}
	}
	return b.String()
}

// TraceReadme describes trace.json and trace/ for a README.txt.
func TraceReadme() string {
	return `Interchange views of the trace (Chrome Trace Event JSON, for ui.perfetto.dev,
chrome://tracing and speedscope):
  trace.json             every thread: one pid per process or rank, one tid per thread;
                         ts and dur in microseconds with the nanosecond digits kept
  trace.pftrace          the same tracks and events as a Perfetto protobuf trace (smaller,
                         loads faster in ui.perfetto.dev and trace_processor; times in ns)
  trace/window-<k>.json  only when trace.json is larger than the window limit (hpcfs
                         --trace-window-limit, ` + strconv.FormatInt(DefaultWindowLimit, 10) + ` bytes unless set): every thread in
                         consecutive time windows of one span, the longest for which each
                         window's events come to at most that size (a window can exceed it
                         when the events of 1/4096 of the trace's time do); "otherData"
                         gives its start_us and end_us.
                         An X event crossing a window's edge is clipped to each window it
                         overlaps, so its parts add up to its duration in trace.json.
  trace/window-<k>.pftrace
                         the same window as a Perfetto protobuf trace
  trace/<thread>.json    one thread each, for traces larger than a viewer loads
                         (chrome://tracing stops near 256 MB, Perfetto's UI near 2 GB)
Summaries of the same events (t_ns counts from trace.json's origin; a region is an
event name, a state or a procedure, as trace.json names it):
  summary/regions.csv    pid,tid,thread,name,category,count,duration_ns_inc,duration_ns_exc:
                         per thread and region, how many events, their total time, and
                         that time less the time of the events nested in them (instant
                         events count, with no time); threads in trace.json's order, each
                         thread's longest regions first
  summary/time-profile.csv  bin,t_ns,end_t_ns,name,category,duration_ns_exc: the time from
                         0 to the last event's end in ` + strconv.Itoa(TimeBins) + ` equal bins; per bin and region
                         the exclusive time all threads spent in it within the bin (as
                         pipit's time_profile, in long form; cells of 0 left out)
  Both read every event once, on first use; their sums are kept beside the on-disk
  index (--index-dir), so a later mount of the same unchanged trace serves them at once
`
}
