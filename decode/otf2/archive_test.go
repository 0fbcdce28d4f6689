package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// corpusCases are the archives of the corpus (../shared/corpus/otf2).
var corpusCases = []string{"pipit-ping-pong", "gen-mpi-rma", "gen-threads-metrics", "gen-io-sampling-attrs"}

// TestCorpusEventCounts reads every location of every corpus archive to
// its end and checks the count against the Location definition's
// numberOfEvents, which the writer fills in.
func TestCorpusEventCounts(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			a, err := Open(testdata.Corpus(t, "otf2", name, "traces.otf2"))
			if err != nil {
				t.Fatal(err)
			}
			if err := a.Problems.Err(); err != nil {
				t.Fatal(err)
			}
			if len(a.Locations) == 0 {
				t.Fatal("no locations")
			}
			for _, l := range a.Locations {
				n := uint64(0)
				if _, err := os.Stat(a.LocationFile(l.ID, "evt")); err == nil {
					r, err := a.NewEventReader(l)
					if err != nil {
						t.Fatal(err)
					}
					var ev Event
					last := uint64(0)
					for r.Next(&ev) {
						if ev.Time < last {
							t.Errorf("location %d: time goes back at %d", l.ID, ev.Off)
						}
						last = ev.Time
						n++
					}
					if err := r.Err(); err != nil {
						t.Error(err)
					}
					r.Close()
				}
				if want := l.Def.U("numberOfEvents"); n != want {
					t.Errorf("location %d: %d events, the definition says %d", l.ID, n, want)
				}
			}
		})
	}
}

func TestAnchor(t *testing.T) {
	path := testdata.Corpus(t, "otf2", "pipit-ping-pong", "traces.otf2")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	an := a.Anchor
	if an.Major != 2 || an.Minor != 3 || an.NumLocations != 2 || len(a.Locations) != 2 {
		t.Errorf("anchor %+v", an)
	}
	if got, ok := AnchorPath(filepath.Dir(path)); !ok || got != path {
		t.Errorf("AnchorPath(dir) = %q %v", got, ok)
	}
}
