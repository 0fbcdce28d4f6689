package formats

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	cggen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	wggen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

func TestDetectByContent(t *testing.T) {
	dir := t.TempDir()
	trace, err := ovnigen.WriteDemo(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, summary, err := Detect(trace)
	if err != nil || f.Name != "ovni" || !strings.Contains(summary, "2 processes") {
		t.Fatalf("Detect(demo) = %q, %q, %v", f.Name, summary, err)
	}
	// A renamed trace directory is still an ovni trace.
	renamed := filepath.Join(dir, "whatever")
	if err := os.Rename(trace, renamed); err != nil {
		t.Fatal(err)
	}
	if f, _, err := Detect(renamed); err != nil || f.Name != "ovni" {
		t.Fatalf("Detect(renamed) = %q, %v", f.Name, err)
	}
}

func TestUnknownSourceGetsOneShortLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("hello"), 0o644)
	_, _, err := Detect(filepath.Join(dir, "notes.txt"))
	if !errors.Is(err, ErrUnknown) {
		t.Fatalf("err = %v", err)
	}
	msg := strings.TrimPrefix(err.Error(), filepath.Join(dir, "notes.txt"))
	if len(msg) > 120 || !strings.Contains(msg, "hpcfs formats") || strings.Contains(msg, "\n") {
		t.Errorf("message %q: want one short line pointing to `hpcfs formats`", msg)
	}
	if _, err := Open(dir); !errors.Is(err, ErrUnknown) {
		t.Fatalf("Open(folder without sources) = %v", err)
	}
}

// TestOvni1xIsRead checks that a spec v3 ovni trace (which versions before
// issue 12 named as unsupported), even a broken one, is read as ovni.
func TestOvni1xIsRead(t *testing.T) {
	dir := t.TempDir()
	th := filepath.Join(dir, "trace", "loom.n0", "proc.1", "thread.1")
	os.MkdirAll(th, 0o755)
	os.WriteFile(filepath.Join(th, "stream.obs"), []byte("ovni"), 0o644)
	os.WriteFile(filepath.Join(th, "stream.json"), []byte("{}"), 0o644)
	for _, p := range []string{filepath.Join(dir, "trace"), filepath.Join(dir, "trace", "loom.n0", "..")} {
		f, _, err := Detect(p)
		if err != nil || f.Name != "ovni" {
			t.Fatalf("Detect(%s) = %v, %v", p, f, err)
		}
	}
	src := testdata.Open(t, Open, filepath.Join(dir, "trace"))
	if _, err := fs.ReadFile(src.FS(), "events.txt"); err != nil {
		t.Fatal(err)
	}
	if lines := src.Errors.Lines(); len(lines) < 2 {
		t.Fatalf("_errors.txt = %q, want the cut stream header and the bad stream.json", lines)
	}
}

// TestUnsupportedSignatures checks the messages for sources hpcfs knows
// by their signature but does not read.
func TestUnsupportedSignatures(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	os.MkdirAll(db, 0o755)
	os.WriteFile(filepath.Join(db, "meta.db"), []byte("HPCTOOLKITmeta\x04\x00"), 0o644)
	archive := filepath.Join(dir, "run.zip")
	os.WriteFile(archive, []byte("PK\x03\x04rest"), 0o644)
	os.WriteFile(filepath.Join(db, "profile.db"), []byte("HPCTOOLKITprof\x04\x00"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.prof"), []byte("HPCRUN-x"), 0o644)
	os.WriteFile(filepath.Join(dir, "thread.1.obs"), []byte("\x01\x02"), 0o644)
	os.WriteFile(filepath.Join(dir, "x.obs.gz"), []byte("\x1f\x8b\x08"), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(db, "meta.db"), "HPCToolkit meta database file: mount the database directory"},
		{filepath.Join(db, "profile.db"), "HPCToolkit prof database file: mount the database directory"},
		{archive, "zip archive: unpack it first"},
		{filepath.Join(dir, "a.prof"), "hpcrun file of a version this build does not read"},
		{filepath.Join(dir, "thread.1.obs"), "ovni stream file: mount the trace directory (the one holding loom.*)"},
		{filepath.Join(dir, "x.obs.gz"), "gzip file that is no profile hpcfs reads: unpack it first"},
	} {
		f, _, err := Detect(c.path)
		if err == nil {
			// A format took it over (a later version reads it): the
			// message must not fire.
			t.Logf("%s is read as %s", c.path, f.Name)
			continue
		}
		if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Detect(%s) = %v, want %q", c.path, err, c.want)
		}
	}
}

// TestFolderScanIsRecursive mounts a folder whose sources sit at several
// depths, beside files and folders that are no sources, and checks the
// paths of the sources and the README.txt list of what was left out.
func TestFolderScanIsRecursive(t *testing.T) {
	dir := t.TempDir()
	if _, err := ovnigen.WriteDemo(filepath.Join(dir, "runs", "a", "b")); err != nil {
		t.Fatal(err)
	}
	if _, err := ovnigen.WriteDemo(filepath.Join(dir, "top")); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "program", "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "program", "src", "main.c"), []byte("int main(){}"), 0o644)
	os.WriteFile(filepath.Join(dir, "program", "Makefile"), []byte("all:"), 0o644)
	os.WriteFile(filepath.Join(dir, "old.zip"), []byte("PK\x03\x04rest"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	src := testdata.Open(t, Open, dir)
	for _, p := range []string{"runs/a/b/events.txt", "top/streams.csv"} {
		if src.Root.Walk(p) == nil {
			t.Errorf("%s missing from the folder mount", p)
		}
	}
	readme := readAll(t, src, "README.txt")
	testdata.Contains(t, "README.txt", readme,
		"A folder of 2 sources",
		"  old.zip  zip archive: unpack it first\n",
		"  notes.txt  not a source hpcfs reads\n",
		"  program/  no source inside (2 entries)\n",
	)
	checkLineWidth(t, "README.txt", readme)
}

// TestFolderReportsDamagedProfile: in a folder, a file named like a
// callgrind profile whose first lines are not one (cut to nothing) is
// listed as not mounted and reported in _errors.txt, as the folder's
// other sources are mounted.
func TestFolderReportsDamagedProfile(t *testing.T) {
	dir := t.TempDir()
	if _, err := ovnigen.WriteDemo(filepath.Join(dir, "trace")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "callgrind.out.99"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	src := testdata.Open(t, Open, dir)
	testdata.Contains(t, "README.txt", readAll(t, src, "README.txt"),
		"A folder of 1 source",
		"  callgrind.out.99  named like a callgrind profile, but not one (empty, cut or damaged)\n",
	)
	if lines := src.Errors.Lines(); len(lines) != 1 || !strings.HasPrefix(lines[0], "callgrind.out.99: callgrind: named like a profile") {
		t.Errorf("_errors.txt = %q, want one line on callgrind.out.99", lines)
	}
}

func readAll(t *testing.T, src *vfs.Source, name string) string {
	t.Helper()
	b, err := fs.ReadFile(src.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkLineWidth(t *testing.T, name, text string) {
	t.Helper()
	for i, line := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(line); n > 100 {
			t.Errorf("%s line %d has %d characters (at most 100): %q", name, i+1, n, line)
		}
	}
}

func TestFolderOfSources(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"run1", "run2"} {
		if _, err := ovnigen.WriteDemo(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	src := testdata.Open(t, Open, dir)
	for _, p := range []string{"run1/events.txt", "run2/streams.csv", "README.txt", "_errors.txt"} {
		if src.Root.Walk(p) == nil {
			t.Errorf("%s missing from the folder mount", p)
		}
	}
}

// TestFolderHidesNoSource: a folder that one format reads as a whole (raw
// callgrind files) but that also holds a source of another format (the
// .webgrind cache made from them) is scanned as a folder, mounted directly
// or inside a larger folder: both sources appear, the rest is listed.
func TestFolderHidesNoSource(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "run")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "callgrind.out.1234"), cggen.Bytes(cggen.Config{Seed: 3}), 0o644)
	f, err := os.Create(filepath.Join(dir, "callgrind.out.1234.webgrind"))
	if err != nil {
		t.Fatal(err)
	}
	if err := wggen.Random(5, 20, 4).Write(f, 7); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	for _, tc := range []struct{ path, prefix string }{{dir, ""}, {top, "run/"}} {
		src, err := Open(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{"callgrind.out.1234/functions.csv", "callgrind.out.1234.webgrind/functions.csv"} {
			if src.Root.Walk(tc.prefix+p) == nil {
				t.Errorf("Open(%s): %s missing", tc.path, tc.prefix+p)
			}
		}
		readme := readAll(t, src, "README.txt")
		for _, want := range []string{"A folder of 2 sources", "  " + tc.prefix + "notes.txt  not a source hpcfs reads\n"} {
			if !strings.Contains(readme, want) {
				t.Errorf("Open(%s): README.txt lacks %q:\n%s", tc.path, want, readme)
			}
		}
		src.Close()
	}
}

// TestCorpusWebgrindFolderHidesNothing: the webgrind corpus folder holds,
// per case, the raw profile and webgrind's cache of it; both are mounted.
func TestCorpusWebgrindFolderHidesNothing(t *testing.T) {
	dir := testdata.Corpus(t, "webgrind")
	src := testdata.Open(t, Open, dir)
	for _, c := range []string{"valgrind-calls-v7", "xdebug-app-v7", "xdebug2-app-v6"} {
		for _, p := range []string{"/callgrind.out/functions.csv", "/callgrind.out.webgrind/functions.csv"} {
			if src.Root.Walk(c+p) == nil {
				t.Errorf("%s missing from the folder mount", c+p)
			}
		}
	}
}

func TestCorpusSourcesAreDetected(t *testing.T) {
	root := testdata.Corpus(t)
	for _, tc := range []struct{ path, format string }{
		{"ovni/v1-basic-mix/ovni", "ovni"},
		{"ovni/v1-two-procs/ovni", "ovni"},
	} {
		f, _, err := Detect(filepath.Join(root, tc.path))
		if err != nil || f.Name != tc.format {
			t.Errorf("Detect(%s) = %q, %v; want %s", tc.path, f.Name, err, tc.format)
		}
	}
}
