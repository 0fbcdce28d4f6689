package ovni

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// TestTaskLabels, on a generated 1.14 trace where one thread creates two
// task types and three tasks (one of a type it never creates) and another
// runs them: trace.json names each task burst by its type's label (the
// generic "nosv task" when the type has none), summary/regions.csv sums
// them per label, and events-described.txt describes the events as
// ovnidump 1.14 does.
func TestTaskLabels(t *testing.T) {
	json3 := func(tid int64) string {
		return gen.StreamJSON(3, "1.14.0", 1, gen.V3Proc("n", 1, tid, 1, 0, 0, 1)...)
	}
	dir, err := gen.Write(t.TempDir(), []gen.Proc{{Loom: "n", PID: 1, Layout: gen.LayoutV3, Streams: []gen.Stream{
		{TID: 100, JSON: json3(100), Events: []gen.Event{
			gen.TypeCreate("VYc", 1000, 1, "testtype1"),
			gen.TypeCreate("VYc", 1010, 2, "solver"),
			gen.U32Event("VTc", 1020, 1, 1),
			gen.U32Event("VTc", 1030, 2, 2),
			gen.U32Event("VTc", 1040, 3, 9),
		}},
		{TID: 101, JSON: json3(101), Events: []gen.Event{
			gen.U32Event("VTx", 2000, 1, 0), gen.U32Event("VTe", 2500, 1, 0),
			gen.U32Event("VTx", 3000, 2, 0), gen.U32Event("VTp", 3100, 2, 0),
			gen.U32Event("VTr", 3300, 2, 0), gen.U32Event("VTe", 3600, 2, 0),
			gen.U32Event("VTx", 4000, 3, 0), gen.U32Event("VTe", 4100, 3, 0),
		}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	fsys := open(t, dir).FS()
	var doc chromeDoc
	if err := json.Unmarshal(testdata.ReadFS(t, fsys, "trace.json"), &doc); err != nil {
		t.Fatal(err)
	}
	var bursts []string
	for _, e := range doc.TraceEvents {
		if e.Tid == 101 && e.Ph == "X" {
			bursts = append(bursts, e.Name+" "+string(e.Dur))
		}
	}
	if want := []string{"testtype1 0.500", "solver 0.100", "solver 0.300", "nosv task 0.100"}; !slices.Equal(bursts, want) {
		t.Errorf("thread 101 bursts %q, want %q", bursts, want)
	}
	var regions []string
	for _, r := range testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "summary/regions.csv"))[1:] {
		if r[1] == "101" {
			regions = append(regions, strings.Join(r[3:], ","))
		}
	}
	if want := []string{"testtype1,V,1,500,500", "solver,V,2,400,400", "nosv task,V,1,100,100"}; !slices.Equal(regions, want) {
		t.Errorf("regions of thread 101 %q, want %q", regions, want)
	}
	described := testdata.ReadFS(t, fsys, "events-described.txt")
	for _, want := range []string{
		"      1000  VYc  loom.n/proc.1/thread.100  creates task type 1 with label \"testtype1\"\n",
		"      1040  VTc  loom.n/proc.1/thread.100  creates task 3 with type 9\n",
		"      3100  VTp  loom.n/proc.1/thread.101  pauses the task 2 with bodyid 0\n",
	} {
		if !bytes.Contains(described, []byte(want)) {
			t.Errorf("events-described.txt has no line %q:\n%s", want, described)
		}
	}
}
