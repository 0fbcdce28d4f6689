package otf2

import (
	"math"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// defNames resolves definition references the way otf2-print names them:
// "name" <id>, a bare id for definitions without a name, UNDEFINED and
// INVALID <id>. It is built once from the global definitions in file
// order (a definition sees only the strings defined before it).
type defNames struct {
	strings       map[uint64]string
	tables        map[string]map[uint64]*string // table ("regions") -> id -> name, nil for none
	groups        map[uint64]*groupDef
	comms         map[uint64]*commDef
	rmaWins       map[uint64]uint64   // window -> its communicator
	cartTopos     map[uint64]uint64   // cartesian topology -> its communicator
	metrics       map[uint64][]uint64 // metric class or instance -> members
	paradigms     map[uint64]*string
	commParadigms map[uint64]*groupDef // COMM_LOCATIONS group of each paradigm
	// text is appendDef's text of each id of a table whose ids are dense
	// ("" for an id it has none for), so that events name definitions
	// without map lookups.
	text       map[string][]string
	regionName []string // the name of region id, "" for none

	// otf2-print -G prints each definition as it reads it, so a line sees
	// only the definitions before it and itself: a later one is INVALID,
	// a redefined one has its name of then. definedAt is the line of the
	// first definition of each id per table ("strings" and "paradigms"
	// included); earlier holds every (line, name) of an id defined more
	// than once.
	definedAt map[string]map[uint64]int
	earlier   map[string]map[uint64][]defVersion
	cur       int // the line add is adding
	// asOf, when set, is the line whose view the lookups take (definitions.txt).
	asOf  int
	gated bool
}

// A defVersion is the name an id had from line at until its next definition.
type defVersion struct {
	at   int
	name *string
}

type groupDef struct {
	typ, flags uint64
	members    []uint64
	locations  *groupDef // the paradigm's COMM_LOCATIONS group (COMM_GROUP, COMM_SELF)
}

type commDef struct{ a, b *groupDef }

// Group types and flags used to resolve ranks (OTF2_GroupType, OTF2_GroupFlag).
const (
	groupCommLocations = 4
	groupCommGroup     = 5
	groupCommSelf      = 6
	flagGlobalMembers  = 1
)

// defTables maps each definition class to the table otf2-print keeps it in.
var defTables = map[string]string{
	"Attribute": "attributes", "SystemTreeNode": "system_tree_nodes", "LocationGroup": "location_groups",
	"Location": "locations", "Region": "regions", "Callsite": "callsites", "Callpath": "callpaths",
	"Group": "groups", "MetricMember": "metric_members", "MetricClass": "metrics", "MetricInstance": "metrics",
	"Comm": "comms", "InterComm": "comms", "Parameter": "parameters", "RmaWin": "rma_wins",
	"CartDimension": "cart_dimensions", "CartTopology": "cart_topologys",
	"SourceCodeLocation": "source_code_locations", "CallingContext": "calling_contexts",
	"InterruptGenerator": "interrupt_generators", "IoRegularFile": "io_files", "IoDirectory": "io_files",
	"IoHandle": "io_handles", "IoParadigm": "io_paradigms",
}

func newDefNames(defs []otf2.Def) *defNames {
	n := &defNames{
		strings: map[uint64]string{}, tables: map[string]map[uint64]*string{},
		groups: map[uint64]*groupDef{}, comms: map[uint64]*commDef{}, rmaWins: map[uint64]uint64{}, cartTopos: map[uint64]uint64{},
		metrics: map[uint64][]uint64{}, paradigms: map[uint64]*string{}, commParadigms: map[uint64]*groupDef{},
	}
	for _, t := range defTables {
		n.tables[t] = map[uint64]*string{}
	}
	n.definedAt, n.earlier = map[string]map[uint64]int{}, map[string]map[uint64][]defVersion{}
	for i := range defs {
		n.cur = i
		n.add(&defs[i])
	}
	n.cacheTexts()
	return n
}

func (n *defNames) str(id uint64) *string {
	if s, ok := n.strings[id]; ok {
		return &s
	}
	return nil
}

// defined records that line n.cur defines id of table as name, which
// was old before.
func (n *defNames) defined(table string, id uint64, old, name *string) {
	at := n.definedAt[table]
	if at == nil {
		at = map[uint64]int{}
		n.definedAt[table] = at
	}
	first, ok := at[id]
	if !ok {
		at[id] = n.cur
		return
	}
	if n.earlier[table] == nil {
		n.earlier[table] = map[uint64][]defVersion{}
	}
	vs := n.earlier[table][id]
	if len(vs) == 0 {
		vs = append(vs, defVersion{first, old})
	}
	n.earlier[table][id] = append(vs, defVersion{n.cur, name})
}

func (n *defNames) add(d *otf2.Def) {
	name := d.Name()
	self := d.Fields[0].U
	set := func(s *string) {
		if t, ok := defTables[name]; ok {
			n.defined(t, self, n.tables[t][self], s)
			n.tables[t][self] = s
		}
	}
	switch name {
	case "String":
		if self != math.MaxUint32 {
			n.defined("strings", self, n.str(self), &d.Fields[1].S)
			n.strings[self] = d.Fields[1].S
		}
	case "Paradigm":
		name := n.str(d.U("name"))
		n.defined("paradigms", self, n.paradigms[self], name)
		n.paradigms[self] = name
	case "SystemTreeNode":
		cls, nm := n.str(d.U("className")), n.str(d.U("name"))
		if cls != nil && nm != nil {
			s := *cls + "::" + *nm
			set(&s)
		} else {
			set(nil)
		}
	case "Callsite", "Callpath":
		set(nil)
	case "MetricClass":
		v, _ := d.Field("numberOfMetrics")
		var m []uint64
		for _, e := range v.Elems {
			m = append(m, e[0].U)
		}
		n.metrics[self] = m
		set(nil)
	case "MetricInstance":
		n.metrics[self] = n.metrics[d.U("metricClass")]
		set(nil)
	case "Group":
		g := &groupDef{typ: d.U("groupType"), flags: d.U("groupFlags")}
		v, _ := d.Field("numberOfMembers")
		for _, e := range v.Elems {
			g.members = append(g.members, e[0].U)
		}
		par := d.U("paradigm")
		switch g.typ {
		case groupCommLocations:
			n.commParadigms[par] = g
		case groupCommGroup, groupCommSelf:
			g.locations = n.commParadigms[par]
		}
		n.groups[self] = g
		set(n.str(d.U("name")))
	case "Comm", "InterComm":
		c := &commDef{}
		if name == "Comm" {
			c.a = n.commGroup(d.U("group"))
		} else {
			c.a, c.b = n.commGroup(d.U("groupA")), n.commGroup(d.U("groupB"))
		}
		n.comms[self] = c
		set(n.str(d.U("name")))
	case "RmaWin":
		n.rmaWins[self] = d.U("comm")
		set(n.str(d.U("name")))
	case "CartTopology":
		n.cartTopos[self] = d.U("communicator")
		set(n.str(d.U("name")))
	case "SourceCodeLocation":
		if f := n.str(d.U("file")); f != nil {
			s := *f + ":" + strconv.FormatInt(int64(int32(d.U("lineNumber"))), 10)
			set(&s)
		} else {
			set(nil)
		}
	case "CallingContext":
		// region@file:line (the file without its directories)
		s := "UNDEFINED"
		if r, ok := n.tables["regions"][d.U("region")]; ok && r != nil {
			s = *r
		}
		if scl, ok := n.tables["source_code_locations"][d.U("sourceCodeLocation")]; ok && scl != nil {
			s += "@" + (*scl)[strings.LastIndexByte(*scl, '/')+1:]
		}
		set(&s)
	case "IoRegularFile":
		set(n.prefixed("file://", d.U("name")))
	case "IoDirectory":
		set(n.prefixed("directory://", d.U("name")))
	default:
		if _, ok := defTables[name]; ok {
			set(n.str(d.U("name")))
		}
	}
}

func (n *defNames) prefixed(p string, id uint64) *string {
	if s := n.str(id); s != nil {
		v := p + *s
		return &v
	}
	return nil
}

func (n *defNames) commGroup(id uint64) *groupDef {
	g := n.groups[id]
	if g == nil || (g.typ != groupCommGroup && g.typ != groupCommSelf) {
		return nil
	}
	return g
}

// appendDef appends the name of definition id of table as otf2-print
// shows it.
func (n *defNames) appendDef(dst []byte, table string, id uint64) []byte {
	return n.appendDefIn(dst, n.text[table], table, id)
}

// appendDefIn is appendDef with the table's cached texts (n.text[table]).
func (n *defNames) appendDefIn(dst []byte, text []string, table string, id uint64) []byte {
	if !n.gated && id < uint64(len(text)) && text[id] != "" {
		return append(dst, text[id]...)
	}
	return n.appendDefSlow(dst, table, id)
}

// cacheTexts keeps the text of every definition of the tables whose ids
// are dense (regions: ENTER, LEAVE; metric members; strings).
func (n *defNames) cacheTexts() {
	n.text = map[string][]string{}
	ids := func(table string) []uint64 {
		var out []uint64
		if table == "strings" {
			for id := range n.strings {
				out = append(out, id)
			}
			return out
		}
		for id := range n.tables[table] {
			out = append(out, id)
		}
		return out
	}
	for table := range n.tables {
		n.cacheTable(table, ids(table))
	}
	n.cacheTable("strings", ids("strings"))
	regions := n.text["regions"]
	n.regionName = make([]string, len(regions))
	for id := range regions {
		if name := n.tables["regions"][uint64(id)]; name != nil {
			n.regionName[id] = *name
		}
	}
}

// def is the name of definition id of table (a table of defTables, or
// "strings"), nil when it has none.
func (n *defNames) def(table string, id uint64) *string {
	if table == "strings" {
		return n.str(id)
	}
	return n.tables[table][id]
}

// name is the name of definition id of table, "" when it has none.
func (n *defNames) name(table string, id uint64) string {
	if table == "regions" && id < uint64(len(n.regionName)) {
		return n.regionName[id]
	}
	if s := n.def(table, id); s != nil {
		return *s
	}
	return ""
}

// plain is the name of definition id of table, or its id when it has
// none.
func (n *defNames) plain(table string, id uint64) string {
	if table == "regions" && id < uint64(len(n.regionName)) && n.regionName[id] != "" {
		return n.regionName[id]
	}
	if s := n.def(table, id); s != nil {
		return *s
	}
	return string(render.AppendUint(nil, id))
}

func (n *defNames) cacheTable(table string, ids []uint64) {
	maxID := uint64(0)
	for _, id := range ids {
		maxID = max(maxID, id)
	}
	if len(ids) == 0 || maxID > 4*uint64(len(ids))+1024 {
		return
	}
	text := make([]string, maxID+1)
	for _, id := range ids {
		text[id] = string(n.appendDefSlow(nil, table, id))
	}
	n.text[table] = text
}

func (n *defNames) appendDefSlow(dst []byte, table string, id uint64) []byte {
	if id == math.MaxUint64 || (table != "locations" && id == math.MaxUint32) {
		return append(dst, "UNDEFINED"...)
	}
	var name *string
	var ok bool
	if table == "strings" {
		name = n.str(id)
		ok = name != nil
	} else {
		name, ok = n.tables[table][id]
	}
	if ok && n.gated {
		name, ok = n.asOfLine(table, id, name)
	}
	if !ok {
		return appendInvalid(dst, "INVALID", id)
	}
	return appendName(dst, name, id)
}

// asOfLine is the name id of table had at line n.asOf (whose final name
// is name), and whether it was defined by then.
func (n *defNames) asOfLine(table string, id uint64, name *string) (*string, bool) {
	if at, ok := n.definedAt[table][id]; ok && at > n.asOf {
		return nil, false
	}
	vs := n.earlier[table][id]
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].at <= n.asOf {
			return vs[i].name, true
		}
	}
	return name, true
}

// atLine is n as otf2-print -G sees it when it prints line i: only the
// definitions up to line i exist.
func (n *defNames) atLine(i int) *defNames {
	g := *n
	g.asOf, g.gated = i, true
	return &g
}

func appendName(dst []byte, name *string, id uint64) []byte {
	if name == nil {
		return strconv.AppendUint(dst, id, 10)
	}
	dst = append(dst, '"')
	dst = append(dst, *name...)
	dst = append(dst, "\" <"...)
	dst = strconv.AppendUint(dst, id, 10)
	return append(dst, '>')
}

func appendInvalid(dst []byte, what string, id uint64) []byte {
	dst = append(dst, what...)
	dst = append(dst, " <"...)
	dst = strconv.AppendUint(dst, id, 10)
	return append(dst, '>')
}
