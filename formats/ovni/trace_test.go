package ovni

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"math/rand"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

// oracleBursts pairs the '[' and ']' events of an ovnidump text (any of
// the dump formats of the corpus) per thread: for each thread id, the
// number of bursts and their summed duration (an end closes the innermost
// open burst of its model and category and those opened inside it; what
// is open at the thread's last event ends there), and the number of
// events that are not part of a burst.
func oracleBursts(t *testing.T, dump []byte) (bursts, durs, singles map[int64]int64) {
	t.Helper()
	type open struct {
		mc    string
		clock int64
	}
	bursts, durs, singles = map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
	stacks := map[int64][]open{}
	last := map[int64]int64{}
	for _, l := range strings.Split(strings.TrimSpace(string(dump)), "\n") {
		ev, ok := ovnidump.Parse(l)
		stream := strings.TrimSuffix(strings.TrimSuffix(ev.Stream, "/stream.obs"), ".obs")
		tid, err := strconv.ParseInt(stream[strings.LastIndexAny(stream, "./")+1:], 10, 64)
		if !ok || err != nil {
			t.Fatalf("oracle line %q", l)
		}
		c, mcv := ev.Clock, ev.MCV
		last[tid] = c
		st := stacks[tid]
		switch mcv[2] {
		case '[':
			stacks[tid] = append(st, open{mcv[:2], c})
			continue
		case ']':
			k := len(st) - 1
			for k >= 0 && st[k].mc != mcv[:2] {
				k--
			}
			if k >= 0 {
				for _, o := range st[k:] {
					bursts[tid]++
					durs[tid] += c - o.clock
				}
				stacks[tid] = st[:k]
				continue
			}
		}
		singles[tid]++
	}
	for tid, st := range stacks {
		for _, o := range st {
			bursts[tid]++
			durs[tid] += last[tid] - o.clock
		}
	}
	return bursts, durs, singles
}

type chromeDoc struct {
	TraceEvents []struct {
		Ph      string
		Tid     int64
		TS, Dur json.Number
		Name    string
		Args    map[string]any
	}
}

// TestTraceBursts: trace.json of each corpus trace has, per thread, one
// X event per burst of the ovnidump oracle with the same summed duration,
// and one instant event per other event.
func TestTraceBursts(t *testing.T) {
	for _, c := range allCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			bursts, durs, singles := oracleBursts(t, ovnidump.Read(t, filepath.Join(c.dir, c.oracle)))
			var doc chromeDoc
			dec := json.NewDecoder(bytes.NewReader(testdata.ReadFS(t, open(t, filepath.Join(c.dir, "ovni")).FS(), "trace.json")))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			gotB, gotD, gotS := map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
			for _, e := range doc.TraceEvents {
				switch e.Ph {
				case "X":
					gotB[e.Tid]++
					gotD[e.Tid] += testdata.TraceNanos(t, e.Dur)
				case "i":
					gotS[e.Tid]++
				}
			}
			for tid := range singles {
				if gotB[tid] != bursts[tid] || gotD[tid] != durs[tid] || gotS[tid] != singles[tid] {
					t.Errorf("thread %d: %d bursts of %d ns and %d instant events, the oracle pairs %d bursts of %d ns, %d others",
						tid, gotB[tid], gotD[tid], gotS[tid], bursts[tid], durs[tid], singles[tid])
				}
			}
			if len(gotS) != len(singles) {
				t.Errorf("%d threads, the oracle %d", len(gotS), len(singles))
			}
		})
	}
}

// writeNested writes a thread of nested bursts, some deeper than maxOpen,
// ends without begins and bursts open at its end; it returns the trace
// directory and the numbers of X and instant events trace.json must have.
func writeNested(t *testing.T) (dir string, wantX, wantI int) {
	var evs []gen.Event
	clock := uint64(1_000_000)
	add := func(mcv string, payload []byte) {
		clock += 7
		evs = append(evs, gen.Event{MCV: mcv, Clock: clock, Payload: payload})
	}
	for rep := range 300 {
		// a thread state event: an instant event and, on the states
		// track, a slice ending at the next one or at the thread's end
		add("OH"+string("xcpwr"[rep%5]), nil)
		wantI++
		wantX++
		d := rep%(maxOpen+20) + 1
		for k := range d {
			add("ZA[", []byte{byte(k), byte(rep)})
			if k%5 == 0 {
				add("OB.", nil)
				wantI++
			}
		}
		for k := d - 1; k >= 0; k-- {
			add("ZA]", nil)
			if k < maxOpen {
				wantX++
			} else {
				wantI += 2
			}
		}
		add("ZB]", nil) // an end without a begin
		wantI++
	}
	for range 3 {
		add("VTx", []byte{1, 0, 0, 0, 2, 0, 0, 0})
		wantX++
	}
	dir = t.TempDir()
	if _, err := gen.Write(dir, []gen.Proc{{Loom: "n", PID: 1, Metadata: gen.Metadata(1, 0, 0, 0),
		Streams: []gen.Stream{{TID: 1, Events: evs}}}}); err != nil {
		t.Fatal(err)
	}
	return dir, wantX, wantI
}

// TestTraceDeepNesting: bursts nested deeper than maxOpen become instant
// events (begin and end), bursts open at the end of the thread end at its
// last event, and trace.json read at random through a second source that
// takes sizes and checkpoints (with their open bursts) from the on-disk
// index equals the whole rendering.
func TestTraceDeepNesting(t *testing.T) {
	dir, wantX, wantI := writeNested(t)
	opts := render.Options{IndexDir: t.TempDir()}
	full := testdata.ReadFS(t, openWith(t, dir, opts).FS(), "trace.json")
	var doc chromeDoc
	if err := json.Unmarshal(full, &doc); err != nil {
		t.Fatal(err)
	}
	nX, nI := 0, 0
	for _, e := range doc.TraceEvents {
		switch e.Ph {
		case "X":
			nX++
		case "i":
			nI++
		}
	}
	if nX != wantX || nI != wantI {
		t.Fatalf("%d X and %d instant events, want %d and %d", nX, nI, wantX, wantI)
	}
	if !bytes.Contains(full, []byte(`"note":"open at the end of the thread"`)) {
		t.Error("no burst open at the end")
	}
	f, err := openWith(t, dir, opts).FS().Open("trace.json")
	if err != nil {
		t.Fatal(err)
	}
	ra := f.(io.ReaderAt)
	rng := rand.New(rand.NewSource(1))
	for range 40 {
		off := rng.Int63n(int64(len(full)))
		b := make([]byte, min(int64(rng.Intn(100000)+1), int64(len(full))-off))
		if n, err := ra.ReadAt(b, off); n != len(b) {
			t.Fatal(err)
		}
		if !bytes.Equal(b, full[off:off+int64(len(b))]) {
			t.Fatalf("ReadAt(%d) differs", off)
		}
	}
}

// TestTraceWindowsNested splits the nested bursts into time windows:
// bursts crossing a window's edge are clipped, so per window the X
// durations add up to trace.json's, instant events appear once, and each
// window read at random through a second source (sizes and checkpoints,
// with open bursts and the stop, from the on-disk index) equals its whole
// rendering.
func TestTraceWindowsNested(t *testing.T) {
	dir, _, _ := writeNested(t)
	opts := render.Options{IndexDir: t.TempDir()}
	full := testdata.ReadFS(t, openWith(t, dir, opts).FS(), "trace.json")
	opts.WindowLimit = int64(len(full)) / 5
	stats := func(b []byte) (dur int64, x, instant int) {
		var doc chromeDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, e := range doc.TraceEvents {
			switch e.Ph {
			case "X":
				x++
				dur += testdata.TraceNanos(t, e.Dur)
			case "i":
				instant++
			}
		}
		return
	}
	wantDur, wantX, wantI := stats(full)
	fsys, again := openWith(t, dir, opts).FS(), openWith(t, dir, opts).FS()
	wins, err := fs.Glob(fsys, "trace/window-*.json")
	if err != nil || len(wins) < 5 {
		t.Fatalf("%d windows: %v", len(wins), err)
	}
	var dur int64
	var x, instant int
	rng := rand.New(rand.NewSource(2))
	for _, name := range wins {
		b := testdata.ReadFS(t, fsys, name)
		d, nx, ni := stats(b)
		dur, x, instant = dur+d, x+nx, instant+ni
		f, err := again.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			off := rng.Int63n(int64(len(b)))
			p := make([]byte, min(int64(rng.Intn(300000)+1), int64(len(b))-off))
			if n, err := f.(io.ReaderAt).ReadAt(p, off); n != len(p) || !bytes.Equal(p, b[off:off+int64(n)]) {
				t.Fatalf("%s: ReadAt(%d) differs: %v", name, off, err)
			}
		}
		f.Close()
	}
	if dur != wantDur || instant != wantI || x < wantX || x > wantX+len(wins)*maxOpen {
		t.Errorf("windows: %d X events of %d ns, %d instant; trace.json %d of %d ns, %d", x, dur, instant, wantX, wantDur, wantI)
	}
}

// TestTraceStates: trace.json of each corpus trace has, per thread, a
// states track whose slices are named after the thread's OH* state
// events of the ovnidump oracle, in order, and last from the first state
// event to the thread's last event (less the time after an OHe).
func TestTraceStates(t *testing.T) {
	for _, c := range allCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			wantNames := map[int64][]string{}
			wantDur := map[int64]int64{}
			first, last, ended := map[int64]int64{}, map[int64]int64{}, map[int64]int64{}
			for _, l := range strings.Split(strings.TrimSpace(string(ovnidump.Read(t, filepath.Join(c.dir, c.oracle)))), "\n") {
				ev, ok := ovnidump.Parse(l)
				stream := strings.TrimSuffix(strings.TrimSuffix(ev.Stream, "/stream.obs"), ".obs")
				tid, err := strconv.ParseInt(stream[strings.LastIndexAny(stream, "./")+1:], 10, 64)
				if !ok || err != nil || len(ev.MCV) != 3 {
					continue
				}
				last[tid] = ev.Clock
				s, isState := stateOf([3]byte{ev.MCV[0], ev.MCV[1], ev.MCV[2]})
				if !isState {
					continue
				}
				if _, ok := first[tid]; !ok {
					first[tid] = ev.Clock
				}
				if at, ok := ended[tid]; ok {
					// time between an OHe and the next state event has no state
					wantDur[tid] -= ev.Clock - at
					delete(ended, tid)
				}
				if s == 0 {
					ended[tid] = ev.Clock
					continue
				}
				wantNames[tid] = append(wantNames[tid], threadStates[s])
			}
			for tid, at := range ended {
				wantDur[tid] -= last[tid] - at
			}
			for tid, f := range first {
				wantDur[tid] += last[tid] - f
			}
			var doc chromeDoc
			dec := json.NewDecoder(bytes.NewReader(testdata.ReadFS(t, open(t, filepath.Join(c.dir, "ovni")).FS(), "trace.json")))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			gotNames := map[int64][]string{}
			gotDur := map[int64]int64{}
			for _, e := range doc.TraceEvents {
				if e.Tid < statesBase || e.Ph == "M" {
					continue
				}
				tid := e.Tid - statesBase
				if e.Ph != "X" {
					t.Fatalf("thread %d states: %s event", tid, e.Ph)
				}
				gotNames[tid] = append(gotNames[tid], e.Name)
				gotDur[tid] += testdata.TraceNanos(t, e.Dur)
			}
			if len(wantNames) == 0 {
				t.Fatal("no thread states in the oracle")
			}
			for tid := range last {
				if strings.Join(gotNames[tid], " ") != strings.Join(wantNames[tid], " ") || gotDur[tid] != wantDur[tid] {
					t.Errorf("thread %d: states %v of %d ns, the oracle %v of %d ns", tid, gotNames[tid], gotDur[tid], wantNames[tid], wantDur[tid])
				}
			}
			if len(gotNames) != len(wantNames) {
				t.Errorf("%d threads with states, the oracle %d", len(gotNames), len(wantNames))
			}
		})
	}
}
