package ovni

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

// corpus1x are the ovni-1x corpus cases, each with the oracle ovnidump
// output of its own release that events.txt must equal.
var corpus1x = []struct{ name, oracle, version string }{
	{"v1-1.4.1-shapes-threads", "ovnidump-1.4.1.txt", "ovni 1.1-1.4 (spec v1, thread.T.obs)"},
	{"v2-1.10.0-shapes-threads", "ovnidump-1.10.0-x.txt", "ovni 1.5-1.10 (spec v2), written by libovni 1.10.0"},
	{"v3-1.14.0-shapes-ranks", "ovnidump-x.txt", "ovni 1.11+ (spec v3), written by libovni 1.14.0"},
	{"v3-1.14.0-shapes-threads", "ovnidump-x.txt", "ovni 1.11+ (spec v3), written by libovni 1.14.0"},
	{"v3-1.14.0-test-flush-jumbo", "ovnidump-x.txt.gz", "ovni 1.11+ (spec v3), written by libovni 1.14.0"},
}

// A corpusTrace is a corpus trace of any release with its ovnidump oracle.
type corpusTrace struct{ name, dir, oracle string }

// allCorpus is every ovni and ovni-1x corpus case.
func allCorpus(t *testing.T) []corpusTrace {
	var cases []corpusTrace
	for _, c := range corpusCases {
		cases = append(cases, corpusTrace{c, testdata.Corpus(t, "ovni", c), "ovnidump.txt"})
	}
	for _, c := range corpus1x {
		cases = append(cases, corpusTrace{c.name, testdata.Corpus(t, "ovni-1x", c.name), c.oracle})
	}
	return cases
}

func TestCorpus1xMatchesOvnidump(t *testing.T) {
	for _, c := range corpus1x {
		t.Run(c.name, func(t *testing.T) {
			dir := testdata.Corpus(t, "ovni-1x", c.name)
			want := ovnidump.Read(t, filepath.Join(dir, c.oracle))
			src := open(t, filepath.Join(dir, "ovni"))
			if src.Version != c.version {
				t.Errorf("version %q, want %q", src.Version, c.version)
			}
			fsys := src.FS()
			if got := testdata.ReadFS(t, fsys, "events.txt"); !bytes.Equal(got, want) {
				t.Fatalf("events.txt differs from %s (%d vs %d bytes)", c.oracle, len(got), len(want))
			}
			hex := strings.Contains(c.oracle, "x.txt")
			readme := string(testdata.ReadFS(t, fsys, "README.txt"))
			if hex != strings.Contains(readme, "`ovnidump -x` of release 1.6 and later") {
				t.Errorf("README.txt does not name the ovnidump form:\n%s", readme)
			}
			threads := threadViews(t, fsys)
			total := 0
			for _, th := range threads {
				rel := th
				if strings.HasPrefix(c.name, "v1-") || strings.HasPrefix(c.name, "v2-") {
					rel += ".obs"
				}
				got := testdata.ReadFS(t, fsys, th+"/events.txt")
				if !bytes.Equal(got, ovnidump.StreamLines(want, rel)) {
					t.Errorf("%s/events.txt is not that stream's part of the dump", th)
				}
				total += bytes.Count(got, []byte("\n"))
				csvRows := bytes.Count(testdata.ReadFS(t, fsys, th+"/events.csv"), []byte("\n")) - 1
				if csvRows != bytes.Count(got, []byte("\n")) {
					t.Errorf("%s: %d CSV rows for %d events", th, csvRows, bytes.Count(got, []byte("\n")))
				}
			}
			if total != bytes.Count(want, []byte("\n")) {
				t.Errorf("thread views hold %d events, the dump %d", total, bytes.Count(want, []byte("\n")))
			}
			if lines := src.Errors.Lines(); len(lines) != 0 {
				t.Fatalf("_errors.txt = %q", lines)
			}
			if strings.Contains(c.name, "jumbo") {
				return // tens of MB: fstest reads every file byte by byte
			}
			if err := fstest.TestFS(fsys, append([]string{"events.txt", "streams.csv", "cpus.csv", "README.txt"}, threads...)...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestCorpus1xTables(t *testing.T) {
	dir := testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks")
	fsys := open(t, filepath.Join(dir, "ovni")).FS()
	streams := strings.Split(string(testdata.ReadFS(t, fsys, "streams.csv")), "\n")
	if streams[0] != "loom,pid,tid,app_id,rank,nranks,path,num_events,first_time_ns,last_time_ns,lib_version,lib_commit,finished,require,loom_cpus" {
		t.Fatalf("streams.csv header %q", streams[0])
	}
	// From the stream.json files and ovnidump-x.txt (6 lines of thread 8892).
	for _, want := range []string{
		"nodeA,8891,8894,1,0,3,loom.nodeA/proc.8891/thread.8894,11,3249793106096,3249796730916,1.14.0,cf025e242f45fc43f62165cbf07f6f2077d53747,1,ovni 1.1.0,6",
		"nodeA,8892,8892,1,1,3,loom.nodeA/proc.8892/thread.8892,6,",
		"nodeB,8893,8897,1,2,3,",
	} {
		if !slices.ContainsFunc(streams, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("streams.csv lacks %q:\n%s", want, strings.Join(streams, "\n"))
		}
	}
	if got := string(testdata.ReadFS(t, fsys, "cpus.csv")); !strings.HasPrefix(got, "loom,index,phyid\nnodeA,0,100\n") || strings.Count(got, "nodeA,") != 6 || strings.Count(got, "nodeB,") != 3 {
		t.Errorf("cpus.csv =\n%s", got)
	}
	header := string(testdata.ReadFS(t, fsys, "loom.nodeA/proc.8891/thread.8891/header.txt"))
	testdata.Contains(t, "header.txt", header, "finished      1\n", "require       ovni 1.1.0\n", "ovni.lib.version = 1.14.0\n", "ovni.loom_cpus.5.phyid = 105\n", "shapes.note = made by shapes.c\n")
	orig, _ := os.ReadFile(filepath.Join(dir, "ovni/loom.nodeA/proc.8891/thread.8891/stream.json"))
	if !bytes.Equal(testdata.ReadFS(t, fsys, "loom.nodeA/proc.8891/thread.8891/stream.json"), orig) {
		t.Error("stream.json is not the original")
	}
}

// synthetic1x writes a trace of layout with equal clocks across streams
// and jumbo events, and returns it with its expected events.txt.
func synthetic1x(t *testing.T, layout gen.Layout, lib string) (string, []byte) {
	t.Helper()
	var lines []dumpLine
	var procs []gen.Proc
	for _, loom := range []string{"b.node", "a"} {
		for _, pid := range []int64{30, 4} {
			p := gen.Proc{Loom: loom, PID: pid, Layout: layout}
			if layout < gen.LayoutV3 {
				p.Metadata = gen.Metadata(7, 0, 0, 2)
			}
			for _, tid := range []int64{pid + 10, pid + 2} {
				evs := gen.RandomEvents(pid*tid, 2000, 1000) // events.txt spans segments (over 1 MiB)
				for i := range evs {
					evs[i].Clock = 1000 + uint64(i/3)*10
				}
				evs[7] = gen.Event{MCV: "OJb", Clock: evs[7].Clock, Jumbo: true, Payload: bytes.Repeat([]byte{byte(tid)}, 5_000)}
				s := gen.Stream{TID: tid, Events: evs}
				switch layout {
				case gen.LayoutV2:
					s.JSON = gen.StreamJSON(2, lib, 1)
				case gen.LayoutV3:
					s.JSON = gen.StreamJSON(3, lib, 1, gen.V3Proc(loom, pid, tid, 7, 0, 0, 2)...)
				}
				p.Streams = append(p.Streams, s)
				rel := fmt.Sprintf("loom.%s/proc.%d/thread.%d", loom, pid, tid)
				if layout != gen.LayoutV3 {
					rel += ".obs"
				}
				last := int64(0)
				for i, ev := range evs {
					text := gen.HexLine(rel, ev)
					if layout == gen.LayoutObs || lib == "1.5.1" {
						text = gen.DeltaLine(rel, ev, last)
					}
					last = int64(ev.Clock)
					lines = append(lines, newDumpLine(loom, pid, tid, i, ev.Clock, text))
				}
			}
			procs = append(procs, p)
		}
	}
	return writeTrace(t, procs, lines)
}

func TestSynthetic1xLayouts(t *testing.T) {
	for _, c := range []struct {
		layout  gen.Layout
		lib     string
		version string
	}{
		{gen.LayoutObs, "", "ovni 1.1-1.4 (spec v1, thread.T.obs)"},
		{gen.LayoutV2, "1.5.1", "ovni 1.5-1.10 (spec v2), written by libovni 1.5.1"},
		{gen.LayoutV2, "1.9.0", "ovni 1.5-1.10 (spec v2), written by libovni 1.9.0"},
		{gen.LayoutV3, "1.14.0", "ovni 1.11+ (spec v3), written by libovni 1.14.0"},
	} {
		t.Run(c.version, func(t *testing.T) {
			dir, want := synthetic1x(t, c.layout, c.lib)
			src := open(t, dir)
			if src.Version != c.version {
				t.Errorf("version %q, want %q", src.Version, c.version)
			}
			fsys := src.FS()
			if got := testdata.ReadFS(t, fsys, "events.txt"); !bytes.Equal(got, want) {
				t.Fatalf("events.txt differs from the independent merge (%d vs %d bytes)", len(got), len(want))
			}
			if lines := src.Errors.Lines(); len(lines) != 0 {
				t.Fatalf("_errors.txt = %q", lines)
			}
			// A fresh open read at the end renders from a checkpoint,
			// whose state carries every stream's previous clock.
			f, err := open(t, dir).FS().Open("events.txt")
			if err != nil {
				t.Fatal(err)
			}
			tail := make([]byte, len(want)/3)
			if n, _ := f.(io.ReaderAt).ReadAt(tail, int64(len(want)-len(tail))); !bytes.Equal(tail[:n], want[len(want)-len(tail):]) {
				t.Fatal("the last third of events.txt, read first, differs")
			}
			f.Close()
			if c.layout != gen.LayoutV3 {
				return // fstest reads byte by byte: once is enough
			}
			sub, _ := fs.Sub(fsys, "loom.a/proc.4/thread.6")
			if err := fstest.TestFS(sub, "events.txt", "events.csv", "header.txt", "stream.json"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMissingAndUnfinishedStreams(t *testing.T) {
	good := gen.RandomEvents(1, 50, 100)
	procs := []gen.Proc{{Loom: "n", PID: 1, Layout: gen.LayoutV3, Streams: []gen.Stream{
		{TID: 1, Events: good, JSON: gen.StreamJSON(3, "1.14.0", 1, gen.V3Proc("n", 1, 1, 1, 0, 0, 2)...)},
		{TID: 2, Events: good, JSON: gen.StreamJSON(3, "1.14.0", 0)},
		{TID: 3, Events: good},
		{TID: 4, Events: good, JSON: gen.StreamJSON(3, "1.14.0", 1, `"tid": 99`)},
		{TID: 5, Events: good, JSON: `{"version": 3, "ovni": {"finished": 1, `},
	}}}
	dir, err := gen.Write(t.TempDir(), procs)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "loom.n/proc.1/thread.6"), 0o755)
	os.WriteFile(filepath.Join(dir, "loom.n/proc.1/thread.6/stream.json"), []byte(gen.StreamJSON(3, "1.14.0", 1)), 0o644)
	src := open(t, dir)
	errs := strings.Join(src.Errors.Lines(), "\n")
	testdata.Contains(t, "_errors.txt", errs,
		"loom.n/proc.1/thread.2: thread did not finish (ovni.finished 0)",
		"loom.n/proc.1/thread.3/stream.json",
		"loom.n/proc.1/thread.4: stream.json names loom , pid , tid 99, not its directory",
		"loom.n/proc.1/thread.5/stream.json at byte",
		"loom.n/proc.1/thread.6: stream missing: stream.obs absent",
	)
	fsys := src.FS()
	if n := bytes.Count(testdata.ReadFS(t, fsys, "events.txt"), []byte("\n")); n != 5*50 {
		t.Fatalf("events.txt has %d events, want %d", n, 5*50)
	}
	if h := string(testdata.ReadFS(t, fsys, "loom.n/proc.1/thread.5/header.txt")); !strings.Contains(h, "version = 3\n") {
		t.Errorf("header.txt of a cut JSON lacks the fields before the damage:\n%s", h)
	}
	mnt := fsnodetest.Mount(t, fsys)
	if err := fstest.TestFS(os.DirFS(mnt), "events.txt", "_errors.txt", "loom.n/proc.1/thread.2/header.txt"); err != nil {
		t.Fatal(err)
	}
}

func TestMountedCorpus1x(t *testing.T) {
	c := corpus1x[2]
	dir := testdata.Corpus(t, "ovni-1x", c.name)
	want := ovnidump.Read(t, filepath.Join(dir, c.oracle))
	checkMounted(t, filepath.Join(dir, "ovni"), want)
}

func TestEventNames(t *testing.T) {
	// Every event that plain ovnidump describes has a name.
	for _, c := range []string{"v3-1.14.0-shapes-ranks", "v3-1.14.0-test-flush-jumbo", "v2-1.10.0-shapes-threads"} {
		dir := testdata.Corpus(t, "ovni-1x", c)
		plain, _ := filepath.Glob(filepath.Join(dir, "ovnidump*.txt"))
		for _, p := range plain {
			if strings.HasSuffix(p, "x.txt") {
				continue
			}
			for _, l := range strings.Split(strings.TrimSpace(string(ovnidump.Read(t, p))), "\n") {
				f := strings.Fields(l)
				if len(f) < 3 || f[len(f)-1] == "UNKNOWN" {
					continue
				}
				if eventNames[[3]byte{f[1][0], f[1][1], f[1][2]}] == "" {
					t.Errorf("%s: %s has no name", c, f[1])
				}
			}
		}
	}
	for mcv, want := range map[string]string{"OHx": "ovni thread execute", "MS[": "MPI_Send begin", "MS]": "MPI_Send end", "VAs": "nosv_submit begin", "ZS2": "", "OF]": "ovni flush end"} {
		if got := eventNames[[3]byte{mcv[0], mcv[1], mcv[2]}]; got != want {
			t.Errorf("%s named %q, want %q", mcv, got, want)
		}
	}
	dir := testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks")
	csv := string(testdata.ReadFS(t, open(t, filepath.Join(dir, "ovni")).FS(), "loom.nodeA/proc.8891/thread.8891/events.csv"))
	if !strings.HasSuffix(strings.SplitN(csv, "\n", 2)[0], ",payload_hex,event") || !strings.Contains(csv, ",ovni thread create\n") {
		t.Errorf("events.csv lacks the event column:\n%s", csv)
	}
}

func TestDamagedV3Streams(t *testing.T) {
	good := gen.RandomEvents(3, 40, 100)
	js := gen.StreamJSON(3, "1.14.0", 1)
	procs := []gen.Proc{{Loom: "n", PID: 1, Layout: gen.LayoutV3, Streams: []gen.Stream{
		{TID: 1, Events: good, JSON: js}, {TID: 2, Events: good, JSON: js}, {TID: 3, Events: good, JSON: js}, {TID: 4, Events: good, JSON: js},
	}}}
	dir, at := writeCut(t, procs, "loom.n/proc.1/thread.2/stream.obs", good[len(good)-1], 3)
	os.WriteFile(filepath.Join(dir, "loom.n/proc.1/thread.3/stream.obs"), []byte("ovn"), 0o644)
	os.WriteFile(filepath.Join(dir, "loom.n/proc.1/thread.4/stream.obs"), nil, 0o644)
	src := open(t, dir)
	fsys := src.FS()
	var want []byte
	for _, ev := range good[:len(good)-1] {
		want = append(want, gen.HexLine("loom.n/proc.1/thread.2", ev)+"\n"...)
	}
	if got := testdata.ReadFS(t, fsys, "loom.n/proc.1/thread.2/events.txt"); !bytes.Equal(got, want) {
		t.Fatalf("the cut stream does not hold exactly its complete events:\n%s", got)
	}
	if n := bytes.Count(testdata.ReadFS(t, fsys, "events.txt"), []byte("\n")); n != 2*len(good)-1 {
		t.Fatalf("events.txt has %d events, want %d", n, 2*len(good)-1)
	}
	errs := strings.Join(src.Errors.Lines(), "\n")
	if !strings.Contains(errs, fmt.Sprintf("loom.n/proc.1/thread.2 at byte %d", at)) {
		t.Errorf("_errors.txt does not place the cut:\n%s", errs)
	}
	if !strings.Contains(errs, "loom.n/proc.1/thread.3 at byte 0 (0x0): stream header missing") {
		t.Errorf("_errors.txt does not name the stream of 3 bytes:\n%s", errs)
	}
	if !strings.Contains(errs, "loom.n/proc.1/thread.4 at byte 0 (0x0): empty stream") {
		t.Errorf("_errors.txt does not name the empty stream:\n%s", errs)
	}
	if got := testdata.ReadFS(t, fsys, "loom.n/proc.1/thread.3/events.txt"); len(got) != 0 {
		t.Errorf("a stream without its header shows events:\n%s", got)
	}
	// The merged views report each stream they skip or end early under
	// their own path, naming the stream and the byte (their binding).
	var tj struct{ TraceEvents []json.RawMessage }
	if err := json.Unmarshal(testdata.ReadFS(t, fsys, "trace.json"), &tj); err != nil {
		t.Fatalf("trace.json of damaged streams: %v", err)
	}
	testdata.ReadFS(t, fsys, "trace.pftrace")
	// trace.json ends at thread 2's cut; thread 3's own trace file skips
	// its track
	one, _ := fs.Glob(fsys, "trace/n.1.3.json")
	if len(one) != 1 {
		t.Fatalf("trace/ has no file of thread 3: %v", one)
	}
	testdata.ReadFS(t, fsys, one[0])
	errs = strings.Join(src.Errors.Lines(), "\n")
	cut := fmt.Sprintf("loom.n/proc.1/thread.2 at byte %d (0x%x): event header cut", at, at)
	header := "loom.n/proc.1/thread.3 at byte 0 (0x0): stream header missing"
	empty := "loom.n/proc.1/thread.4 at byte 0 (0x0): empty stream"
	for view, wants := range map[string][]string{
		"events.txt":    {cut, header, empty},
		"trace.json":    {cut},
		"trace.pftrace": {cut},
		one[0]:          {header},
	} {
		for _, want := range wants {
			if !strings.Contains(errs, view+": ovni: "+want) {
				t.Errorf("_errors.txt lacks %s's %q:\n%s", view, want, errs)
			}
		}
	}
}

// A second open reads the sizes and checkpoints (which carry each
// stream's previous clock, for the delta form) from the on-disk index;
// reads anywhere give the same bytes as the first open.
// TestUnreadableStreamMounted: a stream file that the OS does not let
// hpcfs read (a directory in its place: an error root gets too) is the
// stream's damage, not an EIO that no line explains: through a mount,
// trace.json and events.txt hold the other streams, the stream's own
// events.txt is empty, and _errors.txt names each view and the stream.
// (Before, trace.json failed with EIO and _errors.txt said nothing.)
func TestUnreadableStreamMounted(t *testing.T) {
	good := gen.RandomEvents(5, 30, 100)
	js := gen.StreamJSON(3, "1.14.0", 1)
	dir, err := gen.Write(t.TempDir(), []gen.Proc{{Loom: "n", PID: 1, Layout: gen.LayoutV3, Streams: []gen.Stream{
		{TID: 1, Events: good, JSON: js}, {TID: 2, Events: good, JSON: js}, {TID: 3, Events: good, JSON: js},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	obs := filepath.Join(dir, "loom.n/proc.1/thread.2/stream.obs")
	if err := os.Remove(obs); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(obs, 0o755); err != nil {
		t.Fatal(err)
	}
	mnt := fsnodetest.Mount(t, open(t, dir).FS())
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(mnt, name))
		if err != nil {
			t.Fatalf("%s through the mount: %v", name, err)
		}
		return b
	}
	var tj struct {
		TraceEvents []struct {
			Ph  string
			Tid int64
		}
	}
	if err := json.Unmarshal(read("trace.json"), &tj); err != nil {
		t.Fatalf("trace.json: %v", err)
	}
	tids := map[int64]bool{}
	for _, ev := range tj.TraceEvents {
		tids[ev.Tid] = tids[ev.Tid] || ev.Ph != "M" // a track's name is there, its events not
	}
	if !tids[1] || !tids[3] || tids[2] {
		t.Errorf("trace.json has events of threads %v, want 1 and 3 only", tids)
	}
	if n := bytes.Count(read("events.txt"), []byte("\n")); n != 2*len(good) {
		t.Errorf("events.txt has %d events, want the other streams' %d", n, 2*len(good))
	}
	if b := read("loom.n/proc.1/thread.2/events.txt"); len(b) != 0 {
		t.Errorf("the unreadable stream's events.txt holds %q", b)
	}
	errs := string(read("_errors.txt"))
	for _, view := range []string{"trace.json", "events.txt", "loom.n/proc.1/thread.2/events.txt"} {
		want := view + ": ovni: loom.n/proc.1/thread.2 at byte 0 (0x0): stream unreadable: "
		if !strings.Contains(errs, want) || !strings.Contains(errs, "is a directory") {
			t.Errorf("_errors.txt lacks %q:\n%s", want, errs)
		}
	}
}

func TestIndexed1x(t *testing.T) {
	opts := render.Options{IndexDir: t.TempDir()}
	for _, layout := range []gen.Layout{gen.LayoutObs, gen.LayoutV3} {
		dir, _, err := gen.WriteLargeAs(t.TempDir(), layout, 2, 30_000)
		if err != nil {
			t.Fatal(err)
		}
		views := []string{"events.txt", "loom.bignode/proc.1000/thread.1001/events.txt", "loom.bignode/proc.1000/thread.1001/events.csv"}
		want := map[string][]byte{}
		for round := 0; round < 2; round++ {
			fsys := openWith(t, dir, opts).FS()
			for _, v := range views {
				if round == 0 {
					want[v] = testdata.ReadFS(t, fsys, v)
					continue
				}
				f, err := fsys.Open(v)
				if err != nil {
					t.Fatal(err)
				}
				w := want[v]
				buf := make([]byte, 3000)
				n, _ := f.(io.ReaderAt).ReadAt(buf, int64(len(w)-3000))
				if !bytes.Equal(buf[:n], w[len(w)-3000:]) {
					t.Fatalf("layout %d: tail of %s differs on the second open", layout, v)
				}
				f.Close()
				if got := testdata.ReadFS(t, fsys, v); !bytes.Equal(got, w) {
					t.Fatalf("layout %d: %s differs on the second open", layout, v)
				}
			}
		}
	}
	if files, _ := filepath.Glob(filepath.Join(opts.IndexDir, "*.idx")); len(files) == 0 {
		t.Fatal("no index files written")
	}
}

// TestCorpus1xDescribed: events-described.txt equals plain ovnidump of the
// writing release (1.6 and later describe events); older releases have no
// such view.
func TestCorpus1xDescribed(t *testing.T) {
	plain := map[string]string{
		"v2-1.10.0-shapes-threads":   "ovnidump-1.10.0.txt",
		"v3-1.14.0-shapes-ranks":     "ovnidump.txt",
		"v3-1.14.0-shapes-threads":   "ovnidump.txt",
		"v3-1.14.0-test-flush-jumbo": "ovnidump.txt",
	}
	for _, c := range corpus1x {
		t.Run(c.name, func(t *testing.T) {
			dir := testdata.Corpus(t, "ovni-1x", c.name)
			fsys := open(t, filepath.Join(dir, "ovni")).FS()
			oracle, ok := plain[c.name]
			if !ok {
				if _, err := fs.Stat(fsys, "events-described.txt"); err == nil {
					t.Fatal("events-described.txt for a release whose ovnidump describes nothing")
				}
				return
			}
			want := ovnidump.Read(t, filepath.Join(dir, oracle))
			if got := testdata.ReadFS(t, fsys, "events-described.txt"); !bytes.Equal(got, want) {
				t.Fatalf("events-described.txt differs from %s (%d vs %d bytes):\n%s", oracle, len(got), len(want), got)
			}
		})
	}
}
