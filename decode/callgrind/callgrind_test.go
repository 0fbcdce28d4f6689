package callgrind_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode/callgrind"
	gen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
)

func summarize(t *testing.T, b []byte) (*callgrind.Table, []string) {
	t.Helper()
	f, err := callgrind.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	tab := f.Summarize()
	var problems []string
	for _, err := range tab.Problems {
		problems = append(problems, err.Error())
	}
	return tab, problems
}

// TestGenerated checks that the self costs of generated profiles add up
// to their totals: line, with no problem reported.
func TestGenerated(t *testing.T) {
	for _, c := range []gen.Config{
		{Seed: 1},
		{Seed: 2, Instr: true, Jumps: true, Inline: true, Events: 4, Functions: 50, Records: 2000},
		{Seed: 3, NoCompress: true, Functions: 30, Records: 500},
	} {
		t.Run(fmt.Sprint(c.Seed), func(t *testing.T) {
			b := gen.Bytes(c)
			for _, in := range [][]byte{b, gzipped(b)} {
				tab, problems := summarize(t, in)
				if len(problems) > 0 || tab.Stopped {
					t.Fatalf("problems %q", problems)
				}
				if fmt.Sprint(tab.Sum()) != fmt.Sprint(tab.Header.Totals) || fmt.Sprint(tab.LineTotals) != fmt.Sprint(tab.Header.Totals) {
					t.Errorf("sum of self %v, totals %v", tab.Sum(), tab.Header.Totals)
				}
				if c.Jumps && tab.JumpLines == 0 || tab.CallLines == 0 {
					t.Errorf("%d jumps, %d calls", tab.JumpLines, tab.CallLines)
				}
			}
		})
	}
}

// TestSpecExamples decodes the examples of the format specification.
func TestSpecExamples(t *testing.T) {
	compressed := "# callgrind format\nevents: Instructions\n\nfl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n16 400\ncfi=(2) file2.c\ncfn=(3) func2\ncalls=3 20\n16 400\n\nfn=(2)\n51 100\ncfi=(2)\ncfn=(3)\ncalls=2 20\n51 300\n\nfl=(2)\nfn=(3)\n20 700\n"
	tab, problems := summarize(t, []byte(compressed))
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	var got []string
	for i, f := range tab.Funcs {
		got = append(got, fmt.Sprintf("%s:%s self %d incl %d calls %d", tab.Names.Name(f.File), tab.Names.Name(f.Name), tab.Self(i)[0], tab.Inclusive(i)[0], f.Calls))
	}
	want := []string{"file1.c:main self 20 incl 820 calls 0", "file1.c:func1 self 100 incl 400 calls 1", "file2.c:func2 self 700 incl 700 calls 5"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Subposition compression with instruction addresses.
	sub := "# callgrind format\npositions: instr line\nevents: ticks\n\nfn=func\n0x80001234 90 1\n+3 * 5\n+1 +1 6\n"
	f, _ := callgrind.NewFile(strings.NewReader(sub), int64(len(sub)))
	d := f.NewDecoder(f.Summarize().Names, f.StartState())
	var pos []string
	for {
		r, err := d.Next()
		if err != nil {
			break
		}
		pos = append(pos, fmt.Sprintf("%#x:%d=%d", r.Instr, r.Line, r.Costs[0]))
	}
	if fmt.Sprint(pos) != "[0x80001234:90=1 0x80001237:90=5 0x80001238:91=6]" {
		t.Errorf("subpositions %v", pos)
	}
}

// TestTruncated cuts a generated profile at many places: decoding keeps
// everything before the cut and reports it.
func TestTruncated(t *testing.T) {
	b := gen.Bytes(gen.Config{Seed: 5, Functions: 20, Records: 300, Inline: true})
	full, _ := summarize(t, b)
	for _, cut := range []int{len(b) / 3, len(b) / 2, len(b) - 10} {
		tab, problems := summarize(t, b[:cut])
		if len(problems) == 0 {
			t.Errorf("cut at %d: no problem reported", cut)
		}
		if tab.End != int64(cut) || tab.CostLines == 0 || tab.CostLines > full.CostLines {
			t.Errorf("cut at %d: end %d, %d cost lines of %d", cut, tab.End, tab.CostLines, full.CostLines)
		}
	}
	z := gzipped(b)
	tab, _ := summarize(t, z[:len(z)/2])
	if !tab.Stopped || tab.CostLines == 0 {
		t.Errorf("cut gzip: problems %v, %d cost lines", tab.Problems, tab.CostLines)
	}
}

// TestUnknownLines reports unknown lines and goes on.
func TestUnknownLines(t *testing.T) {
	in := "events: A\nfn=f\n1 5\nbogus line\nxyz=1\ncalls=x\n2 7\n"
	tab, problems := summarize(t, []byte(in))
	if len(problems) != 3 || tab.Self(0)[0] != 12 {
		t.Errorf("problems %q, self %v", problems, tab.Self(0))
	}
}

// TestMerge sums the three thread files of a --separate-threads run and
// checks the sum against the files one by one.
func TestMerge(t *testing.T) {
	a, _ := summarize(t, gen.Bytes(gen.Config{Seed: 7, Functions: 9, Events: 2}))
	b, _ := summarize(t, gen.Bytes(gen.Config{Seed: 8, Functions: 12, Events: 2}))
	m := callgrind.Merge([]*callgrind.Table{a, b})
	want := fmt.Sprint([]int64{a.Sum()[0] + b.Sum()[0], a.Sum()[1] + b.Sum()[1]})
	if got := fmt.Sprint(m.Sum()); got != want {
		t.Errorf("merged sum %s, want %s", got, want)
	}
	if len(m.Funcs) != 12 {
		t.Errorf("%d merged functions", len(m.Funcs))
	}
	var calls, mcalls uint64
	for _, e := range a.Edges {
		calls += e.Count
	}
	for _, e := range b.Edges {
		calls += e.Count
	}
	for _, e := range m.Edges {
		mcalls += e.Count
	}
	if calls != mcalls {
		t.Errorf("merged calls %d, want %d", mcalls, calls)
	}
}

// TestParts reads a file of two parts (valgrind --combine-dumps=yes):
// costs, totals: lines and parts add up.
func TestParts(t *testing.T) {
	in := "# callgrind format\nversion: 1\npart: 1\nevents: A B\nfl=(1) a.c\nfn=(1) f\n1 5 1\ntotals: 5 1\n\npart: 2\nevents: A B\nfl=(1)\nfn=(1)\n2 7\ncfn=(2) g\ncalls=0 9\n* 100\ntotals: 7\n"
	tab, problems := summarize(t, []byte(in))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if tab.Parts != 2 || fmt.Sprint(tab.Header.Totals) != "[12 1]" || fmt.Sprint(tab.LineTotals) != "[12 1]" {
		t.Errorf("parts %d, totals %v, cost lines %v", tab.Parts, tab.Header.Totals, tab.LineTotals)
	}
	// calls=0 (a call still running at the dump) is the caller's self cost,
	// as callgrind_annotate counts it.
	if fmt.Sprint(tab.Self(0)) != "[112 1]" || tab.Funcs[1].Called {
		t.Errorf("self %v, callee called %v", tab.Self(0), tab.Funcs[1].Called)
	}
}

// TestDamagedHeaderLine: one header line with a flipped byte (issue 27:
// 14 of 320 mutants of an Xdebug profile were unreadable) is reported
// and skipped; the file is detected and reads as the intact one.
func TestDamagedHeaderLine(t *testing.T) {
	good := []byte("version: 1\ncreator: xdebug 3.2.0 (PHP 8.2.36)\ncmd: app.php\npart: 1\npositions: line\n\nevents: Time_(10ns) Memory_(bytes)\n\nfl=(1) app.php\nfn=(1) main\n1 181 40\n")
	want, _ := summarize(t, good)
	for _, bad := range []string{"cre\x01tor: xdebug", "creator; xdebug", "cm\xff: app.php"} {
		k := bytes.Index(good, []byte("creator:"))
		if strings.HasPrefix(bad, "cm") {
			k = bytes.Index(good, []byte("cmd:"))
		}
		b := append(append(append([]byte(nil), good[:k]...), bad...), good[k+len(bad):]...)
		if !callgrind.Sniff(b) {
			t.Errorf("%q: not detected", bad)
			continue
		}
		f, err := callgrind.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			t.Errorf("%q: %v", bad, err)
			continue
		}
		if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Error(), "damaged header line") {
			t.Errorf("%q: problems %v", bad, f.Problems)
		}
		tab := f.Summarize()
		if fmt.Sprint(tab.Events, tab.Sum()) != fmt.Sprint(want.Events, want.Sum()) {
			t.Errorf("%q: events %v sums %v, intact %v %v", bad, tab.Events, tab.Sum(), want.Events, want.Sum())
		}
	}
	// The events: line is the only line a header needs.
	if !callgrind.Sniff([]byte("events: Ir\nfn=main\n1 10\n")) {
		t.Error("a header of only events: not detected")
	}
	// Body lines are not taken for damaged header lines.
	if callgrind.Sniff([]byte("version: 1\nfn=main\n1 2\nevents: Ir\n")) {
		t.Error("a body line before events: was skipped")
	}
}

// TestDuplicateEvent: an event named twice gives unique names (so unique
// CSV columns), with a problem reported.
func TestDuplicateEvent(t *testing.T) {
	b := []byte("events: Ir Dr Ir Ir\nfl=a.c\nfn=main\n1 1 2 3 4\n")
	f, err := callgrind.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Header.Events, " "); got != "Ir Dr Ir_2 Ir_3" {
		t.Errorf("events %q", got)
	}
	if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Error(), "event named twice") {
		t.Errorf("problems %v", f.Problems)
	}
}
