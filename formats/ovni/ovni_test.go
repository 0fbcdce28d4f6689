package ovni

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

var corpusCases = []string{"v1-basic-mix", "v1-two-procs"}

func open(t *testing.T, dir string) *vfs.Source { return openWith(t, dir, render.Options{}) }

// openWith opens dir for views bound to opts.
func openWith(t *testing.T, dir string, opts render.Options) *vfs.Source {
	t.Helper()
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	src.Options = opts
	t.Cleanup(func() { src.Close() })
	return src
}

// threadViews returns the paths of every thread directory in fsys.
func threadViews(t *testing.T, fsys fs.FS) []string {
	var dirs []string
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "thread.") && !strings.HasPrefix(p, "raw/") {
			dirs = append(dirs, p)
		}
		return nil
	})
	return dirs
}

// linesOf keeps the lines of a spec v1 dump that belong to the stream of
// threadDir (loom.L/proc.P/thread.T, printed as L.P.T).
func linesOf(dump []byte, threadDir string) []byte {
	parts := strings.Split(threadDir, "/")
	return ovnidump.StreamLines(dump, strings.TrimPrefix(parts[0], "loom.")+"."+strings.TrimPrefix(parts[1], "proc.")+"."+strings.TrimPrefix(parts[2], "thread."))
}

func TestCorpusEventsMatchOvnidump(t *testing.T) {
	for _, c := range corpusCases {
		t.Run(c, func(t *testing.T) {
			dir := testdata.Corpus(t, "ovni", c)
			want, err := os.ReadFile(filepath.Join(dir, "ovnidump.txt"))
			if err != nil {
				t.Fatal(err)
			}
			src := open(t, filepath.Join(dir, "ovni"))
			fsys := src.FS()
			if got := testdata.ReadFS(t, fsys, "events.txt"); !bytes.Equal(got, want) {
				t.Fatalf("events.txt differs from ovnidump.txt (%d vs %d bytes)", len(got), len(want))
			}
			threads := threadViews(t, fsys)
			first, _ := ovnidump.Parse(string(want[:bytes.IndexByte(want, '\n')]))
			base := uint64(first.Clock) // the smallest clock of the trace
			if len(threads) == 0 {
				t.Fatal("no thread directories")
			}
			total := 0
			for _, th := range threads {
				got := testdata.ReadFS(t, fsys, th+"/events.txt")
				if !bytes.Equal(got, linesOf(want, th)) {
					t.Errorf("%s/events.txt is not that thread's part of the dump", th)
				}
				rows, err := csv.NewReader(bytes.NewReader(testdata.ReadFS(t, fsys, th+"/events.csv"))).ReadAll()
				if err != nil {
					t.Fatal(err)
				}
				for _, row := range rows[1:] {
					clock, _ := strconv.ParseUint(row[0], 10, 64)
					if rel, _ := strconv.ParseUint(row[1], 10, 64); rel != clock-base {
						t.Fatalf("%s: t_ns %s for time_ns %s, want time_ns less the dump's first clock %d", th, row[1], row[0], base)
					}
				}
				if len(rows)-1 != bytes.Count(got, []byte("\n")) {
					t.Errorf("%s: %d CSV rows for %d events", th, len(rows)-1, bytes.Count(got, []byte("\n")))
				}
				total += len(rows) - 1
			}
			if total != bytes.Count(want, []byte("\n")) {
				t.Errorf("thread CSVs hold %d events, the dump %d", total, bytes.Count(want, []byte("\n")))
			}
			if err := fstest.TestFS(fsys, append([]string{"events.txt", "streams.csv", "cpus.csv", "README.txt"}, threads...)...); err != nil {
				t.Fatal(err)
			}
			if lines := src.Errors.Lines(); len(lines) != 0 {
				t.Fatalf("_errors.txt = %q", lines)
			}
		})
	}
}

func TestCorpusTables(t *testing.T) {
	dir := testdata.Corpus(t, "ovni", "v1-two-procs")
	fsys := open(t, filepath.Join(dir, "ovni")).FS()
	// The columns after last_time_ns come from thread JSON files, which v1
	// traces lack, and the process's CPU count (in proc.10861 only).
	wantStreams := "loom,pid,tid,app_id,rank,nranks,path,num_events,first_time_ns,last_time_ns,lib_version,lib_commit,finished,require,loom_cpus\n" +
		"nodeA,10861,10861,1,0,2,loom.nodeA/proc.10861/thread.10861,4,787119677646,787120367543,,,,,2\n" +
		"nodeA,10861,10863,1,0,2,loom.nodeA/proc.10861/thread.10863,22,787119865356,787119871678,,,,,2\n" +
		"nodeA,10862,10862,1,1,2,loom.nodeA/proc.10862/thread.10862,4,787120193989,787120778599,,,,,\n" +
		"nodeA,10862,10864,1,1,2,loom.nodeA/proc.10862/thread.10864,22,787120699913,787120706806,,,,,\n"
	// Event counts and clocks checked against the ovnidump lines of each stream.
	dump, _ := os.ReadFile(filepath.Join(dir, "ovnidump.txt"))
	for _, row := range strings.Split(strings.TrimSpace(wantStreams), "\n")[1:] {
		f := strings.Split(row, ",")
		lines := strings.Split(strings.TrimSpace(string(linesOf(dump, f[6]))), "\n")
		first, last := strings.Fields(lines[0])[1], strings.Fields(lines[len(lines)-1])[1]
		if strconv.Itoa(len(lines)) != f[7] || first != f[8] || last != f[9] {
			t.Fatalf("expected row %q disagrees with ovnidump.txt", row)
		}
	}
	if got := string(testdata.ReadFS(t, fsys, "streams.csv")); got != wantStreams {
		t.Fatalf("streams.csv =\n%s\nwant\n%s", got, wantStreams)
	}
	if got := string(testdata.ReadFS(t, fsys, "cpus.csv")); got != "loom,index,phyid\nnodeA,0,1\nnodeA,1,3\n" {
		t.Fatalf("cpus.csv = %q", got)
	}
	meta, _ := os.ReadFile(filepath.Join(dir, "ovni/loom.nodeA/proc.10862/metadata.json"))
	if got := testdata.ReadFS(t, fsys, "loom.nodeA/proc.10862/metadata.json"); !bytes.Equal(got, meta) {
		t.Fatal("metadata.json is not the original")
	}
}

// synthetic writes a trace whose streams share clocks, so that the merge
// order of equal clocks is exercised, and returns its expected dump.
func synthetic(t *testing.T, header bool) (string, []byte) {
	t.Helper()
	var lines []dumpLine
	var procs []gen.Proc
	for _, loom := range []string{"b.node", "a"} {
		for _, pid := range []int64{30, 4} {
			p := gen.Proc{Loom: loom, PID: pid, Metadata: gen.Metadata(7, 0, 0, 2), Header: header}
			for _, tid := range []int64{pid + 10, pid + 2} {
				evs := gen.RandomEvents(pid*tid, 3000, 1000)
				for i := range evs {
					evs[i].Clock = 1000 + uint64(i/3)*10 // equal clocks within and across streams
				}
				p.Streams = append(p.Streams, gen.Stream{TID: tid, Events: evs})
				for i, ev := range evs {
					lines = append(lines, newDumpLine(loom, pid, tid, i, ev.Clock, gen.DumpLine(loom, pid, tid, ev)))
				}
			}
			procs = append(procs, p)
		}
	}
	return writeTrace(t, procs, lines)
}

// writeCut writes procs and cuts the stream at rel, whose last event is
// last, keeping only keep bytes of that event; at is where that event
// starts.
func writeCut(t *testing.T, procs []gen.Proc, rel string, last gen.Event, keep int) (dir string, at int) {
	t.Helper()
	dir, err := gen.Write(t.TempDir(), procs)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, rel)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	at = len(data) - len(gen.AppendEvent(nil, last))
	if err := os.WriteFile(p, data[:at+keep], 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, at
}

// A dumpLine is one line of an expected events.txt with what orders it:
// its clock, then its stream and index in the stream (key).
type dumpLine struct {
	clock uint64
	key   string
	text  string
}

func newDumpLine(loom string, pid, tid int64, i int, clock uint64, text string) dumpLine {
	return dumpLine{clock, fmt.Sprintf("%s/%09d/%09d/%09d", loom, pid, tid, i), text + "\n"}
}

// writeTrace writes procs to a fresh folder and returns it with the
// events.txt expected: lines merged by clock, equal clocks in key order.
func writeTrace(t *testing.T, procs []gen.Proc, lines []dumpLine) (string, []byte) {
	t.Helper()
	slices.SortStableFunc(lines, func(a, b dumpLine) int {
		if a.clock != b.clock {
			return int(a.clock) - int(b.clock)
		}
		return strings.Compare(a.key, b.key)
	})
	var want []byte
	for _, l := range lines {
		want = append(want, l.text...)
	}
	dir, err := gen.Write(t.TempDir(), procs)
	if err != nil {
		t.Fatal(err)
	}
	return dir, want
}

func TestMergeOrdersEqualClocksByStream(t *testing.T) {
	for _, header := range []bool{false, true} {
		dir, want := synthetic(t, header)
		src := open(t, dir)
		if got := testdata.ReadFS(t, src.FS(), "events.txt"); !bytes.Equal(got, want) {
			t.Fatalf("header=%v: events.txt differs from the independent merge", header)
		}
		if header != strings.Contains(src.Version, "1.0.x") {
			t.Fatalf("header=%v: version %q", header, src.Version)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := gen.RandomEvents(1, 50, 100)
	procs := []gen.Proc{
		{Loom: "n", PID: 1, Metadata: gen.Metadata(1, 0, 0, 1), Streams: []gen.Stream{{TID: 1, Events: good}, {TID: 2, Events: good}, {TID: 3}}},
		{Loom: "n", PID: 2, Metadata: `{"version": 1, "app_id": `, Streams: []gen.Stream{{TID: 4, Events: good}}},
		{Loom: "n", PID: 3, Streams: []gen.Stream{{TID: 5, Events: good}}},
	}
	// Thread 2 cut in the middle of its last event.
	dir, at := writeCut(t, procs, "loom.n/proc.1/thread.2", good[len(good)-1], 5)

	src := open(t, dir)
	fsys := src.FS()
	mnt := fsnodetest.Mount(t, fsys)
	if b, err := os.ReadFile(filepath.Join(mnt, "_errors.txt")); err != nil || len(b) != 0 {
		t.Fatalf("_errors.txt before any read = %q, %v", b, err)
	}
	if _, err := os.ReadFile(filepath.Join(mnt, "events.txt")); err != nil {
		t.Fatalf("events.txt of a damaged trace: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt")); !bytes.Contains(b, []byte("loom.n/proc.1/thread.2 at byte")) {
		t.Fatalf("the mounted _errors.txt does not show the truncation after events.txt was read: %q", b)
	}
	var want []byte
	for _, ev := range good {
		want = append(want, gen.DumpLine("n", 1, 1, ev)+"\n"...)
	}
	if got := testdata.ReadFS(t, fsys, "loom.n/proc.1/thread.1/events.txt"); !bytes.Equal(got, want) {
		t.Fatal("an intact stream next to a truncated one changed")
	}
	var cut []byte
	for _, ev := range good[:len(good)-1] {
		cut = append(cut, gen.DumpLine("n", 1, 2, ev)+"\n"...)
	}
	if got := testdata.ReadFS(t, fsys, "loom.n/proc.1/thread.2/events.txt"); !bytes.Equal(got, cut) {
		t.Fatal("the truncated stream does not hold exactly its complete events")
	}
	if got := testdata.ReadFS(t, fsys, "loom.n/proc.1/thread.3/events.txt"); len(got) != 0 {
		t.Fatal("an empty stream is not empty")
	}
	merged := testdata.ReadFS(t, fsys, "events.txt")
	if n := bytes.Count(merged, []byte("\n")); n != 4*50-1 {
		t.Fatalf("events.txt has %d events, want %d", n, 4*50-1)
	}
	streams := string(testdata.ReadFS(t, fsys, "streams.csv"))
	if !strings.Contains(streams, "n,2,4,,,,loom.n/proc.2/thread.4,50,") || !strings.Contains(streams, "n,3,5,,,,") {
		t.Fatalf("streams.csv does not leave app_id/rank empty for bad metadata:\n%s", streams)
	}
	if err := fstest.TestFS(fsys, "events.txt", "loom.n/proc.1/thread.2/events.csv"); err != nil {
		t.Fatal(err)
	}
	testdata.ReadFS(t, fsys, "cpus.csv")
	errs := strings.Join(src.Errors.Lines(), "\n")
	// The processes' metadata, read once for streams.csv and cpus.csv,
	// is reported by each of them under its path (its binding).
	testdata.Contains(t, "_errors.txt", errs,
		fmt.Sprintf("loom.n/proc.1/thread.2 at byte %d", at),
		"streams.csv: ovni: loom.n/proc.2/metadata.json at byte 25 (0x19): malformed JSON", "cpus.csv: ovni: loom.n/proc.2/metadata.json at byte 25 (0x19): malformed JSON",
		"streams.csv: ovni: loom.n/proc.3/metadata.json at byte 0 (0x0): file missing",
		"cpus.csv: ovni: loom.n/proc.3/metadata.json at byte 0 (0x0): file missing",
	)
	// The cut is one line for each view that reads it, named by the
	// view's path as every format's views are: the merged events.txt
	// (whose other streams go on), each view that ends there (trace.json,
	// the thread's events.txt, ...) and streams.csv, whose counts end
	// there.
	views := map[string]bool{}
	for _, l := range src.Errors.Lines() {
		if !strings.Contains(l, "thread.2") {
			continue
		}
		view, _, _ := strings.Cut(l, ": ovni: ")
		if _, err := fs.Stat(fsys, view); view == l || err != nil {
			t.Errorf("_errors.txt line %q does not name a view: %v", l, err)
		}
		if !strings.Contains(l, fmt.Sprintf("loom.n/proc.1/thread.2 at byte %d ", at)) {
			t.Errorf("_errors.txt line %q does not place the cut", l)
		}
		views[view] = true
	}
	for _, v := range []string{"events.txt", "loom.n/proc.1/thread.2/events.txt", "loom.n/proc.1/thread.2/events.csv", "trace.json", "streams.csv"} {
		if !views[v] {
			t.Errorf("the cut is not reported for %s:\n%s", v, errs)
		}
	}
}

func TestMounted(t *testing.T) {
	dir, want := synthetic(t, false)
	src := open(t, dir)
	mnt := fsnodetest.Mount(t, src.FS())
	fsnodetest.CheckFile(t, filepath.Join(mnt, "events.txt"), want)
	for _, th := range threadViews(t, src.FS())[:2] {
		fsnodetest.CheckFile(t, filepath.Join(mnt, th, "events.txt"), testdata.ReadFS(t, src.FS(), th+"/events.txt"))
		fsnodetest.CheckFile(t, filepath.Join(mnt, th, "events.csv"), testdata.ReadFS(t, src.FS(), th+"/events.csv"))
	}
}

func TestMountedCorpus(t *testing.T) {
	for _, c := range corpusCases {
		t.Run(c, func(t *testing.T) {
			dir := testdata.Corpus(t, "ovni", c)
			want, _ := os.ReadFile(filepath.Join(dir, "ovnidump.txt"))
			checkMounted(t, filepath.Join(dir, "ovni"), want)
		})
	}
}

// checkMounted mounts the trace at dir: events.txt reads as want with
// the tools people use, and the tree passes fstest.TestFS.
func checkMounted(t *testing.T, dir string, want []byte) {
	t.Helper()
	src := open(t, dir)
	mnt := fsnodetest.Mount(t, src.FS())
	fsnodetest.CheckFile(t, filepath.Join(mnt, "events.txt"), want)
	threads := threadViews(t, src.FS())
	if err := fstest.TestFS(os.DirFS(mnt), append([]string{"events.txt", "streams.csv", "cpus.csv", "README.txt", "_errors.txt", "raw"}, threads...)...); err != nil {
		t.Fatal(err)
	}
}

// TestClockGoesBack: a stream whose clock goes back (a flipped clock
// byte; libovni's clock is monotonic, ovnidump warns of a "backwards jump
// in time") is reported once, at the event's byte, once streams.csv has
// read the streams; its events are shown as they are, and a monotonic
// stream beside it adds nothing.
func TestClockGoesBack(t *testing.T) {
	good := gen.RandomEvents(2, 50, 100)
	bad := slices.Clone(good)
	bad[20].Clock, bad[30].Clock = bad[19].Clock-1, bad[29].Clock/2 // two jumps: one line
	at := 0
	for _, ev := range bad[:20] {
		at += len(gen.AppendEvent(nil, ev))
	}
	dir, err := gen.Write(t.TempDir(), []gen.Proc{{Loom: "n", PID: 1, Metadata: gen.Metadata(1, 0, 0, 1),
		Streams: []gen.Stream{{TID: 1, Events: good}, {TID: 2, Events: bad}}}})
	if err != nil {
		t.Fatal(err)
	}
	src := open(t, dir)
	testdata.ReadFS(t, src.FS(), "streams.csv")
	lines := src.Errors.Lines()
	want := fmt.Sprintf("loom.n/proc.1/thread.2 at byte %d (%#x): the clock goes back from %d to %d", at, at, bad[19].Clock, bad[20].Clock)
	if len(lines) != 1 || !strings.Contains(lines[0], want) {
		t.Fatalf("_errors.txt = %q, want one line with %q", lines, want)
	}
	var dump []byte
	for _, ev := range bad {
		dump = append(dump, gen.DumpLine("n", 1, 2, ev)+"\n"...)
	}
	if got := testdata.ReadFS(t, src.FS(), "loom.n/proc.1/thread.2/events.txt"); !bytes.Equal(got, dump) {
		t.Error("the stream's events are not shown as they are")
	}
}
