package otf2

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/otf2"
	"github.com/hpcfs/hpcfs/testdata/gen/otf2ref"
)

// archiveFiles are the files FuzzArchive decodes: the anchor, the global
// definitions, one location's local definitions and its event file (or
// snapshot file).
type archiveFiles struct{ anchor, defs, local, evt []byte }

// fuzzSeeds are the corpus archives' files (location 1, with attributes,
// metrics, RMA, snapshots and mapping tables among them) and generated
// archives (the Go writer's and the reference writer's shapes), whole and
// damaged: event files cut, with a byte changed,
// with a record length past the chunk, definitions cut.
func fuzzSeeds(f *testing.F) []archiveFiles {
	var seeds []archiveFiles
	read := func(dir, loc, ext string) (archiveFiles, bool) {
		var a archiveFiles
		var err [4]error
		a.anchor, err[0] = os.ReadFile(filepath.Join(dir, "traces.otf2"))
		a.defs, err[1] = os.ReadFile(filepath.Join(dir, "traces.def"))
		a.local, err[2] = os.ReadFile(filepath.Join(dir, "traces", loc+".def"))
		a.evt, err[3] = os.ReadFile(filepath.Join(dir, "traces", loc+"."+ext))
		return a, err[0] == nil && err[1] == nil && err[3] == nil
	}
	for _, name := range corpusCases {
		for _, ext := range []string{"evt", "snap"} {
			if a, ok := read(filepath.Join(testdata.CorpusDir(), "otf2", name), "1", ext); ok {
				seeds = append(seeds, a)
			}
		}
	}
	tr := gen.Random(3, 2, 40)
	tr.Locations[1].Offsets = [][2]int64{{1000, 5}, {int64(tr.Locations[1].Events[20].Time), -30}}
	dir := f.TempDir()
	if _, err := tr.Write(dir); err != nil {
		f.Fatal(err)
	}
	dirs := []string{dir}
	// The reference writer's shapes (location 1 of each: many's first
	// process, local's with mapping tables and clock offsets, every byte
	// of strings, every record of events), where it can be built.
	if otf2ref.Missing() == "" || os.Getenv("CI") == "true" {
		dirs = append(dirs, otf2ref.Write(f, otf2ref.Shapes...)...)
	}
	for _, dir := range dirs {
		a, ok := read(dir, "1", "evt")
		if !ok {
			f.Fatalf("archive in %s incomplete", dir)
		}
		seeds = append(seeds, a)
		if snap, ok := read(dir, "1", "snap"); ok { // the events shape's snapshots
			seeds = append(seeds, snap)
		}
		damaged := func(fn func(a *archiveFiles)) {
			d := archiveFiles{slices.Clone(a.anchor), slices.Clone(a.defs), slices.Clone(a.local), slices.Clone(a.evt)}
			fn(&d)
			seeds = append(seeds, d)
		}
		damaged(func(d *archiveFiles) { d.evt = d.evt[:len(d.evt)/2] })
		damaged(func(d *archiveFiles) { d.evt[len(d.evt)/3] ^= 0x5a })
		damaged(func(d *archiveFiles) { d.evt[chunkHeaderLen+9] = 0xff }) // the first record's length byte, after a timestamp
		damaged(func(d *archiveFiles) { d.defs = d.defs[:len(d.defs)*2/3] })
		if len(a.local) > 5 {
			damaged(func(d *archiveFiles) { d.local = d.local[:len(d.local)-5] })
		}
		damaged(func(d *archiveFiles) { d.anchor[len("\x03\x42OTF2\x00")+5] = 21 }) // event chunks of 21 bytes
	}
	return seeds
}

// FuzzArchive decodes an anchor, a global definition file, a local
// definition file (mapping tables, clock offsets) and an event file from
// fuzzed bytes, the event file as events and as snapshot records: nothing
// may panic, readers must stop, and a reader moved back to a position it
// told (Seek of Tell) reads the same records again, and Next's fast path
// reads what its general path reads.
func FuzzArchive(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s.anchor, s.defs, s.local, s.evt)
	}
	f.Add([]byte{3, 0x42, 'O', 'T', 'F', '2', 0}, []byte{3, 0x42}, []byte{}, []byte{3, 0x42, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12, 0xff})
	f.Fuzz(func(t *testing.T, anchor, defs, local, evt []byte) {
		a, err := ReadAnchor(bytes.NewReader(anchor), int64(len(anchor)), "traces.otf2")
		evChunk, defChunk := uint64(1<<20), uint64(4<<20)
		if err == nil {
			evChunk, defChunk = a.EventChunkSize, a.DefChunkSize
		}
		readDefs(bytes.NewReader(defs), int64(len(defs)), "traces.def", defChunk, &globalDefSpecs)
		ld, _ := readDefs(bytes.NewReader(local), int64(len(local)), "traces/1.def", defChunk, &localDefSpecs)
		l := &Location{}
		l.addLocalDefs(ld)
		for _, snap := range []bool{false, true} {
			r := newEventReader(bytes.NewReader(evt), int64(len(evt)), "1.evt", evChunk, l, nil)
			if snap {
				r.snapshots()
			}
			checkResume(t, r, len(evt))
			// Readers that give their buffers back after every event
			// (Release), taking them from each other, read the same.
			for _, release := range []bool{false, true} {
				fast := newEventReader(bytes.NewReader(evt), int64(len(evt)), "1.evt", evChunk, l, nil)
				general := newEventReader(bytes.NewReader(evt), int64(len(evt)), "1.evt", evChunk, l, nil)
				if snap {
					fast.snapshots()
					general.snapshots()
				}
				general.general = true
				checkSamePath(t, fast, general, release)
			}
		}
	})
}

// checkSamePath reads fast (Next's fast path on) and general (off) to
// their ends and checks that they give the same events, positions and
// error; with release, both release their buffers after every event.
func checkSamePath(t *testing.T, fast, general *EventReader, release bool) {
	var a, b Event
	for n := 0; ; n++ {
		pa, pb := fast.Tell(), general.Tell()
		oka, okb := fast.Next(&a), general.Next(&b)
		if release {
			fast.Release()
			general.Release()
		}
		if pa != pb || oka != okb {
			t.Fatalf("event %d: fast at %+v (%v), general at %+v (%v)", n, pa, oka, pb, okb)
		}
		if !oka {
			break
		}
		if a.spec != b.spec || a.Off != b.Off || a.Time != b.Time || a.RawTime != b.RawTime || !slices.Equal(a.Vals, b.Vals) ||
			!slices.Equal(a.Arr[0], b.Arr[0]) || !slices.Equal(a.Arr[1], b.Arr[1]) || !slices.Equal(a.Attrs, b.Attrs) {
			t.Fatalf("event %d: fast %s at %d %v %v, general %s at %d %v %v", n, a.Name(), a.Off, a.Vals, a.Arr, b.Name(), b.Off, b.Vals, b.Arr)
		}
	}
	if ea, eb := fmt.Sprint(fast.Err()), fmt.Sprint(general.Err()); ea != eb {
		t.Fatalf("fast path ends on %s, general on %s", ea, eb)
	}
}

// checkResume reads r to its end, then moves it back to some of the
// positions it told and checks that it reads the same records from there,
// and none from the position it told at the end.
func checkResume(t *testing.T, r *EventReader, size int) {
	type told struct {
		pos              Pos
		off, time, raw   uint64
		vals, arr0, arr1 []uint64
		attrs            []Attr
	}
	var marks []told
	var ev Event
	for n := 0; ; n++ {
		p := r.Tell()
		if !r.Next(&ev) {
			break
		}
		if n > size {
			t.Fatal("more events than bytes")
		}
		if n%5 == 0 {
			marks = append(marks, told{p, uint64(ev.Off), ev.Time, ev.RawTime, slices.Clone(ev.Vals),
				slices.Clone(ev.Arr[0]), slices.Clone(ev.Arr[1]), slices.Clone(ev.Attrs)})
		}
	}
	if r.Err() == nil { // a position at the end resumes at the end
		end := r.Tell()
		r.Seek(end)
		if r.Next(&ev) || r.Err() != nil {
			t.Fatalf("after Seek(%+v) at the end: an event at %d, %v", end, ev.Off, r.Err())
		}
	}
	for _, m := range marks {
		r.Seek(m.pos)
		if !r.Next(&ev) {
			t.Fatalf("no event after Seek(%+v): %v", m.pos, r.Err())
		}
		if uint64(ev.Off) != m.off || ev.Time != m.time || ev.RawTime != m.raw || !slices.Equal(ev.Vals, m.vals) ||
			!slices.Equal(ev.Arr[0], m.arr0) || !slices.Equal(ev.Arr[1], m.arr1) || !slices.Equal(ev.Attrs, m.attrs) {
			t.Fatalf("after Seek(%+v): event at %d time %d, first read at %d time %d", m.pos, ev.Off, ev.Time, m.off, m.time)
		}
	}
}
