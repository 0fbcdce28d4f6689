package ovni

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

// TestLoomNameControlCharacters: a loom named with a newline, a CR and a
// byte that is not UTF-8 (all legal in a directory name) keeps every
// event on its own line of events.txt, escaped as \xNN, and streams.csv
// stays text (a newline in a quoted field is CSV).
func TestLoomNameControlCharacters(t *testing.T) {
	dir, err := gen.WriteDemo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	plain := testdata.ReadFS(t, open(t, dir).FS(), "events.txt")
	looms, _ := filepath.Glob(filepath.Join(dir, "loom.*"))
	if len(looms) != 1 {
		t.Fatalf("%d looms in the demo", len(looms))
	}
	bad := "de\nm\ro\xff"
	if err := os.Rename(looms[0], filepath.Join(dir, "loom."+bad)); err != nil {
		t.Fatal(err)
	}
	fsys := open(t, dir).FS()
	events := testdata.ReadFS(t, fsys, "events.txt")
	if n, want := bytes.Count(events, []byte("\n")), bytes.Count(plain, []byte("\n")); n != want {
		t.Errorf("events.txt has %d lines, %d with a plain loom name", n, want)
	}
	if bytes.IndexByte(events, 0xff) >= 0 || bytes.IndexByte(events, 0x0d) >= 0 || !bytes.Contains(events, []byte(`de\x0am\x0do\xff.`)) {
		t.Errorf("events.txt does not escape the loom name:\n%.300s", events)
	}
	csv := string(testdata.ReadFS(t, fsys, "streams.csv"))
	if strings.IndexByte(csv, 0xff) >= 0 || strings.IndexByte(csv, 0x0d) >= 0 || strings.IndexByte(csv, 0) >= 0 || !strings.Contains(csv, "\"de\nm\\x0do\\xff\"") {
		t.Errorf("streams.csv does not escape the loom name:\n%s", csv)
	}
}
