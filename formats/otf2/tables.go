package otf2

import (
	"io"
	"math"
	"math/bits"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// clock converts the trace's ticks to nanoseconds.
type clock struct {
	res    uint64 // ticks per second (1e9 when the trace does not say)
	offset uint64 // the global offset: t_ns 0
}

func newClock(defs []otf2.Def) clock {
	c := clock{res: 1e9}
	for i := range defs {
		if defs[i].Name() == "ClockProperties" {
			if r := defs[i].U("timerResolution"); r != 0 {
				c.res = r
			}
			c.offset = defs[i].U("globalOffset")
		}
	}
	return c
}

// ns converts a number of ticks to nanoseconds, rounding down.
func (c clock) ns(ticks uint64) uint64 {
	if c.res == 1e9 {
		return ticks
	}
	hi, lo := bits.Mul64(ticks, 1e9)
	if hi >= c.res {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, c.res)
	return q
}

// rel is t_ns: nanoseconds from the global offset (negative before it).
func (c clock) rel(t uint64) int64 {
	if t >= c.offset {
		return int64(c.ns(t - c.offset))
	}
	return -int64(c.ns(c.offset - t))
}

// csvName appends a definition's name (its string) as a CSV field, or
// nothing when it has none.
func (n *defNames) csvName(dst []byte, table string, id uint64) []byte {
	if table == "regions" && id < uint64(len(n.regionCSV)) {
		return append(dst, n.regionCSV[id]...)
	}
	var name *string
	if table == "strings" {
		name = n.str(id)
	} else {
		name = n.tables[table][id]
	}
	if name == nil {
		return dst
	}
	return render.AppendCSVField(dst, *name)
}

func appendU(dst []byte, v uint64) []byte { return strconv.AppendUint(dst, v, 10) }

// appendOptU appends v, or nothing for OTF2's undefined (all ones of width bits).
func appendOptU(dst []byte, v uint64, width int) []byte {
	if v == math.MaxUint64 || width == 32 && v == math.MaxUint32 {
		return dst
	}
	return appendU(dst, v)
}

// locationsCSV is one row per location definition.
func (t *trace) locationsCSV() ([]byte, error) {
	b := []byte("location,name,kind,location_group,num_events\n")
	for _, l := range t.ar.Locations {
		d := l.Def
		b = appendU(b, l.ID)
		b = append(b, ',')
		b = t.names.csvName(b, "strings", d.U("name"))
		b = append(b, ',')
		b = appendEnumName(b, "LocationType", d.U("locationType"))
		b = append(b, ',')
		b = t.names.csvName(b, "location_groups", d.U("locationGroup"))
		b = append(b, ',')
		b = appendU(b, d.U("numberOfEvents"))
		b = append(b, '\n')
	}
	return b, nil
}

// regionsCSV is one row per region definition.
func (t *trace) regionsCSV() ([]byte, error) {
	b := []byte("region_id,function,canonical_name,description,role,paradigm,file,line,end_line\n")
	for i := range t.ar.Defs {
		d := &t.ar.Defs[i]
		if d.Name() != "Region" {
			continue
		}
		b = appendU(b, d.U("self"))
		b = append(b, ',')
		b = t.names.csvName(b, "strings", d.U("name"))
		b = append(b, ',')
		b = t.names.csvName(b, "strings", d.U("canonicalName"))
		b = append(b, ',')
		b = t.names.csvName(b, "strings", d.U("description"))
		b = append(b, ',')
		b = appendEnumName(b, "RegionRole", d.U("regionRole"))
		b = append(b, ',')
		b = appendEnumName(b, "Paradigm", d.U("paradigm"))
		b = append(b, ',')
		b = t.names.csvName(b, "strings", d.U("sourceFile"))
		b = append(b, ',')
		b = appendOptU(b, d.U("beginLineNumber"), 32)
		b = append(b, ',')
		b = appendOptU(b, d.U("endLineNumber"), 32)
		b = append(b, '\n')
	}
	return b, nil
}

// eventsGen renders a location's events.csv: one row per event in file
// order. Its state is the reader's position (otf2.Pos).
type eventsGen struct {
	t   *trace
	loc int
}

const eventsHeader = "t_ns,time_ns,event,region,fields,attributes\n"

type eventsCursor struct {
	g       *eventsGen
	r       *otf2.EventReader
	ev      otf2.Event
	started bool
	w       rowWriter
}

// A rowWriter writes events.csv rows; one per cursor (it keeps buffers).
type rowWriter struct {
	t       *trace
	info    [256]*otf2.RecordInfo
	scratch []byte
}

func (g *eventsGen) Start(state any) (render.Cursor, error) {
	l := g.t.ar.Locations[g.loc]
	f, size, err := g.t.files[g.loc].open()
	if err != nil {
		return nil, err
	}
	c := &eventsCursor{g: g, r: g.t.ar.NewEventReaderAt(f, size, l), w: rowWriter{t: g.t}}
	if p, ok := state.(otf2.Pos); ok {
		c.started = true
		c.r.Seek(p)
	}
	return c, nil
}

func (c *eventsCursor) State() any {
	if !c.started {
		return nil
	}
	return c.r.Tell()
}

func (c *eventsCursor) Next(dst []byte) ([]byte, error) {
	start := len(dst)
	if !c.started {
		c.started = true
		dst = append(dst, eventsHeader...)
	}
	for len(dst)-start < mergeBatch {
		if !c.r.Next(&c.ev) {
			if err := c.r.Err(); err != nil {
				return dst, err
			}
			if len(dst) > start {
				return dst, nil
			}
			return dst, io.EOF
		}
		dst = c.w.appendEventRow(dst, &c.ev)
	}
	return dst, nil
}

// appendEventRow appends ev's events.csv row: its times, name, region (for
// records with a region field) and the other fields as name=value pairs
// separated by ';', ids by their names, as are the attributes.
func (w *rowWriter) appendEventRow(dst []byte, ev *otf2.Event) []byte {
	t := w.t
	info := w.info[ev.Type()]
	if info == nil {
		i := ev.Info()
		info = &i
		w.info[ev.Type()] = info
	}
	dst = strconv.AppendInt(dst, t.clock.rel(ev.Time), 10)
	dst = append(dst, ',')
	dst = appendU(dst, t.clock.ns(ev.Time))
	dst = append(dst, ',')
	dst = append(dst, info.Name...)
	dst = append(dst, ',')
	if i := info.FieldIndex("region"); i >= 0 {
		dst = t.names.csvName(dst, "regions", ev.Vals[i])
	}
	dst = append(dst, ',')
	b := w.scratch[:0]
	for i := range info.Fields {
		f := &info.Fields[i]
		if f.Name == "region" {
			continue
		}
		if len(b) > 0 {
			b = append(b, ';')
		}
		b = append(b, f.Name...)
		b = append(b, '=')
		b = t.appendFieldValue(b, f, ev.Vals[i])
		if !f.Array {
			continue
		}
		// Metric: the values; ProgramBegin: the arguments.
		for j := range ev.Arr[0] {
			b = append(b, ' ')
			if info.Name == "Metric" {
				b = t.names.appendValue(b, uint8(ev.Arr[0][j]), ev.Arr[1][j])
			} else {
				b = t.names.appendPlain(b, "strings", ev.Arr[0][j])
			}
		}
	}
	dst = appendCSVBytes(dst, b)
	dst = append(dst, ',')
	b = b[:0]
	for i, a := range ev.Attrs {
		if i > 0 {
			b = append(b, ';')
		}
		b = t.names.appendPlain(b, "attributes", a.ID)
		b = append(b, '=')
		if a.Type >= 11 && a.Type <= 25 {
			b = t.names.appendPlain(b, attrTables[a.Type-11], a.U)
		} else {
			b = t.names.appendValue(b, a.Type, a.U)
		}
	}
	dst = appendCSVBytes(dst, b)
	w.scratch = b
	return append(dst, '\n')
}

// appendFieldValue appends a field's value for events.csv: a referenced
// definition by name, an enum by name, a number.
func (t *trace) appendFieldValue(dst []byte, f *otf2.FieldInfo, v uint64) []byte {
	switch {
	case f.Ref != "":
		if tab, ok := defTables[f.Ref]; ok {
			return t.names.appendPlain(dst, tab, v)
		}
		if f.Ref == "String" {
			return t.names.appendPlain(dst, "strings", v)
		}
	case f.Enum != "" && f.Enum != "Type":
		return appendEnum(dst, f.Enum, v)
	case f.Float:
		return render.AppendFloat(dst, math.Float64frombits(v))
	case f.Signed:
		return strconv.AppendInt(dst, int64(v), 10)
	}
	return appendU(dst, v)
}

// appendPlain appends a definition's name, or its id when it has none.
func (n *defNames) appendPlain(dst []byte, table string, id uint64) []byte {
	var name *string
	if table == "strings" {
		name = n.str(id)
	} else {
		name = n.tables[table][id]
	}
	if name == nil {
		return appendU(dst, id)
	}
	return append(dst, *name...)
}

// appendCSVBytes appends b as a CSV field.
func appendCSVBytes(dst, b []byte) []byte {
	for _, c := range b {
		if c == ',' || c == '"' || c == '\n' || c == '\r' || c == ' ' && len(b) > 0 && b[0] == ' ' {
			return render.AppendCSVField(dst, string(b))
		}
	}
	if len(b) > 0 && (b[0] == '\t' || b[0] == ' ') {
		return render.AppendCSVField(dst, string(b))
	}
	return append(dst, b...)
}

// appendEnumName appends the name of value v of enum, or nothing when it
// has none.
func appendEnumName(b []byte, enum string, v uint64) []byte {
	if s, ok := otf2.EnumName(enum, v); ok {
		return append(b, s...)
	}
	return b
}
