package otf2

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// An Archive is an OTF2 trace: its anchor, global definitions and
// locations. Event files are opened by NewEventReader.
type Archive struct {
	Dir       string // directory of the anchor file
	Name      string // archive name: the anchor's base name without .otf2
	Anchor    *Anchor
	Defs      []Def       // global definitions in file order
	Locations []*Location // sorted by id
	// Problems are the damage found while opening: a bad global
	// definition file, a bad or missing local definition file.
	Problems decode.Problems
}

// A Location is one location (thread, process, device stream) with the
// mapping tables and clock offsets of its local definition file.
type Location struct {
	ID      uint64
	Def     *Def // its global Location definition
	Maps    [15]*IDMap
	Offsets []ClockOffset
	clock   []clockInterval
	shifts  bool // an interval of clock moves time (else correct is the identity)
	HasDefs bool // a local definition file was read
}

// A ClockOffset is one clock synchronisation of a location.
type ClockOffset struct {
	Time   uint64
	Offset int64
	StdDev float64
}

type clockInterval struct {
	begin, end uint64
	offset     int64
	slope      float64
}

// AnchorPath returns the anchor file in path: path itself when it names a
// file ending in .otf2, else the one *.otf2 file of directory path.
func AnchorPath(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if !fi.IsDir() {
		return path, strings.HasSuffix(path, ".otf2")
	}
	m, _ := filepath.Glob(filepath.Join(path, "*.otf2"))
	var found []string
	for _, p := range m {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// Open reads the archive whose anchor file is anchorPath: the anchor, the
// global definitions and every local definition file. Damage in
// definition files is kept in Problems; only a bad anchor is an error.
func Open(anchorPath string) (*Archive, error) {
	a := &Archive{Dir: filepath.Dir(anchorPath), Name: strings.TrimSuffix(filepath.Base(anchorPath), ".otf2")}
	f, size, err := openSized(anchorPath)
	if err != nil {
		return nil, err
	}
	a.Anchor, err = ReadAnchor(f, size, filepath.Base(anchorPath))
	f.Close()
	if err != nil {
		return nil, err
	}
	a.Defs, err = a.readDefFile(a.Name+".def", &globalDefSpecs)
	if err != nil {
		a.Problems.Add(err)
	}
	for i := range a.Defs {
		if a.Defs[i].spec.Name == "Location" {
			a.Locations = append(a.Locations, &Location{ID: a.Defs[i].Fields[0].U, Def: &a.Defs[i]})
		}
	}
	slices.SortStableFunc(a.Locations, func(x, y *Location) int {
		switch {
		case x.ID < y.ID:
			return -1
		case x.ID > y.ID:
			return 1
		}
		return 0
	})
	for _, l := range a.Locations {
		a.readLocalDefs(l)
	}
	return a, nil
}

// Files are the archive's files: the anchor, the global definitions and
// the folder of local definition, event and snapshot files.
func (a *Archive) Files() []string {
	base := filepath.Join(a.Dir, a.Name)
	return []string{base + ".otf2", base + ".def", base}
}

// LocationFile is the path of location id's file with extension ext
// ("evt", "def", "snap").
func (a *Archive) LocationFile(id uint64, ext string) string {
	return filepath.Join(a.Dir, a.Name, strconv.FormatUint(id, 10)+"."+ext)
}

func (a *Archive) readDefFile(rel string, specs *[256]*recordSpec) ([]Def, error) {
	f, size, err := openSized(filepath.Join(a.Dir, rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readDefs(f, size, rel, a.Anchor.DefChunkSize, specs)
}

// openSized opens the file at path and returns its size.
func openSized(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// readLocalDefs reads l's mapping tables and clock offsets; a missing file
// is no error (a location may have none).
func (a *Archive) readLocalDefs(l *Location) {
	rel := filepath.Join(a.Name, strconv.FormatUint(l.ID, 10)+".def")
	if _, err := os.Stat(filepath.Join(a.Dir, rel)); err != nil {
		return
	}
	defs, err := a.readDefFile(rel, &localDefSpecs)
	a.Problems.Add(err)
	l.HasDefs = true
	l.addLocalDefs(defs)
}

// addLocalDefs takes l's mapping tables and clock offsets from the
// records of its local definition file.
func (l *Location) addLocalDefs(defs []Def) {
	for i := range defs {
		d := &defs[i]
		switch d.spec.Name {
		case "MappingTable":
			if t := d.Fields[0].U; t < uint64(len(l.Maps)) {
				l.Maps[t] = d.Fields[1].IDMap
			}
		case "ClockOffset":
			l.addOffset(ClockOffset{Time: d.Fields[0].U, Offset: int64(d.Fields[1].U), StdDev: math.Float64frombits(d.Fields[2].U)})
		}
	}
}

// addOffset records a clock offset: each one after the first closes an
// interval over which the offset is interpolated linearly (as
// otf2_archive_location_add_clock_offset does). Offsets not after the
// previous one are ignored.
func (l *Location) addOffset(o ClockOffset) {
	if n := len(l.Offsets); n > 0 {
		p := l.Offsets[n-1]
		if p.Time >= o.Time {
			return
		}
		iv := clockInterval{
			begin:  p.Time,
			end:    o.Time,
			offset: p.Offset,
			slope:  float64(o.Offset-p.Offset) / float64(o.Time-p.Time),
		}
		l.clock = append(l.clock, iv)
		l.shifts = l.shifts || iv.offset != 0 || iv.slope != 0
	}
	l.Offsets = append(l.Offsets, o)
}

// correct returns the global time of local time t; *hint is the interval
// of the previous timestamp (timestamps grow, so the search moves forward).
func (l *Location) correct(t uint64, hint *int) uint64 {
	if !l.shifts {
		return t
	}
	i := *hint
	if i >= len(l.clock) || (i > 0 && t <= l.clock[i-1].end) {
		i = 0
	}
	for i+1 < len(l.clock) && t > l.clock[i].end {
		i++
	}
	*hint = i
	iv := &l.clock[i]
	var diff float64
	if t >= iv.begin {
		diff = float64(t - iv.begin)
	} else {
		diff = -float64(iv.begin - t)
	}
	return t + uint64(iv.offset+int64(math.RoundToEven(iv.slope*diff)))
}
