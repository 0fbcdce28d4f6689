package columnar_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/testdata"
)

// duckdbCheck is run by node with @duckdb/node-api: for each pair of
// files given (a Parquet twin and its CSV) it reads the CSV with the
// twin's column types and prints the twin's row count, the CSV's, and
// the rows of each missing from the other (EXCEPT ALL both ways).
const duckdbCheck = `
const { createRequire } = require('module');
const { DuckDBInstance } = createRequire(process.env.DUCKDB_DIR + '/')('@duckdb/node-api');
(async () => {
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  const q = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
  const lit = (s) => "'" + s.replace(/'/g, "''") + "'";
  const out = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i += 2) {
    const pq = 'read_parquet(' + lit(args[i]) + ')';
    const cols = await q('DESCRIBE SELECT * FROM ' + pq);
    const types = cols.map((c) => lit(c.column_name) + ': ' + lit(c.column_type)).join(', ');
    const csv = 'read_csv(' + lit(args[i + 1]) + ', header = true, auto_detect = false, delim = \',\', quote = \'"\', escape = \'"\', max_line_size = 16777216, columns = {' + types + '})';
    const n = async (sql) => Number((await q('SELECT count(*) AS n FROM (' + sql + ')'))[0].n);
    out.push({
      parquet: args[i],
      types: cols.map((c) => c.column_type),
      rows: await n('SELECT * FROM ' + pq),
      csvRows: await n('SELECT * FROM ' + csv),
      onlyParquet: await n('SELECT * FROM ' + pq + ' EXCEPT ALL SELECT * FROM ' + csv),
      onlyCSV: await n('SELECT * FROM ' + csv + ' EXCEPT ALL SELECT * FROM ' + pq),
    });
  }
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`

// duckdbDir is where npm installed @duckdb/node-api (.ci/setup):
// $HPCFS_DUCKDB or ~/.cache/hpcfs-duckdb. The test skips without it,
// except under CI=true.
func duckdbDir(t *testing.T) string {
	dir := os.Getenv("HPCFS_DUCKDB")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "hpcfs-duckdb")
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	_, errNode := exec.LookPath("node")
	if err != nil || errNode != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("DuckDB for node not found in %s (.ci/setup installs it): %v %v", dir, err, errNode)
		}
		t.Skip("no @duckdb/node-api: run .ci/setup")
	}
	return dir
}

// TestDuckDBReadsTwins exports the Parquet twins of the big tables of a
// corpus case of every format with their CSVs and has DuckDB read both:
// every twin has the rows and values of its CSV, integers and times as
// BIGINT.
func TestDuckDBReadsTwins(t *testing.T) {
	dir := duckdbDir(t)
	cases := []string{
		filepath.Join(testdata.Corpus(t, "ovni", "v1-two-procs"), "ovni"),
		filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks"), "ovni"),
		// jumbo payloads: 3.7 MB cells, a row group each, no statistics
		filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-test-flush-jumbo"), "ovni"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"),
		testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"),
		testdata.Corpus(t, "callgrind", "valgrind-3.19-generated", "callgrind.out.default"),
		testdata.Corpus(t, "webgrind", "xdebug-app-v7", "callgrind.out.webgrind"),
		testdata.Corpus(t, "otf2", "gen-io-sampling-attrs"),
	}
	tmp := t.TempDir()
	var args []string
	for k, path := range cases {
		src, err := formats.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		fsys := src.FS()
		n := 0
		err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == "raw" {
				return err
			}
			base, ok := strings.CutSuffix(p, ".parquet")
			if !ok {
				return nil
			}
			n++
			for _, name := range []string{p, base + ".csv"} {
				out := filepath.Join(tmp, filepath.Base(path)+"-"+string(rune('a'+k)), name)
				os.MkdirAll(filepath.Dir(out), 0o755)
				if err := os.WriteFile(out, testdata.ReadFS(t, fsys, name), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, out)
			}
			return nil
		})
		src.Close()
		if err != nil || n == 0 {
			t.Fatalf("%s: %d twins: %v", path, n, err)
		}
	}
	script := filepath.Join(tmp, "check.cjs")
	os.WriteFile(script, []byte(duckdbCheck), 0o644)
	cmd := exec.Command("node", append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "DUCKDB_DIR="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var res []struct {
		Parquet                             string
		Types                               []string
		Rows, CSVRows, OnlyParquet, OnlyCSV int
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(args)/2 {
		t.Fatalf("%v: %s", err, out)
	}
	bigint, contexts := 0, 0
	for _, r := range res {
		name, _ := filepath.Rel(tmp, r.Parquet)
		if strings.HasSuffix(name, "/contexts.parquet") {
			contexts++ // hpcdb's cct x profile values, in one long table
		}
		t.Logf("%s: %d rows, %v", name, r.Rows, r.Types)
		if r.Rows != r.CSVRows || r.OnlyParquet != 0 || r.OnlyCSV != 0 {
			t.Errorf("%s: %d rows, the CSV %d; %d rows only in the twin, %d only in the CSV", name, r.Rows, r.CSVRows, r.OnlyParquet, r.OnlyCSV)
		}
		for _, ty := range r.Types {
			if ty == "BIGINT" {
				bigint++
			}
		}
	}
	if contexts != 2 {
		t.Errorf("%d hpcdb contexts.parquet twins checked, want 2", contexts)
	}
	if bigint == 0 {
		t.Error("no BIGINT column in any twin")
	}
}
