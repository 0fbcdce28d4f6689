package otf2

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/otf2"
)

// writeGen writes a generated archive of n locations (location 1 with
// clock offsets) into a temporary directory and returns it.
func writeGen(t *testing.T, n, events int) string {
	t.Helper()
	tr := gen.Random(7, n, events)
	if n > 1 {
		tr.Locations[1].Offsets = [][2]int64{{1000, 5}, {int64(tr.Locations[1].Events[len(tr.Locations[1].Events)/2].Time), -30}}
	}
	dir := t.TempDir()
	if _, err := tr.Write(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// otf2Print runs otf2-print with args on the archive in dir, skipping the
// test without otf2-print (failing under CI=true).
func otf2Print(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("otf2-print missing (Debian otf2-tools)")
		}
		t.Skip("otf2-print missing (Debian otf2-tools)")
	}
	cmd := exec.Command("otf2-print", append(args, filepath.Join(dir, "traces.otf2"))...)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LC_ALL=C")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("otf2-print %v: %v", args, err)
	}
	return out
}

// TestGeneratedMatchesOtf2Print runs otf2-print on generated archives of
// several chunks per location, with clock offsets: events.txt and
// definitions.txt equal its output, and reads at any offset give the same
// bytes as the whole file.
func TestGeneratedMatchesOtf2Print(t *testing.T) {
	dir := writeGen(t, 3, 60000)
	src := testdata.Open(t, Open, dir)
	for view, args := range map[string][]string{"events.txt": nil, "definitions.txt": {"-G"}} {
		want := otf2Print(t, dir, args...)
		got := testdata.ReadFS(t, src.FS(), view)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from otf2-print %v (%d vs %d bytes)\n%s", view, args, len(got), len(want), firstDiff(got, want))
		}
		f, err := src.FS().Open(view)
		if err != nil {
			t.Fatal(err)
		}
		r := f.(io.ReaderAt)
		for _, off := range []int64{0, 1, 65535, 65536, 1 << 20, int64(len(want)) - 100} {
			if off < 0 || off >= int64(len(want)) {
				continue
			}
			buf := make([]byte, 3000)
			n, _ := r.ReadAt(buf, off)
			if !bytes.Equal(buf[:n], want[off:min(off+3000, int64(len(want)))]) {
				t.Errorf("%s: ReadAt %d differs", view, off)
			}
		}
		f.Close()
	}
	// Read backwards through a fresh source, the segments of events.txt
	// render from the last, each from its checkpoint, their readers taking
	// the windows the later segments' readers gave back (Release).
	want := otf2Print(t, dir)
	back := testdata.Open(t, Open, dir)
	f, err := back.FS().Open("events.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := make([]byte, len(want))
	for end := len(want); end > 0; end -= 200_000 {
		off := max(end-200_000, 0)
		if _, err := f.(io.ReaderAt).ReadAt(got[off:end], int64(off)); err != nil && err != io.EOF {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(got, want) {
		t.Errorf("events.txt read backwards differs from otf2-print\n%s", firstDiff(got, want))
	}
}

// TestGeneratedProfileMatchesPythonOTF2 checks imbalance.csv of a generated
// archive against python3-otf2.
func TestGeneratedProfileMatchesPythonOTF2(t *testing.T) {
	py := python3otf2(t)
	dir := writeGen(t, 4, 20000)
	out, err := exec.Command(py, "-c", pyProfile, filepath.Join(dir, "traces.otf2")).Output()
	if err != nil {
		t.Fatal(err)
	}
	src := testdata.Open(t, Open, dir)
	_, got, _ := strings.Cut(string(testdata.ReadFS(t, src.FS(), "imbalance.csv")), "\n")
	if got != string(out) {
		t.Errorf("imbalance.csv differs from python3-otf2\n%s", firstDiff([]byte(got), out))
	}
	msgs := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "messages.csv"))
	for _, m := range msgs[1:] {
		if m[0] != "message" {
			t.Fatalf("unmatched message in a trace where every send is received: %v", m)
		}
	}
}

// readAllowErr reads a view that may end early (damaged input).
func readAllowErr(t *testing.T, src *vfs.Source, name string) []byte {
	t.Helper()
	b, _ := fs.ReadFile(src.FS(), name)
	return b
}

// TestDamaged checks a cut event file, a missing event file and a damaged
// global definition file: every view still reads, the damaged part ends
// where the damage is, _errors.txt names the file and the byte offset, and
// the other locations are intact.
func TestDamaged(t *testing.T) {
	const n, events = 3, 3000
	intact := func(t *testing.T, dir string) []int {
		src := testdata.Open(t, Open, dir)
		var counts []int
		for i := range n {
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "locations/"+strconv.Itoa(i)+"/events.csv"))
			counts = append(counts, len(rows)-1)
		}
		return counts
	}
	full := intact(t, writeGen(t, n, events))

	t.Run("cut-evt", func(t *testing.T) {
		dir := writeGen(t, n, events)
		p := filepath.Join(dir, "traces", "0.evt")
		fi, _ := os.Stat(p)
		cut := fi.Size() / 2
		if err := os.Truncate(p, cut); err != nil {
			t.Fatal(err)
		}
		src := testdata.Open(t, Open, dir)
		b := readAllowErr(t, src, "locations/0/events.csv")
		rows := strings.Count(string(b), "\n") - 1
		if rows <= 0 || rows >= full[0] {
			t.Errorf("cut location: %d rows of %d", rows, full[0])
		}
		for i := 1; i < n; i++ {
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "locations/"+strconv.Itoa(i)+"/events.csv"))
			if len(rows)-1 != full[i] {
				t.Errorf("location %d: %d rows, want %d", i, len(rows)-1, full[i])
			}
		}
		txt := string(readAllowErr(t, src, "events.txt"))
		if strings.Count(txt, "\n") < full[1]+full[2] {
			t.Errorf("events.txt lost the intact locations: %d lines", strings.Count(txt, "\n"))
		}
		readAllowErr(t, src, "cct.csv")
		errs := string(testdata.ReadFS(t, src.FS(), "_errors.txt"))
		if !strings.Contains(errs, "traces/0.evt at byte ") {
			t.Errorf("_errors.txt does not name the cut file and offset:\n%s", errs)
		}
	})

	t.Run("missing-evt", func(t *testing.T) {
		dir := writeGen(t, n, events)
		if err := os.Remove(filepath.Join(dir, "traces", "2.evt")); err != nil {
			t.Fatal(err)
		}
		src := testdata.Open(t, Open, dir)
		txt := string(testdata.ReadFS(t, src.FS(), "events.txt"))
		if got := strings.Count(txt, "\n") - 5; got != full[0]+full[1] {
			t.Errorf("events.txt: %d events, want the %d of the other locations", got, full[0]+full[1])
		}
		if _, err := fs.ReadFile(src.FS(), "locations/2/events.csv"); err == nil {
			t.Error("events.csv of the missing file reads")
		}
		errs := string(testdata.ReadFS(t, src.FS(), "_errors.txt"))
		if !strings.Contains(errs, "2.evt") {
			t.Errorf("_errors.txt does not name the missing file:\n%s", errs)
		}
	})

	t.Run("bad-definitions", func(t *testing.T) {
		dir := writeGen(t, n, events)
		p := filepath.Join(dir, "traces.def")
		b, _ := os.ReadFile(p)
		at := len(b) * 2 / 3
		for i := at; i < at+8; i++ {
			b[i] = 0xee
		}
		os.WriteFile(p, b, 0o644)
		src := testdata.Open(t, Open, dir)
		readAllowErr(t, src, "definitions.txt")
		testdata.ReadFS(t, src.FS(), "header.txt")
		errs := string(testdata.ReadFS(t, src.FS(), "_errors.txt"))
		if !strings.Contains(errs, "traces.def at byte ") {
			t.Errorf("_errors.txt does not name traces.def and an offset:\n%s", errs)
		}
	})
}
