package symbols

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

// spillResolver is a resolver that spills every table with DWARF to
// dir: its DWARF limit is 1 byte.
func spillResolver(dir string) *Resolver {
	r := NewResolver(nil, nil)
	r.SetMaxDWARF(1)
	r.SetIndexDir(dir)
	return r
}

// TestSpillOverBudget checks that a table larger than the budget is
// spilled though its DWARF is within the limit.
func TestSpillOverBudget(t *testing.T) {
	b := compile(t, program.CXX)
	r := NewResolver(nil, nil)
	r.SetBudget(1)
	r.SetIndexDir(t.TempDir())
	m := r.Module(b.Path)
	addr := mainAddr(t, b.Path)
	if got, want := m.Lookup(addr), NewResolver(nil, nil).Module(b.Path).Lookup(addr); !slices.Equal(got, want) || len(got) == 0 {
		t.Fatalf("at %#x: %v, in memory %v", addr, got, want)
	}
	if _, ok := r.tables[m.key].t.(*spilled); !ok || !strings.Contains(m.Source(), "(spilled to the index)") {
		t.Errorf("not spilled: %s", m.Source())
	}
	// The next mount's README.txt (headers only) says so too.
	r2 := NewResolver(nil, nil)
	r2.SetIndexDir(r.indexDir)
	if d := r2.Module(b.Path).Describe(); !strings.Contains(d, "(spilled to the index)") {
		t.Errorf("Describe: %s", d)
	}
}

// TestSpill checks that a table over the DWARF limit is spilled to the
// index and answers every address of .text as the in-memory table and
// addr2line -f -i -C do; that a new resolver reads it back from the
// index instead of building it; and that a damaged file is built again.
func TestSpill(t *testing.T) {
	for _, v := range []program.Variant{program.CXX, program.CXXDWP} {
		t.Run(string(v), func(t *testing.T) {
			b := compile(t, v)
			dir := t.TempDir()
			addrs, want := everyAddress(t, b)
			mem := NewResolver(nil, nil).Module(b.Path)
			check := func(r *Resolver) {
				t.Helper()
				m := r.Module(b.Path)
				// Another reader at the same time, as FUSE serves
				// reads (go test -race checks the shared caches).
				done := make(chan struct{})
				go func() {
					defer close(done)
					for i := len(addrs) - 1; i >= 0; i-- {
						m.Lookup(addrs[i])
					}
				}()
				defer func() { <-done }()
				bad := 0
				for i, a := range addrs {
					got := m.Lookup(a)
					d := diff(got, want[i])
					if d == "" && !slices.Equal(got, mem.Lookup(a)) {
						d = "differs from the in-memory table"
					}
					if d != "" {
						if bad++; bad <= 10 {
							t.Errorf("%#x: %s", a, d)
						}
					}
				}
				if bad > 0 {
					t.Fatalf("%d of %d addresses differ", bad, len(addrs))
				}
				r.mu.Lock()
				h := r.tables[m.key]
				r.mu.Unlock()
				if _, ok := h.t.(*spilled); !ok {
					t.Fatalf("table held in memory, not spilled")
				}
				for _, s := range []string{m.Source(), m.Describe()} {
					if !strings.Contains(s, "spilled to the index") {
						t.Errorf("%q does not say the table is spilled", s)
					}
				}
				if !strings.HasPrefix(m.Source(), strings.Split(mem.Source(), " of ")[0]) {
					t.Errorf("Source %q, in memory %q", m.Source(), mem.Source())
				}
			}
			check(spillResolver(dir))
			files, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
			if len(files) != 1 {
				t.Fatalf("index holds %v, want one spilled table", files)
			}
			// Built with its line rows in sorted runs of 5 merged when
			// written (as a binary with millions of rows is), the
			// file is the same, and the runs are gone.
			func() {
				defer func(n int) { runRows = n }(runRows)
				runRows = 5
				runDir := t.TempDir()
				r := spillResolver(runDir)
				check(r)
				if h := r.tables[r.Module(b.Path).key]; h == nil || h.size == 0 {
					t.Fatal("no table held")
				}
				runs, _ := filepath.Glob(filepath.Join(runDir, ".symrun-*"))
				idx, _ := filepath.Glob(filepath.Join(runDir, "*.idx"))
				if len(runs) != 0 || len(idx) != 1 {
					t.Fatalf("index holds runs %v and tables %v, want one table", runs, idx)
				}
				got, err := os.ReadFile(idx[0])
				want, err2 := os.ReadFile(files[0])
				if err != nil || err2 != nil || !bytes.Equal(got, want) {
					t.Fatalf("spilled from runs: %d bytes, from memory %d (%v, %v)", len(got), len(want), err, err2)
				}
			}()
			// A new resolver reads the table back: the file is not
			// written again.
			before, err := os.Stat(files[0])
			if err != nil {
				t.Fatal(err)
			}
			check(spillResolver(dir))
			if after, err := os.Stat(files[0]); err != nil || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("the spilled table was built again (%v)", err)
			}
			// A table spilled without the .dwp is not taken for one
			// with it.
			if b.DWP != "" {
				data, err := os.ReadFile(b.DWP)
				if err != nil {
					t.Fatal(err)
				}
				os.Remove(b.DWP)
				m := spillResolver(dir).Module(b.Path)
				for _, a := range addrs {
					if fs := m.Lookup(a); len(fs) > 1 {
						t.Fatalf("%#x: inlined frames %v without the .dwp", a, fs)
					}
				}
				if err := os.WriteFile(b.DWP, data, 0o644); err != nil {
					t.Fatal(err)
				}
				check(spillResolver(dir))
			}
			// A damaged table is thrown away and built again.
			if b.DWP == "" {
				data, err := os.ReadFile(files[0])
				if err != nil {
					t.Fatal(err)
				}
				data[len(data)/2] ^= 0x40
				if err := os.WriteFile(files[0], data, 0o644); err != nil {
					t.Fatal(err)
				}
				if _, _, err := openSpill(files[0]); err == nil {
					t.Fatal("a damaged table opens")
				}
				check(spillResolver(dir))
			}
		})
	}
}

// FuzzSpill opens any bytes as a spilled table and looks addresses up
// in what opens: no panic.
func FuzzSpill(f *testing.F) {
	if b, err := program.Build(f.TempDir(), program.CPIE); err == nil {
		dir := f.TempDir()
		r := spillResolver(dir)
		m := r.Module(b.Path)
		m.Lookup(0)
		if files, _ := filepath.Glob(filepath.Join(dir, "*.idx")); len(files) == 1 {
			if data, err := os.ReadFile(files[0]); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(spillMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "t.idx")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, _, err := openSpill(p)
		if err != nil {
			return
		}
		defer s.f.Close()
		for a := uint64(0); a < 0x3000; a += 0x10 {
			lookup(s, a)
		}
	})
}
