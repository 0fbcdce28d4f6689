package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
)

func TestInputsCheck(t *testing.T) {
	for name, change := range testdata.InputChanges {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
			p := filepath.Join(dir, "sub", "b.bin")
			os.WriteFile(filepath.Join(dir, "a.bin"), []byte("aaaa"), 0o644)
			os.WriteFile(p, []byte("abcdefghij"), 0o644)
			s := NewSource("test", "1", dir)
			s.Watch(NewInputs(dir))
			in := s.Root.inputs
			if len(in.files) != 2 {
				t.Fatalf("%d inputs, want 2", len(in.files))
			}
			if err := in.Check(); err != nil {
				t.Fatal(err)
			}
			if err := change(p); err != nil {
				t.Fatal(err)
			}
			err := in.Check()
			if !errors.Is(err, render.ErrChanged) || !strings.Contains(err.Error(), p) {
				t.Fatalf("after %s: %v", name, err)
			}
			if err2 := in.Check(); err2 != err {
				t.Errorf("second check: %v", err2)
			}
			lines := s.Errors.Lines()
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "sub/b.bin: changed under the mount") {
				t.Errorf("_errors.txt: %q", lines)
			}
		})
	}
}

// BenchmarkInputsCheck is the cost of one check of a source of 5 files
// (an ovni trace of 4 streams and its metadata): what every read pays.
func BenchmarkInputsCheck(b *testing.B) {
	dir := b.TempDir()
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644)
	}
	in := NewInputs(dir)
	for b.Loop() {
		if err := in.Check(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestManyInputsRecheck: a source of many files is checked again on read
// once the last check is older than readRecheck.
func TestManyInputsRecheck(t *testing.T) {
	dir := t.TempDir()
	for i := range manyInputs + 1 {
		os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), []byte("x"), 0o644)
	}
	s := NewSource("test", "1", dir)
	in := NewInputs(dir)
	s.Watch(in)
	if err := in.checkRead(); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "f7"))
	time.Sleep(2 * readRecheck)
	if err := in.checkRead(); !errors.Is(err, render.ErrChanged) {
		t.Fatalf("read check %v after a deletion", err)
	}
}

// TestDeclaredInputs: a file beside a source's own that the source
// declared (NewSource) is an input: Watch checks it, and its identity is
// in every view's index key.
func TestDeclaredInputs(t *testing.T) {
	dir := t.TempDir()
	p, sib := filepath.Join(dir, "a.prof"), filepath.Join(dir, "a.trace")
	os.WriteFile(p, []byte("profile"), 0o644)
	os.WriteFile(sib, []byte("trace"), 0o644)
	open := func() *Source {
		in := NewInputs(p)
		s := NewSource("test", "1", p, sib)
		s.Watch(in)
		return s
	}
	s := open()
	if n := len(s.Root.inputs.files); n != 2 {
		t.Fatalf("%d inputs, want 2", n)
	}
	key := s.binding("v.csv").Key
	if again := open().binding("v.csv").Key; again != key || key == "" {
		t.Fatalf("keys %q and %q of one input", key, again)
	}
	os.Remove(sib)
	os.WriteFile(sib, []byte("other"), 0o644)
	if err := s.Root.inputs.Check(); !errors.Is(err, render.ErrChanged) {
		t.Fatalf("check after the declared input was replaced: %v", err)
	}
	if lines := s.Errors.Lines(); len(lines) != 1 || !strings.HasPrefix(lines[0], "a.trace: changed under the mount") {
		t.Errorf("_errors.txt: %q", lines)
	}
	if other := open().binding("v.csv").Key; other == key {
		t.Error("same key after the declared input was replaced")
	}
}
