package hpcdb_test

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

var metaShapes = []gen.Config{
	{Threads: 3, Contexts: 200, Metrics: 2, Samples: 40, Seed: 1},
	{Threads: 5, Contexts: 500, Metrics: 3, Samples: 7, Unlisted: 3, GPU: true, Extra: 8, Seed: 2}, // longer structures, as a later minor version writes
	{Threads: 1, Contexts: 2, Metrics: 1, Samples: 0, Seed: 3},
}

func openGenMeta(t *testing.T, c gen.Config) (*gen.DB, *vfs.Source, string) {
	t.Helper()
	dir := t.TempDir()
	g, err := gen.WriteMeta(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	src, err := hpcdb.OpenMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return g, src, dir
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Generated databases of several shapes read back as generated: the tree,
// every profile's values, the summary, sampled contexts and the traces.
func TestMetaGenerated(t *testing.T) {
	for i, c := range metaShapes {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			g, src, _ := openGenMeta(t, c)
			fsys := src.FS()
			n := len(g.Parent)
			// tree
			rows := readCSV(t, fsys, "cct.csv")
			head := rows[0]
			cid, cpar, ckind := col(t, head, "ctx_id"), col(t, head, "parent_id"), col(t, head, "kind")
			seen := 0
			for _, r := range rows[1:] {
				id, _ := strconv.Atoi(r[cid])
				if id == 0 || id >= n {
					continue
				}
				seen++
				want := int(g.Parent[id])
				if want == 0 {
					want = g.EntryID()
				}
				if r[cpar] != strconv.Itoa(want) {
					t.Fatalf("context %d: parent %s, want %d", id, r[cpar], want)
				}
				kind := map[uint8]string{gen.KindPF: "function", gen.KindS: "line", gen.KindL: "loop", gen.KindC: "instruction"}[g.Kind[id]]
				if r[ckind] != kind {
					t.Fatalf("context %d: kind %s, want %s", id, r[ckind], kind)
				}
			}
			if seen != n-1 {
				t.Errorf("cct.csv lists %d tree contexts, want %d", seen, n-1)
			}
			// cct.txt shows a statistic's inclusive and exclusive columns
			if txt, _ := fs.ReadFile(fsys, "cct.txt"); !strings.Contains(strings.SplitN(string(txt), "\n", 2)[0], ":Sum (I) / "+gen.MetricName(0)+":Sum (E))") {
				t.Errorf("cct.txt header: %.200s", txt)
			}
			// metric columns
			exCol, inCol := map[int]string{}, map[int]string{}
			for _, r := range readCSV(t, fsys, "metrics.csv")[1:] {
				if r[1] != "propagated" {
					continue
				}
				id, _ := strconv.Atoi(r[0])
				for k := 0; k < c.Metrics; k++ {
					e, i := gen.MetaIDs(k)
					if id == e {
						exCol[k] = r[3]
					}
					if id == i {
						inCol[k] = r[3]
					}
				}
			}
			names := map[int]string{}
			for _, r := range readCSV(t, fsys, "profiles.csv")[1:] {
				p, _ := strconv.Atoi(r[0])
				names[p] = r[1]
			}
			if len(names) != c.Threads+1 || names[0] != "summary" {
				t.Fatalf("profiles.csv: %v", names)
			}
			exc, inc := make([]float64, n), make([]float64, n)
			for p := 1; p <= c.Threads; p++ {
				vals := map[string][]string{}
				prow := readCSV(t, fsys, "profiles/"+names[p]+".csv")
				for _, r := range prow[1:] {
					vals[r[0]] = r
				}
				for k := 0; k < c.Metrics; k++ {
					g.Values(p, k, exc, inc)
					ec, ic := col(t, prow[0], exCol[k]), col(t, prow[0], inCol[k])
					for ctx := 1; ctx < n; ctx++ {
						r := vals[strconv.Itoa(ctx)]
						got := [2]string{"0", "0"}
						if r != nil {
							got = [2]string{r[ec], r[ic]}
						}
						if got != [2]string{fmtF(exc[ctx]), fmtF(inc[ctx])} {
							t.Fatalf("profile %d ctx %d metric %d: %v, want %v %v", p, ctx, k, got, exc[ctx], inc[ctx])
						}
					}
				}
			}
			// contexts/ agrees with profiles/ for a sample of ids
			for _, ctx := range []int{0, 1, n / 2, n - 1} {
				rows := readCSV(t, fsys, "contexts/"+strconv.Itoa(ctx)+".csv")
				for _, r := range rows[1:] {
					p, _ := strconv.Atoi(r[0])
					for k := 0; k < c.Metrics; k++ {
						g.Values(p, k, exc, inc)
						if got := r[col(t, rows[0], inCol[k])]; got != fmtF(inc[ctx]) {
							t.Fatalf("contexts/%d.csv profile %d metric %d: %s, want %v", ctx, p, k, got, inc[ctx])
						}
					}
				}
			}
			// traces
			for p := 1; p <= c.Threads; p++ {
				tr := readCSV(t, fsys, "traces/"+names[p]+".csv")[1:]
				if len(tr) != c.Samples {
					t.Fatalf("trace %d: %d samples, want %d", p, len(tr), c.Samples)
				}
				for j, r := range tr {
					if r[0] != strconv.FormatUint(g.TraceTime(p, j), 10) || r[2] != strconv.FormatUint(uint64(g.TraceCtx(p, j)), 10) {
						t.Fatalf("trace %d sample %d: %v", p, j, r)
					}
				}
			}
			if lines := src.Errors.Lines(); len(lines) > 0 {
				t.Errorf("_errors.txt: %q", lines)
			}
		})
	}
}

// Damaged files give the views up to the damage and an _errors.txt line;
// nothing panics, nothing hangs.
func TestMetaDamaged(t *testing.T) {
	c := gen.Config{Threads: 3, Contexts: 300, Metrics: 2, Samples: 50, Unlisted: 1, Seed: 4}
	for _, name := range []string{"meta.db", "profile.db", "cct.db", "trace.db"} {
		for _, frac := range []float64{0.02, 0.3, 0.6, 0.97} {
			t.Run(name+"@"+strconv.FormatFloat(frac, 'f', -1, 64), func(t *testing.T) {
				dir := t.TempDir()
				if _, err := gen.WriteMeta(dir, c); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, name)
				fi, _ := os.Stat(p)
				if err := os.Truncate(p, int64(float64(fi.Size())*frac)); err != nil {
					t.Fatal(err)
				}
				src, err := hpcdb.OpenMeta(dir)
				if err != nil {
					if name == "meta.db" {
						return // no header: the database does not open
					}
					t.Fatalf("%s cut: %v", name, err)
				}
				defer src.Close()
				fsys := src.FS()
				fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
					if err == nil && !d.IsDir() && !strings.HasPrefix(p, "raw/") && (!strings.HasPrefix(p, "contexts/") || strings.HasPrefix(p, "contexts/1")) {
						fs.ReadFile(fsys, p)
					}
					return nil
				})
				if len(src.Errors.Lines()) == 0 {
					t.Errorf("%s cut at %.0f%%: no _errors.txt line", name, frac*100)
				}
				if _, err := fs.ReadFile(fsys, "README.txt"); err != nil {
					t.Errorf("README.txt: %v", err)
				}
			})
		}
	}
}

// A context id far past the tree (a damaged or hostile meta.db) does not
// size the per-context tables: the context is left out and said so.
func TestMetaHugeContextID(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.WriteMeta(dir, gen.Config{Threads: 2, Contexts: 100, Metrics: 1, Samples: 5, Seed: 6}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "meta.db")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	le := func(off uint64) uint64 {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(b[off+uint64(i)])
		}
		return v
	}
	entry := le(le(0x48)) // the Context section's pEntryPoints
	copy(b[entry+16:], []byte{0xF0, 0xFF, 0xFF, 0xFF})
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	src := testdata.Open(t, hpcdb.OpenMeta, dir)
	if _, err := fs.ReadFile(src.FS(), "cct.csv"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(src.Errors.Lines(), "\n"), "far past") {
		t.Errorf("_errors.txt: %q", src.Errors.Lines())
	}
}

// TestNamesEscaped: procedures of a meta.db named with a newline, a CR,
// a byte that is not UTF-8 and an escape character (its strings end at
// a NUL), and a 400-byte name, reach no view raw (issue 27): every text
// view stays UTF-8 without control bytes, with as many lines as with
// plain names, and every CSV parses.
func TestNamesEscaped(t *testing.T) {
	views := func(names ...string) map[string][]byte {
		dir := t.TempDir()
		if _, err := gen.WriteMeta(dir, gen.Config{Threads: 2, Contexts: 300, Metrics: 2, Samples: 20, Seed: 4, Names: names}); err != nil {
			t.Fatal(err)
		}
		src, err := hpcdb.OpenMeta(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { src.Close() })
		return testdata.CheckTextViews(t, src.FS())
	}
	bad := strings.ReplaceAll(testdata.BadName, "\x00", "")
	plain := views("plain", "long", "plain2", "plain3")
	got := views(bad, strings.Repeat("L", 400), bad, bad)
	for p, b := range plain { // CSV fields may hold quoted newlines
		if g, ok := got[p]; ok && path.Ext(p) != ".csv" && bytes.Count(g, []byte("\n")) != bytes.Count(b, []byte("\n")) {
			t.Errorf("%s: %d lines, %d with plain names", p, bytes.Count(g, []byte("\n")), bytes.Count(b, []byte("\n")))
		}
	}
	if !bytes.Contains(got["cct.txt"], []byte(`bad\x0ana\x0dmex\xff\x1b`)) {
		t.Errorf("cct.txt does not hold the escaped name:\n%.600s", got["cct.txt"])
	}
}
