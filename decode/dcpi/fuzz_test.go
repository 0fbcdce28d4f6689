package dcpi_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
)

func FuzzNewFile(f *testing.F) {
	for _, syn := range []gen.Synthetic{
		{Seed: 1, Addresses: 0},
		{Seed: 2, Addresses: 3, MaxChunk: 2},
		{Seed: 3, Addresses: 40, MaxChunk: 8, Zeros: 0.5, MaxGap: 3},
		{Seed: 4, Addresses: 10, Version: "pdb-0.06"},
		{Seed: 5, Addresses: 10, Version: "pdb-1.01"},
	} {
		f.Add(syn.Model().Bytes())
	}
	p := gen.New("pdb-0.07", 0x10)
	p.Lines = append(p.Lines, "path /x", "label y", "cpuamask f")
	p.Chunks = []gen.Chunk{{Offset: 8, Counts: []uint32{1}}, {Offset: 4, Counts: []uint32{2}}}
	f.Add(p.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := dcpi.NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		_ = file.Header.Err()
		s, err := file.Scan()
		if err != nil {
			t.Fatalf("Scan on a bytes.Reader: %v", err)
		}
		_ = s.FooterCheck()
		sr := file.Samples(file.Start())
		var n int64
		var prev uint64
		for {
			smp, err := sr.Next()
			if err == io.EOF || err != nil {
				break
			}
			if n > 0 && smp.Offset <= prev {
				t.Fatalf("offsets not increasing: %d after %d", smp.Offset, prev)
			}
			prev = smp.Offset
			n++
		}
		if n != s.Counts {
			t.Fatalf("read %d counts, Scan %d", n, s.Counts)
		}
	})
}
