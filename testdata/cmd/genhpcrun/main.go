// Command genhpcrun writes synthetic hpcrun profiles for benchmarks: one
// large profile (-nodes CCT nodes) or a measurements directory of many
// small ones (-files), with an optional trace beside each.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

func main() {
	out := flag.String("o", "", "output file (one profile) or directory (with -files)")
	nodes := flag.Int("nodes", 2000000, "CCT nodes per epoch")
	metrics := flag.Int("metrics", 4, "metrics per epoch (alternating Int and Real)")
	epochs := flag.Int("epochs", 1, "epochs")
	layout := flag.String("layout", "C", "metric-descriptor layout: A, B or C")
	lush := flag.Bool("lush", false, "write LUSH (logical unwinding) fields")
	files := flag.Int("files", 0, "write a measurements directory of this many profiles")
	samples := flag.Int("trace", 0, "write a .hpctrace with this many samples beside each profile")
	flag.Parse()
	if *out == "" {
		log.Fatal("-o is required")
	}
	l := map[string]hpcrun.Layout{"A": hpcrun.LayoutA, "B": hpcrun.LayoutB, "C": hpcrun.LayoutC}[*layout]
	if l == hpcrun.LayoutUnknown {
		log.Fatalf("unknown layout %q", *layout)
	}
	o := gen.Options{Seed: 1, Layout: l, Epochs: *epochs, Nodes: *nodes, Metrics: *metrics, LoadMods: 8, Lush: *lush, Program: "app", ProcessID: 4242}
	if *files == 0 {
		write(*out, o, *samples)
		return
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for i := 0; i < *files; i++ {
		o.Seed, o.Rank, o.ProcessID = int64(i), i, 1000+i
		write(filepath.Join(*out, fmt.Sprintf("app-%06d-000-7f0101-%d-0.hpcrun", i, 1000+i)), o, *samples)
	}
}

func write(path string, o gen.Options, samples int) {
	p := gen.Random(o)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := gen.Write(f, p); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
	if samples == 0 {
		return
	}
	tf, err := os.Create(path[:len(path)-len(".hpcrun")] + ".hpctrace")
	if err != nil {
		log.Fatal(err)
	}
	if err := gen.WriteTrace(tf, "01.01", 0, gen.TraceSamples(p.Epochs[len(p.Epochs)-1].Tree, samples, 1000000, 1000)); err != nil {
		log.Fatal(err)
	}
	if err := tf.Close(); err != nil {
		log.Fatal(err)
	}
}
