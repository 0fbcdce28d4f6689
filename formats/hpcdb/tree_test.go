package hpcdb_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
)

// allDatabases opens every database of the corpus, of both generations.
func allDatabases(t *testing.T) map[string]*vfs.Source {
	out := map[string]*vfs.Source{}
	add := func(name string, src *vfs.Source, err error) {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { src.Close() })
		out[name] = src
	}
	for _, dir := range metaCases(t) {
		src, err := hpcdb.OpenMeta(dir)
		add(filepath.Base(dir), src, err)
	}
	meta := testdata.Corpus(t, "hpctoolkit", "db-metadb-4.x-pipit-ping-pong")
	src, err := hpcdb.OpenMeta(meta)
	add(filepath.Base(meta), src, err)
	for _, s := range corpusSamples {
		src, err := hpcdb.Open(testdata.Corpus(t, "hpctoolkit", s))
		add(s, src, err)
	}
	return out
}

// cct.txt lists the tree of cct.csv, every context once, each context's
// children by descending inclusive value as hpcviewer does; a procedure
// line names its module once (HPCToolkit's names of procedures without
// symbols already end in "[module]").
func TestCCTTxtSortedTree(t *testing.T) {
	for name, src := range allDatabases(t) {
		t.Run(name, func(t *testing.T) {
			fsys := src.FS()
			csvRows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "cct.csv"))
			mods := map[string]bool{}
			m := col(t, csvRows[0], "module")
			for _, r := range csvRows[1:] {
				if r[m] != "" {
					mods[path.Base(r[m])] = true
				}
			}
			lines := strings.Split(strings.TrimSuffix(string(testdata.ReadFS(t, fsys, "cct.txt")), "\n"), "\n")[1:]
			if len(lines) != len(csvRows)-1 {
				t.Fatalf("cct.txt has %d contexts, cct.csv %d", len(lines), len(csvRows)-1)
			}
			// last[d] is the inclusive value of the last context seen at depth d
			var last []float64
			for i, l := range lines {
				f := strings.SplitN(strings.TrimLeft(l, " "), "  ", 4)
				if len(f) < 4 {
					t.Fatalf("line %d: %q", i+2, l)
				}
				inc, err := strconv.ParseFloat(f[1], 64)
				if err != nil {
					t.Fatalf("line %d: %q: %v", i+2, l, err)
				}
				d := (len(f[3]) - len(strings.TrimLeft(f[3], " "))) / 2
				if d > len(last) {
					t.Fatalf("line %d is %d deep under a line %d deep", i+2, d, len(last)-1)
				}
				if d < len(last) && inc > last[d] {
					t.Errorf("line %d: inclusive %v after a sibling with %v:\n%s", i+2, inc, last[d], l)
				}
				last = append(last[:d], inc)
				for mod := range mods {
					if strings.Count(l, mod+"]") > 1 {
						t.Errorf("line %d names module %s more than once: %s", i+2, mod, l)
					}
				}
			}
		})
	}
}

// cct.csv is the tree only, so that pandas reads its id, depth and line
// columns as integers (int64, not float64 with NaN); the contexts outside
// the tree are in unlisted.csv, and procedures.csv tells inlined instances
// of a procedure from called ones. Read with Debian's python3 and pandas.
func TestPandasIntegerColumns(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import pandas").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 with pandas is needed (.ci/setup installs python3-pandas): %v", err)
		}
		t.Skipf("no python3 with pandas: %v", err)
	}
	ints := map[string][]string{
		"cct.csv":        {"ctx_id", "parent_id", "depth", "line"},
		"unlisted.csv":   {"ctx_id"},
		"procedures.csv": {"function_id", "line"},
	}
	const script = `import sys, pandas
for a in sys.argv[1:]:
    f, cols = a.split("=")
    d = pandas.read_csv(f)
    for c in cols.split(","):
        if len(d) and str(d[c].dtype) != "int64":
            print(f, c, d[c].dtype)
`
	for name, src := range allDatabases(t) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-c", script}
			for view, cols := range ints {
				b, err := fs.ReadFile(src.FS(), view)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, view)
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, p+"="+strings.Join(cols, ","))
			}
			out, err := exec.Command(py, args...).CombinedOutput()
			if err != nil || len(out) > 0 {
				t.Errorf("pandas: %v\n%s", err, out)
			}
			procs := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "procedures.csv"))
			seen := map[string]bool{}
			id, rel := col(t, procs[0], "function_id"), col(t, procs[0], "relation")
			for _, r := range procs[1:] {
				if r[rel] != "call" && r[rel] != "inlined_call" {
					t.Errorf("procedures.csv relation %q", r[rel])
				}
				if k := r[id] + "," + r[rel]; seen[k] {
					t.Errorf("procedures.csv has function %s twice", k)
				} else {
					seen[k] = true
				}
			}
		})
	}
}

// BenchmarkTraceViews sizes and reads every traces/ view of the corpus's
// largest trace (hpcviewer-issue-233: 135 lines, 106k samples), from a
// fresh source each time.
func BenchmarkTraceViews(b *testing.B) {
	dir := testdata.Corpus(b, "hpctoolkit-metadb", "hpcviewer-issue-233")
	var n int64
	for b.Loop() {
		src, err := hpcdb.OpenMeta(dir)
		if err != nil {
			b.Fatal(err)
		}
		ents, err := fs.ReadDir(src.FS(), "traces")
		if err != nil {
			b.Fatal(err)
		}
		n = 0
		for _, e := range ents {
			data, err := fs.ReadFile(src.FS(), "traces/"+e.Name())
			if err != nil {
				b.Fatal(err)
			}
			n += int64(len(data))
		}
		src.Close()
	}
	b.SetBytes(n)
}
