package formats

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoByteDecoding: decode owns the bytes, so no file under formats/,
// tests included, imports encoding/binary (tests build damaged inputs
// with decode's accessors or testdata/gen).
func TestNoByteDecoding(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		n++
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path == "encoding/binary" {
				t.Errorf("formats/%s imports encoding/binary", filepath.ToSlash(p))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d Go files found under formats/", n)
	}
}
