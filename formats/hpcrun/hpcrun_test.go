package hpcrun_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/formats/hpcrun"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

const sampleName = "testvdso-000000-000-007f0101-19750-0"

func sampleDir(t testing.TB) string { return testdata.Corpus(t, "hpctoolkit", "hpcrun-02.00-testvdso") }

func open(t testing.TB, path string) *vfs.Source {
	t.Helper()
	if _, ok := hpcrun.Detect(path); !ok {
		t.Fatalf("Detect(%s) failed", path)
	}
	src, err := hpcrun.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func TestCorpusHpcprofttByteIdentical(t *testing.T) {
	dir := sampleDir(t)
	want, err := os.ReadFile(filepath.Join(dir, "expected-hpcproftt-dump.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, sampleName+".hpcrun"), dir} {
		src := open(t, path)
		fsys := src.FS()
		got := testdata.ReadFS(t, fsys, sampleName+"/hpcproftt.txt")
		if !bytes.Equal(got, want) {
			t.Fatalf("%s: hpcproftt.txt differs from the golden dump:\n%s", path, testdata.FirstDiff(got, want))
		}
		if errs := src.Errors.Lines(); len(errs) != 0 {
			t.Fatalf("errors: %v", errs)
		}
		if err := fstest.TestFS(fsys, "README.txt", "profiles.csv", sampleName+"/hpcproftt.txt", sampleName+"/cct.csv", sampleName+"/cct.txt",
			sampleName+"/header.txt", sampleName+"/metrics.csv", sampleName+"/loadmap.csv"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCorpusTables(t *testing.T) {
	fsys := open(t, sampleDir(t)).FS()
	profiles := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "profiles.csv"))
	want := []string{sampleName, sampleName + ".hpcrun", "testvdso", "0", "0", "19750", "0x7f0101", "02.00b", "B", "1", "1", "11", "42"}
	if len(profiles) != 2 || strings.Join(profiles[1], ",") != strings.Join(want, ",") {
		t.Fatalf("profiles.csv = %q", profiles)
	}
	metrics := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, sampleName+"/metrics.csv"))
	if strings.Join(metrics[1], ",") != "0,0,CPUTIME (usec),CPUTIME (usec),raw,null,int,0,1,1,1,,,,,," {
		t.Fatalf("metrics.csv = %q", metrics)
	}
	lm := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, sampleName+"/loadmap.csv"))
	if len(lm) != 12 || lm[11][1] != "11" || !strings.HasSuffix(lm[11][2], "[vdso]") || lm[11][3] != "0x0" {
		t.Fatalf("loadmap.csv = %q", lm)
	}
	cct := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, sampleName+"/cct.csv"))
	if strings.Join(cct[0], ",") != "epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset,function,raw_name,file,line,inlined,cputime_usec_inc,cputime_usec_exc" {
		t.Fatalf("header %q", cct[0])
	}
	// Node 52 is the third node: a leaf under 18 with 68511 samples.
	if strings.Join(cct[3], ",") != "0,52,18,2,1,1,/home/johnmc/pkgs-src/vdso/testvdso,0x4005bb,,,,,,68511,68511" {
		t.Fatalf("row %q", cct[3])
	}
	checkInclusive(t, cct, 1)
	hdr := string(testdata.ReadFS(t, fsys, sampleName+"/header.txt"))
	for _, line := range []string{"layout: B\n", "program-name: testvdso\n", "epoch 0 ra-to-callsite-offset: 1\n", "epoch 0 num_cct_nodes: 42\n"} {
		if !strings.Contains(hdr, line) {
			t.Fatalf("header.txt lacks %q:\n%s", line, hdr)
		}
	}
	txt := strings.Split(string(testdata.ReadFS(t, fsys, sampleName+"/cct.txt")), "\n")
	if txt[0] != "# epoch 0, metric CPUTIME (usec): inclusive %, inclusive, exclusive, module+0xip" || !strings.HasPrefix(txt[1], "100.00% ") {
		t.Fatalf("cct.txt starts %q", txt[:3])
	}
}

// checkInclusive recomputes every <m>_inc column of cct.csv from the
// _exc column and the parent ids, independently of the views' code: a
// map from (epoch, id) to row and a walk up the ancestors of each row.
func checkInclusive(t testing.TB, rows [][]string, metrics int) {
	t.Helper()
	type key struct{ epoch, id string }
	row := map[key]int{}
	for i, r := range rows[1:] {
		row[key{r[0], r[1]}] = i + 1
	}
	hdr := rows[0]
	for col := range hdr {
		if !strings.HasSuffix(hdr[col], "_exc") {
			continue
		}
		sums := make([]float64, len(rows))
		for i := 1; i < len(rows); i++ {
			if rows[i][col] == "" {
				continue
			}
			v, err := strconv.ParseFloat(rows[i][col], 64)
			if err != nil {
				t.Fatal(err)
			}
			for j := i; ; {
				sums[j] += v
				p, ok := row[key{rows[j][0], rows[j][2]}]
				if !ok || rows[j][2] == "0" {
					break
				}
				j = p
			}
		}
		for i := 1; i < len(rows); i++ {
			if rows[i][col-1] == "" {
				continue
			}
			got, _ := strconv.ParseFloat(rows[i][col-1], 64)
			if math.Abs(got-sums[i]) > 1e-9*math.Max(1, math.Abs(sums[i])) {
				t.Fatalf("%s of row %d = %v, want %v", hdr[col-1], i, got, sums[i])
			}
		}
	}
}

func writeFile(t testing.TB, path string, p *gen.Profile) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := gen.Write(f, p); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestGeneratedViews(t *testing.T) {
	for _, layout := range []dec.Layout{dec.LayoutA, dec.LayoutB, dec.LayoutC} {
		t.Run(layout.String(), func(t *testing.T) {
			dir := t.TempDir()
			o := gen.Options{Seed: 11, Layout: layout, Epochs: 2, Nodes: 1500, Metrics: 4, LoadMods: 6, Lush: layout != dec.LayoutB, Rank: 5, Thread: 1, ProcessID: 4242}
			p := gen.Random(o)
			writeFile(t, filepath.Join(dir, "app-000005-001-7f0101-4242-0.hpcrun"), p)
			tf, _ := os.Create(filepath.Join(dir, "app-000005-001-7f0101-4242-0.hpctrace"))
			gen.WriteTrace(tf, "01.01", 0, gen.TraceSamples(p.Epochs[1].Tree, 500, 1000, 7))
			tf.Close()
			src := open(t, dir)
			fsys := src.FS()
			name := "app-000005-001-7f0101-4242-0"
			cct := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, name+"/cct.csv"))
			if len(cct) != 1+2*1500 {
				t.Fatalf("%d rows", len(cct))
			}
			wantHdr := "epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset,function,raw_name,file,line,inlined"
			if o.Lush {
				wantHdr += ",lush_assoc,lush_lip"
			}
			wantHdr += ",cputime_usec_inc,cputime_usec_exc,realtime_sec_inc,realtime_sec_exc,papi_tot_cyc_inc,papi_tot_cyc_exc,energy_j_inc,energy_j_exc"
			if strings.Join(cct[0], ",") != wantHdr {
				t.Fatalf("header %q", cct[0])
			}
			checkInclusive(t, cct, 4)
			// Every exclusive value and node field matches the generator.
			var n dec.Node
			for i := 0; i < 1500; i++ {
				p.Epochs[1].Tree.Node(i, &n)
				r := cct[1+1500+i]
				if r[1] != strconv.Itoa(int(n.AbsID())) || r[2] != strconv.Itoa(int(n.Parent)) || r[4] != map[bool]string{true: "1", false: "0"}[n.IsLeaf()] || r[7] != "0x"+strconv.FormatUint(n.IP, 16) {
					t.Fatalf("row %v node %+v", r, n)
				}
				base := 14 // the first _exc column
				if o.Lush {
					base = 16
				}
				if r[base] != strconv.FormatUint(n.Values[0], 10) || r[base+2] != strconv.FormatFloat(math.Float64frombits(n.Values[1]), 'f', -1, 64) {
					t.Fatalf("values %v vs %v", r, n.Values)
				}
			}
			metrics := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, name+"/metrics.csv"))
			if len(metrics) != 9 || (layout == dec.LayoutC) != (metrics[1][16] != "") {
				t.Fatalf("metrics.csv %q", metrics)
			}
			prof := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "profiles.csv"))
			if strings.Join(prof[1][2:], ",") != "app,5,1,4242,0x7f0101,02.00b,"+layout.String()+",2,4,6,3000" {
				t.Fatalf("profiles.csv %q", prof)
			}
			tr := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, name+"/trace.csv"))
			// 02.00 traces store microseconds: trace.txt shows them, trace.csv converts.
			if len(tr) != 501 || tr[1][0] != "1000000" || tr[1][1] != "0" || tr[2][1] != "7000" || tr[1][2] == "" {
				t.Fatalf("trace.csv %q", tr[:2])
			}
			txt := strings.Split(strings.TrimSuffix(string(testdata.ReadFS(t, fsys, name+"/trace.txt")), "\n"), "\n")
			if len(txt) != 500 || !strings.HasPrefix(txt[1], "1007  ") || strings.HasSuffix(txt[1], "?") {
				t.Fatalf("trace.txt %q", txt[:2])
			}
			ctxt := strings.Split(string(testdata.ReadFS(t, fsys, name+"/cct.txt")), "\n")
			if len(ctxt) != 2*1501+2 {
				t.Fatalf("cct.txt has %d lines", len(ctxt))
			}
			pt := string(testdata.ReadFS(t, fsys, name+"/hpcproftt.txt"))
			if !strings.HasSuffix(pt, "\n[You look fine today! (num-epochs: 2)]\n") || strings.Count(pt, "[node: ") != 3000 {
				t.Fatalf("hpcproftt.txt tail %q", pt[len(pt)-200:])
			}
			if o.Lush && !strings.Contains(pt, "(as: ") {
				t.Fatal("no LUSH fields in hpcproftt.txt")
			}
			if layout == dec.LayoutC && !strings.Contains(pt, "\n    (frequency: 1) (multiplexed: 0) (period-mean: 1.250000) (num-samples: 1001)]") {
				t.Fatal("no layout C line in hpcproftt.txt")
			}
			// fstest.TestFS reads every file of the tree several ways (~40 s
			// under -race); the tree does not depend on the file layout, so
			// one layout (the richest: LUSH and layout C's metric fields) runs it.
			if layout == dec.LayoutC {
				if err := fstest.TestFS(fsys, name+"/cct.csv", name+"/trace.txt", name+"/trace.csv", "profiles.csv"); err != nil {
					t.Fatal(err)
				}
			}
			if errs := decodeErrors(src.Errors.Lines()); len(errs) != 0 {
				t.Fatalf("errors %v", errs)
			}
		})
	}
}

// decodeErrors are the lines of _errors.txt other than those of
// binaries not found (the generated profiles' modules are made up).
func decodeErrors(lines []string) []string {
	var out []string
	for _, l := range lines {
		if !strings.Contains(l, "symbols of ") || !strings.Contains(l, "binary not found") {
			out = append(out, l)
		}
	}
	return out
}

func TestTruncatedProfile(t *testing.T) {
	var b bytes.Buffer
	gen.Write(&b, gen.Random(gen.Options{Seed: 2, Layout: dec.LayoutC, Epochs: 2, Nodes: 400, Metrics: 2}))
	data := b.Bytes()
	full, _ := dec.NewFile(bytes.NewReader(data), int64(len(data)))
	e1 := full.Epochs[1]
	cut := e1.NodesOff + 100*e1.NodeSize + 5
	dir := t.TempDir()
	path := filepath.Join(dir, "cut.hpcrun")
	os.WriteFile(path, data[:cut], 0o644)
	src := open(t, path)
	fsys := src.FS()
	cct := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "cut/cct.csv"))
	if len(cct) != 1+400+100 {
		t.Fatalf("%d rows", len(cct))
	}
	checkInclusive(t, cct, 2)
	pt := string(testdata.ReadFS(t, fsys, "cut/hpcproftt.txt"))
	if strings.Count(pt, "[node: ") != 500 || strings.Contains(pt, "You look fine") {
		t.Fatal("hpcproftt.txt of a truncated file")
	}
	errs := strings.Join(src.Errors.Lines(), "\n")
	if !strings.Contains(errs, "cut/cct.csv: hpcrun: epoch 1 cct at byte") || !strings.Contains(errs, "truncated") {
		t.Fatalf("_errors.txt:\n%s", errs)
	}
	if err := fstest.TestFS(fsys, "cut/cct.csv", "cut/cct.txt", "cut/hpcproftt.txt"); err != nil {
		t.Fatal(err)
	}
}

// TestSparseTree mounts the 04.00 sample (research §2, SOURCES.md): the
// same views except hpcproftt.txt, counts from the file, inclusive sums
// recomputed, leaves from the parent ids, placeholders named.
func TestSparseTree(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small")
	src := open(t, dir)
	fsys := src.FS()
	const p = "testmeas-small-000000-000-11ac0300-5560-0/"
	prof := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "profiles.csv"))
	if got := strings.Join(prof[1], ","); got != "testmeas-small-000000-000-11ac0300-5560-0,testmeas-small-000000-000-11ac0300-5560-0.hpcrun,testmeas-small,0,0,5560,0x11ac0300,04.00b,C,1,1,17,13" {
		t.Fatalf("profiles.csv row %s", got)
	}
	if _, err := fs.Stat(fsys, p+"hpcproftt.txt"); err == nil {
		t.Fatal("hpcproftt.txt for a 04.00 profile")
	}
	cct := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, p+"cct.csv"))
	if len(cct) != 14 || strings.Join(cct[0], ",") != "epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset,function,raw_name,file,line,inlined,cputime_sec_inc,cputime_sec_exc" {
		t.Fatalf("cct.csv header %q, %d rows", cct[0], len(cct))
	}
	checkInclusive(t, cct, 1)
	parents := map[string]bool{}
	var sum float64
	for _, r := range cct[1:] {
		parents[r[2]] = true
		v, _ := strconv.ParseFloat(r[14], 64)
		sum += v
	}
	for _, r := range cct[1:] {
		if leaf := r[4] == "1"; leaf == parents[r[1]] {
			t.Errorf("node %s: is_leaf %s", r[1], r[4])
		}
	}
	root := cct[1]
	if root[1] != "12" || root[2] != "0" || root[6] != "^Primary" || root[7] != "0x5e5072696d617279" {
		t.Errorf("root row %q", root)
	}
	if inc, _ := strconv.ParseFloat(root[13], 64); math.Abs(inc-sum) > 1e-12 || math.Abs(sum-1.210259) > 1e-9 {
		t.Errorf("root inclusive %v, sum of the 5 stored values %v", inc, sum)
	}
	hdr := string(testdata.ReadFS(t, fsys, p+"header.txt"))
	for _, want := range []string{"version: 04.00\n", "id_tuple: NODE(1): 296485632 0, CORE(3): 0 0, THREAD(3): 0 0\n", "section sparse metrics: 6144-6334\n", "num_nonzero_values: 5\n"} {
		if !strings.Contains(hdr, want) {
			t.Errorf("header.txt lacks %q:\n%s", want, hdr)
		}
	}
	txt := string(testdata.ReadFS(t, fsys, p+"cct.txt"))
	if !strings.Contains(txt, "\n100.00% 1.21026 0 ^Primary\n  100.00% 1.21026 0 | Main  \n") {
		t.Errorf("cct.txt:\n%s", txt)
	}
	// The first trace record: time 0x17c96de9c60f6a78 ns, node 19 (the NoActvty placeholder).
	if tr := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, p+"trace.csv")); strings.Join(tr[1], ",") != "1714021984008891000,0,19,0,NoActvty,0x4e6f416374767479,,,,," {
		t.Errorf("trace.csv row 1 %q", tr[1])
	}
	if !strings.Contains(string(testdata.ReadFS(t, fsys, "README.txt")), "Version 04.00") {
		t.Error("README.txt says nothing of 04.00")
	}
	if errs := src.Errors.Lines(); len(errs) != 1 || !strings.Contains(errs[0], "symbols of /builds/") {
		t.Errorf("_errors.txt %q, want the missing binary's line", errs)
	}
	if err := fstest.TestFS(fsys, p+"cct.csv", p+"cct.txt", p+"header.txt", p+"trace.csv"); err != nil {
		t.Fatal(err)
	}
}

// measurementsDir writes files copies of one small profile (20 nodes, 2
// metrics) named as hpcrun names them, each cut 8 bytes short of its end,
// inside its calling-context tree: reading a profile whole reports the cut.
func measurementsDir(tb testing.TB, files int) string {
	dir := tb.TempDir()
	var b bytes.Buffer
	gen.Write(&b, gen.Random(gen.Options{Seed: 1, Layout: dec.LayoutC, Nodes: 20, Metrics: 2}))
	cut := b.Bytes()[:b.Len()-8]
	for i := 0; i < files; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("app-%06d-000-7f0101-%d-0.hpcrun", i, 100+i)), cut, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// TestMeasurementsDirectory: a directory of 1000 profiles opens and lists
// without reading a profile (the profiles are cut short: no line reaches
// _errors.txt until profiles.csv reads them, and then one per profile);
// the mount lists them all. How long it takes is
// BenchmarkMeasurementsDirectory's.
func TestMeasurementsDirectory(t *testing.T) {
	const files = 1000
	dir := measurementsDir(t, files)
	if _, ok := hpcrun.Detect(dir); !ok {
		t.Fatal("not detected")
	}
	src := testdata.Open(t, hpcrun.Open, dir)
	fsys := src.FS()
	des, _ := fs.ReadDir(fsys, ".")
	// README.txt, _errors.txt, raw/, profiles.csv, imbalance.csv and .parquet
	if len(des) != files+6 {
		t.Fatalf("%d entries", len(des))
	}
	if errs := src.Errors.Lines(); len(errs) != 0 {
		t.Fatalf("opening and listing read a profile: %q", errs[0])
	}
	prof := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "profiles.csv"))
	if len(prof) != files+1 || prof[1][0] != "app-000000-000-7f0101-100-0" || prof[files][9] != "1" {
		t.Fatalf("profiles.csv rows %d: %q", len(prof), prof[1])
	}
	if errs := src.Errors.Lines(); len(errs) != files || !strings.Contains(strings.Join(errs, "\n"), "app-000007-000-7f0101-107-0: hpcrun: epoch 0 cct") {
		t.Fatalf("profiles.csv reported %d lines (want %d, one per cut profile): %q", len(errs), files, errs[:min(len(errs), 8)])
	}
	if testing.Short() {
		return
	}
	mnt := fsnodetest.Mount(t, fsys)
	ents, err := os.ReadDir(mnt)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != files+6 {
		t.Fatalf("mounted: %d entries", len(ents))
	}
	for _, e := range ents {
		if _, err := e.Info(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMounted(t *testing.T) {
	dir := sampleDir(t)
	src := open(t, dir)
	mnt := fsnodetest.Mount(t, src.FS())
	if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "profiles.csv", sampleName+"/hpcproftt.txt", sampleName+"/cct.csv", sampleName+"/cct.txt"); err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "expected-hpcproftt-dump.txt"))
	fsnodetest.CheckFile(t, filepath.Join(mnt, sampleName, "hpcproftt.txt"), want)
	// The sample's binaries are not on this machine: one line per module
	// of a frame, nothing else.
	for _, l := range strings.Split(strings.TrimSuffix(string(testdata.ReadFS(t, os.DirFS(mnt), "_errors.txt")), "\n"), "\n") {
		if l != "" && (!strings.Contains(l, "symbols of /") || !strings.Contains(l, "binary not found")) {
			t.Fatalf("_errors.txt line %q", l)
		}
	}

	// A larger generated file: every view through the tools.
	gdir := t.TempDir()
	p := gen.Random(gen.Options{Seed: 5, Layout: dec.LayoutC, Epochs: 2, Nodes: 20000, Metrics: 4, Lush: true})
	writeFile(t, filepath.Join(gdir, "big.hpcrun"), p)
	tf, _ := os.Create(filepath.Join(gdir, "big.hpctrace"))
	gen.WriteTrace(tf, "01.01", dec.TraceDataCentric, gen.TraceSamples(p.Epochs[1].Tree, 30000, 5, 3))
	tf.Close()
	gsrc := open(t, gdir)
	gfs := gsrc.FS()
	gmnt := fsnodetest.Mount(t, gfs)
	for _, v := range []string{"cct.csv", "cct.txt", "hpcproftt.txt", "trace.csv", "trace.txt", "metrics.csv", "header.txt", "loadmap.csv"} {
		fsnodetest.CheckFile(t, filepath.Join(gmnt, "big", v), testdata.ReadFS(t, gfs, "big/"+v))
	}
	// fstest.TestFS reads every file many times in small pieces, which takes
	// long over FUSE for these views: the sample mount above covers it.
}

// TestNamesEscaped: a load module, a metric and header values named with
// a newline, a CR, a NUL, a byte that is not UTF-8 and an escape
// character, and a 400-byte module name, reach no view raw (issue 27):
// every text view stays UTF-8 without control bytes, with as many lines
// as with plain names, and every CSV parses.
func TestNamesEscaped(t *testing.T) {
	views := func(bad string, long string) map[string][]byte {
		dir := t.TempDir()
		p := gen.Random(gen.Options{Seed: 3, Layout: dec.LayoutC, Nodes: 60, Metrics: 2, LoadMods: 3})
		p.NV[0].Value = bad
		e := p.Epochs[0]
		e.NV[0].Name = bad
		e.Metrics[0].Name = bad
		e.LoadModules[0].Name = "/lib/" + bad
		e.LoadModules[1].Name = "/lib/" + long
		name := "app-000000-000-7f0101-1-0"
		writeFile(t, filepath.Join(dir, name+".hpcrun"), p)
		tf, _ := os.Create(filepath.Join(dir, name+".hpctrace"))
		gen.WriteTrace(tf, "01.01", 0, gen.TraceSamples(e.Tree, 50, 1000, 7))
		tf.Close()
		return testdata.CheckTextViews(t, open(t, dir).FS())
	}
	plain := views("plain", "long")
	got := views(testdata.BadName, strings.Repeat("L", 400))
	for p, b := range plain { // CSV fields may hold quoted newlines; README.txt wraps
		if g, ok := got[p]; ok && path.Ext(p) != ".csv" && p != "README.txt" && bytes.Count(g, []byte("\n")) != bytes.Count(b, []byte("\n")) {
			t.Errorf("%s: %d lines, %d with plain names", p, bytes.Count(g, []byte("\n")), bytes.Count(b, []byte("\n")))
		}
	}
	const esc = `bad\x0ana\x0dme\x00x\xff\x1b`
	for _, v := range []string{"header.txt", "hpcproftt.txt", "cct.txt"} {
		p := "app-000000-000-7f0101-1-0/" + v
		if !bytes.Contains(got[p], []byte(esc)) {
			t.Errorf("%s does not hold the escaped name:\n%.600s", p, got[p])
		}
	}
}

// BenchmarkMeasurementsDirectory: detect, open and profiles.csv of a
// directory of 1000 small profiles (headers only; see
// TestMeasurementsDirectory).
func BenchmarkMeasurementsDirectory(b *testing.B) {
	dir := measurementsDir(b, 1000)
	for b.Loop() {
		if _, ok := hpcrun.Detect(dir); !ok {
			b.Fatal("not detected")
		}
		src, err := hpcrun.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		testdata.ReadFS(b, src.FS(), "profiles.csv")
		src.Close()
	}
}
