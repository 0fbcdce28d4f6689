// Package testdata locates test inputs: the corpus of real files (see
// CorpusDir) and this directory. Open opens a source for a test; ReadFS,
// ReadCSV and TraceNanos read the views of a tree, ReadViews as the
// kernel does (benchmarks); SameRows compares CSV rows with an oracle's.
// Generators of synthetic inputs live in testdata/gen/<format>.
package testdata

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Dir is this directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// CorpusDir is the corpus of real files: $HPCFS_CORPUS, else the folder
// shared/corpus beside the repository.
func CorpusDir() string {
	if dir := os.Getenv("HPCFS_CORPUS"); dir != "" {
		return dir
	}
	return filepath.Join(Dir(), "..", "..", "shared", "corpus")
}

// SkippedLogEnv names a file to which Corpus appends a line for each
// test it skips; ./test.sh counts them and says so loudly.
const SkippedLogEnv = "HPCFS_SKIPPED_LOG"

// Corpus returns the path of a file or directory of the corpus
// (CorpusDir). When the corpus is missing the test is skipped (and the
// skip is written to $HPCFS_SKIPPED_LOG), except under CI=true, where
// it fails.
func Corpus(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{CorpusDir()}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus file missing in CI: %v", err)
		}
		if log := os.Getenv(SkippedLogEnv); log != "" {
			if f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
				f.WriteString(t.Name() + " " + p + "\n")
				f.Close()
			}
		}
		t.Skipf("corpus not available: %v", err)
	}
	return p
}

// ReadFS reads the file name of fsys; an error fails the test.
func ReadFS(t testing.TB, fsys fs.FS, name string) []byte {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ReadCSV parses a whole CSV view: every row has as many fields as the
// header. An error fails the test.
func ReadCSV(t testing.TB, b []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("csv: %v\n%s", err, b)
	}
	return rows
}

// TraceNanos reads a time of a trace.json view (µs with three decimals)
// as nanoseconds; any other form fails the test.
func TraceNanos(t testing.TB, n json.Number) int64 {
	t.Helper()
	s := string(n)
	i := strings.IndexByte(s, '.')
	if i < 0 || len(s)-i != 4 {
		t.Fatalf("time %q is not µs with the ns digits", s)
	}
	v, err := strconv.ParseInt(s[:i]+s[i+1:], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// CopyDir copies the directory tree at from (directories and regular
// files) to to.
func CopyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// ReadViews reads each view of fsys whole, in sequential 128 KiB reads
// at offsets (what the kernel sends), and returns their summed size.
func ReadViews(tb testing.TB, fsys fs.FS, views ...string) int64 {
	tb.Helper()
	buf := make([]byte, 128<<10)
	var total int64
	for _, v := range views {
		f, err := fsys.Open(v)
		if err != nil {
			tb.Fatal(err)
		}
		info, err := f.Stat()
		if err != nil {
			tb.Fatal(err)
		}
		r, ok := f.(io.ReaderAt)
		if !ok {
			tb.Fatalf("%s: not an io.ReaderAt", v)
		}
		for off := int64(0); off < info.Size(); off += int64(len(buf)) {
			if _, err := r.ReadAt(buf, off); err != nil && err != io.EOF {
				tb.Fatalf("%s at %d: %v", v, off, err)
			}
		}
		f.Close()
		total += info.Size()
	}
	return total
}

// Open opens path with open (a format's Open) for the test: an error
// fails it, and the source is closed when it ends.
func Open[S io.Closer](tb testing.TB, open func(string) (S, error), path string) S {
	tb.Helper()
	src, err := open(path)
	if err != nil {
		tb.Fatalf("open %s: %v", path, err)
	}
	tb.Cleanup(func() { src.Close() })
	return src
}

// LiveHeap is the heap in use after a full collection, bytes.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// Names is the names of entries, in their order.
func Names(entries []fs.DirEntry) []string {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

// SameRows compares the rows of a CSV view (what names it) with the
// oracle's, row by row.
func SameRows(t testing.TB, what string, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, oracle %d", what, len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%s row %d:\n got %q\nwant %q", what, i, got[i], want[i])
		}
	}
}

// Contains fails t for each of wants that text, the file name, lacks.
func Contains(t testing.TB, name, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", name, want, text)
		}
	}
}

// FirstDiff describes the first line where the texts got and want differ,
// or their line counts when one is a prefix of the other.
func FirstDiff(got, want []byte) string {
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range min(len(gl), len(wl)) {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
		}
	}
	return fmt.Sprintf("lengths %d vs %d lines", len(gl), len(wl))
}
