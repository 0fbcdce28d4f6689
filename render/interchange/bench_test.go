package interchange

import (
	"io"
	"math/rand/v2"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

// deepTree is a tree of n nodes whose paths are long, as in real CCTs
// (depth 30 to 60 below main): each node's parent is one of the last few
// nodes added, every node its own frame, 4 metrics.
func deepTree(n int) *Tree {
	r := rand.New(rand.NewPCG(5, 6))
	return synthTree(n, r, func(nodes []int32) ([]int32, int32) {
		if len(nodes) > 60 && r.IntN(40) == 0 {
			nodes = nodes[:r.IntN(30)+1] // back up the path
			return nodes, nodes[len(nodes)-1]
		}
		return nodes, nodes[max(0, len(nodes)-1-r.IntN(3))]
	})
}

func benchView(b *testing.B, gen func(p *Profile) render.Generator) {
	tr := deepTree(200_000)
	p := &Profile{build: func() (*Tree, error) { return tr, nil }}
	p.tree()
	for b.Loop() {
		r, err := render.NewReader(render.Stream(gen(p), nil), 0)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, r)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}

// BenchmarkFolded renders flame/<metric>.folded of a 200k-node deep tree.
func BenchmarkFolded(b *testing.B) {
	benchView(b, func(p *Profile) render.Generator { return &foldedGen{tree: p.tree, b: -1} })
}

// BenchmarkPprof renders profile.pb.gz of the same tree.
func BenchmarkPprof(b *testing.B) {
	benchView(b, func(p *Profile) render.Generator { return &pprofGen{p: p} })
}
