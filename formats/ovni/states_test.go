package ovni

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

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
