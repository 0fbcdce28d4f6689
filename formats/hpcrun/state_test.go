package hpcrun

import (
	"testing"
)

// The per-node state stays small: for 4 metrics in a tree where about
// 40% of the nodes have children, ~14 bytes per node instead of the 40
// of a parent, a depth and four inclusive values per node.
func TestStateBytesPerNode(t *testing.T) {
	p := benchProfile(t)
	a, err := p.analysis()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := p.open()
	perNode := float64(a.bytes) / float64(f.NumNodes())
	t.Logf("%.2f bytes of state per node", perNode)
	if perNode > 16 {
		t.Fatalf("%.2f bytes of state per node, want <= 16", perNode)
	}
	if ea := a.epochs[0]; ea.parent != nil || ea.depth.d8 == nil {
		t.Fatal("a shallow preorder tree keeps its parents or wide depths")
	}
}
