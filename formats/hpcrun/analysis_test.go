package hpcrun_test

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

func treeNodes(t *gen.Tree) []dec.Node {
	nodes := make([]dec.Node, t.Len())
	for i := range nodes {
		t.Node(i, &nodes[i])
		nodes[i].Values = slices.Clone(nodes[i].Values)
	}
	return nodes
}

func profileOf(nodes []dec.Node, metrics []dec.Metric) *gen.Profile {
	return &gen.Profile{Layout: dec.LayoutC, Epochs: []*gen.Epoch{{Metrics: metrics, LoadModules: gen.LoadModules(4), Nodes: nodes}}}
}

// A file whose nodes are not in preorder (parents still come first) takes
// the id-index path; its views must equal those of the preorder file.
func TestNodeOrderDoesNotMatter(t *testing.T) {
	metrics := gen.Metrics(2, dec.LayoutC)
	tree := gen.NewTree(3, 3000, metrics, 4, false)
	pre := treeNodes(tree)
	depth := make([]int, tree.Len())
	for i := 1; i < tree.Len(); i++ {
		depth[i] = depth[tree.Parent(i)] + 1
	}
	idx := make([]int, tree.Len())
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return depth[idx[a]] < depth[idx[b]] })
	bfs := make([]dec.Node, len(pre))
	for k, i := range idx {
		bfs[k] = pre[i]
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pre.hpcrun"), profileOf(pre, metrics))
	writeFile(t, filepath.Join(dir, "bfs.hpcrun"), profileOf(bfs, metrics))
	fsys := open(t, dir).FS()

	if a, b := testdata.ReadFS(t, fsys, "pre/cct.txt"), testdata.ReadFS(t, fsys, "bfs/cct.txt"); !bytes.Equal(a, b) {
		t.Fatalf("cct.txt differs with the node order:\n%s", testdata.FirstDiff(b, a))
	}
	rows := map[string][][]string{}
	for _, name := range []string{"pre", "bfs"} {
		rows[name] = testdata.ReadCSV(t, testdata.ReadFS(t, fsys, name+"/cct.csv"))
		checkInclusive(t, rows[name], len(metrics))
		for _, r := range rows[name][1:] {
			id, _ := strconv.Atoi(r[1])
			if want := strconv.Itoa(depth[(id-12)/2]); r[3] != want {
				t.Fatalf("%s: depth of node %d = %s, want %s", name, id, r[3], want)
			}
		}
	}
	key := func(r []string) string { return strings.Join(r, ",") }
	a, b := rows["pre"][1:], rows["bfs"][1:]
	slices.SortFunc(a, func(x, y []string) int { return strings.Compare(key(x), key(y)) })
	slices.SortFunc(b, func(x, y []string) int { return strings.Compare(key(x), key(y)) })
	if !slices.EqualFunc(a, b, slices.Equal) {
		t.Fatal("cct.csv rows differ with the node order")
	}
	// The interchange tree is built in one pass from a preorder file and
	// through the id index from the other: same stacks, same values.
	flame, err := fs.ReadDir(fsys, "pre/flame")
	if err != nil || len(flame) == 0 {
		t.Fatalf("pre/flame: %v, %d files", err, len(flame))
	}
	for _, f := range flame {
		if !strings.HasSuffix(f.Name(), ".folded") {
			continue // the SVG's title names the profile
		}
		if a, b := testdata.ReadFS(t, fsys, "pre/flame/"+f.Name()), testdata.ReadFS(t, fsys, "bfs/flame/"+f.Name()); !bytes.Equal(a, b) || len(a) == 0 {
			t.Fatalf("flame/%s differs with the node order:\n%s", f.Name(), testdata.FirstDiff(b, a))
		}
	}
}

// chain is a single path of n nodes, each with exclusive value 1.
func chain(n int) []dec.Node {
	nodes := make([]dec.Node, n)
	for i := range nodes {
		nodes[i] = dec.Node{ID: int32(i + 1), Parent: uint32(i), LMID: 1, IP: uint64(i), Values: []uint64{1}}
	}
	nodes[n-1].ID = -nodes[n-1].ID
	return nodes
}

// Deep trees widen the per-node depth from one byte to two and four.
func TestDeepChains(t *testing.T) {
	metrics := gen.Metrics(1, dec.LayoutC)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "d300.hpcrun"), profileOf(chain(300), metrics))
	writeFile(t, filepath.Join(dir, "d70000.hpcrun"), profileOf(chain(70000), metrics))
	fsys := open(t, dir).FS()
	for name, n := range map[string]int{"d300": 300, "d70000": 70000} {
		rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, name+"/cct.csv"))
		if len(rows) != n+1 {
			t.Fatalf("%s: %d rows, want %d", name, len(rows)-1, n)
		}
		for d, r := range rows[1:] {
			if r[3] != strconv.Itoa(d) || r[len(r)-2] != strconv.Itoa(n-d) || r[len(r)-1] != "1" {
				t.Fatalf("%s row %d: depth %s inclusive %s exclusive %s, want %d %d 1", name, d, r[3], r[len(r)-2], r[len(r)-1], d, n-d)
			}
		}
	}
	lines := strings.Split(strings.TrimSuffix(string(testdata.ReadFS(t, fsys, "d300/cct.txt")), "\n"), "\n")[1:]
	for d, l := range lines {
		want := strings.Repeat("  ", d) + strconv.FormatFloat(float64(300-d)/3, 'f', 2, 64) + "% " + strconv.Itoa(300-d) + " 1 app+0x" + strconv.FormatInt(int64(d), 16)
		if l != want {
			t.Fatalf("cct.txt line %d = %q, want %q", d+1, l, want)
		}
	}
}
