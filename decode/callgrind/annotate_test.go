package callgrind_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/testdata"
	cggen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
)

// realAnnotate runs valgrind's callgrind_annotate --auto=no (and
// --inclusive=yes) on data, from an empty directory so that no file name
// loses a prefix, and drops the "Profile data file" line.
func realAnnotate(t *testing.T, data []byte, inclusive bool) []byte {
	t.Helper()
	if _, err := exec.LookPath("callgrind_annotate"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("callgrind_annotate missing in CI (.ci/setup installs valgrind)")
		}
		t.Skip("callgrind_annotate not installed (apt-get install valgrind)")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "profile")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--auto=no", in}
	if inclusive {
		args = []string{"--inclusive=yes", "--auto=no", in}
	}
	cmd := exec.Command("callgrind_annotate", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("callgrind_annotate: %v", err)
	}
	return dropDataLine(out)
}

// dropDataLine removes the second line ("Profile data file ...").
func dropDataLine(b []byte) []byte {
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	_, rest, _ = bytes.Cut(rest, []byte("\n"))
	return append(append(first, '\n'), rest...)
}

// checkAnnotate compares File.Annotate with callgrind_annotate on data.
func checkAnnotate(t *testing.T, data []byte) {
	t.Helper()
	f, err := callgrind.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, inclusive := range []bool{false, true} {
		got, err := f.Annotate("profile", inclusive)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, []byte(strings80+"\nProfile data file 'profile'")) {
			t.Errorf("inclusive=%v: first lines %q", inclusive, got[:min(len(got), 120)])
		}
		want := realAnnotate(t, data, inclusive)
		if g := dropDataLine(got); !bytes.Equal(g, want) {
			t.Errorf("inclusive=%v: differs from callgrind_annotate\n--- got\n%s\n--- want\n%s", inclusive, g, want)
		}
	}
}

var strings80 = string(bytes.Repeat([]byte("-"), 80))

// TestAnnotateText checks annotate.txt's text byte for byte against
// callgrind_annotate on every callgrind-format corpus file (gzip ones
// decompressed for the tool, which cannot read them).
func TestAnnotateText(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		t.Run(cf.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(testdata.Corpus(t, "callgrind", cf.set), cf.name))
			if err != nil {
				t.Fatal(err)
			}
			checkAnnotate(t, data)
		})
	}
	gz := filepath.Join(testdata.Corpus(t, "callgrind", "valgrind-3.19-generated"), "callgrind.out.default.gz")
	raw, err := os.ReadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	f, err := callgrind.NewFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Annotate("profile", false)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	if want := realAnnotate(t, plain.Bytes(), false); !bytes.Equal(dropDataLine(got), want) {
		t.Errorf("gzip: differs from callgrind_annotate on the decompressed file")
	}
}

// oddProfile has what callgrind_annotate's formatting must get right:
// names with spaces, commas, brackets and UTF-8, "???" files, ties broken by
// name, "." and missing costs, zero and negative costs, numbers of 1 to 19
// digits, compressed names redefined, fi=/fe=, a call with calls=0 (a cost
// line to callgrind_annotate), no summary: or totals: (PROGRAM TOTALS
// calculated), desc: lines and a thread.
const oddProfile = `# callgrind format
version: 1
creator: odd gen 1.0
pid: 77
thread: 3
part: 2
cmd: ./a.out  --flag "x y"
desc: Option: --odd
desc: I1 cache:
desc: Trigger: odd
desc:
positions: line
events: Ir Dr Long_event_name_(10ns)

ob=(1) /lib/ob j.so
fl=(1) ???
fn=(1) ???
1 100 . 5
2 100

fl=(2) src/a b,c.c
fn=(2) f(int, char*) [clone]
3 1234567890123456789 2 3
fi=(3) inc/ü.h
4 7 7 7
fe=(2)
cfn=(1)
calls=3 9
5 400 40 4
cfn=(3) tie_b
calls=0 1
6 0 0 0
fn=(4) tie_a
7 50 50 50
fn=(3)
8 50 50 50
fn=(5) zero
9 0 0 0
fn=(6) negative
10 -5 3
fn=(7) big
11 999 99999 9999999
ob=(1)
fl=(1)
fn=(1)
12 1 1 1
fn=(8) x
fl=(9) late.c
13 2
`

// TestAnnotateOdd compares with callgrind_annotate on oddProfile and on
// generated profiles of every kind.
func TestAnnotateOdd(t *testing.T) {
	t.Run("odd", func(t *testing.T) { checkAnnotate(t, []byte(oddProfile)) })
	t.Run("odd-summary", func(t *testing.T) {
		checkAnnotate(t, []byte(oddProfile+"summary: 100 0 0\n"))
	})
	t.Run("odd-totals", func(t *testing.T) {
		checkAnnotate(t, []byte(oddProfile+"totals: 1000000 .\n"))
	})
	for i, c := range []cggen.Config{
		{Seed: 1},
		{Seed: 2, Functions: 40, Events: 3, Instr: true, Jumps: true, Inline: true},
		{Seed: 3, Functions: 200, Records: 2000, Events: 2, NoCompress: true, Inline: true},
		{Seed: 4, Functions: 1},
	} {
		t.Run(fmt.Sprintf("gen-%d", i), func(t *testing.T) { checkAnnotate(t, cggen.Bytes(c)) })
	}
}

// TestCgAnnotateText compares CgAnnotate with valgrind's cg_annotate
// --auto=no (its "Data file:" line naming the same file) on the corpus
// cachegrind files and a cachegrind profile with odd names, negative and
// "." costs.
func TestCgAnnotateText(t *testing.T) {
	if _, err := exec.LookPath("cg_annotate"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("cg_annotate missing in CI (.ci/setup installs valgrind)")
		}
		t.Skip("cg_annotate not installed (apt-get install valgrind)")
	}
	dir := testdata.Corpus(t, "callgrind", "valgrind-3.19-generated")
	cases := map[string][]byte{"odd": []byte("desc: I1 cache: odd\ndesc: x\ncmd: ./a b\nevents: A Bb\nfl=???\nfn=???\n1 5 .\nfl=s p,c.c\nfn=f (int)\n2 -12345 7\n3 100000 -1\nfn=g\n4 99990 3\nfn=t\n5 2 .\nfn=u\n6 1 1\nsummary: 300000 11\n")}
	for _, n := range []string{"cachegrind.out.default", "cachegrind.out.cachesim"} {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		cases[n] = b
	}
	for n, data := range cases {
		t.Run(n, func(t *testing.T) {
			f, err := callgrind.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if !f.IsCachegrind() {
				t.Fatal("not recognised as cachegrind's format")
			}
			got, err := f.CgAnnotate("profile")
			if err != nil {
				t.Fatal(err)
			}
			tmp := t.TempDir()
			in := filepath.Join(tmp, "profile")
			if err := os.WriteFile(in, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("cg_annotate", "--auto=no", in)
			cmd.Dir = tmp
			want, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.Replace(want, []byte("Data file:        "+in+"\n"), []byte("Data file:        profile\n"), 1)
			if !bytes.Equal(got, want) {
				t.Errorf("differs from cg_annotate\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}
