package otf2

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/otf2"
)

// benchViews reads views of a fresh mount of 4 x 200,000 generated events
// through the view, as sequential 128 KiB reads (sizing included). The
// regions have C++ names of otf2gen's length (util::reduce_halo126(const
// Mesh&)), which writing a name costs with.
func benchViews(b *testing.B, views ...string) {
	dir := b.TempDir()
	tr := gen.Random(1, 4, 200_000)
	for i, r := range tr.Regions {
		if !strings.HasPrefix(r, "MPI_") {
			tr.Regions[i] = fmt.Sprintf("util::reduce_halo%d(const Mesh&)", 100+i)
		}
	}
	if _, err := tr.Write(dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		src, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		total := testdata.ReadViews(b, src.FS(), views...)
		b.SetBytes(total)
		src.Close()
	}
}

// BenchmarkEventsTxt renders the merged events.txt.
func BenchmarkEventsTxt(b *testing.B) { benchViews(b, "events.txt") }

// BenchmarkEventsCSV renders every location's events.csv.
func BenchmarkEventsCSV(b *testing.B) {
	benchViews(b, "locations/0/events.csv", "locations/1/events.csv", "locations/2/events.csv", "locations/3/events.csv")
}
