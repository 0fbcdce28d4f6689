package hpcdb_test

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

func openGen(t *testing.T, c gen.Config) (*gen.DB, *vfs.Source) {
	t.Helper()
	dir := t.TempDir()
	g, err := gen.Write(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	src, err := hpcdb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return g, src
}

func readCSV(t *testing.T, fsys fs.FS, name string) [][]string {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rows
}

func col(t *testing.T, head []string, name string) int {
	for i, h := range head {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %s in %v", name, head)
	return -1
}

var shapes = []gen.Config{
	{Threads: 3, Contexts: 200, Metrics: 2, Samples: 40, Seed: 1},
	{Threads: 6, Contexts: 500, Metrics: 1, Samples: 0, GPU: true, Unlisted: 3, Seed: 2, Density: 0.3},
	{Threads: 1, Contexts: 50, Metrics: 3, Samples: 5, Seed: 3, Density: 1},
}

// contexts/ served from a valid cct.db equals contexts/ derived from
// profile.db when cct.db's data area is zero-filled.
func TestContextsFromCCTEqualDerived(t *testing.T) {
	for _, c := range shapes {
		c.ValidCCT = true
		g, valid := openGen(t, c)
		c.ValidCCT = false
		_, zero := openGen(t, c)
		vf, zf := valid.FS(), zero.FS()
		for ctx := 0; ctx < g.NumContexts(); ctx++ {
			name := "contexts/" + strconv.Itoa(ctx) + ".csv"
			a, err1 := fs.ReadFile(vf, name)
			b, err2 := fs.ReadFile(zf, name)
			if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
				t.Fatalf("%+v %s differs:\ncct.db:\n%s\nprofile.db:\n%s (%v %v)", c, name, a, b, err1, err2)
			}
		}
		if l := valid.Errors.Lines(); len(l) != 0 {
			t.Errorf("valid cct.db: _errors.txt = %q", l)
		}
		if l := zero.Errors.Lines(); len(l) != 1 || !strings.Contains(l[0], "derived from profile.db") {
			t.Errorf("zero-filled cct.db: _errors.txt = %q", l)
		}
		hdr, _ := fs.ReadFile(vf, "header.txt")
		if !bytes.Contains(hdr, []byte("contexts/ is served from cct.db")) {
			t.Errorf("header.txt does not say contexts/ comes from cct.db")
		}
	}
}

// The summary Sum columns equal the sums over the thread profiles
// computed independently by the generator; inclusive >= exclusive.
func TestSummaryValues(t *testing.T) {
	for _, c := range shapes {
		g, src := openGen(t, c)
		rows := readCSV(t, src.FS(), "cct.csv")
		head := rows[0]
		n := len(g.Parent)
		wantE, wantI := make([][]float64, c.Metrics), make([][]float64, c.Metrics)
		exc, inc := make([]float64, n), make([]float64, n)
		for k := 0; k < c.Metrics; k++ {
			wantE[k], wantI[k] = make([]float64, n), make([]float64, n)
			for p := 1; p <= c.Threads; p++ {
				g.Values(p, k, exc, inc)
				for i := range exc {
					wantE[k][i] += exc[i]
					wantI[k][i] += inc[i]
				}
			}
		}
		seen := map[int]bool{}
		unlisted := 0
		for _, r := range readCSV(t, src.FS(), "unlisted.csv")[1:] {
			ctx, _ := strconv.Atoi(r[0])
			seen[ctx] = true
			unlisted++
			if ctx < n {
				t.Errorf("listed context %d is in unlisted.csv", ctx)
			}
		}
		for _, r := range rows[1:] {
			ctx, _ := strconv.Atoi(r[0])
			if seen[ctx] || ctx >= n {
				t.Errorf("context %d in cct.csv is unlisted or listed twice", ctx)
			}
			seen[ctx] = true
			for k := 0; k < c.Metrics; k++ {
				prefix := "metric" + strconv.Itoa(k) + "_sec_sum_"
				ve, _ := strconv.ParseFloat(r[col(t, head, prefix+"exc")], 64)
				vi, _ := strconv.ParseFloat(r[col(t, head, prefix+"inc")], 64)
				if !near(ve, wantE[k][ctx]) || !near(vi, wantI[k][ctx]) {
					t.Fatalf("ctx %d metric %d: exc %v inc %v, want %v %v", ctx, k, ve, vi, wantE[k][ctx], wantI[k][ctx])
				}
				if vi < ve-1e-9 {
					t.Fatalf("ctx %d metric %d: inclusive %v < exclusive %v", ctx, k, vi, ve)
				}
			}
		}
		if len(seen) != n+c.Unlisted || unlisted != c.Unlisted {
			t.Errorf("cct.csv and unlisted.csv have %d contexts (%d unlisted), want %d (%d)", len(seen), unlisted, n+c.Unlisted, c.Unlisted)
		}
		// procedures.csv: exclusive sums over all frames of a procedure
		// add up to the root's inclusive value.
		procs := readCSV(t, src.FS(), "procedures.csv")
		for k := 0; k < c.Metrics; k++ {
			j := col(t, procs[0], "metric"+strconv.Itoa(k)+"_sec_sum_exc")
			var total float64
			for _, r := range procs[1:] {
				v, _ := strconv.ParseFloat(r[j], 64)
				total += v
			}
			if !near(total, wantI[k][0]) {
				t.Errorf("metric %d: procedures exclusive total %v, root inclusive %v", k, total, wantI[k][0])
			}
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// Every trace sample resolves to a listed context, with the frame path the
// generator's tree gives.
func TestTracesResolve(t *testing.T) {
	for _, c := range shapes {
		if c.Samples == 0 {
			continue
		}
		g, src := openGen(t, c)
		fsys := src.FS()
		ents, err := fs.ReadDir(fsys, "traces")
		ents = withoutParquet(ents)
		if err != nil || len(ents) != 2*c.Threads {
			t.Fatalf("traces/: %d entries, %v", len(ents), err)
		}
		for _, e := range ents {
			if !strings.HasSuffix(e.Name(), ".csv") {
				continue
			}
			rows := readCSV(t, fsys, "traces/"+e.Name())
			if len(rows) != c.Samples+1 {
				t.Fatalf("%s: %d rows", e.Name(), len(rows))
			}
			txt, _ := fs.ReadFile(fsys, "traces/"+strings.TrimSuffix(e.Name(), ".csv")+".txt")
			lines := strings.Split(strings.TrimSuffix(string(txt), "\n"), "\n")
			for i, r := range rows[1:] {
				ctx, _ := strconv.Atoi(r[2])
				if ctx <= 0 || ctx >= len(g.Parent) || g.Kind[ctx] != gen.KindS {
					t.Fatalf("sample %d: context %d is not a listed line", i, ctx)
				}
				var names []string
				for f := g.Frame(ctx); f > 0; f = g.Frame(int(g.Parent[f])) {
					names = append([]string{g.Procs[g.Proc[f]]}, names...)
				}
				if r[5] != strings.Join(names, ";") || r[4] != strconv.Itoa(len(names)) {
					t.Fatalf("sample %d ctx %d: path %q depth %s, want %q", i, ctx, r[5], r[4], strings.Join(names, ";"))
				}
				want := r[0] + "  " + r[1] + "  " + r[2] + "  " + r[5]
				if lines[i] != want {
					t.Fatalf("txt line %d = %q, want %q", i, lines[i], want)
				}
			}
		}
	}
}

func TestProfilesGPU(t *testing.T) {
	_, src := openGen(t, shapes[1])
	rows := readCSV(t, src.FS(), "profiles.csv")
	want := "profile_id,name,node,rank,thread,gpudevice,gpustream,num_vals,num_nzctxs,has_trace"
	if strings.Join(rows[0], ",") != want {
		t.Fatalf("profiles.csv header = %v", rows[0])
	}
	if rows[1][1] != "summary" || rows[2][1] != "node-0.rank-0.thread-0" || rows[3][1] != "node-0.rank-0.gpudevice-0.gpustream-1" {
		t.Fatalf("profile names = %v %v %v", rows[1][1], rows[2][1], rows[3][1])
	}
	ents, _ := fs.ReadDir(src.FS(), "profiles")
	if ents = withoutParquet(ents); len(ents) != 7 {
		t.Fatalf("profiles/ has %d entries", len(ents))
	}
}

func TestGeneratedFS(t *testing.T) {
	c := shapes[0]
	c.ValidCCT = true
	_, src := openGen(t, c)
	fsys := src.FS()
	want := []string{"README.txt", "header.txt", "dump/profile.db.txt", "dump/cct.db.txt", "dump/trace.db.txt", "metrics.csv",
		"profiles.csv", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv", "traces/node-0.rank-0.thread-0.txt"}
	if err := fstest.TestFS(fsys, want...); err != nil {
		t.Fatal(err)
	}
	mnt := fsnodetest.Mount(t, fsys)
	if err := fstest.TestFS(os.DirFS(mnt), want...); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cct.csv", "cct.txt", "dump/profile.db.txt", "traces/node-0.rank-1.thread-0.csv", "profiles/summary.csv"} {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		fsnodetest.CheckFile(t, filepath.Join(mnt, name), b)
	}
}

// Truncated files still mount: views hold what was decoded before the cut
// and _errors.txt says where it ended.
func TestTruncated(t *testing.T) {
	c := shapes[0]
	c.ValidCCT = true
	dir := t.TempDir()
	if _, err := gen.Write(dir, c); err != nil {
		t.Fatal(err)
	}
	full, _ := hpcdb.Open(dir)
	fullDump, _ := fs.ReadFile(full.FS(), "dump/trace.db.txt")
	fullTrace, _ := fs.ReadFile(full.FS(), "traces/node-0.rank-1.thread-0.txt")
	full.Close()
	for _, name := range []string{"profile.db", "trace.db", "cct.db"} {
		p := filepath.Join(dir, name)
		b, _ := os.ReadFile(p)
		os.WriteFile(p, b[:len(b)*2/3], 0o644)
		src, err := hpcdb.Open(dir)
		if err != nil {
			t.Fatalf("%s truncated: %v", name, err)
		}
		fsys := src.FS()
		fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				fs.ReadFile(fsys, path)
			}
			return nil
		})
		if len(src.Errors.Lines()) == 0 {
			t.Errorf("%s truncated: no _errors.txt line", name)
		}
		if name == "trace.db" {
			dump, _ := fs.ReadFile(fsys, "dump/trace.db.txt")
			tr, _ := fs.ReadFile(fsys, "traces/node-0.rank-1.thread-0.txt")
			if len(dump) == 0 || !bytes.HasPrefix(fullDump, dump) || !bytes.HasPrefix(fullTrace, tr) {
				t.Errorf("truncated trace.db: views are not prefixes of the full ones (%d, %d bytes)", len(dump), len(tr))
			}
		}
		src.Close()
		os.WriteFile(p, b, 0o644)
	}
}

// withoutParquet leaves out the .parquet twins of the CSV views.
func withoutParquet(ents []fs.DirEntry) []fs.DirEntry {
	return slices.DeleteFunc(ents, func(e fs.DirEntry) bool { return strings.HasSuffix(e.Name(), ".parquet") })
}

// contexts.csv holds every row of every contexts/<ctx>.csv with its
// ctx_id in front, and nothing else: read from profile.db profile by
// profile, it is checked against contexts/ read context by context (from
// cct.db when valid, an independent copy of the values) in generated
// databases of both generations and in corpus databases.
func TestContextsTableIsContextsDir(t *testing.T) {
	check := func(t *testing.T, src *vfs.Source) {
		fsys := src.FS()
		long := readCSV(t, fsys, "contexts.csv")
		ents, err := fs.ReadDir(fsys, "contexts")
		if err != nil || len(ents) == 0 {
			t.Fatalf("contexts/: %d entries, %v", len(ents), err)
		}
		var want []string
		for _, e := range ents {
			rows := readCSV(t, fsys, "contexts/"+e.Name())
			if got := strings.Join(long[0], ","); got != "ctx_id,"+strings.Join(rows[0], ",") {
				t.Fatalf("contexts.csv header %s, contexts/%s %v", got, e.Name(), rows[0])
			}
			for _, r := range rows[1:] {
				want = append(want, strings.TrimSuffix(e.Name(), ".csv")+","+strings.Join(r, ","))
			}
		}
		var got []string
		for _, r := range long[1:] {
			got = append(got, strings.Join(r, ","))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("contexts.csv: %d rows, contexts/ %d\n%q\n%q", len(got), len(want), got[:min(len(got), 5)], want[:min(len(want), 5)])
		}
		if err := fstest.TestFS(fsys, "contexts.csv", "contexts.parquet"); err != nil {
			t.Fatal(err)
		}
		if l := src.Errors.Lines(); slices.ContainsFunc(l, func(s string) bool { return strings.HasPrefix(s, "contexts.") }) {
			t.Errorf("_errors.txt: %q", l)
		}
	}
	for i, c := range shapes {
		c.ValidCCT = true
		_, src := openGen(t, c)
		t.Run("gen-"+strconv.Itoa(i), func(t *testing.T) { check(t, src) })
	}
	for i, c := range metaShapes {
		_, src, _ := openGenMeta(t, c)
		t.Run("meta-"+strconv.Itoa(i), func(t *testing.T) { check(t, src) })
	}
	for _, dir := range []string{testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")} {
		t.Run(filepath.Base(dir), func(t *testing.T) { check(t, testdata.Open(t, hpcdb.Open, dir)) })
	}
	for _, dir := range []string{testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"), testdata.Corpus(t, "hpctoolkit-metadb", "pipit-ping-pong")} {
		t.Run(filepath.Base(dir), func(t *testing.T) { check(t, testdata.Open(t, hpcdb.OpenMeta, dir)) })
	}
}
