package ovni

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"slices"
	"strconv"
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
	fsys := writeThreads(t,
		[]gen.Event{
			gen.TypeCreate("VYc", 1000, 1, "testtype1"),
			gen.TypeCreate("VYc", 1010, 2, "solver"),
			gen.U32Event("VTc", 1020, 1, 1),
			gen.U32Event("VTc", 1030, 2, 2),
			gen.U32Event("VTc", 1040, 3, 9),
		},
		[]gen.Event{
			gen.U32Event("VTx", 2000, 1, 0), gen.U32Event("VTe", 2500, 1, 0),
			gen.U32Event("VTx", 3000, 2, 0), gen.U32Event("VTp", 3100, 2, 0),
			gen.U32Event("VTr", 3300, 2, 0), gen.U32Event("VTe", 3600, 2, 0),
			gen.U32Event("VTx", 4000, 3, 0), gen.U32Event("VTe", 4100, 3, 0),
		},
	)
	if got, want := taskBursts(t, fsys, 101), []string{"testtype1 0.500", "solver 0.100", "solver 0.300", "nosv task 0.100"}; !slices.Equal(got, want) {
		t.Errorf("thread 101 bursts %q, want %q", got, want)
	}
	if got, want := taskRegions(t, fsys, "101"), []string{"testtype1,V,1,500,500", "solver,V,2,400,400", "nosv task,V,1,100,100"}; !slices.Equal(got, want) {
		t.Errorf("regions of thread 101 %q, want %q", got, want)
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

// TestTaskLabelsNanos6OpenMP: Nanos6 and OpenMP tasks are named by the
// label of their type as nOS-V's are, and OpenMP worksharings by the label
// of the type they carry (the emulator's label channel shows both); each
// model's type ids are its own, and a task or worksharing whose type the
// trace never creates keeps the generic name.
func TestTaskLabelsNanos6OpenMP(t *testing.T) {
	fsys := writeThreads(t,
		[]gen.Event{
			gen.TypeCreate("6Yc", 1000, 1, "nanos-solver"),
			gen.TypeCreate("6Yc", 1010, 2, "nanos-io"),
			gen.TypeCreate("POc", 1020, 1, "omp-loop"),
			gen.TypeCreate("POc", 1030, 3, "omp-task"),
			gen.U32Event("6Tc", 1040, 1, 1),
			gen.U32Event("6Tc", 1050, 2, 2),
			gen.U32Event("6Tc", 1060, 3, 3), // type 3 is OpenMP's, not Nanos6's
			gen.U32Event("PPc", 1070, 5, 3),
			gen.U32Event("PPc", 1080, 6, 2), // type 2 is Nanos6's
		},
		[]gen.Event{
			gen.U32Event("6Tx", 2000, 1), gen.U32Event("6Te", 2500, 1),
			gen.U32Event("6Tx", 3000, 2), gen.U32Event("6Tp", 3100, 2),
			gen.U32Event("6Tr", 3300, 2), gen.U32Event("6Te", 3600, 2),
			gen.U32Event("6Tx", 4000, 3), gen.U32Event("6Te", 4100, 3),
		},
		[]gen.Event{
			gen.U32Event("PPx", 2000, 5), gen.U32Event("PPe", 2200, 5),
			gen.U32Event("PQx", 3000, 1), gen.U32Event("PQe", 3400, 1),
			gen.U32Event("PPx", 4000, 6), gen.U32Event("PPe", 4050, 6),
			gen.U32Event("PQx", 5000, 2), gen.U32Event("PQe", 5010, 2),
		},
	)
	for _, c := range []struct {
		tid             int64
		bursts, regions []string
	}{
		{101, []string{"nanos-solver 0.500", "nanos-io 0.100", "nanos-io 0.300", "nanos6 task 0.100"},
			[]string{"nanos-solver,6,1,500,500", "nanos-io,6,2,400,400", "nanos6 task,6,1,100,100"}},
		{102, []string{"omp-task 0.200", "omp-loop 0.400", "openmp task 0.050", "openmp worksharing 0.010"},
			[]string{"omp-loop,P,1,400,400", "omp-task,P,1,200,200", "openmp task,P,1,50,50", "openmp worksharing,P,1,10,10"}},
	} {
		if got := taskBursts(t, fsys, c.tid); !slices.Equal(got, c.bursts) {
			t.Errorf("thread %d bursts %q, want %q", c.tid, got, c.bursts)
		}
		if got := taskRegions(t, fsys, strconv.FormatInt(c.tid, 10)); !slices.Equal(got, c.regions) {
			t.Errorf("regions of thread %d %q, want %q", c.tid, got, c.regions)
		}
	}
}

// taskBursts are the names and durations (µs) of thread tid's bursts in
// trace.json.
func taskBursts(t *testing.T, fsys fs.FS, tid int64) []string {
	var doc chromeDoc
	if err := json.Unmarshal(testdata.ReadFS(t, fsys, "trace.json"), &doc); err != nil {
		t.Fatal(err)
	}
	var bursts []string
	for _, e := range doc.TraceEvents {
		if e.Tid == tid && e.Ph == "X" {
			bursts = append(bursts, e.Name+" "+string(e.Dur))
		}
	}
	return bursts
}

// taskRegions are thread tid's rows of summary/regions.csv from the
// region's name on.
func taskRegions(t *testing.T, fsys fs.FS, tid string) []string {
	var regions []string
	for _, r := range testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "summary/regions.csv"))[1:] {
		if r[1] == tid {
			regions = append(regions, strings.Join(r[3:], ","))
		}
	}
	return regions
}

// writeThreads writes a 1.14 trace of one process whose threads 100, 101,
// ... hold the events given, and opens it.
func writeThreads(t *testing.T, threads ...[]gen.Event) fs.FS {
	p := gen.Proc{Loom: "n", PID: 1, Layout: gen.LayoutV3}
	for i, evs := range threads {
		tid := int64(100 + i)
		p.Streams = append(p.Streams, gen.Stream{TID: tid, Events: evs, JSON: gen.StreamJSON(3, "1.14.0", 1, gen.V3Proc("n", 1, tid, 1, 0, 0, 1)...)})
	}
	dir, err := gen.Write(t.TempDir(), []gen.Proc{p})
	if err != nil {
		t.Fatal(err)
	}
	return open(t, dir).FS()
}
