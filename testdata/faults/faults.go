// Package faults is the fault-injection harness: it damages copies of
// every corpus case and of generated inputs of each format (truncated,
// bytes flipped, ranges zeroed, bytes appended), opens each mutant as
// hpcfs would and reads every view, and checks the contract on damaged
// input: no panic, no hang, bounded memory, every view exactly its stated
// size, and a view that fails to read explained by an _errors.txt line.
//
// TestFaults (in ./test.sh) runs every mutation of a small generated input
// of each format and six mutations of one small case per corpus group;
// TestFaultsMounted (in ./test.sh) mounts two mutants and two damaged
// on-disk indexes of each generated input through a real mount, each in
// its own server process, whose peak RSS is measured (VmHWM) and counted
// against the 64 MB budget (a run over it fails).
// `go test ./testdata/faults -long` (testdata/faults/run.sh) runs every
// mutation of every corpus case too, and prints the counts per format:
// mutants, panics, timeouts, peak RSS and the share changed silently.
package faults

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// A Mutation damages the file at path; rng makes its choices.
type Mutation struct {
	Name  string
	Apply func(path string, rng *rand.Rand) error
}

func resize(size func(n int64, rng *rand.Rand) int64) func(string, *rand.Rand) error {
	return func(path string, rng *rand.Rand) error {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		return os.Truncate(path, max(0, min(fi.Size(), size(fi.Size(), rng))))
	}
}

func edit(fn func(b []byte, rng *rand.Rand) []byte) func(string, *rand.Rand) error {
	return func(path string, rng *rand.Rand) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(path, fn(b, rng), 0o644)
	}
}

func zero(b []byte, off, n int) []byte {
	if off >= len(b) {
		return b
	}
	clear(b[off:min(len(b), off+n)])
	return b
}

func randOff(b []byte, rng *rand.Rand) int {
	if len(b) == 0 {
		return 0
	}
	return rng.IntN(len(b))
}

// Mutations lists every kind of damage, in a fixed order.
var Mutations = []Mutation{
	{"truncate-0", resize(func(n int64, _ *rand.Rand) int64 { return 0 })},
	{"truncate-1", resize(func(n int64, _ *rand.Rand) int64 { return 1 })},
	{"truncate-half", resize(func(n int64, _ *rand.Rand) int64 { return n / 2 })},
	{"truncate-last-byte", resize(func(n int64, _ *rand.Rand) int64 { return n - 1 })},
	{"truncate-random", resize(func(n int64, rng *rand.Rand) int64 { return rng.Int64N(max(n, 1)) })},
	{"flip-1", edit(func(b []byte, rng *rand.Rand) []byte {
		if len(b) > 0 {
			b[randOff(b, rng)] ^= 0xff
		}
		return b
	})},
	{"flip-8", edit(func(b []byte, rng *rand.Rand) []byte {
		for range 8 {
			if len(b) > 0 {
				b[randOff(b, rng)] ^= byte(1 << rng.IntN(8))
			}
		}
		return b
	})},
	{"flip-header", edit(func(b []byte, rng *rand.Rand) []byte {
		if n := min(len(b), 64); n > 0 {
			b[rng.IntN(n)] ^= 0xff
		}
		return b
	})},
	{"zero-16", edit(func(b []byte, rng *rand.Rand) []byte { return zero(b, randOff(b, rng), 16) })},
	{"zero-4k", edit(func(b []byte, rng *rand.Rand) []byte { return zero(b, randOff(b, rng), 4096) })},
	{"zero-header", edit(func(b []byte, rng *rand.Rand) []byte { return zero(b, 0, 64) })},
	{"append-1", edit(func(b []byte, rng *rand.Rand) []byte { return append(b, byte(rng.IntN(256))) })},
	{"append-4k-random", edit(func(b []byte, rng *rand.Rand) []byte {
		for range 4096 {
			b = append(b, byte(rng.IntN(256)))
		}
		return b
	})},
	{"append-own-start", edit(func(b []byte, rng *rand.Rand) []byte { return append(b, b[:min(len(b), 4096)]...) })},
}

// CopySource copies the file or directory tree at from to to (regular
// files only) and returns the regular files of the copy, largest first,
// the corpus's own notes and oracles (which no format reads) last.
func CopySource(from, to string) ([]string, error) {
	fi, err := os.Stat(from)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		b, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		return []string{to}, os.WriteFile(to, b, 0o644)
	}
	type sized struct {
		p string
		n int64
	}
	var files []sized
	err = filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, sized{dst, int64(len(b))})
		return os.WriteFile(dst, b, 0o644)
	})
	sort.SliceStable(files, func(i, j int) bool {
		if a, b := notInput(files[i].p), notInput(files[j].p); a != b {
			return b
		}
		return files[i].n > files[j].n
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.p
	}
	return out, err
}

// A Tree is what ReadAll found: each view's bytes (or its error) and
// the lines of every _errors.txt.
type Tree struct {
	Views  map[string][sha256.Size]byte // each view's SHA-256
	Errors map[string]error
	Lines  []string // _errors.txt, then each source's in a folder ("DIR: line")
}

// maxViews bounds the views read per source, so that a tree of thousands
// of per-function files stays quick; they are taken in walk order.
const maxViews = 400

// ReadAll reads every view of fsys but raw/ (each source's), checking
// that each yields exactly its stated size, then every _errors.txt last:
// the root's, and in a folder of sources each source's own (README.txt
// says so), which the root's does not repeat.
func ReadAll(fsys fs.FS) (*Tree, []error) {
	tr := &Tree{Views: map[string][sha256.Size]byte{}, Errors: map[string]error{}}
	var problems []error
	n := 0
	errorFiles := []string{"_errors.txt"}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			tr.Errors[p] = err
			return nil
		case d.IsDir() && d.Name() == "raw" && isFile(fsys, path.Join(path.Dir(p), "_errors.txt")):
			return fs.SkipDir // a source's raw/: the root's, or one of a folder's
		case d.IsDir() || p == "_errors.txt":
			return nil
		case d.Name() == "_errors.txt":
			errorFiles = append(errorFiles, p)
			return nil
		}
		if n++; n > maxViews {
			return fs.SkipAll
		}
		b, err := readView(fsys, p)
		if err != nil {
			tr.Errors[p] = err
			if errors.Is(err, errSize) {
				problems = append(problems, err)
			}
			return nil
		}
		tr.Views[p] = b
		return nil
	})
	for _, p := range errorFiles {
		b, err := fs.ReadFile(fsys, p)
		if s := strings.TrimSuffix(string(b), "\n"); err == nil && s != "" {
			for _, l := range strings.Split(s, "\n") {
				if dir := path.Dir(p); dir != "." {
					l = dir + ": " + l
				}
				tr.Lines = append(tr.Lines, l)
			}
		}
	}
	return tr, problems
}

func isFile(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	return err == nil && fi.Mode().IsRegular()
}

var errSize = errors.New("view does not hold its stated size")

func readView(fsys fs.FS, p string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := fsys.Open(p)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return sum, err
	}
	r, ok := f.(io.ReaderAt)
	if !ok {
		return sum, fmt.Errorf("%s: no ReaderAt", p)
	}
	h := sha256.New()
	buf := make([]byte, 64<<10)
	var off int64
	for {
		k, err := r.ReadAt(buf, off)
		h.Write(buf[:k])
		off += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return sum, err
		}
		if k == 0 {
			return sum, fmt.Errorf("%s: no progress at %d", p, off)
		}
	}
	if off != fi.Size() {
		return sum, fmt.Errorf("%s: %w: read %d bytes, size %d", p, errSize, off, fi.Size())
	}
	h.Sum(sum[:0])
	return sum, nil
}

// notInput tells the files of a corpus case that are there for people and
// other tools: oracles, licences, notes, logs.
func notInput(p string) bool {
	n := filepath.Base(p)
	if strings.HasPrefix(n, "oracle") || strings.Contains(n, "golden") {
		return true
	}
	switch filepath.Ext(n) {
	case ".license", ".md", ".log", ".stderr", ".yaml", ".csv", ".txt", ".json", ".c":
		return true
	}
	return false
}
