package testdata

import (
	"bytes"
	"io/fs"
	"path"
	"testing"
	"unicode/utf8"
)

// BadName is a name as hostile data holds it: a newline, a CR, a NUL, a
// byte that is not UTF-8 and an escape character (render.AppendName
// writes each as \xNN).
const BadName = "bad\nna\rme\x00x\xff\x1b"

// CheckTextViews walks fsys and checks that names from the data did not
// reach a view raw: every .txt, .csv, .folded and .json file is valid
// UTF-8 with no control character but tab and newline (no NUL, CR, ESC,
// DEL), every .csv parses with encoding/csv (ReadCSV: rows as wide as the
// header) and the text views hold no line with a raw piece of BadName
// ("na" + CR). It returns the text views read, by path.
func CheckTextViews(t testing.TB, fsys fs.FS) map[string][]byte {
	t.Helper()
	views := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == "raw" && d.IsDir(): // the input itself
			return fs.SkipDir
		case d.IsDir() || p == "raw":
			return nil
		}
		switch path.Ext(p) {
		case ".txt", ".csv", ".folded", ".json":
		default:
			return nil
		}
		b := ReadFS(t, fsys, p)
		views[p] = b
		if !utf8.Valid(b) {
			t.Errorf("%s: not UTF-8", p)
		}
		if i := bytes.IndexFunc(b, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f }); i >= 0 {
			t.Errorf("%s: raw control byte %#x at %d: %q", p, b[i], i, b[max(0, i-40):min(len(b), i+40)])
		}
		if path.Ext(p) == ".csv" {
			ReadCSV(t, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return views
}
