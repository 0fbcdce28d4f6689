package interchange

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
)

// fakeTrace has tracks of n events each, 1 µs apart.
type fakeTrace struct{ tracks, n int }

func (f *fakeTrace) Tracks() []Track {
	var out []Track
	for i := range f.tracks {
		out = append(out, Track{Pid: int64(i / 2), Tid: int64(i), Process: "p", Thread: "t\"" + strconv.Itoa(i), File: strconv.Itoa(i)})
	}
	return out
}

func (f *fakeTrace) Events(i int, pos Pos) (Events, error) {
	return &fakeEvents{n: f.n, k: pos.At, track: i, stop: math.MaxInt64}, nil
}

type fakeEvents struct {
	n, track int
	k, stop  int64
}

func (e *fakeEvents) State() Pos     { return Pos{At: e.k} }
func (e *fakeEvents) StopAt(t int64) { e.stop = t }
func (e *fakeEvents) Next(emit func(*Event)) error {
	ts := e.k*1000 + int64(e.track)
	if e.k >= int64(e.n) || ts >= e.stop {
		return io.EOF
	}
	emit(&Event{Name: "ev" + strconv.FormatInt(e.k%7, 10), TS: ts, Dur: 999, Instant: e.k == int64(e.n)-1})
	e.k++
	return nil
}

// TestTraceJSONViews: trace.json is valid JSON of every event, random
// reads match it, and a view sized from the on-disk index has the same
// bytes.
func TestTraceJSONViews(t *testing.T) {
	tr := &fakeTrace{tracks: 5, n: 20000}
	gen := &traceGen{tr: tr, one: -1}
	full := readAll(t, render.Stream(gen, nil))
	var doc struct{ TraceEvents []map[string]any }
	if err := json.Unmarshal(full, &doc); err != nil {
		t.Fatal(err)
	}
	if want := 5*20000 + 5*2 + 3; len(doc.TraceEvents) != want {
		t.Fatalf("%d events, want %d", len(doc.TraceEvents), want)
	}
	v := render.Stream(&traceGen{tr: tr, one: -1}, nil)
	if _, err := v.Size(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for range 50 {
		off := rng.Int63n(int64(len(full)))
		b := make([]byte, min(int64(rng.Intn(200000)+1), int64(len(full))-off))
		if _, err := v.ReadAt(b, off); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		if !bytes.Equal(b, full[off:off+int64(len(b))]) {
			t.Fatalf("ReadAt(%d) differs", off)
		}
	}
	index := render.Binding{Options: render.Options{IndexDir: t.TempDir()}, Key: "interchange-test/trace.json"}
	for range 2 { // the first measures and writes the index, the second reads it
		v := render.Stream(&traceGen{tr: tr, one: -1}, nil)
		v.(render.Binder).Bind(index)
		if got := readAll(t, v); !bytes.Equal(got, full) {
			t.Fatal("indexed trace.json differs")
		}
	}
	for _, p := range []tracePos{{}, {track: 3, pos: Pos{At: 77}, begun: true}, {track: 5, begun: true}, {track: 1, pos: Pos{At: 5, Aux: []uint64{1, 0, math.MaxUint64}}}} {
		back, err := gen.DecodeState(gen.EncodeState(p))
		if err != nil || !reflect.DeepEqual(back, p) {
			t.Errorf("state %+v came back as %+v, %v", p, back, err)
		}
	}
}

// nestedTrace has one track of n events 1 µs long, every ten of them in a
// group, all of them in a root event: records deliver events by their
// ends, inner ones first.
type nestedTrace struct{ n int64 }

func (f *nestedTrace) Tracks() []Track {
	return []Track{{Pid: 1, Tid: 1, Process: "p", Thread: "t", File: "t"}}
}

func (f *nestedTrace) Events(i int, pos Pos) (Events, error) {
	return &nestedEvents{n: f.n, k: pos.At, stop: math.MaxInt64, done: len(pos.Aux) > 0}, nil
}

type nestedEvents struct {
	n, k, stop int64
	done       bool
}

func (e *nestedEvents) StopAt(t int64) { e.stop = t }
func (e *nestedEvents) State() Pos {
	if e.done {
		return Pos{At: e.k, Aux: []uint64{1}}
	}
	return Pos{At: e.k}
}

func (e *nestedEvents) Next(emit func(*Event)) error {
	ts := e.k * 1000
	if e.done || e.k >= e.n {
		return io.EOF
	}
	if ts >= e.stop { // end the group and the root there
		e.done = true
		if g := e.k / 10 * 10000; g < e.stop {
			emit(&Event{Name: "group", TS: g, Dur: e.stop - g})
		}
		emit(&Event{Name: "root", Dur: e.stop})
		return nil
	}
	emit(&Event{Name: "leaf", TS: ts, Dur: 1000, Args: []byte(`"k":` + strconv.FormatInt(e.k, 10))})
	if e.k%10 == 9 {
		emit(&Event{Name: "group", TS: ts - 9000, Dur: 10000})
	}
	if e.k == e.n-1 {
		emit(&Event{Name: "root", Dur: e.n * 1000})
	}
	e.k++
	return nil
}

// TestTraceWindowEdges: in every time window, the slices open at its
// start come outermost first (trace.json whole, trace.pftrace their
// begins), the other slices keep their order, and a window resumes from
// any state it passed, through the codec, with the same bytes.
func TestTraceWindowEdges(t *testing.T) {
	tr := &nestedTrace{n: 3000}
	wins := planWindows(tr, 60000)
	if len(wins) < 4 {
		t.Fatalf("%d windows", len(wins))
	}
	for _, w := range wins[1:] {
		for _, pf := range []bool{false, true} {
			g := &traceGen{tr: tr, one: -1, win: w, pf: pf}
			all := testdata.CheckResume(t, g.Start, func(st any) (any, error) { return g.DecodeState(g.EncodeState(st)) })
			if !pf {
				head := len(w.head())
				first := all[head : head+bytes.IndexByte(all[head:], '\n')]
				second := all[head+len(first)+1:]
				second = second[:bytes.IndexByte(second, '\n')]
				if !bytes.Contains(first, []byte(`"name":"root"`)) || !bytes.Contains(second, []byte(`"name":"group"`)) {
					t.Errorf("window %d begins %s\n%s", w.k, first, second)
				}
			}
		}
	}
}
