package otf2

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/testdata"
)

// TestLineLen checks that sizing counts every line of events.txt (and of
// its snapshot section) as long as the line it renders, on every corpus
// case and a generated archive with clock offsets.
func TestLineLen(t *testing.T) {
	dirs := map[string]string{"generated": writeGen(t, 3, 3000)}
	for _, name := range corpusCases {
		dirs[name] = testdata.Corpus(t, "otf2", name)
	}
	for name, dir := range dirs {
		t.Run(name, func(t *testing.T) {
			ar, err := otf2.Open(filepath.Join(dir, "traces.otf2"))
			if err != nil {
				t.Fatal(err)
			}
			names := newDefNames(ar.Defs)
			for _, kind := range []string{"evt", "snap"} {
				p := newEventPrinter(names, otf2.EventRecords(), false)
				if kind == "snap" {
					p = newEventPrinter(names, otf2.SnapRecords(), true)
				}
				var line, scratch []byte
				n := 0
				for _, l := range ar.Locations {
					f, err := os.Open(ar.LocationFile(l.ID, kind))
					if err != nil {
						continue
					}
					fi, _ := f.Stat()
					r := ar.NewEventReaderAt(f, fi.Size(), l)
					if kind == "snap" {
						r = ar.NewSnapReaderAt(f, fi.Size(), l)
					}
					col := locationColumn(l.ID)
					var ev otf2.Event
					for r.Next(&ev) {
						line = p.appendEvent(line[:0], l.ID, col, &ev)
						if got := p.lineLen(l.ID, col, &ev, &scratch); got != len(line) {
							t.Fatalf("%s at %d: counted %d bytes, rendered %d: %q", kind, ev.Off, got, len(line), line)
						}
						n++
					}
					f.Close()
				}
				if kind == "evt" && n == 0 {
					t.Fatal("no events")
				}
			}
		})
	}
}
