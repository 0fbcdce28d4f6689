package interchange

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/render"
)

// listTrace has tracks of given events (in the order of their ends); a
// track's err ends it after its events.
type listTrace struct {
	events [][]Event
	errs   []error
}

func (l *listTrace) Tracks() []Track {
	var out []Track
	for i := range l.events {
		out = append(out, Track{Pid: 1, Tid: int64(i), Thread: "t" + strconv.Itoa(i), File: strconv.Itoa(i)})
	}
	return out
}

func (l *listTrace) Events(i int, pos Pos) (Events, error) {
	return &listEvents{l: l, track: i, k: int(pos.At)}, nil
}

type listEvents struct {
	l        *listTrace
	track, k int
}

func (e *listEvents) State() Pos     { return Pos{At: int64(e.k)} }
func (e *listEvents) StopAt(t int64) {}
func (e *listEvents) Next(emit func(*Event)) error {
	if evs := e.l.events[e.track]; e.k < len(evs) {
		emit(&evs[e.k])
		e.k++
		return nil
	}
	if e.l.errs != nil && e.l.errs[e.track] != nil {
		return e.l.errs[e.track]
	}
	return io.EOF
}

func x(name string, ts, end int64) Event { return Event{Name: name, Cat: "c", TS: ts, Dur: end - ts} }

// TestSummaryNested: regions.csv's exclusive time is the inclusive time
// less that of the events directly inside (worked by hand), and
// time-profile.csv's bins add up to it per region.
func TestSummaryNested(t *testing.T) {
	bad := decode.ErrAt("test", "track", 7, "broken", nil, nil)
	tr := &listTrace{
		events: [][]Event{
			{x("B", 10, 30), x("D", 45, 50), x("C", 40, 60), {Name: "E", Cat: "c", TS: 70, Instant: true}, x("A", 0, 100)},
			{x("A", 0, 50), x("A", 50, 200)},
		},
		errs: []error{nil, bad},
	}
	s := &summary{tr: tr}
	var reported []error
	regions := s.regionsTable()
	regions.OnDataError = func(err error) { reported = append(reported, err) }
	got := readAll(t, regions.CSV())
	if len(reported) != 1 || reported[0] != bad {
		t.Errorf("errors reported %v, want the track's once", reported)
	}
	want := `pid,tid,thread,name,category,count,duration_ns_inc,duration_ns_exc
1,0,t0,A,c,1,100,60
1,0,t0,B,c,1,20,20
1,0,t0,C,c,1,20,15
1,0,t0,D,c,1,5,5
1,0,t0,E,c,1,0,0
1,1,t1,A,c,2,200,200
`
	if string(got) != want {
		t.Errorf("regions.csv:\n%s\nwant:\n%s", got, want)
	}
	prof := readAll(t, s.timeProfileTable().CSV())
	sums := map[string]int64{}
	lines := strings.Split(strings.TrimSpace(string(prof)), "\n")
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		v, _ := strconv.ParseInt(f[5], 10, 64)
		sums[f[3]] += v
		if f[0] == "6" && f[3] == "A" && v != 2*1 { // bin 6 = [12,14): only track 0's B and track 1's A
			t.Errorf("bin 6 of A: %s", l)
		}
	}
	for name, exc := range map[string]int64{"A": 260, "B": 20, "C": 15, "D": 5} {
		if sums[name] != exc {
			t.Errorf("time-profile.csv: %s sums to %d, want %d", name, sums[name], exc)
		}
	}
	if lines[1] != "0,0,2,A,c,4" {
		t.Errorf("first bin %q, want 0,0,2,A,c,4 (end 200: bins of 2 ns)", lines[1])
	}
}

// noEvents is a trace whose tracks must not be read.
type noEvents struct {
	*listTrace
	t *testing.T
}

func (n noEvents) Events(i int, pos Pos) (Events, error) {
	n.t.Errorf("track %d read: the saved summary was not used", i)
	return n.listTrace.Events(i, pos)
}

// summaryViews are regions.csv and time-profile.csv of tr bound as a mount
// binds them, with the index in dir.
func summaryViews(tr Trace, dir string) [2]render.View {
	s := &summary{tr: tr}
	var out [2]render.View
	for i, tb := range []*render.Table{s.regionsTable(), s.timeProfileTable()} {
		out[i] = tb.CSV()
		out[i].(render.Binder).Bind(render.Binding{Options: render.Options{IndexDir: dir}, Key: "test/summary/" + strconv.Itoa(i)})
	}
	return out
}

// TestSummarySaved: a second mount of the same trace serves summary/ from
// the sums the first one saved beside the index, without reading a track,
// byte for byte as the first; a damaged saved file fails its seal, is
// reported and the sums are made again.
func TestSummarySaved(t *testing.T) {
	tr := &listTrace{events: [][]Event{
		{x("B", 10, 30), x("C", 40, 60), x("A", 0, 100)},
		{x("A", 0, 50), x("A", 50, 200)},
	}}
	dir := t.TempDir()
	first := summaryViews(tr, dir)
	want := [2][]byte{readAll(t, first[0]), readAll(t, first[1])}
	again := summaryViews(noEvents{tr, t}, dir)
	for i, v := range again {
		if got := readAll(t, v); string(got) != string(want[i]) {
			t.Errorf("view %d from the saved sums:\n%s\nwant:\n%s", i, got, want[i])
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	if len(files) != 4 { // two indexes, two saved results
		t.Fatalf("%d files in the index folder, want 4", len(files))
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		b[len(b)/2] ^= 0xff
		os.WriteFile(f, b, 0o644)
	}
	var reported []error
	s := &summary{tr: tr}
	v := s.regionsTable().CSV()
	v.(render.Binder).Bind(render.Binding{Options: render.Options{IndexDir: dir}, Key: "test/summary/0",
		Report: func(err error) { reported = append(reported, err) }})
	if got := readAll(t, v); string(got) != string(want[0]) {
		t.Errorf("regions.csv after damage:\n%s\nwant:\n%s", got, want[0])
	}
	if len(reported) != 2 || !strings.Contains(reported[0].Error(), "bad on-disk index") || !strings.Contains(reported[1].Error(), "bad on-disk index") {
		t.Errorf("reported %v, want the damaged index and the damaged saved sums, once each", reported)
	}
}

// FuzzSummarySaved: saved sums of any bytes are decoded without a panic
// and with no allocation beyond their length, or rejected.
func FuzzSummarySaved(f *testing.F) {
	tr := &listTrace{events: [][]Event{{x("B", 10, 30), x("A", 0, 100)}, {x("A", 0, 50)}}}
	s := &summary{tr: tr}
	f.Add(s.regionRows().encode())
	f.Add(s.binRows().encode())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		saved := render.SavedFor(render.Binding{Options: render.Options{IndexDir: dir}, Key: "fuzz"}, "x")
		saved.Store(b)
		s := &summary{tr: tr, regSaved: saved}
		if v := s.loadRegions(); v != nil {
			for i := range v.order {
				_ = tr.Tracks()[v.row(i).track]
			}
		}
		saved.Store(b)
		s = &summary{tr: tr, binSaved: saved}
		if v := s.loadBins(); v != nil {
			for _, c := range v.rows {
				_ = v.names[c.region]
			}
		}
	})
}
