// Command genhpcdb writes a synthetic HPCToolkit database for
// benchmarks, of the 4.0 generation or (-meta) of the meta.db generation,
// e.g. the issues' large case:
//
//	genhpcdb -threads 64 -contexts 200000 -metrics 4 -samples 1000000 DIR
//	genhpcdb -meta -threads 64 -contexts 200000 -metrics 4 -samples 1000000 DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

func main() {
	var c hpcdb.Config
	flag.IntVar(&c.Threads, "threads", 64, "thread profiles")
	flag.IntVar(&c.Contexts, "contexts", 200000, "calling contexts")
	flag.IntVar(&c.Metrics, "metrics", 4, "metrics (each with an inclusive and an exclusive id)")
	flag.Float64Var(&c.Density, "density", 0.1, "fraction of line contexts with a cost per thread")
	flag.IntVar(&c.Samples, "samples", 1000000, "trace samples per thread")
	flag.BoolVar(&c.ValidCCT, "valid-cct", false, "write cct.db values (default: zero-filled data area, like real files)")
	flag.BoolVar(&c.GPU, "gpu", false, "GPU stream identifier tuples for half the profiles")
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed")
	meta := flag.Bool("meta", false, "meta.db generation (HPCToolkit 2022.10 and later)")
	flag.IntVar(&c.Extra, "extra", 0, "meta.db generation: bytes added to every extendable structure")
	flag.BoolVar(&c.Stats, "stats", false, "meta.db generation: the summary profile also holds hpcprof --stats's partials (count, sum of squares, min, max)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: genhpcdb [flags] DIR")
		os.Exit(2)
	}
	write := hpcdb.Write
	if *meta {
		write = hpcdb.WriteMeta
	}
	if _, err := write(flag.Arg(0), c); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
