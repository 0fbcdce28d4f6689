package interchange

import (
	"cmp"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

func readAll(t *testing.T, v render.View) []byte {
	t.Helper()
	n, err := v.Size()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, n)
	if k, err := v.ReadAt(b, 0); k != len(b) || (err != nil && err != io.EOF) {
		t.Fatalf("ReadAt: %d of %d, %v", k, len(b), err)
	}
	return b
}

func TestAppendMicros(t *testing.T) {
	for ns, want := range map[int64]string{0: "0.000", 1: "0.001", 1234567: "1234.567", 1000: "1.000", -1500: "-1.500",
		1 << 62: "4611686018427387.904"} {
		if got := string(AppendMicros(nil, ns)); got != want {
			t.Errorf("AppendMicros(%d) = %s, want %s", ns, got, want)
		}
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"plain", `q"b\s`, "tab\tnl\nctl\x01\x7f", "é€", "bad\xffutf8"} {
		var back string
		if err := json.Unmarshal(AppendJSONString(nil, s), &back); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want {
			t.Errorf("%q came back as %q", s, back)
		}
	}
}

// TestTreeMergesByLabel: frames with one label are one folded stack, and
// the folded lines add up to the root's total.
func TestTreeMergesByLabel(t *testing.T) {
	tr := NewTree([]Metric{{"m", "count"}})
	a := tr.Child(Root, Frame{Name: "main", Addr: 1})
	b := tr.Child(Root, Frame{Name: "main", Addr: 2}) // same label: same node
	if a != b {
		t.Fatal("frames with one label were not merged")
	}
	tr.Add(tr.Child(a, Frame{Name: "f;g"}), 0, 5)
	tr.Add(a, 0, 2)
	tr.Add(tr.Child(a, Frame{Name: ""}), 0, 3)
	p := &Profile{build: func() (*Tree, error) { return tr, nil }}
	got := string(readAll(t, render.Stream(&foldedGen{tree: p.tree, m: 0, b: -1}, nil)))
	want := "main 2\nmain;[unknown] 3\nmain;f:g 5\n"
	if got != want || tr.Total(0) != 10 {
		t.Errorf("folded:\n%s\nwant:\n%s(total %d)", got, want, tr.Total(0))
	}
}

// TestGraphRecursion: recursive and mutually recursive calls keep the
// folded total equal to the sum of self costs.
func TestGraphRecursion(t *testing.T) {
	g := &Graph{Metrics: []Metric{{"c", "count"}}}
	for i, name := range []string{"main", "fib", "even", "odd", "orphan"} {
		g.AddFunc(Frame{Name: name}, []int64{10, 100, 7, 9, 4}[i])
	}
	g.AddEdge(0, 1, 100)
	g.AddEdge(1, 1, 90) // fib recursion counts twice
	g.AddEdge(0, 2, 16)
	g.AddEdge(2, 3, 9)
	g.AddEdge(3, 2, 5)
	g.AddEdge(4, 4, 1) // only called by itself: a root
	g.AddEdge(4, 9, 1) // no such function: left out
	tr := g.Tree()
	tr.Done()
	if tr.Total(0) != 130 {
		t.Fatalf("total %d, want the 130 of the self costs", tr.Total(0))
	}
}

// TestFrameLabelEscapes: folded stacks write names by the rule of every
// other text view (render.EscapeName), with ';' as ':'.
func TestFrameLabelEscapes(t *testing.T) {
	for name, want := range map[string]string{
		"":                       "[unknown]",
		"main":                   "main",
		"a;b":                    "a:b",
		"tab\there":              "tab\there",
		"nl\ncr\resc\x1bdel\x7f": `nl\x0acr\x0desc\x1bdel\x7f`,
		"bad\xffutf8 é":          `bad\xffutf8 é`,
	} {
		if got := FrameLabel(Frame{Name: name}); got != want || got != strings.ReplaceAll(render.EscapeName(cmp.Or(name, "[unknown]")), ";", ":") {
			t.Errorf("FrameLabel(%q) = %q, want %q", name, got, want)
		}
	}
}
