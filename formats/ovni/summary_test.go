package ovni

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

// TestSummaryStates: summary/regions.csv gives each thread's time in each
// state as worked out from the ovnidump oracle (a state lasts from its
// OH* event to the thread's next one, the last to its last event; after
// OHe the thread has no state), and time-profile.csv's bins add up to
// the same totals, on every ovni 1.x corpus case.
func TestSummaryStates(t *testing.T) {
	for _, c := range corpus1x {
		t.Run(c.name, func(t *testing.T) {
			dir := testdata.Corpus(t, "ovni-1x", c.name)
			type state struct {
				state int
				at    int64
			}
			cur, last := map[int64]state{}, map[int64]int64{}
			want := map[string]int64{} // "tid state" -> ns
			total := map[string]int64{}
			finish := func(tid, at int64) {
				if o := cur[tid]; o.state > 0 {
					want[strconv.FormatInt(tid, 10)+" "+threadStates[o.state]] += at - o.at
					total[threadStates[o.state]] += at - o.at
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(string(ovnidump.Read(t, filepath.Join(dir, c.oracle)))), "\n") {
				ev, ok := ovnidump.Parse(l)
				stream := strings.TrimSuffix(strings.TrimSuffix(ev.Stream, "/stream.obs"), ".obs")
				tid, err := strconv.ParseInt(stream[strings.LastIndexAny(stream, "./")+1:], 10, 64)
				if !ok || err != nil || len(ev.MCV) != 3 {
					t.Fatalf("oracle line %q", l)
				}
				last[tid] = ev.Clock
				if s, isState := stateOf([3]byte{ev.MCV[0], ev.MCV[1], ev.MCV[2]}); isState {
					finish(tid, ev.Clock)
					cur[tid] = state{s, ev.Clock}
				}
			}
			for tid, at := range last {
				finish(tid, at)
			}
			fsys := open(t, filepath.Join(dir, "ovni")).FS()
			got := map[string]int64{}
			for _, r := range testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "summary/regions.csv"))[1:] {
				thread, ok := strings.CutSuffix(r[2], " states")
				if !ok {
					continue
				}
				v, _ := strconv.ParseInt(r[6], 10, 64)
				got[strings.TrimPrefix(thread, "thread ")+" "+r[3]] = v
				if r[6] != r[7] {
					t.Errorf("%v: states do not nest, exclusive time differs", r)
				}
			}
			if len(want) == 0 || len(got) != len(want) {
				t.Errorf("%d thread states, the oracle %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("thread %s: %d ns, the oracle %d", k, got[k], v)
				}
			}
			binned := map[string]int64{}
			for _, r := range testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "summary/time-profile.csv"))[1:] {
				v, _ := strconv.ParseInt(r[5], 10, 64)
				binned[r[3]] += v
			}
			for s, v := range total {
				if binned[s] != v {
					t.Errorf("time-profile.csv: %s %d ns, the oracle %d", s, binned[s], v)
				}
			}
		})
	}
}
