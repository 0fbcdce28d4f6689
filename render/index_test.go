package render

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Reading a file (which updates its access time) keeps its key; writing
// it, or replacing it by another file, changes the key.
func TestWithFilesStableAcrossReads(t *testing.T) {
	p := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(p, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old) // atime <= mtime: the next read updates atime under relatime
	k1 := withFiles("fmt/v.csv", p)
	if k1 == "" {
		t.Fatal("no key for an existing file")
	}
	if withFiles("fmt/w.csv", p) == k1 || withFiles("other/v.csv", p) == k1 {
		t.Fatal("views or formats share a key")
	}
	if withFiles("fmt/v.csv", p, p+".missing") != "" {
		t.Fatal("key for a missing file")
	}
	if _, err := os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	if k2 := withFiles("fmt/v.csv", p); k2 != k1 {
		t.Fatal("key changed after reading the file")
	}
	if err := os.WriteFile(p, []byte("other"), 0o644); err != nil {
		t.Fatal(err)
	}
	if k3 := withFiles("fmt/v.csv", p); k3 == k1 {
		t.Fatal("key unchanged after writing the file")
	}
}
