package webgrind

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wg "github.com/hpcfs/hpcfs/decode/webgrind"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

// damageInputs are the generated files of every version and the corpus
// files, by name.
func damageInputs(t *testing.T) map[string][]byte {
	in := map[string][]byte{}
	for _, v := range []int{4, 5, 6, 7} {
		var b bytes.Buffer
		if err := gen.Random(3, 120, 9).Write(&b, v); err != nil {
			t.Fatal(err)
		}
		in["gen-v"+string(rune('0'+v))] = b.Bytes()
	}
	for _, name := range corpusCases {
		p := filepath.Join(testdata.Corpus(t, "webgrind", name), "callgrind.out.webgrind")
		in[name] = mustRead(t, p)
	}
	return in
}

func listFunctions(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	des, err := fs.ReadDir(fsys, "functions")
	if err != nil {
		t.Fatal(err)
	}
	return testdata.Names(des)
}

// TestNamesFixedWhenFirstListed damages files (cut at many offsets, a
// record in the middle made impossible), lists functions/, reads every
// view, and lists again: the names stay, and every listed path opens.
func TestNamesFixedWhenFirstListed(t *testing.T) {
	for name, b := range damageInputs(t) {
		var mutants [][]byte
		for cut := 16; cut < len(b); cut += max(1, len(b)/60) {
			mutants = append(mutants, b[:cut])
		}
		f, err := wg.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Fatal(err)
		}
		for _, fn := range []int{0, 1, len(f.Addrs) / 2} {
			m := bytes.Clone(b)
			// A count in the record: 1<<30 as a little-endian word.
			copy(m[f.Addrs[fn]+16:], []byte{0, 0, 0, 0x40})
			mutants = append(mutants, m)
		}
		for k, m := range mutants {
			cut := k
			_, fsys := openBytes(t, m)
			before := listFunctions(t, fsys)
			fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					fs.ReadFile(fsys, p)
				}
				return nil
			})
			after := listFunctions(t, fsys)
			if !slices.Equal(before, after) {
				for i := range min(len(before), len(after)) {
					if before[i] != after[i] {
						t.Fatalf("%s mutant %d: functions/%s became %s after the tables were read", name, cut, before[i], after[i])
					}
				}
				t.Fatalf("%s mutant %d: %d names, then %d", name, cut, len(before), len(after))
			}
			for _, fn := range before {
				if _, err := fs.Stat(fsys, "functions/"+fn+"/callers.csv"); err != nil {
					t.Fatalf("%s mutant %d: listed %s does not open: %v", name, cut, fn, err)
				}
			}
		}
	}
}

// TestDamagedEndStillMounts cuts the header text at every offset and
// appends garbage: each mutant is still detected as webgrind, mounts, and
// has an _errors.txt line; the function table is served in full.
func TestDamagedEndStillMounts(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	tails := map[string]func() []byte{
		"zeros":  func() []byte { return make([]byte, 1+r.Intn(300)) },
		"random": func() []byte { b := make([]byte, 1+r.Intn(5000)); r.Read(b); return b },
		"binary": func() []byte { return []byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0} },
	}
	dir := t.TempDir()
	mutants := 0
	for name, b := range damageInputs(t) {
		ha64, _ := wg.HeadWords(b)
		ha := int(ha64)
		_, whole := openBytes(t, b)
		want := withoutPercentages(t, testdata.ReadFS(t, whole, "functions.csv"))
		check := func(kind string, m []byte, wantError bool) {
			t.Helper()
			mutants++
			p := filepath.Join(dir, "m.webgrind")
			os.WriteFile(p, m, 0o644)
			if _, ok := Detect(p); !ok {
				t.Fatalf("%s %s: not detected", name, kind)
			}
			src := testdata.Open(t, Open, p)
			fsys := src.FS()
			if got := withoutPercentages(t, testdata.ReadFS(t, fsys, "functions.csv")); !slices.Equal(got, want) {
				t.Fatalf("%s %s: functions.csv differs beyond its percentages", name, kind)
			}
			testdata.ReadFS(t, fsys, "header.txt")
			if wantError && len(src.Errors.Lines()) == 0 {
				t.Fatalf("%s %s: no _errors.txt line", name, kind)
			}
		}
		for cut := ha; cut < len(b); cut++ {
			// A cut at a line end after the summary line leaves a file
			// that is whole as far as anyone can tell.
			text := "\n" + string(b[ha:cut])
			undetectable := b[cut-1] == '\n' && strings.Contains(text, "\nsummary: ")
			check(fmt.Sprintf("cut at %d", cut), b[:cut], !undetectable)
		}
		for kind, tail := range tails {
			check("with "+kind+" appended", append(bytes.Clone(b), tail()...), true)
		}
	}
	t.Logf("%d mutants", mutants)
}

// withoutPercentages returns the rows of functions.csv without the
// percentage columns, which follow the summary header.
func withoutPercentages(t *testing.T, b []byte) []string {
	var out []string
	for _, row := range testdata.ReadCSV(t, b) {
		out = append(out, strings.Join(row[:8], ","))
	}
	return out
}

// TestDamagedHeaderLineKeepsTheRest puts 0xff and ESC in the first header
// line of each input: header.txt still shows every later line (the
// summary and events lines among them), the damaged one escaped, and
// _errors.txt names the line.
func TestDamagedHeaderLineKeepsTheRest(t *testing.T) {
	dir := t.TempDir()
	for name, b := range damageInputs(t) {
		ha64, _ := wg.HeadWords(b)
		ha := int(ha64)
		m := bytes.Clone(b)
		m[ha+1], m[ha+2] = 0xff, 0x1b
		p := filepath.Join(dir, name+".webgrind")
		if err := os.WriteFile(p, m, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := Open(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		header := string(testdata.ReadFS(t, src.FS(), "header.txt"))
		for _, line := range strings.Split(strings.TrimSuffix(string(b[ha:]), "\n"), "\n")[1:] {
			if !strings.Contains(header, "\n"+render.EscapeName(line)+"\n") {
				t.Errorf("%s: header.txt lost the line %q:\n%s", name, line, header)
			}
		}
		if want := string(b[ha:ha+1]) + `\xff\x1b`; !strings.Contains(header, "\n"+want) {
			t.Errorf("%s: header.txt does not show the damaged line as %q", name, want)
		}
		if errs := src.Errors.Lines(); len(errs) != 1 || !strings.Contains(errs[0], "not text in 1 header line") {
			t.Errorf("%s: _errors.txt %q", name, errs)
		}
		src.Close()
	}
}
