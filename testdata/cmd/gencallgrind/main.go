// Command gencallgrind writes a synthetic callgrind profile.
//
//	gencallgrind -size 500000000 -functions 20000 -o callgrind.out.big
//	gencallgrind -records 1000 -instr -jumps -inline -events 3 -o small.out
package main

import (
	"flag"
	"log"
	"os"

	gen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
)

func main() {
	out := flag.String("o", "callgrind.out.synthetic", "output file")
	var c gen.Config
	flag.Int64Var(&c.Seed, "seed", 1, "random seed")
	flag.IntVar(&c.Functions, "functions", 20000, "distinct functions")
	flag.IntVar(&c.Records, "records", 1000, "function blocks (without -size)")
	flag.Int64Var(&c.Size, "size", 0, "write blocks until the file has this many bytes")
	flag.IntVar(&c.Events, "events", 1, "events per cost line")
	flag.BoolVar(&c.Instr, "instr", false, "positions: instr line")
	flag.BoolVar(&c.Jumps, "jumps", false, "jump=/jcnd= lines")
	flag.BoolVar(&c.Inline, "inline", false, "fi=/fe= blocks")
	flag.BoolVar(&c.NoCompress, "nocompress", false, "no name compression")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	if _, err = gen.Write(f, c); err == nil {
		err = f.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
}
