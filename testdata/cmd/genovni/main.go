// Command genovni writes a large synthetic ovni v1 trace for benchmarks.
package main

import (
	"flag"
	"fmt"
	"log"

	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

func main() {
	threads := flag.Int("threads", 4, "thread streams")
	events := flag.Int("events", 1_000_000, "events per thread")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: genovni [-threads N] [-events N] DIR")
	}
	dir, n, err := gen.WriteLarge(flag.Arg(0), *threads, *events)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %d\n", dir, n)
}
