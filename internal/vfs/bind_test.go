package vfs_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
)

// recorder is a generator of n lines that ends on a malformed-input error
// when bad; it is a StateCodec, so its views can be indexed, and records
// the Bindings its view gets.
type recorder struct {
	n      int
	bad    bool
	starts int
	passes int // starts from the beginning (nil state): sizing passes
}

type recCursor struct {
	g *recorder
	i int
}

func (g *recorder) Start(state any) (render.Cursor, error) {
	g.starts++
	if state == nil {
		g.passes++
	}
	c := &recCursor{g: g}
	if state != nil {
		c.i = state.(int)
	}
	return c, nil
}
func (g *recorder) EncodeState(s any) []byte { return fmt.Appendf(nil, "%d", s.(int)) }
func (g *recorder) DecodeState(b []byte) (any, error) {
	var i int
	_, err := fmt.Sscanf(string(b), "%d", &i)
	return i, err
}
func (c *recCursor) State() any { return c.i }
func (c *recCursor) Next(dst []byte) ([]byte, error) {
	if c.i == c.g.n {
		if c.g.bad {
			return dst, fmt.Errorf("record %d: %w", c.i, decode.ErrFormat)
		}
		return dst, io.EOF
	}
	c.i++
	return fmt.Appendf(dst, "line %d of a view bound by the tree\n", c.i), nil
}

// bound is a view that records its Binding.
type bound struct {
	render.View
	b *render.Binding
}

func (v bound) Bind(b render.Binding) { *v.b = b }

// TestViewsTakeIdentityFromTree: a view learns its index key (format and
// path, different per path, stable across opens of unchanged inputs, new
// when an input changes), its error location (its path in the source,
// also for a source inside a folder; a small file's too) and the options
// (the index directory is used), in static, Lazy and Indexed directories.
func TestViewsTakeIdentityFromTree(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "input.bin")
	os.WriteFile(input, []byte("v1"), 0o644)
	index := t.TempDir()
	type views struct{ static, lazy, indexed, inner render.Binding }
	open := func() (*vfs.Source, *views) {
		var got views
		s := vfs.NewSource("fmt", "1", input)
		bad := &recorder{n: 20000, bad: true}
		s.Root.AddDir("a").AddFile("bad.txt", render.Stream(bad, nil))
		s.Root.AddDir("b").AddFile("small.csv", render.Bytes(func() ([]byte, error) {
			return []byte("x\n"), fmt.Errorf("row 2: %w", decode.ErrFormat)
		}, nil))
		s.Root.AddFile("static.txt", bound{render.Static(nil), &got.static})
		s.Root.Add("lazy", vfs.Lazy(func() []vfs.Entry {
			return []vfs.Entry{{Name: "x.txt", Node: vfs.NewFile(bound{render.Static(nil), &got.lazy})}}
		}))
		s.Root.Add("idx", vfs.Indexed(3, func(i int) string { return fmt.Sprint(i) }, func(i int) vfs.Node {
			return vfs.NewFile(bound{render.Static(nil), &got.indexed})
		}))
		inner := vfs.NewSource("inner", "1", input)
		inner.Root.AddFile("in.txt", bound{render.Static(nil), &got.inner})
		s.Root.AddDir("sub").Add("src", inner.Root)
		s.Options = render.Options{IndexDir: index}
		return s, &got
	}
	s, got := open()
	fsys := s.FS()
	for _, p := range []string{"static.txt", "lazy/x.txt", "idx/2", "sub/src/in.txt"} {
		if _, err := fs.Stat(fsys, p); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"a/bad.txt", "b/small.csv"} {
		if _, err := fs.ReadFile(fsys, p); err != nil {
			t.Fatal(err)
		}
	}
	keys := map[string]string{}
	for name, b := range map[string]render.Binding{"static.txt": got.static, "lazy/x.txt": got.lazy, "idx/2": got.indexed, "in.txt": got.inner} {
		if b.Options.IndexDir != index {
			t.Errorf("%s: options %+v", name, b.Options)
		}
		if !strings.HasPrefix(b.Key, "fmt/"+name+"/") && !(name == "in.txt" && strings.HasPrefix(b.Key, "inner/in.txt/")) {
			t.Errorf("%s: key %q", name, b.Key)
		}
		keys[b.Key] = name
		b.Report(errors.New("boom"))
	}
	if len(keys) != 4 {
		t.Errorf("keys not distinct: %v", keys)
	}
	lines := strings.Join(s.Errors.Lines(), "\n")
	testdata.Contains(t, "_errors.txt", lines, "a/bad.txt: record 20000: ", "b/small.csv: row 2: ", "static.txt: boom", "lazy/x.txt: boom", "idx/2: boom")

	// A good view is indexed under its key: a second open of the same
	// input reads it back; after the input changed, it measures again.
	good := func() (*recorder, string) {
		s, _ := open()
		g := &recorder{n: 30000}
		s.Root.AddFile("good.txt", render.Stream(g, nil))
		b, err := fs.ReadFile(s.FS(), "good.txt")
		if err != nil {
			t.Fatal(err)
		}
		return g, string(b)
	}
	g1, want := good()
	g2, again := good()
	if g1.starts == 0 || again != want {
		t.Fatalf("first open: %d starts; second open same bytes: %v", g1.starts, again == want)
	}
	// A view read from the index starts its cursors at checkpoints' states
	// only; one measured starts a pass from the beginning (nil).
	measured := func(g *recorder) bool { return g.passes > 0 }
	if measured(g2) {
		t.Errorf("second open measured again (%d passes)", g2.passes)
	}
	os.WriteFile(input, []byte("v2"), 0o644)
	if g3, _ := good(); !measured(g3) {
		t.Errorf("after a change of the input the index was used (%d cursors)", g3.starts)
	}
}
