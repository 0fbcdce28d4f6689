package interchange_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestTraceJSON checks trace.json of every corpus trace: valid JSON, at
// most one event per ovni event (a burst is one event for its begin and
// end; formats/ovni checks the pairing against ovnidump) or one per
// hpcrun sample run, and the per-thread files holding the same events.
func TestTraceJSON(t *testing.T) {
	for _, path := range []string{
		testdata.Corpus(t, "ovni", "v1-basic-mix"), testdata.Corpus(t, "ovni", "v1-two-procs"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"),
		testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			fsys := open(t, path).FS()
			all := traceEvents(t, fsys, "trace.json")
			des, err := fs.ReadDir(fsys, "trace")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, de := range des {
				n += traceEvents(t, fsys, "trace/"+de.Name())
			}
			if n != all || all == 0 {
				t.Errorf("trace.json has %d events, trace/*.json %d", all, n)
			}
			if strings.Contains(path, "ovni") {
				b, _ := fs.ReadFile(fsys, "events.txt")
				// each event is at most one event on its thread's track and one state slice
				if lines := bytes.Count(b, []byte("\n")); 2*lines < all || all < lines/2 {
					t.Errorf("trace.json has %d events for the %d of events.txt", all, lines)
				}
			}
		})
	}
}

func traceEvents(t *testing.T, fsys fs.FS, name string) int {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	n := 0
	for _, raw := range doc.TraceEvents {
		var e struct {
			Ph  string   `json:"ph"`
			TS  *float64 `json:"ts"`
			Dur *float64 `json:"dur"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Ph {
		case "X", "i":
			n++
			if e.TS == nil || *e.TS < 0 || (e.Ph == "X") != (e.Dur != nil) {
				t.Fatalf("%s: bad event %s", name, raw)
			}
		case "M":
		default:
			t.Fatalf("%s: unexpected event %s", name, raw)
		}
	}
	return n
}

// TestTraceWindows splits every corpus trace into time windows (a limit of
// a quarter of its trace.json) and checks them: valid JSON each, about
// the limit at most, every X event's clipped parts adding up per thread
// to trace.json's durations, every instant event once, and the span in
// otherData.
func TestTraceWindows(t *testing.T) {
	for _, path := range []string{
		testdata.Corpus(t, "ovni", "v1-basic-mix"), testdata.Corpus(t, "ovni", "v1-two-procs"),
		filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks"), "ovni"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"),
		testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"),
	} {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			full, err := fs.ReadFile(open(t, path).FS(), "trace.json")
			if err != nil {
				t.Fatal(err)
			}
			meta := int64(len(full) - bytes.Index(full, []byte(`{"ph":"M"`)))
			limit := meta + 300 + (int64(len(full))-meta)/4
			src := open(t, path)
			src.Options.WindowLimit = limit
			fsys := src.FS()
			wins, _ := fs.Glob(fsys, "trace/window-*.json")
			if len(wins) < 4 {
				t.Fatalf("%d windows for %d bytes and a limit of %d", len(wins), len(full), limit)
			}
			want := traceStats(t, full)
			got := map[int64]*trackStats{}
			var last int64
			for k, name := range wins {
				b, err := fs.ReadFile(fsys, name)
				if err != nil {
					t.Fatal(err)
				}
				if int64(len(b)) > limit+limit/10 {
					t.Errorf("%s: %d bytes, limit %d", name, len(b), limit)
				}
				var doc struct {
					OtherData struct {
						Window, Windows int
						StartUS         json.Number `json:"start_us"`
						EndUS           json.Number `json:"end_us"`
					} `json:"otherData"`
				}
				if err := json.Unmarshal(b, &doc); err != nil {
					t.Fatal(err)
				}
				if od := doc.OtherData; od.Window != k || od.Windows != len(wins) || k > 0 && testdata.TraceNanos(t, od.StartUS) != last {
					t.Errorf("%s: otherData %+v", name, od)
				}
				last = testdata.TraceNanos(t, doc.OtherData.EndUS)
				for tid, s := range traceStats(t, b) {
					if got[tid] == nil {
						got[tid] = &trackStats{}
					}
					got[tid].dur += s.dur
					got[tid].x += s.x
					got[tid].instant += s.instant
				}
			}
			for tid, w := range want {
				g := got[tid]
				if g == nil || g.dur != w.dur || g.instant != w.instant || g.x < w.x || g.x > w.x+len(wins)*64 {
					t.Errorf("thread %d: windows hold %+v, trace.json %+v", tid, g, w)
				}
			}
		})
	}
}

type trackStats struct {
	dur        int64 // of the X events, ns
	x, instant int
}

// traceStats sums a trace's X durations and counts its events per tid
// (pid*1e6+tid).
func traceStats(t *testing.T, b []byte) map[int64]*trackStats {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph       string
			Pid, Tid int64
			Dur      json.Number
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[int64]*trackStats{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "M" {
			continue
		}
		k := e.Pid*1_000_000 + e.Tid
		if out[k] == nil {
			out[k] = &trackStats{}
		}
		if e.Ph == "X" {
			out[k].x++
			out[k].dur += testdata.TraceNanos(t, e.Dur)
		} else {
			out[k].instant++
		}
	}
	return out
}
