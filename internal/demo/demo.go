// Package demo holds the built-in demo trace that `hpcfs mount` serves
// without a source: a small ovni trace (one loom, two processes, four
// threads) embedded in the binary, so the shipped program does not carry
// the test generators of testdata/. TestEmbeddedMatchesGenerator checks
// that it is what testdata/gen/ovni.WriteDemo writes.
package demo

import (
	"embed"
	"io/fs"
	"os"
	"path/filepath"
)

//go:embed trace
var trace embed.FS

// Write writes the demo trace under dir and returns the trace directory
// (dir/ovni).
func Write(dir string) (string, error) {
	root := filepath.Join(dir, "ovni")
	err := fs.WalkDir(trace, "trace", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(root, filepath.FromSlash(p[len("trace"):]))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := trace.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		return "", err
	}
	return root, nil
}
