// Package testdata locates test inputs: the shared corpus of real files
// beside the checkout (../shared/corpus) and this directory. Generators of
// synthetic inputs live in testdata/gen/<format>.
package testdata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir is this directory.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Corpus returns the path of a file or directory of the shared corpus
// (../shared/corpus beside the repository). When the corpus is missing the
// test is skipped, except under CI=true, where it fails.
func Corpus(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Dir(), "..", "..", "shared", "corpus"}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("corpus file missing in CI: %v", err)
		}
		t.Skipf("corpus not available: %v", err)
	}
	return p
}
