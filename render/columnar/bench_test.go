package columnar

import (
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

// BenchmarkTwin sizes the twin of a 132k-row CSV (render.Stream's sizing
// pass: the plan's scan and every row group encoded).
func BenchmarkTwin(b *testing.B) {
	text := genCSV(groupRows + 1234)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := render.Stream(&twinGen{csv: render.Static(text)}, nil).Size(); err != nil {
			b.Fatal(err)
		}
	}
}
