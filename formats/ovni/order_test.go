package ovni

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// TestTraceThreadsFirst: in trace.json the thread tracks come first,
// whether a viewer orders tracks by tid (speedscope opens the lowest) or
// by thread_sort_index, and each thread's states track comes after it.
func TestTraceThreadsFirst(t *testing.T) {
	dir, err := gen.WriteDemo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Ph, Name string
			Pid, Tid int64
			Args     map[string]any
		}
	}
	if err := json.NewDecoder(bytes.NewReader(testdata.ReadFS(t, open(t, dir).FS(), "trace.json"))).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	type track struct {
		pid, tid int64
		name     string
		sort     float64
	}
	byTid := map[[2]int64]*track{}
	for _, e := range doc.TraceEvents {
		if e.Ph != "M" || e.Pid == e.Tid && e.Name == "process_name" {
			continue
		}
		k := [2]int64{e.Pid, e.Tid}
		if byTid[k] == nil {
			byTid[k] = &track{pid: e.Pid, tid: e.Tid}
		}
		switch e.Name {
		case "thread_name":
			byTid[k].name, _ = e.Args["name"].(string)
		case "thread_sort_index":
			byTid[k].sort, _ = e.Args["sort_index"].(float64)
		}
	}
	var tracks []*track
	for _, tr := range byTid {
		tracks = append(tracks, tr)
	}
	states := func(tr *track) bool { return strings.HasSuffix(tr.name, " states") }
	nStates := 0
	for _, tr := range tracks {
		if states(tr) {
			nStates++
		}
	}
	if nStates == 0 || nStates*2 != len(tracks) {
		t.Fatalf("%d states tracks of %d tracks, want one per thread", nStates, len(tracks))
	}
	check := func(order string, less func(a, b *track) bool) {
		sort.Slice(tracks, func(i, j int) bool { return less(tracks[i], tracks[j]) })
		seenThread := map[string]bool{}
		for i, tr := range tracks {
			if i == 0 && states(tr) {
				t.Errorf("by %s the first track is %q", order, tr.name)
			}
			if states(tr) && !seenThread[strings.TrimSuffix(tr.name, " states")] {
				t.Errorf("by %s %q comes before its thread", order, tr.name)
			}
			seenThread[tr.name] = true
		}
	}
	check("pid and tid", func(a, b *track) bool {
		if a.pid != b.pid {
			return a.pid < b.pid
		}
		return a.tid < b.tid
	})
	check("thread_sort_index", func(a, b *track) bool { return a.sort < b.sort })
}
