package hpcdb_test

import (
	"compress/gzip"
	"encoding/csv"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

// metaCases lists every database of the meta.db-generation corpus.
func metaCases(t *testing.T) []string {
	root := testdata.Corpus(t, "hpctoolkit-metadb")
	ents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(root, e.Name(), "meta.db")); err == nil {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	if len(out) == 0 {
		t.Fatal("no meta.db databases in the corpus")
	}
	return out
}

// oracle reads an oracle CSV (plain or .gz) as rows keyed by the header;
// ok is false when the case has none.
func oracle(t *testing.T, dir, name string) (rows [][]string, idx map[string]int, ok bool) {
	t.Helper()
	p := filepath.Join(dir, "oracle-hpctesttool", name)
	var r io.Reader
	f, err := os.Open(p)
	if err != nil {
		f, err = os.Open(p + ".gz")
		if err != nil {
			return nil, nil, false
		}
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	} else {
		r = f
	}
	defer f.Close()
	all, err := csv.NewReader(r).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	idx = map[string]int{}
	for i, h := range all[0] {
		idx[h] = i
	}
	return all[1:], idx, true
}

func sameFloat(got, want string) bool {
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	return err1 == nil && err2 == nil && g == w
}

// metaView is the parts of a mounted database the oracle checks read.
type metaView struct {
	fsys     fs.FS
	sumCol   map[string]string // stat metric id -> column
	propCol  map[string]string // prop metric id -> column
	profName map[string]string // profile index -> name
}

func openMetaView(t *testing.T, dir string) *metaView {
	src, err := hpcdb.OpenMeta(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	v := &metaView{fsys: src.FS(), sumCol: map[string]string{}, propCol: map[string]string{}, profName: map[string]string{}}
	m := readCSV(t, v.fsys, "metrics.csv")
	for _, r := range m[1:] {
		if r[1] == "summary" {
			v.sumCol[r[0]] = r[3]
		} else {
			v.propCol[r[0]] = r[3]
		}
	}
	for _, r := range readCSV(t, v.fsys, "profiles.csv")[1:] {
		v.profName[r[0]] = r[1]
	}
	return v
}

// A csvTable is a CSV view by its key column.
type csvTable struct {
	col  map[string]int
	rows map[string][]string
}

// get is the cell of row key in column c ("" when either is missing).
func (tb csvTable) get(key, c string) string {
	r, ok := tb.rows[key]
	j, ok2 := tb.col[c]
	if !ok || !ok2 {
		return ""
	}
	return r[j]
}

// quickCSV reads a CSV view, splitting at commas when it has no quoted
// field (thousands of views are read: encoding/csv is slow under -race).
func quickCSV(t *testing.T, fsys fs.FS, name string) [][]string {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	if strings.IndexByte(string(b), '"') >= 0 {
		return readCSV(t, fsys, name)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		rows = append(rows, strings.Split(l, ","))
	}
	return rows
}

// table reads a CSV view keyed by one of its columns.
func (v *metaView) table(t *testing.T, name, key string) csvTable {
	rows := quickCSV(t, v.fsys, name)
	tb := csvTable{col: map[string]int{}, rows: map[string][]string{}}
	for j, h := range rows[0] {
		tb.col[h] = j
	}
	k := col(t, rows[0], key)
	for _, r := range rows[1:] {
		tb.rows[r[k]] = r
	}
	return tb
}

func nonZero(tb csvTable, cols map[string]string) int {
	n := 0
	for _, r := range tb.rows {
		for _, c := range cols {
			if j, ok := tb.col[c]; ok && r[j] != "0" {
				n++
			}
		}
	}
	return n
}

// Every value of every profile, every context and every trace sample
// equals what HPCToolkit's own reader (hpctesttool) reads.
func TestMetaOracle(t *testing.T) {
	for _, dir := range metaCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			v := openMetaView(t, dir)
			t.Run("profile_values", func(t *testing.T) { v.checkProfiles(t, dir) })
			t.Run("cct_values", func(t *testing.T) { v.checkContexts(t, dir) })
			t.Run("trace", func(t *testing.T) { v.checkTraces(t, dir) })
			t.Run("contexts", func(t *testing.T) { v.checkTree(t, dir) })
		})
	}
}

func (v *metaView) checkProfiles(t *testing.T, dir string) {
	rows, ix, ok := oracle(t, dir, "profile_values.csv")
	if !ok {
		t.Fatal("no profile_values.csv oracle")
	}
	byProf := map[string][][]string{}
	for _, r := range rows {
		byProf[r[ix["prof_index"]]] = append(byProf[r[ix["prof_index"]]], r)
	}
	for prof, name := range v.profName {
		got := v.table(t, "profiles/"+name+".csv", "ctx_id")
		cols := v.propCol
		if prof == "0" {
			cols = v.sumCol
		}
		want := 0
		for _, r := range byProf[prof] {
			c, ok := cols[r[ix["metric_id"]]]
			if !ok {
				t.Fatalf("profile %s: metric %s has no column", prof, r[ix["metric_id"]])
			}
			g := got.get(r[ix["ctx_id"]], c)
			if !sameFloat(g, r[ix["value"]]) {
				t.Errorf("profile %s ctx %s metric %s: got %q, want %s", prof, r[ix["ctx_id"]], r[ix["metric_id"]], g, r[ix["value"]])
			}
			if r[ix["value"]] != "0.0" {
				want++
			}
		}
		if n := nonZero(got, cols); n != want {
			t.Errorf("profile %s: %d non-zero values, oracle has %d", prof, n, want)
		}
	}
}

func (v *metaView) checkContexts(t *testing.T, dir string) {
	rows, ix, ok := oracle(t, dir, "cct_values.csv")
	if !ok {
		t.Fatal("no cct_values.csv oracle")
	}
	byCtx := map[string][][]string{}
	for _, r := range rows {
		byCtx[r[ix["ctx_id"]]] = append(byCtx[r[ix["ctx_id"]]], r)
	}
	ents, err := fs.ReadDir(v.fsys, "contexts")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		ctx := strings.TrimSuffix(e.Name(), ".csv")
		got := v.table(t, "contexts/"+e.Name(), "profile_id")
		want := 0
		for _, r := range byCtx[ctx] {
			g := got.get(r[ix["prof_index"]], v.propCol[r[ix["metric_id"]]])
			if !sameFloat(g, r[ix["value"]]) {
				t.Errorf("context %s profile %s metric %s: got %q, want %s", ctx, r[ix["prof_index"]], r[ix["metric_id"]], g, r[ix["value"]])
			}
			if r[ix["value"]] != "0.0" {
				want++
			}
		}
		if n := nonZero(got, v.propCol); n != want {
			t.Errorf("context %s: %d non-zero values, oracle has %d", ctx, n, want)
		}
		delete(byCtx, ctx)
	}
	if len(byCtx) > 0 {
		t.Errorf("%d contexts of the oracle have no contexts/ file", len(byCtx))
	}
}

func (v *metaView) checkTraces(t *testing.T, dir string) {
	rows, ix, ok := oracle(t, dir, "trace.csv")
	if !ok {
		if _, err := os.Stat(filepath.Join(dir, "trace.db")); err == nil {
			t.Fatal("trace.db but no trace.csv oracle")
		}
		return
	}
	byProf := map[string][][]string{}
	for _, r := range rows {
		byProf[r[ix["prof_index"]]] = append(byProf[r[ix["prof_index"]]], r)
	}
	for prof, want := range byProf {
		b, err := fs.ReadFile(v.fsys, "traces/"+v.profName[prof]+".txt")
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(got) != len(want) {
			t.Errorf("profile %s: %d trace samples, oracle has %d", prof, len(got), len(want))
			continue
		}
		for i, w := range want {
			if f := strings.Fields(got[i]); len(f) < 3 || f[0] != w[ix["timestamp"]] || f[2] != w[ix["ctx_id"]] {
				t.Errorf("profile %s sample %d: got %q, want %s/%s", prof, i, got[i], w[ix["timestamp"]], w[ix["ctx_id"]])
				break
			}
		}
	}
}

// tmpRE is how the oracle's dump hides the first component below /tmp.
var tmpRE = regexp.MustCompile(`^/tmp/[^/]*`)

func (v *metaView) checkTree(t *testing.T, dir string) {
	rows, ix, ok := oracle(t, dir, "contexts.csv")
	if !ok {
		t.Fatal("no contexts.csv oracle")
	}
	tb := v.table(t, "cct.csv", "ctx_id")
	for _, r := range rows {
		id := r[ix["ctx_id"]]
		row, ok := tb.rows[id]
		g := func(c string) string { return row[tb.col[c]] }
		if !ok {
			t.Errorf("context %s missing from cct.csv", id)
			continue
		}
		parent := r[ix["parent_ctx_id"]]
		if parent == "" {
			parent = "0" // entry points hang from the global context
		}
		lex := strings.TrimPrefix(r[ix["lexical_type"]], "LexicalType.")
		if r[ix["relation"]] == "entry_point" {
			lex = "entry_point"
		}
		file, line := r[ix["file"]], r[ix["line"]]
		var name string
		switch lex {
		case "entry_point", "function":
			name = r[ix["function"]]
		case "loop":
			name = "loop at " + path.Base(file) + ":" + line
		case "line":
			name = path.Base(file) + ":" + line
			if strings.HasPrefix(file, "<tmp>") {
				name = "" // the oracle hides /tmp paths
			}
		case "instruction":
			name = path.Base(r[ix["module"]]) + "@" + r[ix["offset"]]
		}
		rel := strings.TrimPrefix(r[ix["relation"]], "Relation.")
		if g("parent_id") != parent || g("kind") != lex || g("relation") != rel || (name != "" && g("name") != name) {
			t.Errorf("context %s: got parent %s kind %s relation %s name %q; want %s %s %s %q", id, g("parent_id"), g("kind"), g("relation"), g("name"), parent, lex, rel, name)
		}
		if file != "" && (tmpRE.ReplaceAllString(g("file"), "<tmp>") != file || g("line") != line) {
			t.Errorf("context %s: got %s:%s, want %s:%s", id, g("file"), g("line"), file, line)
		}
		if mod := r[ix["module"]]; mod != "" && (g("module") != mod || g("address") != r[ix["offset"]]) {
			t.Errorf("context %s: got %s@%s, want %s@%s", id, g("module"), g("address"), mod, r[ix["offset"]])
		}
	}
	if n := len(tb.rows) - 1; n < len(rows) {
		t.Errorf("cct.csv has %d contexts, the oracle %d", n, len(rows))
	}
}

// The in-process tree passes fstest.TestFS and reports no decode
// problem (the mounted trees of two more databases are checked in
// cmd/hpcfs; fstest reads every file many times, raw/ included).
func TestMetaFS(t *testing.T) {
	for _, dir := range []string{testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-small")} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			src := testdata.Open(t, hpcdb.OpenMeta, dir)
			if err := fstest.TestFS(src.FS(), "README.txt", "header.txt", "metrics.csv", "profiles.csv", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"); err != nil {
				t.Fatal(err)
			}
			if lines := src.Errors.Lines(); len(lines) > 0 {
				t.Errorf("_errors.txt: %q", lines)
			}
		})
	}
}

// taxonomy.csv names the summary columns that metrics/default.yaml's
// formulas use, derived metrics included.
func TestMetaTaxonomy(t *testing.T) {
	src := testdata.Open(t, hpcdb.OpenMeta, testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cuda-nvidia-t"))
	rows := readCSV(t, src.FS(), "taxonomy.csv")
	want := map[string][2]string{
		"GPUOP (sec)":    {"gpuop_sec_sum_inc", "gpuop_sec_sum_lex_aware"},
		"GKER:STMEM (B)": {"", "gker_stmem_acumu_b_sum_lex_aware/gker_count_sum_lex_aware"},
	}
	for _, r := range rows[1:] {
		if w, ok := want[r[1]]; ok {
			if [2]string{r[3], r[4]} != w {
				t.Errorf("%s: %q %q, want %q", r[1], r[3], r[4], w)
			}
			delete(want, r[1])
		}
	}
	if len(want) > 0 {
		t.Errorf("taxonomy.csv lacks %v", want)
	}
	if lines := src.Errors.Lines(); len(lines) > 0 {
		t.Errorf("_errors.txt: %q", lines)
	}
}
