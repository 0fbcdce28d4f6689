package symbols

import (
	"bytes"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata/addr2line"
	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

func compile(t testing.TB, v program.Variant) program.Binary {
	t.Helper()
	return program.BuildT(t, v)
}

// resolverFor is a resolver that finds b's debug file where the variant
// puts it.
func resolverFor(b program.Binary) *Resolver {
	var roots []string
	if b.DebugRoot != "" {
		roots = []string{b.DebugRoot}
	}
	return NewResolver(nil, roots)
}

// oracle is the file addr2line reads for b: the debug file when it is
// where addr2line does not look; for split DWARF, whose line tables
// addr2line does not read, the same program built without it.
func oracle(b program.Binary) string {
	switch b.Variant {
	case program.CXXID:
		return b.Debug
	}
	if b.Variant.Split() {
		return b.Full
	}
	return b.Path
}

// TestEveryAddressMatchesAddr2line looks up every byte address of each
// program's .text and compares the frames with addr2line -f -i -C's:
// names of every frame, files and lines where addr2line knows the line
// (where it does not, padding between functions, it takes a file name
// from the symbol table that no line says). A split-DWARF build (its
// functions and inlined calls read from the .dwo the skeleton unit names,
// its lines from the binary) gives what addr2line gives for the same code
// built without split DWARF, which is its oracle; without its .dwo it
// gives one frame: the function of the symbol table (as addr2line names
// it in that build) and the line of the line table.
func TestEveryAddressMatchesAddr2line(t *testing.T) {
	type variant struct {
		v     program.Variant
		noDWO bool // a split-DWARF build whose .dwo files are gone
	}
	var vs []variant
	for _, v := range program.Variants {
		vs = append(vs, variant{v, false})
	}
	vs = append(vs, variant{program.CXXSplit, true})
	for _, c := range vs {
		v, splitNoDWO := c.v, c.noDWO
		name := string(v)
		if splitNoDWO {
			name += "-without-dwo"
		}
		t.Run(name, func(t *testing.T) {
			b := compile(t, v)
			if splitNoDWO {
				dwos, _ := filepath.Glob(filepath.Join(filepath.Dir(b.Path), "*.dwo"))
				if len(dwos) == 0 {
					t.Fatal("the split build left no .dwo file")
				}
				for _, f := range dwos {
					os.Remove(f)
				}
			}
			if v.Split() {
				sameText(t, b.Path, b.Full)
			}
			addrs, want := everyAddress(t, b)
			var err error
			var names [][]addr2line.Frame // of the split build itself: its symbol table
			if v == program.CXXSplit {
				if names, err = addr2line.Lookup(b.Path, addrs); err != nil {
					t.Fatal(err)
				}
			}
			m := resolverFor(b).Module(b.Path)
			if err := m.Err(); err != nil {
				t.Fatal(err)
			}
			inlined, bad := 0, 0
			var differ []uint64 // from binutils' addr2line
			var differMsg []string
			for i, a := range addrs {
				got, w := m.Lookup(a), want[i]
				if len(w) > 1 {
					inlined++
				}
				if v == program.CXXSplit && len(w) > 0 && splitNoDWO {
					w = []addr2line.Frame{{Function: names[i][0].Function, File: w[0].File, Line: w[0].Line}}
				}
				if d := diff(got, w); d != "" {
					differ, differMsg = append(differ, a), append(differMsg, d)
				}
			}
			bad = len(differ) - agreesWithLLVM(t, m, oracle(b), differ)
			for i := range differ {
				if i < 10 && bad > 0 {
					t.Errorf("%#x: %s", differ[i], differMsg[i])
				}
			}
			if bad > 0 {
				t.Errorf("%d of %d addresses differ from addr2line", bad, len(addrs))
			}
			if inlined < len(addrs)/20 {
				t.Errorf("%d addresses in inlined code: the program does not test inlining", inlined)
			}
			src := map[program.Variant]string{program.CXXSplit: "split, with its .dwo files", program.CXXSplit4: "split, with its .dwo files",
				program.CXXDWP: "split, from .dwp " + b.DWP, program.CXXDWP4: "split, from .dwp " + b.DWP}[v]
			if splitNoDWO {
				src = "2 of 2 .dwo files missing"
			}
			if !strings.Contains(m.Source(), src) {
				t.Errorf("symbols: %s", m.Source())
			}
			if b.DWP != "" && !strings.Contains(m.Describe(), src) {
				t.Errorf("described: %s", m.Describe())
			}
			t.Logf("%d addresses, %d with inlined frames; symbols: %s", len(addrs), inlined, m.Source())
		})
	}
}

// agreesWithLLVM counts the addresses (where m differs from binutils'
// addr2line) at which m gives what llvm-addr2line gives and binutils'
// does not: binutils' addr2line names an inlined frame after the
// function it is inlined in at some addresses where an inlined call's
// range list starts again (seen in the second unit of the split builds;
// llvm-addr2line and debug/dwarf agree on the range).
func agreesWithLLVM(t *testing.T, m *Module, bin string, addrs []uint64) int {
	t.Helper()
	if len(addrs) == 0 {
		return 0
	}
	llvm, err := addr2line.LookupWith("llvm-addr2line", bin, addrs)
	if err != nil {
		t.Errorf("second oracle: %v", err)
		return 0
	}
	n := 0
	for i, a := range addrs {
		if diff(m.Lookup(a), llvm[i]) == "" {
			n++
		}
	}
	if n > 0 {
		t.Logf("%d addresses where binutils' addr2line differs and llvm-addr2line agrees", n)
	}
	return n
}

// everyAddress is every byte address of b's .text and addr2line -f -i
// -C's frames at each, of b's oracle.
func everyAddress(t *testing.T, b program.Binary) ([]uint64, [][]addr2line.Frame) {
	t.Helper()
	lo, hi, err := program.Text(oracle(b))
	if err != nil {
		t.Fatal(err)
	}
	var addrs []uint64
	for a := lo; a < hi; a++ {
		addrs = append(addrs, a)
	}
	want, err := addr2line.Lookup(oracle(b), addrs)
	if err != nil {
		t.Fatal(err)
	}
	return addrs, want
}

// sameText fails unless two binaries have the same .text bytes.
func sameText(t *testing.T, a, b string) {
	t.Helper()
	var texts [2][]byte
	for i, p := range []string{a, b} {
		f, err := elf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		texts[i], err = f.Section(".text").Data()
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(texts[0], texts[1]) {
		t.Fatalf("%s and %s differ in .text", a, b)
	}
}

func diff(got []Frame, want []addr2line.Frame) string {
	noLine := len(want) > 0 && want[0].Line == 0
	g := make([]string, len(got))
	for i, f := range got {
		g[i] = show(f.Function, f.File, f.Line, noLine)
	}
	w := make([]string, len(want))
	for i, f := range want {
		w[i] = show(f.Function, f.File, f.Line, noLine)
	}
	if strings.Join(g, " | ") == strings.Join(w, " | ") {
		return ""
	}
	return fmt.Sprintf("got %s, addr2line %s", strings.Join(g, " | "), strings.Join(w, " | "))
}

func show(fn, file string, line int, noFile bool) string {
	if fn == "" {
		fn = "??"
	}
	if file == "" || noFile {
		file = "??"
	}
	return fmt.Sprintf("%s %s:%d", fn, file, line)
}
