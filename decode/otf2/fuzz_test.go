package otf2

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// FuzzArchive decodes an anchor, a global definition file and an event
// file from fuzzed bytes: nothing may panic, and readers must stop.
func FuzzArchive(f *testing.F) {
	for _, name := range []string{"pipit-ping-pong", "gen-mpi-rma"} {
		dir := filepath.Join(testdata.CorpusDir(), "otf2", name)
		anchor, err1 := os.ReadFile(filepath.Join(dir, "traces.otf2"))
		defs, err2 := os.ReadFile(filepath.Join(dir, "traces.def"))
		evt, err3 := os.ReadFile(filepath.Join(dir, "traces", "1.evt"))
		if err1 == nil && err2 == nil && err3 == nil {
			f.Add(anchor, defs, evt)
		}
	}
	f.Add([]byte{3, 0x42, 'O', 'T', 'F', '2', 0}, []byte{3, 0x42}, []byte{3, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0xff})
	f.Fuzz(func(t *testing.T, anchor, defs, evt []byte) {
		a, err := ReadAnchor(bytes.NewReader(anchor), int64(len(anchor)), "traces.otf2")
		chunk := uint64(1 << 20)
		if err == nil {
			chunk = a.EventChunkSize
		}
		ds, _ := readDefs(bytes.NewReader(defs), int64(len(defs)), "traces.def", chunk, &globalDefSpecs)
		l := &Location{}
		for i := range ds {
			if ds[i].Name() == "ClockOffset" {
				l.addOffset(ClockOffset{Time: ds[i].Fields[0].U, Offset: int64(ds[i].Fields[1].U)})
			}
		}
		l.addOffset(ClockOffset{Time: 10, Offset: 5})
		l.addOffset(ClockOffset{Time: 1000, Offset: -7})
		r := newEventReader(bytes.NewReader(evt), int64(len(evt)), "0.evt", chunk, l, nil)
		var ev Event
		for n := 0; r.Next(&ev); n++ {
			if n > len(evt) {
				t.Fatal("more events than bytes")
			}
		}
	})
}
