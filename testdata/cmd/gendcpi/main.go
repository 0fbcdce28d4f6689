// Command gendcpi writes a synthetic DCPI profile file (format 0.06 or
// 0.07) for benchmarks: a given number of sampled addresses spread over
// chunks, streamed to disk without holding the profile in memory.
//
//	gendcpi -o big.prof -addresses 10000000 -maxchunk 64 -zeros 0.2 -maxgap 16
package main

import (
	"flag"
	"fmt"
	"os"

	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
)

func main() {
	out := flag.String("o", "", "output file (required)")
	addresses := flag.Int("addresses", 1_000_000, "addresses with at least one sample")
	maxChunk := flag.Int("maxchunk", 64, "counts per chunk are 1..maxchunk")
	zeros := flag.Float64("zeros", 0.2, "fraction of zero counts inside chunks (sparse ranges)")
	maxGap := flag.Int("maxgap", 16, "instructions between chunks are 0..maxgap")
	seed := flag.Uint64("seed", 1, "random seed")
	version := flag.String("version", "pdb-0.07", "version line value")
	flag.Parse()
	if *out == "" {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	s := gen.Synthetic{Seed: *seed, Version: *version, Addresses: *addresses, MaxChunk: *maxChunk, Zeros: *zeros, MaxGap: *maxGap}
	n, err := s.WriteTo(f)
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%s: %d bytes, %d sampled addresses\n", *out, n, *addresses)
}
