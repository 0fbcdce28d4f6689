// Command genovni writes a large synthetic ovni trace for benchmarks, in
// any on-disk layout (-layout v1, obs, v2 or v3), or with -every 1.N the
// trace of every event ovnidump 1.N describes (the input of the
// events-described.txt oracles in formats/ovni/testdata).
package main

import (
	"flag"
	"fmt"
	"log"

	"github.com/hpcfs/hpcfs/decode/ovni"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

func main() {
	threads := flag.Int("threads", 4, "thread streams")
	events := flag.Int("events", 1_000_000, "events per thread")
	layoutName := flag.String("layout", "v1", "v1 (spec v1), obs (1.1-1.4), v2 (spec v2, 1.5-1.10) or v3 (spec v3, 1.11+)")
	every := flag.String("every", "", "release 1.N: write instead the trace of every event its ovnidump describes")
	flag.Parse()
	layout, ok := map[string]gen.Layout{"v1": gen.LayoutV1, "obs": gen.LayoutObs, "v2": gen.LayoutV2, "v3": gen.LayoutV3}[*layoutName]
	if flag.NArg() != 1 || !ok {
		log.Fatal("usage: genovni [-threads N] [-events N] [-layout v1|obs|v2|v3] [-every 1.N] DIR")
	}
	if *every != "" {
		minor := ovni.ReleaseMinor(*every)
		if minor < ovni.DescribedFrom {
			log.Fatalf("-every %s: ovnidump describes events from 1.%d on", *every, ovni.DescribedFrom)
		}
		dir, err := gen.WriteEveryEvent(flag.Arg(0), minor, ovni.Signatures(minor), ovni.Signatures(ovni.DescribedUntil))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(dir)
		return
	}
	dir, n, err := gen.WriteLargeAs(flag.Arg(0), layout, *threads, *events)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %d\n", dir, n)
}
