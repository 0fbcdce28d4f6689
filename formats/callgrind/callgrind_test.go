package callgrind

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
)

func column(t testing.TB, header []string, name string) int {
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %q", name, header)
	return -1
}

// irTotal is the sum of the ir_exc column of CSV view name.
func irTotal(t *testing.T, fsys fs.FS, name string) int64 {
	t.Helper()
	rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, name))
	c := column(t, rows[0], "ir_exc")
	var s int64
	for _, r := range rows[1:] {
		v, _ := strconv.ParseInt(r[c], 10, 64)
		s += v
	}
	return s
}

// openFS opens path as a callgrind source, closed when the test ends.
func openFS(t *testing.T, path string) fs.FS {
	t.Helper()
	src, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src.FS()
}

var corpus = []struct{ set, name string }{
	{"speedscope-samples", "callgrind.name-compression.log"},
	{"valgrind-3.19-generated", "callgrind.out.default"},
	{"valgrind-3.19-generated", "callgrind.out.default.gz"},
	{"valgrind-3.19-generated", "callgrind.out.cachesim"},
	{"valgrind-3.19-generated", "callgrind.out.instr-jumps"},
	{"valgrind-3.19-generated", "cachegrind.out.default"},
	{"xdebug-3.2.0-generated", "cachegrind.out.12174.gz"},
}

// TestCorpusTrees opens corpus files: functions.csv holds the decoder's
// table (checked against callgrind_annotate in decode/callgrind) for every
// event, calls.csv and callers.csv agree, and the tree passes fstest.
func TestCorpusTrees(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(testdata.Corpus(t, "callgrind", c.set), c.name)
			if _, ok := Detect(path); !ok {
				t.Fatal("not detected")
			}
			src := testdata.Open(t, Open, path)
			fsys := src.FS()
			f, _ := cg.Open(path)
			defer f.Close()
			tab := f.Summarize()
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions.csv"))
			if len(rows) != len(tab.Funcs)+1 {
				t.Fatalf("%d rows for %d functions", len(rows), len(tab.Funcs))
			}
			h := rows[0]
			for i, r := range rows[1:] {
				if r[column(t, h, "function")] != tab.Names.Name(tab.Funcs[i].Name) || r[column(t, h, "file")] != tab.Names.Name(tab.Funcs[i].File) {
					t.Fatalf("row %d: %q", i, r)
				}
				for k, e := range eventColumns(tab.Events) {
					if r[column(t, h, e+"_exc")] != strconv.FormatInt(tab.Self(i)[k], 10) ||
						r[column(t, h, e+"_inc")] != strconv.FormatInt(tab.Inclusive(i)[k], 10) {
						t.Fatalf("row %d event %s: %q", i, e, r)
					}
				}
			}
			calls := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "calls.csv"))
			if len(calls) != len(tab.Edges)+1 {
				t.Fatalf("%d call rows for %d edges", len(calls), len(tab.Edges))
			}
			// callers.csv of every function lists its incoming edges.
			des, err := fs.ReadDir(fsys, "functions")
			if err != nil || len(des) != len(tab.Funcs) {
				t.Fatalf("functions/: %d entries, %v", len(des), err)
			}
			n := 0
			for _, de := range des {
				n += len(testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions/"+de.Name()+"/callers.csv"))) - 1
			}
			if n != len(tab.Edges) {
				t.Errorf("callers.csv rows %d, edges %d", n, len(tab.Edges))
			}
			lines := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "lines.csv"))
			if int64(len(lines)-1) != tab.CostLines {
				t.Errorf("lines.csv %d rows, %d cost lines", len(lines)-1, tab.CostLines)
			}
			if errs := testdata.ReadFS(t, fsys, "_errors.txt"); len(errs) != 0 && c.set != "speedscope-samples" {
				t.Errorf("_errors.txt: %s", errs)
			}
			// fstest walks every functions/ entry: on three trees, to keep
			// the race-detector run short.
			if c.name == "callgrind.name-compression.log" || strings.HasSuffix(c.name, ".gz") {
				if err := fstest.TestFS(fsys, "functions.csv", "calls.csv", "header.txt", "lines.csv", "README.txt", "functions/"+des[0].Name()+"/callees.csv"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestDirectory mounts the three thread files of a --separate-threads run:
// one subdirectory each and sum/, whose costs are the sums.
func TestDirectory(t *testing.T) {
	corpusDir := testdata.Corpus(t, "callgrind", "valgrind-3.19-generated")
	dir := t.TempDir()
	var sums []int64
	for _, n := range []string{"callgrind.out.threads-01", "callgrind.out.threads-02", "callgrind.out.threads-03"} {
		b, err := os.ReadFile(filepath.Join(corpusDir, n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
		f, _ := cg.NewFile(bytes.NewReader(b), int64(len(b)))
		sums = append(sums, f.Summarize().Sum()[0])
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a profile\n"), 0o644)
	if _, ok := Detect(dir); !ok {
		t.Fatal("directory not detected")
	}
	src := testdata.Open(t, Open, dir)
	fsys := src.FS()
	total := func(name string) int64 { return irTotal(t, fsys, name) }
	if got, want := total("sum/functions.csv"), sums[0]+sums[1]+sums[2]; got != want {
		t.Errorf("sum/functions.csv ir_exc total %d, want %d", got, want)
	}
	if got := total("callgrind.out.threads-02/functions.csv"); got != sums[1] {
		t.Errorf("thread 2 total %d, want %d", got, sums[1])
	}
	if err := fstest.TestFS(fsys, "sum/functions.csv", "sum/calls.csv", "sum/header.txt", "callgrind.out.threads-01/lines.csv", "README.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestDirectoryNamedLikeProfile: a file of a directory of profiles named
// as valgrind names them whose first lines are not a profile's (cut to
// nothing, a damaged header) is not mounted, and _errors.txt says so; a
// webgrind cache and other files beside them are not profiles by name.
func TestDirectoryNamedLikeProfile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "callgrind.out.1"), gen.Bytes(gen.Config{Seed: 3, Functions: 5, Records: 20}), 0o644)
	os.WriteFile(filepath.Join(dir, "callgrind.out.2"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "cachegrind.out.3"), []byte("\x00\x00\x00\x00\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "callgrind.out.webgrind"), []byte{7, 0, 0, 0}, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a profile\n"), 0o644)
	src := testdata.Open(t, Open, dir)
	lines := src.Errors.Lines()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "cachegrind.out.3: ") || !strings.HasPrefix(lines[1], "callgrind.out.2: ") ||
		!strings.Contains(lines[0], "named like a profile") {
		t.Fatalf("_errors.txt = %q, want a line for cachegrind.out.3 and callgrind.out.2", lines)
	}
	if _, err := fs.Stat(src.FS(), "callgrind.out.2"); err == nil {
		t.Error("an empty file is mounted as a profile")
	}
}

// TestTruncatedTree cuts a generated profile: the tree still mounts, the
// tables hold what came before the cut and _errors.txt says so.
func TestTruncatedTree(t *testing.T) {
	b := gen.Bytes(gen.Config{Seed: 3, Functions: 30, Records: 400})
	path := filepath.Join(t.TempDir(), "callgrind.out.cut")
	os.WriteFile(path, b[:len(b)*2/3], 0o644)
	fsys := openFS(t, path)
	if rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions.csv")); len(rows) < 10 {
		t.Fatalf("functions.csv: %d rows", len(rows))
	}
	errs := string(testdata.ReadFS(t, fsys, "_errors.txt"))
	if !strings.Contains(errs, "no newline") && !strings.Contains(errs, "without the cost line") {
		t.Fatalf("_errors.txt: %q", errs)
	}
	if !strings.Contains(string(testdata.ReadFS(t, fsys, "header.txt")), "totals_check") {
		// no totals: line survived the cut, so header.txt has no check
		t.Log("no totals line after the cut")
	}
	if err := fstest.TestFS(fsys, "functions.csv", "lines.csv"); err != nil {
		t.Fatal(err)
	}
}

// TestMounted serves a corpus profile through FUSE: the mounted files
// equal the in-process ones, read whole, by tail and at random offsets.
func TestMounted(t *testing.T) {
	path := filepath.Join(testdata.Corpus(t, "callgrind", "valgrind-3.19-generated"), "callgrind.out.threads-03")
	fsys := openFS(t, path)
	mnt := fsnodetest.Mount(t, fsys)
	for _, name := range []string{"functions.csv", "calls.csv", "lines.csv", "header.txt", "README.txt"} {
		fsnodetest.CheckFile(t, filepath.Join(mnt, name), testdata.ReadFS(t, fsys, name))
	}
	if err := fstest.TestFS(os.DirFS(mnt), "functions.csv", "calls.csv", "lines.csv", "header.txt", "raw/callgrind.out.threads-03"); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(mnt, "raw", "callgrind.out.threads-03"))
	orig, _ := os.ReadFile(path)
	if !bytes.Equal(raw, orig) {
		t.Fatal("raw/ differs from the original")
	}
}

// TestIndexedLines sizes lines.csv on one open with an index directory,
// then reads it through a second open that loads the index: same bytes.
func TestIndexedLines(t *testing.T) {
	index := t.TempDir()
	b := gen.Bytes(gen.Config{Seed: 9, Functions: 40, Records: 300, Instr: true, Inline: true, Events: 2})
	path := filepath.Join(t.TempDir(), "callgrind.out.idx")
	os.WriteFile(path, b, 0o644)
	var want []byte
	for round := 0; round < 2; round++ {
		src, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		src.Options.IndexDir = index
		got := testdata.ReadFS(t, src.FS(), "lines.csv")
		if round == 0 {
			want = got
		} else if !bytes.Equal(got, want) {
			t.Fatal("lines.csv from the index differs")
		}
		src.Close()
	}
	st := cg.State{Off: 12345, Obj: 3, FnFile: 4, File: 5, Fn: 6, CObj: -1, CFile: -1, CFn: 7, Instr: 0x401000, Line: -2, NoLine: true}
	enc, _ := st.AppendBinary(nil)
	if back, rest, err := cg.DecodeState(enc); err != nil || back != st || len(rest) != 0 {
		t.Fatalf("state round trip: %v %v", back, err)
	}
}

// TestDuplicateEventColumns: a file naming an event twice mounts with
// unique CSV columns and flame files, and says so in _errors.txt.
func TestDuplicateEventColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "callgrind.out.dup")
	if err := os.WriteFile(path, []byte("events: Ir Ir\nfl=a.c\nfn=main\n1 1 2\ncfn=f\ncalls=1 2\n1 3 4\nfn=f\n2 3 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := openFS(t, path)
	for _, view := range []string{"functions.csv", "calls.csv", "lines.csv"} {
		header := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, view))[0]
		seen := map[string]bool{}
		for _, h := range header {
			if seen[h] {
				t.Errorf("%s: column %s twice: %v", view, h, header)
			}
			seen[h] = true
		}
		if !seen["ir_2"] && !seen["ir_2_inc"] {
			t.Errorf("%s: no ir_2 column: %v", view, header)
		}
	}
	if _, err := fs.Stat(fsys, "flame/ir_2.folded"); err != nil {
		t.Error(err)
	}
	if errs := string(testdata.ReadFS(t, fsys, "_errors.txt")); !strings.Contains(errs, "event named twice") {
		t.Errorf("_errors.txt: %q", errs)
	}
}

// TestOutputBound: a 100 KB garbage run in one fl= line of an Xdebug
// profile (issue 27: 1 MB made lines.csv 2.5 GB) cuts lines.csv at
// RowsPerInputByte bytes per input byte plus RowsSlack, with an
// _errors.txt line; the intact rows before the cut are kept.
func TestOutputBound(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("version: 1\ncreator: xdebug 3.2.0\nevents: Time_(10ns) Memory_(bytes)\n\nfl=(1) ok.php\nfn=(1) main\n1 5 0\n")
	b.WriteString("fl=(2) " + strings.Repeat("\x9b", 100<<10) + "\nfn=(2) junk\n")
	for i := range 2000 {
		b.WriteString(strconv.Itoa(i+1) + " 7 0\n")
	}
	path := filepath.Join(t.TempDir(), "cachegrind.out.garbage")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := openFS(t, path)
	fi, err := fs.Stat(fsys, "lines.csv")
	if err != nil {
		t.Fatal(err)
	}
	if limit := int64(cg.RowsPerInputByte*b.Len() + cg.RowsSlack + 200<<10); fi.Size() > limit {
		t.Errorf("lines.csv is %d bytes, bound %d (input %d)", fi.Size(), limit, b.Len())
	}
	rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "lines.csv"))
	if len(rows) < 2 || rows[1][0] != "ok.php" || len(rows) > 2000 {
		t.Errorf("lines.csv: %d rows, first %q", len(rows), rows[1][:2])
	}
	if errs := string(testdata.ReadFS(t, fsys, "_errors.txt")); !strings.Contains(errs, "rows cut") {
		t.Errorf("_errors.txt: %q", errs)
	}
	if rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "functions.csv")); len(rows) != 3 {
		t.Errorf("functions.csv: %d rows, want the 2 functions", len(rows)-1)
	}
}

// TestAppendMode: an Xdebug file written in append mode (each run after a
// "==== NEW PROFILING FILE" line, issue 21.5) mounts as profile-<k>/, one
// per run, plain and gzip; each reads as the run alone.
func TestAppendMode(t *testing.T) {
	one, err := os.ReadFile(testdata.Corpus(t, "callgrind", "xdebug-3.2.0-generated", "cachegrind.out.12174"))
	if err != nil {
		t.Fatal(err)
	}
	alone := openFS(t, testdata.Corpus(t, "callgrind", "xdebug-3.2.0-generated", "cachegrind.out.12174"))
	marker := "\n==== NEW PROFILING FILE ==============================================\n"
	var b bytes.Buffer
	for range 3 {
		b.WriteString(marker)
		b.Write(one)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b.Bytes())
	zw.Close()
	dir := t.TempDir()
	for name, content := range map[string][]byte{"cachegrind.out.append": b.Bytes(), "cachegrind.out.append.gz": z.Bytes()} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, content, 0o644); err != nil {
				t.Fatal(err)
			}
			fsys := openFS(t, path)
			for k := 1; k <= 3; k++ {
				sub := "profile-" + strconv.Itoa(k) + "/"
				for _, view := range []string{"functions.csv", "calls.csv", "lines.csv", "flame/time_ns.folded"} {
					if got, want := testdata.ReadFS(t, fsys, sub+view), testdata.ReadFS(t, alone, view); !bytes.Equal(got, want) {
						t.Errorf("%s%s differs from the run alone (%d and %d bytes)", sub, view, len(got), len(want))
					}
				}
			}
			if _, err := fs.Stat(fsys, "profile-4"); err == nil {
				t.Error("a fourth profile")
			}
			if errs := testdata.ReadFS(t, fsys, "_errors.txt"); len(errs) > 0 {
				t.Errorf("_errors.txt: %s", errs)
			}
			if err := fstest.TestFS(fsys, "profile-1/functions.csv", "profile-3/lines.csv", "README.txt"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestDirectoryRuns (issue 21.6): in a folder of profiles of several
// runs, only the parts and threads of one run are summed, one sum per
// run; a copy (callgrind.out.default.gz) and a cachegrind profile are
// not, and README.txt says which files went into each sum.
func TestDirectoryRuns(t *testing.T) {
	corpusDir := testdata.Corpus(t, "callgrind", "valgrind-3.19-generated")
	dir := t.TempDir()
	testdata.CopyDir(t, corpusDir, dir)
	for _, n := range []string{"callgrind.out.parts", "callgrind.out.parts.3", "callgrind.out.threads-03", "callgrind.out.cachesim",
		"callgrind.out.instr-jumps", "callgrind.out.nocompress", "callgrind.out.systime", "cachegrind.out.cachesim"} {
		if err := os.Remove(filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	fsys := openFS(t, dir)
	des, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, de := range des {
		if strings.HasPrefix(de.Name(), "sum") {
			sums = append(sums, de.Name())
		}
	}
	if strings.Join(sums, " ") != "sum-pid12936 sum-pid12939" {
		t.Fatalf("sums %v, want one per run of several parts or threads", sums)
	}
	total := func(name string) int64 { return irTotal(t, fsys, name) }
	for sum, parts := range map[string][]string{"sum-pid12939": {"callgrind.out.parts.1", "callgrind.out.parts.2"},
		"sum-pid12936": {"callgrind.out.threads-01", "callgrind.out.threads-02"}} {
		var want int64
		for _, p := range parts {
			want += total(p + "/functions.csv")
		}
		if got := total(sum + "/functions.csv"); got != want {
			t.Errorf("%s: Ir total %d, its parts %d", sum, got, want)
		}
	}
	readme := string(testdata.ReadFS(t, fsys, "README.txt"))
	if !strings.Contains(readme, "sum-pid12939/  pid 12939, cmd ../prog: the sum of\n      callgrind.out.parts.1/\n      callgrind.out.parts.2/\n") {
		t.Errorf("README.txt does not list the parts summed:\n%s", readme)
	}
	for _, line := range strings.Split(readme, "\n") {
		if len(line) > 100 {
			t.Errorf("README.txt line longer than 100 columns: %q", line)
		}
	}
}

// TestNamesEscaped: names and header values holding a CR, a NUL, a byte
// that is not UTF-8 and an escape character (a callgrind line cannot
// hold a newline), and a 400-byte function name, reach no view raw
// (issue 27): header.txt writes them as \xNN on their own lines, every
// CSV parses, and the long name's views keep their extension.
func TestNamesEscaped(t *testing.T) {
	bad := strings.ReplaceAll(testdata.BadName, "\n", "")
	long := strings.Repeat("L", 400)
	path := filepath.Join(t.TempDir(), "callgrind.out.bad")
	body := "# callgrind format\nversion: 1\ncreator: " + bad + "\nevents: Ir\nfl=(1) " + bad + ".c\nfn=(1) " + bad +
		"\n1 10\ncfn=(2) " + long + "\ncalls=1 2\n2 5\nfn=(2)\n3 5\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := openFS(t, path)
	views := testdata.CheckTextViews(t, fsys)
	if h := string(views["header.txt"]); !strings.Contains(h, `creator: badna\x0dme\x00x\xff\x1b`+"\n") {
		t.Errorf("header.txt does not escape the creator:\n%s", h)
	}
	rows := testdata.ReadCSV(t, views["functions.csv"])
	if len(rows) != 3 || rows[1][1] != `badna\x0dme\x00x\xff\x1b` || rows[2][1] != long {
		t.Errorf("functions.csv names: %q", rows)
	}
	// flame/ writes names by the same rule as every other text view.
	if f := string(views["flame/ir.folded"]); !strings.Contains(f, `badna\x0dme\x00x\xff\x1b 10`+"\n") {
		t.Errorf("flame/ir.folded does not escape the name as functions.csv does:\n%s", f)
	}
	names, err := fs.Glob(fsys, "callers/L*")
	if err != nil || len(names) != 1 || !strings.HasSuffix(names[0], ".csv") || len(names[0]) > len("callers/")+210 {
		t.Errorf("callers/ of the long name: %q, %v", names, err)
	}
}
