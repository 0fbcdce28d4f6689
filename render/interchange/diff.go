package interchange

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/pprof/profile"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// A diff compares two runs of one format, each the sum of the profile.pb.gz
// files its source names as its run (vfs.Source.Run: the one at the root
// unless the format says otherwise). both holds them in one tree: metric k of
// run A is metric k, of run B metric nm+k, so that a context present in
// one run only is still one row; delta holds B minus A, for the pprof
// profile (go tool pprof -diff_base builds the same sums).
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
		if _, err := fs.Stat(s.FS(), runOf(s)[0]); err != nil {
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
	report := src.Errors.Reporter
	dir.AddFile("procedures.csv", d.proceduresTable().SmallCSV(report("diff/procedures.csv")))
	dir.AddFile("contexts.csv", d.contextsTable().SmallCSV(report("diff/contexts.csv")))
	dir.Add("flame", vfs.Lazy(d.flameEntries))
	deltaProfile := NewProfile(func() (*Tree, error) {
		if err := d.load(); err != nil {
			return nil, err
		}
		return d.delta, nil
	}, "diff", []string{"hpcfs: " + b.Path + " minus " + a.Path}, report)
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

// readRun reads the profiles of s's run.
func readRun(s *vfs.Source) ([]*profile.Profile, error) {
	var out []*profile.Profile
	for _, name := range runOf(s) {
		b, err := fs.ReadFile(s.FS(), name)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Path, name, err)
		}
		p, err := profile.Parse(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Path, name, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// typeIndex is the index in p's sample values of each metric (by name),
// -1 for one p has not.
func typeIndex(p *profile.Profile, metrics []Metric) []int {
	idx := make([]int, len(metrics))
	for k, m := range metrics {
		idx[k] = slices.IndexFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == m.Name })
	}
	return idx
}

// load reads both profiles and builds the trees, once.
func (d *diff) load() error {
	d.once.Do(func() {
		ra, err := readRun(d.a)
		if err != nil {
			d.err = err
			return
		}
		rb, err := readRun(d.b)
		if err != nil {
			d.err = err
			return
		}
		// the sample types of A's first profile that B's has too, by name
		for _, st := range ra[0].SampleType {
			if slices.ContainsFunc(rb[0].SampleType, func(sb *profile.ValueType) bool { return sb.Type == st.Type }) {
				d.metrics = append(d.metrics, Metric{Name: st.Type, Unit: st.Unit})
			}
		}
		if len(d.metrics) == 0 {
			d.err = errors.New("the two profiles have no metric in common")
			return
		}
		nm := len(d.metrics)
		d.both = NewTree(append(append([]Metric(nil), d.metrics...), d.metrics...))
		d.delta = NewTree(d.metrics)
		add := func(p *profile.Profile, off int, sign int64) {
			idx := typeIndex(p, d.metrics)
			var path []Frame
			for _, s := range p.Sample {
				path = path[:0]
				for i := len(s.Location) - 1; i >= 0; i-- {
					loc := s.Location[i]
					module := ""
					if loc.Mapping != nil {
						module = loc.Mapping.File
					}
					for j := len(loc.Line) - 1; j >= 0; j-- {
						f := Frame{Module: module}
						if fn := loc.Line[j].Function; fn != nil {
							f.Name, f.File = fn.Name, fn.Filename
						}
						path = append(path, f)
					}
					if len(loc.Line) == 0 {
						path = append(path, Frame{Name: "0x" + strconv.FormatUint(loc.Address, 16), Module: module, Addr: loc.Address})
					}
				}
				nb, nd := Root, Root
				for _, f := range path {
					nb, nd = d.both.Child(nb, f), d.delta.Child(nd, f)
				}
				for k, i := range idx {
					if i < 0 || i >= len(s.Value) {
						continue
					}
					d.both.Add(nb, off+k, s.Value[i])
					d.delta.Add(nd, k, sign*s.Value[i])
				}
			}
		}
		for _, p := range ra {
			add(p, 0, -1)
		}
		for _, p := range rb {
			add(p, nm, 1)
		}
		d.both.Done()
	})
	return d.err
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
// item and metric: rows (after d.load) gives the number of items and
// the fill of item i's row of metric k.
func (d *diff) deltaTable(first []render.Column, rows func() (int, func(i, k int, row *render.Row))) *render.Table {
	return &render.Table{Columns: append(first, deltaColumns...), Open: func(pos []byte) (render.Scanner, error) {
		if err := d.load(); err != nil {
			return nil, err
		}
		n, fill := rows()
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
	return d.deltaTable([]render.Column{{Name: "function"}}, func() (int, func(i, k int, row *render.Row)) {
		nm := len(d.metrics)
		bu := newBottomUp(d.both)
		var procs []int32
		for x := range bu.label {
			if bu.level[x] == 0 {
				procs = append(procs, int32(x))
			}
		}
		v := func(x int32, k int, exc bool) int64 {
			i := 2 * k
			if exc {
				i++
			}
			return bu.vals[int(x)*4*nm+i]
		}
		change := func(x int32) int64 { return v(x, nm, false) - v(x, 0, false) }
		slices.SortFunc(procs, func(x, y int32) int {
			ax, ay := abs(change(x)), abs(change(y))
			if ax != ay {
				if ax > ay {
					return -1
				}
				return 1
			}
			return strings.Compare(bu.name(x), bu.name(y))
		})
		return len(procs), func(i, k int, row *render.Row) {
			x := procs[i]
			row.Str(bu.name(x)).Str(d.metrics[k].Name)
			addDelta(row, v(x, k, false), v(x, nm+k, false))
			addDelta(row, v(x, k, true), v(x, nm+k, true))
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
	return d.deltaTable([]render.Column{{Name: "path"}, {Name: "depth", Kind: render.Int}}, func() (int, func(i, k int, row *render.Row)) {
		t, nm := d.both, len(d.metrics)
		inc := make([][]int64, 2*nm)
		for k := range inc {
			inc[k] = t.inclusive(k)
		}
		var scratch []int32
		var stack []byte
		return len(t.order) - 1, func(i, k int, row *render.Row) {
			x := t.order[1+i]
			stack = t.appendStack(stack[:0], x, ';', &scratch)
			row.Str(string(stack)).Int(int64(t.depth[x])).Str(d.metrics[k].Name)
			addDelta(row, inc[k][x], inc[nm+k][x])
			addDelta(row, t.self(x, k), t.self(x, nm+k))
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
			vfs.Entry{Name: name + ".folded", Node: vfs.NewFile(render.Bytes(func() ([]byte, error) { return d.folded(k), nil }, nil))},
			vfs.Entry{Name: name + ".svg", Node: vfs.NewFile(render.Bytes(pinned(func() ([]byte, error) { return d.svg(k), nil }), nil))})
	}
	return out
}

func (d *diff) folded(k int) []byte {
	t, nm := d.both, len(d.metrics)
	var b []byte
	var scratch []int32
	for _, x := range t.order[1:] {
		va, vb := t.self(x, k), t.self(x, nm+k)
		if va == 0 && vb == 0 {
			continue
		}
		b = t.appendStack(b, x, ';', &scratch)
		b = append(b, ' ')
		b = strconv.AppendInt(b, va, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, vb, 10)
		b = append(b, '\n')
	}
	return b
}

// svg draws run B's flame graph; a frame whose inclusive value grew is
// red, one that shrank blue, the deeper the larger the change relative
// to the largest change of any frame (white: unchanged), as
// flamegraph.pl draws differential folded stacks.
func (d *diff) svg(k int) []byte {
	t, nm := d.both, len(d.metrics)
	ia, ib := t.inclusive(k), t.inclusive(nm+k)
	var most int64
	for x := range ia {
		most = max(most, abs(ib[x]-ia[x]))
	}
	fill := func(x int32) string {
		delta := ib[x] - ia[x]
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
                       (listed above): the one at the root of a database, trace or single
                       profile; every per-thread/rank profile of an hpcrun measurement
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
