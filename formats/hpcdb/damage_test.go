package hpcdb_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// patch rewrites part of a generated database's file.
func patch(t *testing.T, path string, fn func(b []byte)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fn(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// errorsAfterReading opens the database at dir, reads every view but raw/
// and returns _errors.txt and the bytes the reads allocated.
func errorsAfterReading(t *testing.T, dir string) (string, uint64) {
	t.Helper()
	src := testdata.Open(t, hpcdb.Open, dir)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fsys := src.FS()
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == "raw" {
			if err == nil {
				err = fs.SkipDir
			}
			return err
		}
		if !d.IsDir() {
			fs.ReadFile(fsys, p) // errors go to _errors.txt
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	return strings.Join(src.Errors.Lines(), "\n"), after.TotalAlloc - before.TotalAlloc
}

// A cct.db whose header claims 67 M contexts (issue 27.3: 1.5 GB and 52 s)
// is read as the contexts its info section holds, and says so.
func TestCCTCountBoundedByFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Write(dir, gen.Config{Threads: 2, Contexts: 200, Metrics: 1, Samples: 20, ValidCCT: true, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	patch(t, filepath.Join(dir, "cct.db"), func(b []byte) { gen.SetContextCount(b, 1<<26) })
	errs, alloc := errorsAfterReading(t, dir)
	if !strings.Contains(errs, "hpcdb: cct.db at byte 18 (0x12): context count past the 200 context infos the file holds") {
		t.Errorf("_errors.txt does not report the count:\n%s", errs)
	}
	if alloc > 64<<20 {
		t.Errorf("reading every view allocated %d MB", alloc>>20)
	}
}

// Damaged identifier tuples (issue 27.9) are reported, not silently named
// profile-N: an empty tuple, one with the summary's kind, one kind twice,
// and two profiles with one tuple.
func TestDamagedTuplesReported(t *testing.T) {
	dir := t.TempDir()
	if _, err := gen.Write(dir, gen.Config{Threads: 5, Contexts: 50, Metrics: 1, Samples: 5, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "profile.db")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := dec.NewProfileDB(bytes.NewReader(b), int64(len(b)))
	if err != nil || len(p.Profiles) != 6 {
		t.Fatalf("generated profile.db: %v", err)
	}
	at := func(i int) uint64 { return p.Profiles[i].TuplePtr }
	if t1, _ := p.Tuple(1); len(t1) < 2 {
		t.Fatalf("generated tuple %v", t1)
	}
	copy(b[at(5):at(5)+uint64(gen.TupleSize(b, at(5)))], b[at(4):]) // profile 4's tuple
	gen.SetTupleCount(b, at(1), 0)                                  // no identifiers
	gen.SetTupleKind(b, at(2), 0, uint16(dec.KindSummary))          // the summary's kind
	gen.SetTupleKind(b, at(3), 1, gen.TupleKind(b, at(3), 0))       // the first kind twice
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	errs, _ := errorsAfterReading(t, dir)
	testdata.Contains(t, "_errors.txt", errs, "identifier tuple of profile 1: no identifiers", "identifier tuple of profile 2: the summary's identifier",
		"identifier tuple of profile 3: identifier kind twice", "renamed, since")
}

// No database of the corpus has a tuple the checks call damaged.
func TestCorpusTuplesClean(t *testing.T) {
	for name, src := range allDatabases(t) {
		if _, err := fs.ReadFile(src.FS(), "profiles.csv"); err != nil {
			t.Fatal(err)
		}
		for _, l := range src.Errors.Lines() {
			if strings.Contains(l, "identifier tuple") || strings.Contains(l, "renamed") {
				t.Errorf("%s: %s", name, l)
			}
		}
	}
}

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
	testdata.Contains(t, "_errors.txt", errs, "trace.db: version 1.176 is newer", "which the database defines nowhere", "hpcdb: experiment.xml at byte")
	if strings.Count(errs, "NUL byte in attribute n") != 1 {
		t.Errorf("_errors.txt should name the NUL bytes once:\n%s", errs)
	}
}
