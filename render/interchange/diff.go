package interchange

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// A diff compares two runs of one format, each the sum of the profiles
// whose profile.pb.gz its source names as its run (vfs.Source.Run: the one
// at the root unless the format says otherwise). It reads their trees
// (the Profile behind each profile.pb.gz, shared with the source's own
// views) as that file's samples would give them, without rendering or
// parsing the file. both holds the runs in one tree: metric k of run A is
// metric k, of run B metric nm+k, so that a context present in one run
// only is still one row; delta holds B minus A, for the pprof profile (go
// tool pprof -diff_base builds the same sums).
type diff struct {
	a, b *vfs.Source

	once    sync.Once
	metrics []Metric
	both    *Tree
	delta   *Tree
	err     error
}

// DiffSource returns a source whose root holds a/ and b/ (the trees of
// the two sources) and diff/: their differences (DiffReadme).
func DiffSource(a, b *vfs.Source) (*vfs.Source, error) {
	if a.Format != b.Format {
		return nil, fmt.Errorf("a diff needs two sources of one format: %s is %s, %s is %s", a.Path, a.Format, b.Path, b.Format)
	}
	for _, s := range []*vfs.Source{a, b} {
		if _, err := runProfile(s, runOf(s)[0]); err != nil {
			return nil, fmt.Errorf("%s (%s): no profile.pb.gz at the root of its tree nor a run of profiles (a folder of several runs: mount the one to compare), nothing to compare", s.Path, s.Format)
		}
	}
	d := &diff{a: a, b: b}
	src := &vfs.Source{Format: a.Format, Version: a.Version + " | " + b.Version, Summary: "diff of " + a.Summary + " and " + b.Summary,
		Path: a.Path + " " + b.Path, Root: vfs.NewDir(), Errors: vfs.NewErrors()}
	if b.ModTime.After(a.ModTime) {
		src.ModTime = b.ModTime
	} else {
		src.ModTime = a.ModTime
	}
	src.OnClose(a)
	src.OnClose(b)
	src.Root.AddFile("README.txt", render.Bytes(d.readme, nil))
	src.Root.AddFile("_errors.txt", src.Errors.View())
	src.Root.Add("a", a.Root)
	src.Root.Add("b", b.Root)
	dir := src.Root.AddDir("diff")
	dir.AddFile("procedures.csv", d.proceduresTable().CSV())
	dir.AddFile("contexts.csv", d.contextsTable().CSV())
	dir.Add("flame", vfs.Lazy(d.flameEntries))
	deltaProfile := NewProfile(func() (*Tree, error) {
		if err := d.load(); err != nil {
			return nil, err
		}
		return d.delta, nil
	}, "diff", []string{"hpcfs: " + b.Path + " minus " + a.Path})
	for _, e := range deltaProfile.Entries() {
		if e.Name == "profile.pb.gz" {
			dir.Add(e.Name, e.Node)
		}
	}
	return src, nil
}

// runOf is the paths of the profiles whose sum is s's run.
func runOf(s *vfs.Source) []string {
	if len(s.Run) > 0 {
		return s.Run
	}
	return []string{"profile.pb.gz"}
}

// runProfile is the Profile behind s's profile.pb.gz at name; looking it
// up builds nothing.
func runProfile(s *vfs.Source, name string) (*Profile, error) {
	n, err := s.FS().Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Path, err)
	}
	if f, ok := n.(*vfs.File); ok {
		if p, ok := f.Origin.(*Profile); ok {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%s: %s is not a profile of hpcfs's", s.Path, name)
}

// runTrees are the trees of the profiles of s's run.
func runTrees(s *vfs.Source) ([]*Tree, error) {
	var out []*Tree
	for _, name := range runOf(s) {
		p, err := runProfile(s, name)
		if err != nil {
			return nil, err
		}
		t, err := p.tree()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Path, name, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// metricIndex is the index in t.Metrics of each metric (the first of
// its name), -1 for one t has not.
func metricIndex(t *Tree, metrics []Metric) []int {
	idx := make([]int, len(metrics))
	for k, m := range metrics {
		idx[k] = slices.IndexFunc(t.Metrics, func(tm Metric) bool { return tm.Name == m.Name })
	}
	return idx
}

// load reads both runs' trees and builds the diff's, once.
func (d *diff) load() error {
	d.once.Do(func() {
		ra, err := runTrees(d.a)
		if err != nil {
			d.err = err
			return
		}
		rb, err := runTrees(d.b)
		if err != nil {
			d.err = err
			return
		}
		// the metrics of A's first profile that B's has too, by name
		for _, m := range ra[0].Metrics {
			if slices.ContainsFunc(rb[0].Metrics, func(mb Metric) bool { return mb.Name == m.Name }) {
				d.metrics = append(d.metrics, m)
			}
		}
		if len(d.metrics) == 0 {
			d.err = errors.New("the two profiles have no metric in common")
			return
		}
		nm := len(d.metrics)
		d.both = NewTree(append(append([]Metric(nil), d.metrics...), d.metrics...))
		d.delta = NewTree(d.metrics)
		for _, t := range ra {
			d.add(t, 0, -1)
		}
		for _, t := range rb {
			d.add(t, nm, 1)
		}
		d.both.Done()
	})
	return d.err
}

// add adds t's exclusive values to both (as metrics off...) and, times
// sign, to delta. It visits t's nodes as profile.pb.gz lists its samples
// (preorder, nodes with a non-zero value of any metric, the root's under
// an [unattributed] frame) and makes each sample's stack from the frames
// pprof shows (name: the label, file, module), so that the trees are
// those that reading t's profile.pb.gz would make.
func (d *diff) add(t *Tree, off int, sign int64) {
	idx := metricIndex(t, d.metrics)
	nm := len(t.Metrics)
	ft := &t.frames
	var node column[int32] // t's node -> the diff trees' (their ids agree); -1 until made
	node.grow(t.Len())
	for i := 1; i < t.Len(); i++ {
		node.set(i, -1)
	}
	defer node.reset(nil)
	var up []int32
	var str []byte
	vals := make([]int64, nm)
	for i := range t.Len() {
		x := int32(i)
		nonzero := false
		for m := range vals {
			vals[m] = t.self(x, m)
			nonzero = nonzero || vals[m] != 0
		}
		if !nonzero {
			continue
		}
		n := Root
		if x == Root {
			f := Frame{Name: rootLabel}
			n = d.both.Child(Root, f)
			d.delta.Child(Root, f)
		} else {
			up = up[:0]
			for y := x; node.get(int(y)) < 0; y = t.parentOf(y) {
				up = append(up, y)
			}
			for i := len(up) - 1; i >= 0; i-- {
				y := up[i]
				fr := int(t.frameOf(y))
				f := Frame{Name: t.label(y)}
				str = t.strs.appendBytes(str[:0], ft.file.get(fr))
				f.File = string(str)
				str = t.strs.appendBytes(str[:0], ft.module.get(fr))
				f.Module = string(str)
				parent := node.get(int(t.parentOf(y)))
				node.set(int(y), d.both.Child(parent, f))
				d.delta.Child(parent, f)
			}
			n = node.get(int(x))
		}
		for k, i := range idx {
			if i < 0 {
				continue
			}
			d.both.Add(n, off+k, vals[i])
			d.delta.Add(n, k, sign*vals[i])
		}
	}
}

// addDelta adds the cells a, b, b_minus_a and b_over_a (empty when a
// is 0) to row.
func addDelta(row *render.Row, a, b int64) {
	row.Int(a).Int(b).Int(b - a)
	if a != 0 {
		row.Float(float64(b) / float64(a))
	} else {
		row.Empty()
	}
}

// deltaColumns are the columns of both diff tables after their first.
var deltaColumns = []render.Column{{Name: "metric"},
	{Name: "a_inc", Kind: render.Int}, {Name: "b_inc", Kind: render.Int}, {Name: "b_minus_a_inc", Kind: render.Int}, {Name: "b_over_a_inc", Kind: render.Float},
	{Name: "a_exc", Kind: render.Int}, {Name: "b_exc", Kind: render.Int}, {Name: "b_minus_a_exc", Kind: render.Int}, {Name: "b_over_a_exc", Kind: render.Float}}

// deltaTable is a table of first, then deltaColumns, with a row per
// item and metric: rows (called once, after d.load) gives the number of
// items and a maker of row fills (one per scanner, which keeps its
// scratch), whose fill(i, k, row) is item i's row of metric k.
func (d *diff) deltaTable(first []render.Column, rows func() (int, func() func(i, k int, row *render.Row))) *render.Table {
	var once sync.Once
	var n int
	var newFill func() func(i, k int, row *render.Row)
	return &render.Table{Columns: append(first, deltaColumns...), Open: func(pos []byte) (render.Scanner, error) {
		if err := d.load(); err != nil {
			return nil, err
		}
		once.Do(func() { n, newFill = rows() })
		fill := newFill()
		nm := int64(len(d.metrics))
		return render.Counted(int64(n)*nm, func(i int64, row *render.Row) error {
			fill(int(i/nm), int(i%nm), row)
			return nil
		})(pos)
	}}
}

// proceduresTable: per procedure and metric its inclusive and exclusive
// values in each run (as bottom-up.csv's depth-0 rows) and their change;
// procedures by decreasing size of the first metric's inclusive change.
func (d *diff) proceduresTable() *render.Table {
	return d.deltaTable([]render.Column{{Name: "function"}}, func() (int, func() func(i, k int, row *render.Row)) {
		nm := len(d.metrics)
		t := d.both
		labels, vals := procedureTotals(t)
		procs := make([]int32, len(labels))
		for i := range procs {
			procs[i] = int32(i)
		}
		v := func(x int32, k int, exc bool) int64 {
			i := 2 * k
			if exc {
				i++
			}
			return vals[int(x)*4*nm+i]
		}
		appendName := func(dst []byte, x int32) []byte { return t.strs.appendBytes(dst, labels[x]) }
		name := func(x int32) string { return string(appendName(nil, x)) }
		change := func(x int32) int64 { return abs(v(x, nm, false) - v(x, 0, false)) }
		// by decreasing change, then by name (each run of equal changes
		// read once: the names may be in a file)
		slices.SortFunc(procs, func(x, y int32) int { return cmp.Compare(change(y), change(x)) })
		var byName byBytes
		byName.sortRuns(procs, func(x, y int32) bool { return change(x) == change(y) }, appendName)
		return len(procs), func() func(i, k int, row *render.Row) {
			return func(i, k int, row *render.Row) {
				x := procs[i]
				row.Str(name(x)).Str(d.metrics[k].Name)
				addDelta(row, v(x, k, false), v(x, nm+k, false))
				addDelta(row, v(x, k, true), v(x, nm+k, true))
			}
		}
	})
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// contextsTable: per calling context (folded path, in preorder) and
// metric the values of both runs and their change.
func (d *diff) contextsTable() *render.Table {
	return d.deltaTable([]render.Column{{Name: "path"}, {Name: "depth", Kind: render.Int}}, func() (int, func() func(i, k int, row *render.Row)) {
		t, nm := d.both, len(d.metrics)
		inc := make([]*int64s, 2*nm)
		for k := range inc {
			inc[k] = t.inclusive(k)
		}
		return t.Len() - 1, func() func(i, k int, row *render.Row) {
			var scratch []int32
			var stack []byte
			return func(i, k int, row *render.Row) {
				x := int32(1 + i)
				stack = t.appendStack(stack[:0], x, ';', &scratch)
				row.Str(string(stack)).Int(int64(t.depthOf(x))).Str(d.metrics[k].Name)
				addDelta(row, inc[k].get(int(x)), inc[nm+k].get(int(x)))
				addDelta(row, t.self(x, k), t.self(x, nm+k))
			}
		}
	})
}

// flameEntries are diff/flame/<metric>.folded (Brendan Gregg's
// differential folded stacks, "stack a b", as difffolded.pl writes them)
// and <metric>.svg (B's flame graph coloured by the change).
func (d *diff) flameEntries() []vfs.Entry {
	if d.load() != nil {
		return nil
	}
	var out []vfs.Entry
	for k, name := range flameNames(d.metrics) {
		out = append(out,
			vfs.Entry{Name: name + ".folded", Node: vfs.NewFile(render.Stream(&foldedGen{tree: d.bothTree, m: k, b: len(d.metrics) + k}, nil))},
			vfs.Entry{Name: name + ".svg", Node: vfs.NewFile(render.Bytes(pinned(func() ([]byte, error) { return d.svg(k), nil }), nil))})
	}
	return out
}

// bothTree is the tree of both runs, once loaded.
func (d *diff) bothTree() (*Tree, error) {
	if err := d.load(); err != nil {
		return nil, err
	}
	return d.both, nil
}

// svg draws run B's flame graph; a frame whose inclusive value grew is
// red, one that shrank blue, the deeper the larger the change relative
// to the largest change of any frame (white: unchanged), as
// flamegraph.pl draws differential folded stacks.
func (d *diff) svg(k int) []byte {
	t, nm := d.both, len(d.metrics)
	ia, ib := t.inclusive(k), t.inclusive(nm+k)
	defer ia.reset(nil)
	defer ib.reset(nil)
	var most int64
	for x := range ia.Len() {
		most = max(most, abs(ib.get(x)-ia.get(x)))
	}
	fill := func(x int32) string {
		delta := ib.get(int(x)) - ia.get(int(x))
		if most == 0 || delta == 0 {
			return "rgb(255,255,255)"
		}
		c := strconv.Itoa(int(math.Round(210 * (1 - float64(abs(delta))/float64(most)))))
		if delta > 0 {
			return "rgb(255," + c + "," + c + ")"
		}
		return "rgb(" + c + "," + c + ",255)"
	}
	title := d.metrics[k].Name + " (" + d.metrics[k].Unit + "): " + d.b.Path + " against " + d.a.Path +
		" (red: grew, blue: shrank)"
	return svgDraw(t, nm+k, title, fill)
}

// readme is the root README.txt of a diff mount.
func (d *diff) readme() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "hpcfs: the difference of two %s sources\n\n", d.a.Format)
	fmt.Fprintf(&b, "a  %s (%s)\nb  %s (%s)\n\n", d.a.Path, d.a.Version, d.b.Path, d.b.Version)
	for _, s := range []struct {
		side string
		src  *vfs.Source
	}{{"a", d.a}, {"b", d.b}} {
		run := runOf(s.src)
		fmt.Fprintf(&b, "run %s: the sum of %d profile(s): %s/%s", s.side, len(run), s.side, run[0])
		if len(run) > 1 {
			fmt.Fprintf(&b, " ... %s/%s", s.side, run[len(run)-1])
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	b.WriteString(DiffReadme())
	return []byte(b.String()), nil
}

// DiffReadme describes the tree of a diff mount.
func DiffReadme() string {
	return `Files
  README.txt           this text
  _errors.txt          problems of the comparison (each run's own are in a/ and b/)
  a/, b/               the two sources, each as hpcfs mounts it alone (README.txt inside)
  diff/                run b against run a, each the sum of its run's profile.pb.gz files
                       (listed above): the one at the root of a database, trace, single
                       profile or DCPI source (all its profiles' samples, a metric per
                       event); every per-thread/rank profile of an hpcrun measurement
                       directory; sum/ of a callgrind run in parts or threads; the one
                       profile of a folder holding one. A folder of several unrelated
                       profiles has no run: mount the two files to compare. Contexts are
                       matched by their stack of frame names (flame/'s), so a context
                       found in one run only has 0 in the other
    procedures.csv     function,metric,a_inc,b_inc,b_minus_a_inc,b_over_a_inc,a_exc,
                       b_exc,b_minus_a_exc,b_over_a_exc: per procedure and metric, its
                       values in each run as bottom-up.csv counts them, the change and the
                       ratio (empty when a is 0); largest inclusive change of the first
                       metric first
    contexts.csv       path,depth,metric, then the same columns: per calling context
                       (path root;...;leaf, in preorder) and metric
    procedures.parquet, contexts.parquet  the same tables in Parquet
    flame/<metric>.folded  differential folded stacks "root;...;leaf A B" (exclusive
                       values of each run, as difffolded.pl writes them: flamegraph.pl
                       draws them red/blue)
    flame/<metric>.svg     run b's flame graph, each frame red when its inclusive value grew,
                       blue when it shrank (the deeper, the larger the change), white when
                       unchanged
    profile.pb.gz      pprof profile of b minus a: go tool pprof -top shows the net total
                       and the flat and cum values of
                       go tool pprof -top -diff_base=a/profile.pb.gz b/profile.pb.gz
                       (a run of several profiles merged first: go tool pprof -proto
                       a/*/profile.pb.gz > a.pb.gz; its percentages divide by the sum of
                       both runs instead)
`
}
