// Command genwebgrind writes synthetic webgrind preprocessed files: a large
// version 7 file for benchmarks, or a small random call graph in any of the
// versions 4 to 7.
//
//	genwebgrind -functions 100000 -calls 1000000 -o big.webgrind
//	genwebgrind -random -version 4 -invocations 5000 -o small.webgrind
package main

import (
	"flag"
	"log"
	"os"

	gen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

func main() {
	out := flag.String("o", "callgrind.out.webgrind", "output file")
	functions := flag.Int("functions", 100000, "functions (large version 7 file)")
	calls := flag.Int("calls", 1000000, "sub-call entries, mirrored by as many called-from entries (large file)")
	random := flag.Bool("random", false, "write a small random call graph instead")
	version := flag.Int("version", 7, "format version for -random: 4, 5, 6 or 7")
	invocations := flag.Int("invocations", 2000, "invocations for -random")
	seed := flag.Int64("seed", 1, "random seed for -random")
	flag.Parse()

	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if *random {
		err = gen.Random(*seed, *invocations, 15).Write(f, *version)
	} else {
		err = gen.Large{Functions: *functions, Calls: *calls}.WriteLarge(f)
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
}
