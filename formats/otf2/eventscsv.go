package otf2

import (
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// A location's events.csv: one row per event in file order, t_ns, time_ns
// and the event's record name, then a column per field of the event
// records the trace can hold and one per attribute the trace defines.
// Every location has the same columns: the schema is the trace's.

// An eventSchema is the columns of events.csv and where each record
// type's fields and each attribute go.
type eventSchema struct {
	cols   []render.Column
	fields [256][]fieldCell // by record type byte, its fields by column
	events [256]render.Text // by record type byte, its name (the event column)
	attrs  map[uint64]int   // attribute id -> column
	attr0  int              // the first attribute column
	region []render.Text    // by region id, its name ("" for none)
	// tableTexts are the other dense tables\' names (texts), made once.
	tableTexts map[string][]render.Text
}

// A fieldCell says how field i of a record becomes a cell of column col.
type fieldCell struct {
	col, i int
	conv   fieldConv
	table  string        // cvRef: the definition table
	texts  []render.Text // cvRef: the names by id, when the table's are dense ("" for none)
	enum   string        // cvEnum
}

type fieldConv uint8

const (
	cvUint  fieldConv = iota
	cvInt             // signed
	cvFloat           // float64 bits
	cvRef             // a definition, by its name (its id when it has none)
	cvEnum            // an enum value by name, flags as otf2-print shows them
	cvTime            // a timestamp: nanoseconds
	cvArgs            // ProgramBegin's arguments: their strings joined by ' '
)

// fieldColumns are the vocabulary names of record fields that do not read
// as their snake_case (docs/vocabulary.md); the others are snake_case.
var fieldColumns = map[string]string{
	"msgTag": "tag", "msgLength": "bytes", "sizeSent": "sent_bytes", "sizeReceived": "received_bytes",
	"bytesSent": "sent_bytes", "bytesReceived": "received_bytes", "bytesRequest": "request_bytes",
	"bytesResult": "result_bytes", "collectiveOp": "operation", "model": "paradigm", "win": "rma_win",
	"group": "process_group", "type": "atomic_type", "string": "string_value", "file": "io_file",
	"stopTime": "stop_time_ns", "lockId": "lock_id", "numberOfMetrics": "num_metrics",
	"numberOfArguments": "arguments", "numberOfRequestedThreads": "num_requested_threads",
	"value": "parameter_value",
}

// fieldColumn is the column name of a record field.
func fieldColumn(field string) string {
	if c, ok := fieldColumns[field]; ok {
		return c
	}
	var b strings.Builder
	for i := 0; i < len(field); i++ {
		c := field[i]
		upper := 'A' <= c && c <= 'Z'
		if upper && i > 0 && (!isUpper(field[i-1]) || i+1 < len(field) && !isUpper(field[i+1])) {
			b.WriteByte('_')
		}
		b.WriteByte(c)
	}
	return render.Name(b.String(), "field")
}

// numeric reports whether a column of kind holds the input's numbers
// (which a Number column holds whatever their type).
func numeric(k render.Kind) bool {
	return k == render.Int || k == render.Uint || k == render.Float || k == render.Number
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }

// schema is the trace's events.csv schema, made once.
func (t *trace) schema() *eventSchema {
	t.schemaOnce.Do(func() { t.evSchema = newEventSchema(t.names, t.ar.Defs) })
	return t.evSchema
}

// newEventSchema makes the columns: the fields of every event record whose
// references the trace can resolve (a record that refers to a definition
// class of which the trace has none cannot occur in it), then the
// attributes in definition order. A field whose column name another field
// has with another kind gets a column of its own (_2), unless both are
// numbers: the column is then a Number column.
func newEventSchema(n *defNames, defs []otf2.Def) *eventSchema {
	s := &eventSchema{attrs: map[uint64]int{}}
	u := render.NewUniquer()
	at := map[string]int{}
	add := func(name string, kind render.Kind) int {
		if i, ok := at[name]; ok {
			switch c := &s.cols[i]; {
			case c.Kind == kind:
				return i
			case numeric(c.Kind) && numeric(kind):
				c.Kind = render.Number
				return i
			}
		}
		s.cols = append(s.cols, render.Column{Name: u.Unique(name), Kind: kind})
		at[name] = len(s.cols) - 1
		return len(s.cols) - 1
	}
	add("t_ns", render.Ns)
	add("time_ns", render.Ns)
	add("event", render.String)
	add("region", render.String)
	for i, name := range n.regionName {
		if i == 0 {
			s.region = make([]render.Text, len(n.regionName))
		}
		if name != "" {
			s.region[i] = render.NewText(name)
		}
	}
	for _, rec := range otf2.EventRecords() {
		s.events[rec.ID] = render.NewText(rec.Name)
		if !n.canHold(rec) {
			continue
		}
		cells := make([]fieldCell, len(rec.Fields))
		for i, f := range rec.Fields {
			c := fieldCell{i: i, conv: cvUint}
			kind := render.Uint
			switch {
			case f.Name == "stopTime":
				c.conv, kind = cvTime, render.Ns
			case f.Array && rec.Name == "ProgramBegin":
				c.conv, kind = cvArgs, render.String
			case f.Array:
			case f.Ref == "String":
				c.conv, c.table, kind = cvRef, "strings", render.String
			case f.Ref != "" && defTables[f.Ref] != "":
				c.conv, c.table, kind = cvRef, defTables[f.Ref], render.String
				c.texts = s.texts(n, c.table)
			case f.Enum != "" && f.Enum != "Type":
				c.conv, c.enum, kind = cvEnum, f.Enum, render.String
			case f.Float:
				c.conv, kind = cvFloat, render.Float
			case f.Signed:
				c.conv, kind = cvInt, render.Int
			}
			c.col = add(fieldColumn(f.Name), kind)
			cells[i] = c
		}
		slices.SortFunc(cells, func(a, b fieldCell) int { return a.col - b.col })
		s.fields[rec.ID] = cells
	}
	s.attr0 = len(s.cols)
	for i := range defs {
		d := &defs[i]
		if d.Name() != "Attribute" {
			continue
		}
		kind := render.Number
		if otf2.IsRefType(uint8(d.U("type"))) {
			kind = render.String
		}
		s.cols = append(s.cols, render.Column{Name: u.Unique(render.Name(n.name("strings", d.U("name")), "attribute")), Kind: kind})
		s.attrs[d.U("self")] = len(s.cols) - 1
	}
	return s
}

// texts are the names of table's definitions by id, for a table whose
// ids are dense ("" for an id without a name; nil for strings and sparse
// tables, whose names events.csv looks up).
func (s *eventSchema) texts(n *defNames, table string) []render.Text {
	if table == "regions" {
		return s.region
	}
	if t, ok := s.tableTexts[table]; ok || table == "strings" {
		return t
	}
	defs := n.tables[table]
	var maxID uint64
	for id := range defs {
		maxID = max(maxID, id)
	}
	var t []render.Text
	if len(defs) > 0 && maxID <= 4*uint64(len(defs))+1024 {
		t = make([]render.Text, maxID+1)
		for id, name := range defs {
			if name != nil && *name != "" {
				t[id] = render.NewText(*name)
			}
		}
	}
	if s.tableTexts == nil {
		s.tableTexts = map[string][]render.Text{}
	}
	s.tableTexts[table] = t
	return t
}

// canHold reports whether the trace defines something of every
// definition class rec refers to.
func (n *defNames) canHold(rec otf2.RecordInfo) bool {
	for _, f := range rec.Fields {
		if t := defTables[f.Ref]; t != "" && len(n.tables[t]) == 0 {
			return false
		}
	}
	return true
}

// eventsTable is a location's events.csv.
func (t *trace) eventsTable(loc int) *render.Table {
	return &render.Table{Columns: t.schema().cols, Open: func(pos []byte) (render.Scanner, error) {
		if len(pos) == 0 && t.sizings.Add(1) == 2 { // the view is being sized
			go t.sizeEventsCSV()
		}
		f, size, err := t.files[loc].open()
		if err != nil {
			return nil, err
		}
		s := &eventsScanner{t: t, sc: t.schema(), r: t.ar.NewEventReaderAt(f, size, t.ar.Locations[loc])}
		s.cells = make([]eventCell, len(s.sc.cols))
		if len(pos) > 0 {
			r := render.NewStateReader(pos)
			p := otf2.Pos{Off: r.Int(0, math.MaxInt64), Time: r.Uint(math.MaxUint64)}
			if err := r.Err(); err != nil {
				return nil, err
			}
			s.r.Seek(p)
		}
		return s, nil
	}}
}

// sizeEventsCSV sizes every location's events.csv in the background, on
// every core but the one the reader renders on (one sizer on 2 cores),
// once a second one is being sized: whoever reads two
// locations' tables likely reads them all (cat locations/*/events.csv),
// and then finds the next ones sized, or being sized, by the time they
// come to them; whoever reads one does not pay for the others. A view
// sized already, or read back from the on-disk index, returns at once; a
// closed source's views fail at once.
func (t *trace) sizeEventsCSV() {
	var next atomic.Int64
	for range max(runtime.GOMAXPROCS(0)-1, 1) {
		go func() {
			for i := next.Add(1) - 1; i < int64(len(t.eventsCSV)); i = next.Add(1) - 1 {
				t.eventsCSV[i].Size()
			}
		}()
	}
}

// eventsScanner reads one location; its position is the reader's.
type eventsScanner struct {
	t     *trace
	sc    *eventSchema
	r     *otf2.EventReader
	ev    otf2.Event
	cells []eventCell
	enums map[enumValue]string
	args  []byte
}

type enumValue struct {
	enum string
	v    uint64
}

// An eventCell is one cell of the row being made, in column order.
type eventCell struct {
	kind uint8 // 0 empty, 'u', 'i', 'f', 's'
	u    uint64
	f    float64
	s    string
}

func (s *eventsScanner) Pos() []byte {
	p := s.r.Tell()
	var w render.StateWriter
	return w.Int(p.Off).Uint(p.Time).Bytes()
}

func (s *eventsScanner) Scan(row *render.Row) error {
	if !s.r.Next(&s.ev) {
		if err := s.r.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	ev := &s.ev
	t := s.t
	base := row.Len() // the row's column 0
	t.clock.relCell(row, ev.Time)
	nsCell(row, t.clock.ns(ev.Time))
	if name := &s.sc.events[ev.Type()]; name.String() == ev.Name() {
		row.Text(name)
	} else {
		row.Str(ev.Name())
	}
	fields := s.sc.fields[ev.Type()]
	for i := range fields {
		c := &fields[i]
		next := row.Len() - base
		if c.i >= len(ev.Vals) || c.col < next {
			continue
		}
		row.Empties(c.col - next)
		s.addField(row, c, ev)
	}
	row.Empties(s.sc.attr0 - (row.Len() - base))
	if len(ev.Attrs) == 0 {
		row.Empties(len(s.sc.cols) - s.sc.attr0)
		return nil
	}
	cells := s.cells[s.sc.attr0:]
	clear(cells)
	for _, a := range ev.Attrs {
		if col, ok := s.sc.attrs[a.ID]; ok {
			s.cells[col] = s.attrCell(s.sc.cols[col].Kind, a)
		}
	}
	for _, c := range cells {
		c.add(row)
	}
	return nil
}

// add adds the cell to row.
func (c eventCell) add(row *render.Row) {
	switch c.kind {
	case 'u':
		row.Uint(c.u)
	case 'i':
		row.Int(int64(c.u))
	case 'f':
		row.Float(c.f)
	case 's':
		row.Str(c.s)
	default:
		row.Empty()
	}
}

// addField adds field c.i of ev to row as its column shows it.
func (s *eventsScanner) addField(row *render.Row, c *fieldCell, ev *otf2.Event) {
	v := ev.Vals[c.i]
	switch c.conv {
	case cvInt:
		row.Int(int64(v))
	case cvFloat:
		row.Float(math.Float64frombits(v))
	case cvRef:
		if v < uint64(len(c.texts)) && c.texts[v].String() != "" {
			row.Text(&c.texts[v]) // the name plain gives, its quoting known
		} else {
			row.Str(s.t.names.plain(c.table, v))
		}
	case cvEnum:
		k := enumValue{c.enum, v}
		name, ok := s.enums[k]
		if !ok {
			if s.enums == nil {
				s.enums = map[enumValue]string{}
			}
			name = string(appendEnum(nil, c.enum, v))
			s.enums[k] = name
		}
		row.Str(name)
	case cvTime:
		nsCell(row, s.t.clock.ns(v))
	case cvArgs:
		b := s.args[:0]
		for j, a := range ev.Arr[0] {
			if j > 0 {
				b = append(b, ' ')
			}
			b = append(b, s.t.names.plain("strings", a)...)
		}
		s.args = b
		row.Str(string(b))
	default:
		row.Uint(v)
	}
}

// attrCell is attribute value a in a column of kind: a number as its type
// (a Number column), a reference by name (a String column). A value of
// the other sort than its definition's type is written as the column's:
// a reference's id, a number's text.
func (s *eventsScanner) attrCell(kind render.Kind, a otf2.Attr) eventCell {
	var c eventCell
	switch {
	case a.Type >= 5 && a.Type <= 8:
		c = eventCell{kind: 'i', u: a.U}
	case a.Type == 9: // FLOAT: the shortest decimal of the float32, not of its widening
		c = eventCell{kind: 'f', f: shortFloat32(math.Float64frombits(a.U))}
	case a.Type == 10:
		c = eventCell{kind: 'f', f: math.Float64frombits(a.U)}
	case otf2.IsRefType(a.Type):
		if kind == render.String {
			return eventCell{kind: 's', s: s.t.names.plain(attrTables[a.Type-11], a.U)}
		}
		return eventCell{kind: 'u', u: a.U}
	default:
		c = eventCell{kind: 'u', u: a.U}
	}
	if kind == render.String {
		return eventCell{kind: 's', s: string(appendNumber(nil, c))}
	}
	return c
}

// shortFloat32 is the double nearest to the shortest decimal that reads
// back as float32 f (held widened in f): 1e-30, where the widening's own
// shortest decimal is 1.0000000031710769e-30.
func shortFloat32(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return f
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	if err != nil {
		return f
	}
	return v
}

// appendNumber appends a numeric cell's text as a Number column writes it.
func appendNumber(dst []byte, c eventCell) []byte {
	switch c.kind {
	case 'i':
		if v := int64(c.u); v < 0 {
			return render.AppendUint(append(dst, '-'), uint64(-v))
		}
	case 'f':
		return render.AppendFloat(dst, c.f)
	}
	return render.AppendUint(dst, c.u)
}
