package interchange

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

func readAll(t *testing.T, v render.View) []byte {
	t.Helper()
	n, err := v.Size()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n)
	if k, err := v.ReadAt(b, 0); k != len(b) || (err != nil && err != io.EOF) {
		t.Fatalf("ReadAt: %d of %d, %v", k, len(b), err)
	}
	return b
}

func TestAppendMicros(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 1: "0.001", 1234567: "1234.567", 1000: "1.000", -1500: "-1.500",
		1 << 62: "4611686018427387.904"} {
		if got := string(AppendMicros(nil, ns)); got != want {
			t.Errorf("AppendMicros(%d) = %s, want %s", ns, got, want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"plain", `q"b\s`, "tab\tnl\nctl\x01\x7f", "é€", "bad\xffutf8"} {
		var back string
		if err := json.Unmarshal(AppendJSONString(nil, s), &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want {
			t.Errorf("%q came back as %q", s, back)
		}
	}
}

// TestTreeMergesByLabel: frames with one label are one folded stack, and
// the folded lines add up to the root's total.
func TestTreeMergesByLabel(t *testing.T) {
	tr := NewTree([]Metric{{"m", "count"}})
	a := tr.Child(Root, Frame{Name: "main", Addr: 1})
	b := tr.Child(Root, Frame{Name: "main", Addr: 2}) // same label: same node
	if a != b {
		t.Fatal("frames with one label were not merged")
	}
	tr.Add(tr.Child(a, Frame{Name: "f;g"}), 0, 5)
	tr.Add(a, 0, 2)
	tr.Add(tr.Child(a, Frame{Name: ""}), 0, 3)
	p := &Profile{build: func() (*Tree, error) { return tr, nil }, report: func(string) func(error) { return nil }}
	got := string(readAll(t, render.Stream(&foldedGen{p: p, m: 0}, nil)))
	want := "main 2\nmain;[unknown] 3\nmain;f:g 5\n"
	if got != want || tr.Total(0) != 10 {
		t.Errorf("folded:\n%s\nwant:\n%s(total %d)", got, want, tr.Total(0))
	}
}

// TestGraphRecursion: recursive and mutually recursive calls keep the
// folded total equal to the sum of self costs.
func TestGraphRecursion(t *testing.T) {
	g := &Graph{Metrics: []Metric{{"c", "count"}},
		Funcs: []Frame{{Name: "main"}, {Name: "fib"}, {Name: "even"}, {Name: "odd"}, {Name: "orphan"}},
		Self:  [][]int64{{10}, {100}, {7}, {9}, {4}},
		Edges: []Edge{
			{0, 1, []int64{100}}, {1, 1, []int64{90}}, // fib recursion counts twice
			{0, 2, []int64{16}}, {2, 3, []int64{9}}, {3, 2, []int64{5}},
			{4, 4, []int64{1}}, // only called by itself: a root
		}}
	tr := g.Tree()
	tr.Done()
	if tr.Total(0) != 130 {
		t.Fatalf("total %d, want the 130 of the self costs", tr.Total(0))
	}
}

// fakeTrace has tracks of n events each, 1 µs apart.
type fakeTrace struct{ tracks, n int }

func (f *fakeTrace) Tracks() []Track {
	var out []Track
	for i := range f.tracks {
		out = append(out, Track{Pid: int64(i / 2), Tid: int64(i), Process: "p", Thread: "t\"" + strconv.Itoa(i), File: strconv.Itoa(i)})
	}
	return out
}

func (f *fakeTrace) Events(i int, pos int64) (Events, error) {
	return &fakeEvents{n: f.n, k: pos, track: i}, nil
}

type fakeEvents struct {
	n, track int
	k        int64
}

func (e *fakeEvents) State() int64 { return e.k }
func (e *fakeEvents) Next(ev *Event) error {
	if e.k >= int64(e.n) {
		return io.EOF
	}
	*ev = Event{Name: "ev" + strconv.FormatInt(e.k%7, 10), TS: e.k*1000 + int64(e.track), Dur: 999, Instant: e.k == int64(e.n)-1}
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
	render.SetIndexDir(t.TempDir())
	t.Cleanup(func() { render.SetIndexDir("") })
	key := render.IndexKey("test", "trace.json")
	if key == "" {
		key = "interchange-test/trace.json"
	}
	for range 2 { // the first measures and writes the index, the second reads it
		if got := readAll(t, render.IndexedStream(&traceGen{tr: tr, one: -1}, key, nil)); !bytes.Equal(got, full) {
			t.Fatal("indexed trace.json differs")
		}
	}
	for _, p := range []tracePos{{}, {track: 3, pos: 77, begun: true}, {track: 5, begun: true}} {
		back, err := gen.DecodeState(gen.EncodeState(p))
		if err != nil || back != p {
			t.Errorf("state %+v came back as %+v, %v", p, back, err)
		}
	}
}
