package otf2

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/hpcfs/hpcfs/decode/otf2"
)

// A defLayout is how otf2-print -G shows one global definition record.
type defLayout struct {
	Name    string // the definition column
	IDField string // the field in the id column ("" for none)
	Tail    bool   // the line goes on with a list (members, dimensions, ...)
	Segs    []printSeg
}

// defColumn is otf2-print's width of the definition name column.
const defColumn = 27

// definitionsHeader is what otf2-print -G prints before the definitions.
const definitionsHeader = "\n=== OTF2-PRINT ===\n\n=== Global Definitions =========================================================\n\n" +
	"Definition                            ID  Attributes\n" +
	"--------------------------------------------------------------------------------\n"

// appendDefinition appends otf2-print -G's line of global definition d.
func (n *defNames) appendDefinition(dst []byte, d *otf2.Def) []byte {
	info := d.Info()
	l, ok := defLayouts[strings.ToLower(info.Upper)]
	if !ok {
		return append(appendPadRight(dst, "UNKNOWN", defColumn), '\n')
	}
	dst = appendPadRight(dst, l.Name, defColumn)
	dst = append(dst, ' ')
	var id []byte
	if i := info.FieldIndex(l.IDField); i >= 0 {
		id = strconv.AppendUint(nil, d.Fields[i].U, 10)
	}
	dst = appendPadLeft(dst, id, 12)
	dst = append(dst, "  "...)
	for _, s := range l.Segs {
		dst = append(dst, s.Text...)
		dst = n.appendDefSeg(dst, d, &info, &s)
	}
	if l.Tail {
		dst = n.appendDefTail(dst, d, &info)
	}
	return append(dst, '\n')
}

func (n *defNames) appendDefSeg(dst []byte, d *otf2.Def, info *otf2.RecordInfo, s *printSeg) []byte {
	i := info.FieldIndex(s.Field)
	var v otf2.Value
	var f otf2.FieldInfo
	if i >= 0 {
		v, f = d.Fields[i], info.Fields[i]
	}
	switch s.Arg {
	case argNone:
		return dst
	case argDef:
		return n.appendDef(dst, s.Table, v.U)
	case argParadigm:
		return n.appendParadigm(dst, v.U)
	case argEnum:
		return appendEnum(dst, f.Enum, v.U)
	case argValue:
		t, _ := d.Field(s.Aux)
		return n.appendValue(dst, uint8(t.U), v.U)
	case argPlural:
		if v.U == 1 {
			return append(dst, s.Table...)
		}
		return append(dst, s.Aux...)
	case argInt:
		switch {
		case i < 0: // a variable of otf2-print's, not a field
			return n.appendSpecial(dst, d, s.Field)
		case f.String:
			return append(dst, v.S...)
		case f.Signed:
			return strconv.AppendInt(dst, int64(v.U), 10)
		}
		return strconv.AppendUint(dst, v.U, 10)
	case argSpecial:
		return n.appendSpecial(dst, d, s.Field)
	}
	return dst
}

func (n *defNames) appendParadigm(dst []byte, v uint64) []byte {
	if name, ok := n.paradigms[v]; ok {
		if n.gated {
			name, ok = n.asOfLine("paradigms", v, name)
		}
		if ok {
			return appendName(dst, name, v)
		}
	}
	return appendEnum(dst, "Paradigm", v)
}

// appendSpecial appends the values otf2-print computes from several fields.
func (n *defNames) appendSpecial(dst []byte, d *otf2.Def, expr string) []byte {
	switch {
	case expr == "trace_date_buffer":
		rt := d.U("realtimeTimestamp")
		if rt == math.MaxUint64 {
			return append(dst, "UNDEFINED"...)
		}
		// otf2-print uses local time; hpcfs shows UTC (the oracles run with TZ=UTC).
		tm := time.Unix(int64(rt/1e9), 0).UTC()
		dst = tm.AppendFormat(dst, "2006-01-02 15:04:05.")
		ns := strconv.FormatUint(rt%1e9, 10)
		dst = append(dst, strings.Repeat("0", 9-len(ns))...)
		dst = append(dst, ns...)
		return tm.AppendFormat(append(dst, ' '), "-0700")
	case expr == "type_string":
		t := d.U("type")
		if p, _ := otf2.EnumName("ParadigmProperty", d.U("property")); p == "RMA_ONLY" && t >= 1 && t <= 8 {
			return append(dst, "BOOLEAN"...)
		}
		return appendEnum(dst, "Type", t)
	case expr == "value_string":
		t, v := d.U("type"), d.U("value")
		switch p, _ := otf2.EnumName("ParadigmProperty", d.U("property")); p {
		case "COMM_NAME_TEMPLATE", "RMA_WIN_NAME_TEMPLATE":
			if t != 11 {
				return appendInvalid(dst, "TYPE MISMATCH", v)
			}
			return n.appendDef(dst, "strings", v)
		case "RMA_ONLY":
			if t < 1 || t > 8 {
				return appendInvalid(dst, "TYPE MISMATCH", v)
			}
			if v != 0 {
				return append(dst, "TRUE"...)
			}
			return append(dst, "FALSE"...)
		}
		return appendInvalid(dst, "UNKNOWN PROPERTY", v)
	case strings.HasPrefix(expr, "otf2_print_get_scope_name"):
		scope := d.U("scope")
		table := map[string]string{"LOCATION": "locations", "LOCATION_GROUP": "location_groups",
			"SYSTEM_TREE_NODE": "system_tree_nodes", "GROUP": "groups"}
		name, _ := otf2.EnumName("MetricScope", d.U("metricScope"))
		if t, ok := table[name]; ok {
			if t == "locations" {
				return n.appendDef(dst, t, scope)
			}
			return n.appendDef64(dst, t, scope)
		}
		if scope == math.MaxUint64 {
			return append(dst, "UNDEFINED"...)
		}
		return strconv.AppendUint(dst, scope, 10)
	case strings.HasPrefix(expr, "otf2_print_cart_topology_get_rank_name"):
		rank := d.U("rank")
		if rank == math.MaxUint32 {
			return append(dst, "UNDEFINED"...)
		}
		if c, ok := n.cartTopos[d.U("cartTopology")]; ok {
			if _, ok := n.comms[c]; ok {
				return n.appendRank(dst, math.MaxUint64, n.comms[c], c, rank)
			}
		}
		dst = strconv.AppendUint(dst, rank, 10)
		return append(dst, " (INVALID)"...)
	}
	return dst
}

// appendDef64 is appendDef for a 64-bit reference into a 32-bit table
// (only all ones is UNDEFINED).
func (n *defNames) appendDef64(dst []byte, table string, id uint64) []byte {
	if id == math.MaxUint32 {
		if name, ok := n.tables[table][id]; ok {
			if n.gated {
				name, ok = n.asOfLine(table, id, name)
			}
			if ok {
				return appendName(dst, name, id)
			}
		}
		return appendInvalid(dst, "INVALID", id)
	}
	return n.appendDef(dst, table, id)
}

// appendDefTail appends the lists of the definitions that have one.
func (n *defNames) appendDefTail(dst []byte, d *otf2.Def, info *otf2.RecordInfo) []byte {
	switch info.Upper {
	case "GROUP":
		v, _ := d.Field("numberOfMembers")
		typ, _ := otf2.EnumName("GroupType", d.U("groupType"))
		locs := n.commParadigms[d.U("paradigm")]
		for i, e := range v.Elems {
			dst = append(dst, sep(i)...)
			m := e[0].U
			switch typ {
			case "LOCATIONS", "COMM_LOCATIONS":
				dst = n.appendDef(dst, "locations", m)
			case "REGIONS":
				dst = n.appendDef64(dst, "regions", m)
			case "METRIC":
				dst = n.appendDef64(dst, "metric_members", m)
			case "COMM_GROUP":
				dst = strconv.AppendUint(dst, m, 10)
				dst = append(dst, " ("...)
				if typ == "COMM_GROUP" && locs != nil && m < uint64(len(locs.members)) {
					dst = n.appendDef(dst, "locations", locs.members[m])
				} else {
					dst = append(dst, "INVALID"...)
				}
				dst = append(dst, ')')
			default:
				if m == math.MaxUint64 {
					dst = append(dst, "UNDEFINED"...)
				} else {
					dst = strconv.AppendUint(dst, m, 10)
				}
			}
		}
	case "METRIC_CLASS":
		v, _ := d.Field("numberOfMetrics")
		for i, e := range v.Elems {
			dst = append(dst, sep(i)...)
			dst = n.appendDef(dst, "metric_members", e[0].U)
		}
	case "CART_TOPOLOGY":
		v, _ := d.Field("numberOfDimensions")
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = n.appendDef(dst, "cart_dimensions", e[0].U)
		}
		dst = append(dst, ')')
	case "CART_COORDINATE":
		v, _ := d.Field("numberOfDimensions")
		for i, e := range v.Elems {
			if i > 0 {
				dst = append(dst, ", "...)
			}
			dst = strconv.AppendUint(dst, e[0].U, 10)
		}
		dst = append(dst, ')')
	case "IO_PARADIGM":
		v, _ := d.Field("numberOfProperties")
		for i, e := range v.Elems {
			dst = append(dst, sep(i)...)
			dst = append(dst, '(')
			dst = appendEnum(dst, "IoParadigmProperty", e[0].U)
			dst = append(dst, "; "...)
			dst = appendEnum(dst, "Type", e[1].U)
			dst = append(dst, "; "...)
			if p, _ := otf2.EnumName("IoParadigmProperty", e[0].U); p != "VERSION" {
				dst = appendInvalid(dst, "UNKNOWN I/O PROPERTY", e[2].U)
			} else if e[1].U != 11 {
				dst = appendInvalid(dst, "TYPE MISMATCH", e[2].U)
			} else {
				dst = n.appendDef(dst, "strings", e[2].U)
			}
			dst = append(dst, ')')
		}
	}
	return dst
}
