package hpcdb_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// TestImpossibleValuesReported: a trace sample whose context id exists
// nowhere, a trace.db of minor version 176 and NUL bytes in experiment.xml
// attributes each get an _errors.txt line, and no NUL reaches a view.
func TestImpossibleValuesReported(t *testing.T) {
	dir := t.TempDir()
	const threads = 2
	if _, err := gen.Write(dir, gen.Config{Threads: threads, Contexts: 60, Metrics: 1, Samples: 50, Seed: 4}); err != nil {
		t.Fatal(err)
	}
	trace, err := os.ReadFile(filepath.Join(dir, "trace.db"))
	if err != nil {
		t.Fatal(err)
	}
	tdb, err := dec.NewTraceDB(bytes.NewReader(trace), int64(len(trace)))
	if err != nil || len(tdb.Lines) == 0 {
		t.Fatalf("generated trace.db: %v", err)
	}
	// The first sample's context (big-endian, after its 8-byte time).
	copy(trace[tdb.Lines[0].Start+8:], []byte{0x7f, 0xff, 0xff, 0xf0})
	trace[17] = 176 // version 1.176
	os.WriteFile(filepath.Join(dir, "trace.db"), trace, 0o644)
	xml, err := os.ReadFile(filepath.Join(dir, "experiment.xml"))
	if err != nil {
		t.Fatal(err)
	}
	proc := bytes.Index(xml, []byte("<Procedure "))
	name := proc + bytes.Index(xml[proc:], []byte(` n="`)) + 4
	if proc < 0 || name < proc+4 {
		t.Fatal("no procedure name in the generated experiment.xml")
	}
	xml = append(xml[:name:name], append([]byte("a\x00b&#0;"), xml[name:]...)...)
	os.WriteFile(filepath.Join(dir, "experiment.xml"), xml, 0o644)

	src := testdata.Open(t, hpcdb.Open, dir)
	fsys := src.FS()
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(p, "raw/") || strings.HasPrefix(p, "dump/") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		if bytes.IndexByte(b, 0) >= 0 && !strings.HasSuffix(p, ".pb.gz") && !strings.HasSuffix(p, ".pftrace") && !strings.HasSuffix(p, ".parquet") { // pprof, Perfetto and Parquet are binary
			t.Errorf("%s holds a NUL byte", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	errs := strings.Join(src.Errors.Lines(), "\n")
	for _, want := range []string{"trace.db: version 1.176 is newer", "which the database defines nowhere", "hpcdb: experiment.xml at byte"} {
		if !strings.Contains(errs, want) {
			t.Errorf("_errors.txt lacks %q:\n%s", want, errs)
		}
	}
	if strings.Count(errs, "NUL byte in attribute n") != 1 {
		t.Errorf("_errors.txt should name the NUL bytes once:\n%s", errs)
	}
}
