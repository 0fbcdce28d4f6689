package callgrind_test

import (
	"bytes"
	"testing"

	"github.com/hpcfs/hpcfs/decode/callgrind"
	gen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
)

// BenchmarkSummarize measures the full pass (the first stat of
// functions.csv) over a generated 32 MB profile.
func BenchmarkSummarize(b *testing.B) {
	in := gen.Bytes(gen.Config{Seed: 1, Functions: 20000, Size: 32 << 20})
	f, err := callgrind.NewFile(bytes.NewReader(in), int64(len(in)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if t := f.Summarize(); t.Stopped {
			b.Fatal(t.Problems)
		}
	}
}
