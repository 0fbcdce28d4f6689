package interchange

import (
	"io"
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
	got := readAll(t, render.Stream(s.regionsCSV(), func(err error) { reported = append(reported, err) }))
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
	prof := readAll(t, render.Stream(s.timeProfileCSV(), nil))
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
