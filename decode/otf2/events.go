package otf2

import (
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// An Attr is one entry of an event's attribute list.
type Attr struct {
	ID   uint64 // global Attribute id
	Type uint8  // OTF2_Type
	U    uint64 // value bits (references mapped to global ids)
}

// An Event is one event record of a location, with mapped ids and the
// clock-corrected time. Its slices are reused by the next Next call.
type Event struct {
	spec    *recordSpec
	Off     int64    // file offset of the record's type byte
	Time    uint64   // corrected timestamp
	RawTime uint64   // timestamp as written
	Vals    []uint64 // one per field (an array field holds its count)
	// Arr holds the elements of the record's array field, one slice per
	// element member (Metric: type ids, values; ProgramBegin: arguments).
	Arr   [2][]uint64
	Attrs []Attr
}

// Name is the record's OTF2 name ("MpiSend").
func (e *Event) Name() string { return e.spec.Name }

// Upper is the name otf2-print shows ("MPI_SEND").
func (e *Event) Upper() string { return e.spec.Upper }

// Type is the record type byte.
func (e *Event) Type() uint8 { return e.spec.ID }

// A Pos is a resumable position in an event file: the offset of the next
// record and the current timestamp.
type Pos struct {
	Off  int64
	Time uint64
}

// An EventReader reads the events of one location in file order.
type EventReader struct {
	loc   *Location
	f     *os.File
	c     *chunkReader
	time  uint64
	hint  int
	attrs []Attr
	specs *[256]*recordSpec
	raw   bool // no clock correction (snapshots: the reference reader applies none)
	// general makes Next read every record through the general path
	// (tests compare it with the fast one).
	general bool
}

// NewEventReaderAt reads location l's event file from r, of size bytes.
func (a *Archive) NewEventReaderAt(r io.ReaderAt, size int64, l *Location) *EventReader {
	return newEventReader(r, size, a.EventFileName(l), a.Anchor.EventChunkSize, l, nil)
}

// NewSnapReaderAt reads location l's snapshot file (.snap) from r, of
// size bytes: records are read as events, of the snapshot record types.
func (a *Archive) NewSnapReaderAt(r io.ReaderAt, size int64, l *Location) *EventReader {
	return newEventReader(r, size, filepath.Join(a.Name, strconv.FormatUint(l.ID, 10)+".snap"), a.Anchor.EventChunkSize, l, nil).snapshots()
}

// snapshots makes r read snapshot records, whose times the reference
// reader does not correct.
func (r *EventReader) snapshots() *EventReader {
	r.specs, r.raw = &snapSpecs, true
	return r
}

// EventFileName is location l's event file relative to the anchor's directory.
func (a *Archive) EventFileName(l *Location) string {
	return filepath.Join(a.Name, strconv.FormatUint(l.ID, 10)+".evt")
}

// NewEventReader opens location l's event file. Close it when done.
func (a *Archive) NewEventReader(l *Location) (*EventReader, error) {
	f, size, err := openSized(a.LocationFile(l.ID, "evt"))
	if err != nil {
		return nil, err
	}
	return newEventReader(f, size, a.EventFileName(l), a.Anchor.EventChunkSize, l, f), nil
}

func newEventReader(r io.ReaderAt, size int64, name string, chunkSize uint64, l *Location, f *os.File) *EventReader {
	return &EventReader{loc: l, f: f, c: newChunkReader(r, size, name, chunkSize), specs: &eventSpecs}
}

// Close closes the event file.
func (r *EventReader) Close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}

// Release gives the reader's buffer back for other readers to reuse; a
// reader used after it reads into a new one.
func (r *EventReader) Release() { r.c.release() }

// Tell returns the position of the next event; at the end of the file,
// that of its end-of-file record, which a reader moved there reads again
// (what follows it is padding).
func (r *EventReader) Tell() Pos {
	if r.c.chunkOff < 0 {
		return Pos{}
	}
	if r.c.eof {
		return Pos{Off: r.c.offset() - 1, Time: r.time}
	}
	return Pos{Off: r.c.offset(), Time: r.time}
}

// Seek moves to p, a position Tell returned.
func (r *EventReader) Seek(p Pos) {
	r.c.err, r.c.eof = nil, false
	r.attrs = r.attrs[:0]
	r.time = p.Time
	r.hint = 0
	if p.Off == 0 {
		r.c.chunkOff = -1
		return
	}
	start := p.Off - p.Off%r.c.chunkSize
	if start != r.c.chunkOff && !r.c.load(start) {
		return
	}
	// A position at the very end of a chunk resumes after the next
	// chunk's header.
	r.c.pos = max(int(p.Off-start), chunkHeaderLen)
}

// Err is the error that ended reading (nil at a clean end of file).
func (r *EventReader) Err() error { return r.c.err }

// Next reads the next event into ev; it returns false at the end of the
// file or at damage (then Err says where).
func (r *EventReader) Next(ev *Event) bool {
	c := r.c
	r.attrs = r.attrs[:0]
	if !r.general && r.fastEvent(ev) {
		return true
	}
	for {
		t := c.next()
		if c.err != nil || t == bufEndOfFile {
			return false
		}
		off := c.offset() - 1
		switch t {
		case bufTimestamp:
			c.span(8)
			r.time = c.u64raw()
			continue
		case bufAttrList:
			r.readAttrs()
			if c.err != nil {
				return false
			}
			continue
		}
		spec := r.specs[t]
		if spec == nil {
			end := c.recordLen()
			c.pos = end
			r.attrs = r.attrs[:0]
			if c.err != nil {
				return false
			}
			continue
		}
		ev.spec = spec
		ev.Off = off
		ev.RawTime = r.time
		ev.Time = r.correct(r.time)
		if cap(ev.Vals) < maxEventFields {
			ev.Vals = make([]uint64, maxEventFields)
		}
		ev.Vals = ev.Vals[:len(spec.Fields)]
		ev.Arr[0], ev.Arr[1] = ev.Arr[0][:0], ev.Arr[1][:0]
		if spec.Singleton {
			c.span(9)
			f := &spec.Fields[0]
			ev.Vals[0] = r.mapped(f, c.scalar(f.Kind))
		} else {
			end := c.recordLen()
			r.readEventFields(spec, ev)
			if c.err != nil {
				return false
			}
			c.pos = end
		}
		if c.err != nil {
			return false
		}
		ev.Attrs = append(ev.Attrs[:0], r.attrs...)
		return true
	}
}

// fastEvent decodes the most common records straight from the window,
// when all their bytes are in it: a singleton event of one compressed
// 32-bit field (ENTER, LEAVE) or a METRIC event, each after an optional
// timestamp, with no attribute list. Next's general path reads the same
// bytes through bounds checks and calls for every field; false leaves
// everything as it was, for that path (which also reports damage).
func (r *EventReader) fastEvent(ev *Event) bool {
	c := r.c
	i := c.pos - c.lo
	if c.err != nil || c.eof || c.chunkOff < 0 || i < 0 || i+15 > len(c.buf) {
		return false
	}
	b := c.buf[i:]
	t, at := r.time, 0
	if b[0] == bufTimestamp {
		if c.big {
			t = binary.BigEndian.Uint64(b[1:9])
		} else {
			t = binary.LittleEndian.Uint64(b[1:9])
		}
		at = 9
	}
	spec := r.specs[b[at]]
	if spec == nil {
		return false
	}
	if cap(ev.Vals) < maxEventFields {
		ev.Vals = make([]uint64, maxEventFields)
	}
	ev.Arr[0], ev.Arr[1] = ev.Arr[0][:0], ev.Arr[1][:0]
	var end int
	switch {
	case spec.Singleton && spec.Fields[0].Kind == kCU32:
		v, n := fastCompressed(b[at+1:at+6], 4, c.big) // at+6 <= 15
		if n == 0 {
			return false
		}
		ev.Vals = ev.Vals[:1]
		ev.Vals[0] = r.mapped(&spec.Fields[0], v)
		end = at + 1 + n
	case spec == eventSpecs[metricID] && r.specs == &eventSpecs:
		n, ok := r.fastMetric(b[at+1:], spec, ev)
		if !ok {
			return false
		}
		end = at + 1 + n
	default:
		return false
	}
	r.time = t
	ev.spec, ev.Off, ev.RawTime, ev.Time = spec, c.offset()+int64(at), t, r.correct(t)
	ev.Attrs = ev.Attrs[:0]
	c.pos += end
	c.end = c.pos
	return true
}

// metricID is the METRIC event's record type.
const metricID = 31

// fastMetric decodes a METRIC event's record after its type byte from b
// (metric, count, then a type and a value per member) into ev; it returns
// the record's length, or false when it is not whole in b, is long, or is
// malformed.
func (r *EventReader) fastMetric(b []byte, spec *recordSpec, ev *Event) (int, bool) {
	if len(b) < 1 || b[0] == 0xff || 1+int(b[0]) > len(b) {
		return 0, false
	}
	rec := b[1 : 1+b[0]]
	metric, n := fastCompressed(rec, 4, r.c.big)
	if n == 0 || n >= len(rec) {
		return 0, false
	}
	count := int(rec[n])
	rec = rec[n+1:]
	for range count {
		if len(rec) < 2 {
			return 0, false
		}
		v, k := fastCompressed(rec[1:], 8, r.c.big)
		if k == 0 {
			return 0, false
		}
		ev.Arr[0], ev.Arr[1] = append(ev.Arr[0], uint64(rec[0])), append(ev.Arr[1], v)
		rec = rec[1+k:]
	}
	ev.Vals = ev.Vals[:2]
	ev.Vals[0], ev.Vals[1] = r.mapped(&spec.Fields[0], metric), uint64(count)
	return 1 + int(b[0]), true
}

// fastCompressed reads a compressed integer of at most width bytes from
// the start of b, as chunkReader.compressed; n is the bytes it took, 0
// when b is too short or the size byte is bad.
func fastCompressed(b []byte, width int, big bool) (v uint64, n int) {
	if len(b) == 0 {
		return 0, 0
	}
	k := int(b[0])
	switch {
	case k == 0xff:
		if width == 4 {
			return math.MaxUint32, 1
		}
		return math.MaxUint64, 1
	case k > width || 1+k > len(b):
		return 0, 0
	case big:
		for _, x := range b[1 : 1+k] {
			v = v<<8 | uint64(x)
		}
	default:
		for j := k; j > 0; j-- {
			v = v<<8 | uint64(b[j])
		}
	}
	return v, 1 + k
}

func (r *EventReader) mapped(f *fieldSpec, v uint64) uint64 {
	if f.Mapping != noMapping && int(f.Mapping) < len(r.loc.Maps) {
		return r.loc.Maps[f.Mapping].Map(v)
	}
	return v
}

func (r *EventReader) readEventFields(spec *recordSpec, ev *Event) {
	c := r.c
	base := 0
	if len(spec.Fields) > 0 {
		base = spec.Fields[0].Since
	}
	for i := range spec.Fields {
		f := &spec.Fields[i]
		if f.Since > base && c.pos >= c.end {
			ev.Vals[i] = missingDefaults[spec.Name][f.Name]
			continue
		}
		v := c.scalar(f.Kind)
		if f.Kind == kTime {
			v = r.correct(v)
		}
		ev.Vals[i] = r.mapped(f, v)
		if f.Array != nil {
			for n := uint64(0); n < v && c.err == nil; n++ {
				for j := range f.Array {
					a := &f.Array[j]
					ev.Arr[j] = append(ev.Arr[j], r.mapped(a, c.scalar(a.Kind)))
				}
			}
		}
	}
}

func (r *EventReader) readAttrs() {
	c := r.c
	end := c.recordLen()
	n := c.compressed(4)
	for i := uint64(0); i < n && c.err == nil; i++ {
		id := c.compressed(4)
		id = r.loc.Maps[1].Map(id)
		t := c.u8()
		v := c.attrValue(t)
		if m := typeMapping(t); m != noMapping && int(m) < len(r.loc.Maps) {
			v = r.loc.Maps[m].Map(v)
		}
		r.attrs = append(r.attrs, Attr{ID: id, Type: t, U: v})
	}
	if c.err == nil {
		c.pos = end
	}
}

func (r *EventReader) correct(t uint64) uint64 {
	if r.raw {
		return t
	}
	return r.loc.correct(t, &r.hint)
}
