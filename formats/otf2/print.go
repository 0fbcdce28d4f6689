package otf2

import (
	"math"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// An eventLayout is how otf2-print shows one event record.
type eventLayout struct {
	Name string // the event column ("PARAMETER_INT64" for ParameterInt)
	Segs []printSeg
}

// A printSeg is one value of an otf2-print event line: the text before it
// and how it shows which field.
type printSeg struct {
	Text  string
	Arg   printArg
	Field string // record field ("time" is the event's time)
	Table string // argDef: the definition table
	Aux   string // argComm*/argRmaWin*: the communicator or window field
}

type printArg uint8

const (
	argNone       printArg = iota // only the text
	argTime                       // a timestamp
	argDef                        // a definition reference
	argCommRank                   // a rank of a communicator
	argCommRoot                   // a collective root of a communicator
	argRmaWinRank                 // a rank of an RMA window's communicator
	argRmaWinRoot                 // a collective root of an RMA window
	argParadigm                   // a paradigm by its Paradigm definition
	argID32                       // a 32-bit id (UNDEFINED for all ones)
	argID64                       // a 64-bit id
	argInt64                      // a signed value (UNDEFINED for INT64_MIN)
	argEnum                       // an enum value by its name
	argInt                        // a number as written (a string field: its text)
	argValue                      // an attribute value whose type is field Aux
	argPlural                     // Table if field is 1, else Aux
	argSpecial                    // computed from several fields; Field is otf2-print's expression
)

// eventColumn is otf2-print's width of the event name column.
const eventColumn = 32

// An eventPrinter renders events as otf2-print's lines.
type eventPrinter struct {
	names  *defNames
	layout [256][]boundSeg
	label  [256]string
	// labelCol is label padded to the event column, and the space after it.
	labelCol [256]string
	// origTime is the index of a snapshot record's origEventTime, the
	// time otf2-print shows for it (-1: the record's own time).
	origTime [256]int
	shape    [256]lineShape
	// Cached texts of the definitions events name most.
	strings, metricMembers, metrics []string
}

// A lineShape is how the text after an event's timestamp is made.
type lineShape uint8

const (
	shapeSegs         lineShape = iota // the record's layout
	shapeMetric                        // METRIC's values
	shapeProgramBegin                  // PROGRAM_BEGIN's arguments
)

// A boundSeg is a printSeg with its fields resolved to indexes in the record.
type boundSeg struct {
	printSeg
	field, aux int      // -1: the event time
	enum       string   // argEnum: the field's enum
	signed     bool     // argInt: a signed field
	text       []string // argDef: the table's cached texts
}

// newEventPrinter returns the printer of records (events or snapshot
// records); snap selects otf2-print's snapshot callbacks.
func newEventPrinter(n *defNames, records []otf2.RecordInfo, snap bool) *eventPrinter {
	p := &eventPrinter{names: n, strings: n.text["strings"], metricMembers: n.text["metric_members"], metrics: n.text["metrics"]}
	for _, r := range records {
		p.label[r.ID] = r.Upper
		p.origTime[r.ID] = r.FieldIndex("origEventTime")
		switch r.Upper {
		case "METRIC":
			p.shape[r.ID] = shapeMetric
		case "PROGRAM_BEGIN":
			p.shape[r.ID] = shapeProgramBegin
		}
		l, ok := eventLayouts["snap_"+strings.ToLower(r.Upper)]
		if !ok || !snap {
			l, ok = eventLayouts[strings.ToLower(r.Upper)]
		}
		if !ok {
			p.labelCol[r.ID] = string(append(appendPadRight(nil, r.Upper, eventColumn), ' '))
			continue
		}
		p.label[r.ID] = l.Name
		p.labelCol[r.ID] = string(append(appendPadRight(nil, l.Name, eventColumn), ' '))
		var b []boundSeg
		for _, s := range l.Segs {
			bs := boundSeg{printSeg: s, field: r.FieldIndex(s.Field), aux: r.FieldIndex(s.Aux)}
			if bs.field >= 0 {
				bs.enum = r.Fields[bs.field].Enum
				bs.signed = r.Fields[bs.field].Signed
			}
			if s.Arg == argDef {
				bs.text = n.text[s.Table]
			}
			b = append(b, bs)
		}
		p.layout[r.ID] = b
	}
	return p
}

func (p *eventPrinter) value(ev *otf2.Event, i int) uint64 {
	if i < 0 {
		return ev.Time
	}
	return ev.Vals[i]
}

// locationColumn is otf2-print's location column of location loc, and the
// space after it.
func locationColumn(loc uint64) string {
	return string(append(appendPadLeft(nil, strconv.AppendUint(nil, loc, 10), 15), ' '))
}

// shownTime is the time otf2-print shows for ev.
func (p *eventPrinter) shownTime(ev *otf2.Event) uint64 {
	if i := p.origTime[ev.Type()]; i >= 0 {
		return ev.Vals[i]
	}
	return ev.Time
}

// appendEvent appends the line(s) of ev at location loc, whose location
// column is locCol.
func (p *eventPrinter) appendEvent(dst []byte, loc uint64, locCol string, ev *otf2.Event) []byte {
	return p.appendEventTimes(dst, loc, locCol, ev, nil)
}

// appendEventTimes is appendEvent with the decimal prefix of the times
// (nil: none), kept by a cursor whose times increase.
func (p *eventPrinter) appendEventTimes(dst []byte, loc uint64, locCol string, ev *otf2.Event, times *render.DecimalPrefix) []byte {
	typ := ev.Type()
	dst = append(dst, p.labelCol[typ]...)
	dst = append(dst, locCol...)
	dst = appendTimeColumn(dst, p.shownTime(ev), times)
	n := p.names
	switch p.shape[typ] {
	case shapeMetric:
		dst = p.appendMetric(dst, ev)
	case shapeProgramBegin:
		k := p.origTime[typ] + 1
		dst = append(dst, "Name: "...)
		dst = n.appendDefIn(dst, p.strings, "strings", ev.Vals[k])
		dst = append(dst, ", "...)
		dst = appendCount(dst, ev.Vals[k+1], "Argument", "s")
		for i, a := range ev.Arr[0] {
			dst = append(dst, sep(i)...)
			dst = n.appendDefIn(dst, p.strings, "strings", a)
		}
	default:
		for i := range p.layout[typ] {
			s := &p.layout[typ][i]
			dst = append(dst, s.Text...)
			dst = p.appendSeg(dst, loc, ev, s)
		}
	}
	dst = append(dst, '\n')
	return p.appendAttrs(dst, ev.Attrs)
}

// lineLen is len(appendEvent(nil, loc, locCol, ev)), counted without
// rendering the values whose length is known (numbers, cached names);
// the others are rendered into *scratch.
func (p *eventPrinter) lineLen(loc uint64, locCol string, ev *otf2.Event, scratch *[]byte) int {
	typ := ev.Type()
	n := len(p.labelCol[typ]) + len(locCol) + timeColumnLen(p.shownTime(ev)) + 1
	if k := p.metricLen(ev); p.shape[typ] == shapeMetric && k >= 0 && len(ev.Attrs) == 0 {
		return n + k
	}
	if p.shape[typ] != shapeSegs {
		*scratch = p.appendEvent((*scratch)[:0], loc, locCol, ev)
		return len(*scratch)
	}
	for i := range p.layout[typ] {
		s := &p.layout[typ][i]
		n += len(s.Text)
		if k := p.segLen(ev, s); k >= 0 {
			n += k
			continue
		}
		*scratch = p.appendSeg((*scratch)[:0], loc, ev, s)
		n += len(*scratch)
	}
	if len(ev.Attrs) > 0 {
		*scratch = p.appendAttrs((*scratch)[:0], ev.Attrs)
		n += len(*scratch)
	}
	return n
}

// segLen is the length of appendSeg's text when it is known without
// rendering, else -1.
func (p *eventPrinter) segLen(ev *otf2.Event, s *boundSeg) int {
	v := p.value(ev, s.field)
	switch s.Arg {
	case argNone:
		return 0
	case argTime:
		return numLen(v == math.MaxUint64, false, v)
	case argDef:
		if v < uint64(len(s.text)) && s.text[v] != "" {
			return len(s.text[v])
		}
		return -1
	case argID32:
		return numLen(v == math.MaxUint32, false, v)
	case argID64:
		return numLen(v == math.MaxUint64, false, v)
	case argInt64:
		return numLen(int64(v) == math.MinInt64, true, v)
	case argInt, argValue, argPlural, argSpecial:
		return numLen(false, s.signed, v)
	}
	return -1
}

// numLen is the length of UNDEFINED when undef, else of v in decimal
// (signed: as an int64).
func numLen(undef, signed bool, v uint64) int {
	switch {
	case undef:
		return len("UNDEFINED")
	case signed && int64(v) < 0:
		return 1 + render.DecimalLen(-v)
	}
	return render.DecimalLen(v)
}

func sep(i int) string {
	if i == 0 {
		return ": "
	}
	return ", "
}

// appendCount appends "n Values" or "1 Value".
func appendCount(dst []byte, n uint64, word, plural string) []byte {
	dst = strconv.AppendUint(dst, n, 10)
	dst = append(dst, ' ')
	dst = append(dst, word...)
	if n != 1 {
		dst = append(dst, plural...)
	}
	return dst
}

func (p *eventPrinter) appendMetric(dst []byte, ev *otf2.Event) []byte {
	n := p.names
	k := p.origTime[ev.Type()] + 1
	dst = append(dst, "Metric: "...)
	dst = n.appendDefIn(dst, p.metrics, "metrics", ev.Vals[k])
	dst = append(dst, ", "...)
	dst = appendCount(dst, ev.Vals[k+1], "Value", "s")
	members, known := n.metrics[ev.Vals[k]]
	for i, t := range ev.Arr[0] {
		v := ev.Arr[1][i]
		dst = append(dst, sep(i)...)
		dst = append(dst, '(')
		if known && i < len(members) {
			dst = n.appendDefIn(dst, p.metricMembers, "metric_members", members[i])
		} else {
			dst = append(dst, "INVALID"...)
		}
		switch t {
		case typeInt64:
			dst = append(dst, "; INT64; "...)
			if int64(v) < 0 {
				dst, v = append(dst, '-'), -v
			}
			dst = render.AppendUint(dst, v)
		case typeUint64:
			dst = append(dst, "; UINT64; "...)
			dst = render.AppendUint(dst, v)
		case typeDouble:
			dst = append(dst, "; DOUBLE; "...)
			dst = render.AppendC(dst, math.Float64frombits(v), 'g')
		default:
			dst = append(dst, "; "...)
			dst = appendInvalid(dst, "INVALID", t)
			dst = append(dst, "; "...)
			h := strconv.FormatUint(v, 16)
			for k := len(h); k < 8; k++ {
				dst = append(dst, '0')
			}
			dst = append(dst, h...)
		}
		dst = append(dst, ')')
	}
	return dst
}

// metricLen is the length of appendMetric's text when the metric, its
// members and the values' types are known and no value is a double, else
// -1.
func (p *eventPrinter) metricLen(ev *otf2.Event) int {
	k := p.origTime[ev.Type()] + 1
	if k+1 >= len(ev.Vals) || ev.Vals[k] >= uint64(len(p.metrics)) || p.metrics[ev.Vals[k]] == "" {
		return -1
	}
	members := p.names.metrics[ev.Vals[k]]
	count := ev.Vals[k+1]
	n := len("Metric: ") + len(p.metrics[ev.Vals[k]]) + len(", ") + render.DecimalLen(count) + len(" Value")
	if count != 1 {
		n++
	}
	for i, t := range ev.Arr[0] {
		if i >= len(members) || members[i] >= uint64(len(p.metricMembers)) || p.metricMembers[members[i]] == "" {
			return -1
		}
		n += len(", (") + len(p.metricMembers[members[i]]) + len(")")
		switch t {
		case typeInt64:
			n += len("; INT64; ") + numLen(false, true, ev.Arr[1][i])
		case typeUint64:
			n += len("; UINT64; ") + render.DecimalLen(ev.Arr[1][i])
		default:
			return -1
		}
	}
	return n
}

// OTF2_Type values.
const (
	typeInt64  = 8
	typeUint64 = 4
	typeDouble = 10
)

func (p *eventPrinter) appendSeg(dst []byte, loc uint64, ev *otf2.Event, s *boundSeg) []byte {
	if s.Arg == argNone {
		return dst
	}
	v := p.value(ev, s.field)
	n := p.names
	switch s.Arg {
	case argTime:
		return appendTime(dst, v)
	case argDef:
		return n.appendDefIn(dst, s.text, s.Table, v)
	case argCommRank:
		return n.appendRank(dst, loc, n.comms[p.value(ev, s.aux)], p.value(ev, s.aux), v)
	case argCommRoot:
		return n.appendRoot(dst, loc, p.value(ev, s.aux), v, false)
	case argRmaWinRank:
		c := n.rmaWins[p.value(ev, s.aux)]
		return n.appendRank(dst, loc, n.comms[c], c, v)
	case argRmaWinRoot:
		return n.appendRoot(dst, loc, p.value(ev, s.aux), v, true)
	case argParadigm:
		if name, ok := n.paradigms[v]; ok {
			return appendName(dst, name, v)
		}
		return appendEnum(dst, "Paradigm", v)
	case argID32:
		if v == math.MaxUint32 {
			return append(dst, "UNDEFINED"...)
		}
		return strconv.AppendUint(dst, v, 10)
	case argID64:
		if v == math.MaxUint64 {
			return append(dst, "UNDEFINED"...)
		}
		return strconv.AppendUint(dst, v, 10)
	case argInt64:
		if int64(v) == math.MinInt64 {
			return append(dst, "UNDEFINED"...)
		}
		return strconv.AppendInt(dst, int64(v), 10)
	case argEnum:
		return appendEnum(dst, s.enum, v)
	}
	if s.signed {
		return strconv.AppendInt(dst, int64(v), 10)
	}
	return strconv.AppendUint(dst, v, 10)
}

// appendEnum appends an enum value as otf2-print does: its name, a set of
// flags in braces ("NONE" for none), INVALID <v> for an unknown value.
func appendEnum(dst []byte, enum string, v uint64) []byte {
	if !otf2.EnumBitset(enum) {
		if s, ok := otf2.EnumName(enum, v); ok {
			return append(dst, s...)
		}
		return appendInvalid(dst, "INVALID", v)
	}
	if v == 0 {
		return append(dst, "NONE"...)
	}
	names, rest := otf2.EnumFlags(enum, v)
	dst = append(dst, '{')
	for i, s := range names {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, s...)
	}
	if rest != 0 {
		if len(names) > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, "INVALID <0x"...)
		dst = strconv.AppendUint(dst, rest, 16)
		dst = append(dst, '>')
	}
	return append(dst, '}')
}

func appendTime(dst []byte, t uint64) []byte {
	if t == math.MaxUint64 {
		return append(dst, "UNDEFINED"...)
	}
	return render.AppendUint(dst, t)
}

// timeWidth is otf2-print's width of the timestamp column.
const timeWidth = 20

// appendTimeColumn appends the timestamp column and the two spaces after
// it, with the decimal prefix times when not nil.
func appendTimeColumn(dst []byte, t uint64, times *render.DecimalPrefix) []byte {
	k := len("UNDEFINED")
	if t != math.MaxUint64 {
		k = render.DecimalLen(t)
	}
	dst = append(dst, spaces[:max(timeWidth-k, 0)]...)
	if times != nil && t != math.MaxUint64 {
		dst = times.AppendUint(dst, t)
	} else {
		dst = appendTime(dst, t)
	}
	return append(dst, "  "...)
}

// timeColumnLen is the length of appendTimeColumn's text.
func timeColumnLen(t uint64) int {
	k := len("UNDEFINED")
	if t != math.MaxUint64 {
		k = render.DecimalLen(t)
	}
	return max(timeWidth, k) + 2
}

const spaces = "                    "

func appendPadRight(dst []byte, s string, w int) []byte {
	dst = append(dst, s...)
	for i := len(s); i < w; i++ {
		dst = append(dst, ' ')
	}
	return dst
}

func appendPadLeft(dst []byte, s []byte, w int) []byte {
	for i := len(s); i < w; i++ {
		dst = append(dst, ' ')
	}
	return append(dst, s...)
}

// appendRank appends "rank (location name)" of rank in communicator c
// (id comm) seen from location loc.
func (n *defNames) appendRank(dst []byte, loc uint64, c *commDef, comm, rank uint64) []byte {
	if rank == math.MaxUint32 {
		return append(dst, "UNDEFINED"...)
	}
	dst = strconv.AppendUint(dst, rank, 10)
	dst = append(dst, " ("...)
	start := len(dst)
	if c != nil {
		g := c.a
		if c.b != nil && g != nil && g.locations != nil {
			for _, m := range g.members {
				if m < uint64(len(g.locations.members)) && g.locations.members[m] == loc {
					g = c.b
					break
				}
			}
		}
		switch {
		case g == nil:
		case g.typ == groupCommSelf:
			if rank == 0 {
				dst = n.appendDef(dst, "locations", loc)
			}
		case g.typ == groupCommGroup && g.locations != nil:
			locs := g.locations.members
			if g.flags&flagGlobalMembers != 0 {
				if rank < uint64(len(locs)) {
					dst = n.appendDef(dst, "locations", locs[rank])
				}
			} else if rank < uint64(len(g.members)) && g.members[rank] < uint64(len(locs)) {
				dst = n.appendDef(dst, "locations", locs[g.members[rank]])
			}
		}
	}
	if len(dst) == start {
		dst = append(dst, "INVALID"...)
	}
	return append(dst, ')')
}

func (n *defNames) appendRoot(dst []byte, loc, ref, root uint64, win bool) []byte {
	if s, ok := otf2.EnumName("CollectiveRoot", root); ok && root >= math.MaxUint32-2 {
		return append(dst, s...)
	}
	comm := ref
	if win {
		comm = n.rmaWins[ref]
	}
	return n.appendRank(dst, loc, n.comms[comm], comm, root)
}

// appendAttrs appends otf2-print's ADDITIONAL ATTRIBUTES line.
func (p *eventPrinter) appendAttrs(dst []byte, attrs []otf2.Attr) []byte {
	if len(attrs) == 0 {
		return dst
	}
	dst = appendPadRight(dst, "", eventColumn+38)
	dst = append(dst, " ADDITIONAL ATTRIBUTES: "...)
	for i, a := range attrs {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '(')
		dst = p.names.appendDef(dst, "attributes", a.ID)
		dst = append(dst, "; "...)
		dst = appendEnum(dst, "Type", uint64(a.Type))
		dst = append(dst, "; "...)
		dst = p.names.appendValue(dst, a.Type, a.U)
		dst = append(dst, ')')
	}
	return append(dst, '\n')
}

// attrTables is the definition table of each reference OTF2_Type (11..25).
var attrTables = []string{"strings", "attributes", "locations", "regions", "groups", "metrics", "comms",
	"parameters", "rma_wins", "source_code_locations", "calling_contexts", "interrupt_generators",
	"io_files", "io_handles", "location_groups"}

// appendValue appends an attribute value of OTF2_Type t.
func (n *defNames) appendValue(dst []byte, t uint8, v uint64) []byte {
	switch {
	case t >= 1 && t <= 4:
		return strconv.AppendUint(dst, v, 10)
	case t >= 5 && t <= 8:
		return strconv.AppendInt(dst, int64(v), 10)
	case t == 9 || t == 10:
		return render.AppendC(dst, math.Float64frombits(v), 'g')
	case t >= 11 && t <= 25:
		return n.appendDef(dst, attrTables[t-11], v)
	}
	return strconv.AppendUint(dst, v, 10)
}
