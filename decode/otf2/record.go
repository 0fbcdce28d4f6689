package otf2

import (
	"cmp"
	"math"
	"slices"
)

// A Value is one decoded field of a definition record.
type Value struct {
	U     uint64    // integers, references, enums; float bits; attribute value bits
	S     string    // String fields
	Type  uint8     // the OTF2_Type of an attribute value
	Elems [][]Value // array fields: one []Value per element (U is the count)
	IDMap *IDMap    // MappingTable's table
}

// An IDMap translates a location's local ids to global ids.
type IDMap struct {
	Sparse bool
	Dense  []uint64    // dense: global id of local id i
	Pairs  [][2]uint64 // sparse: sorted (local, global)
}

// Map returns the global id of local id id (id itself when not in the table).
func (m *IDMap) Map(id uint64) uint64 {
	if m == nil {
		return id
	}
	if !m.Sparse {
		if id < uint64(len(m.Dense)) {
			return m.Dense[id]
		}
		return id
	}
	lo, hi := 0, len(m.Pairs)
	for lo < hi {
		mid := (lo + hi) / 2
		if m.Pairs[mid][0] < id {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(m.Pairs) && m.Pairs[lo][0] == id {
		return m.Pairs[lo][1]
	}
	return id
}

// missingDefaults are the values the reference reader gives fields that an
// older writer did not write (OTF2_GlobalDefReader.c's convert_pre_* steps).
var missingDefaults = map[string]map[string]uint64{
	"ClockProperties": {"realtimeTimestamp": math.MaxUint64},
	"LocationGroup":   {"creatingLocationGroup": math.MaxUint32},
	"Attribute":       {"description": math.MaxUint32},
	"RmaWin":          {"flags": 1},
}

// attrKinds is how a value of each OTF2_Type is stored (kIDMap: no such
// type): the numbers as their kinds, references (11 to 25) as compressed
// ids, LOCATION (13) 64 bits wide.
var attrKinds = [26]fieldKind{kIDMap, kU8, kU16, kCU32, kCU64, kI8, kI16, kCI32, kCI64, kF32, kF64,
	kCU32, kCU32, kCU64, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32, kCU32}

// attrValue reads an attribute value of OTF2_Type t.
func (c *chunkReader) attrValue(t uint8) uint64 {
	if int(t) < len(attrKinds) && attrKinds[t] != kIDMap {
		return c.scalar(attrKinds[t])
	}
	c.fail(c.offset(), "unknown attribute type", t, nil)
	return 0
}

// TypeMapping is the mapping table type that translates attribute values
// of OTF2_Type t, or noMapping.
func typeMapping(t uint8) uint8 {
	if t >= 11 && t <= 25 {
		return t - 11
	}
	return noMapping
}

// IsRefType reports whether OTF2_Type t references a definition.
func IsRefType(t uint8) bool { return t >= 11 && t <= 25 }

func (c *chunkReader) idMap() *IDMap {
	n := c.compressed(8)
	mode := c.u8()
	if c.err != nil {
		return nil
	}
	m := &IDMap{Sparse: mode == 1}
	remaining := int64(c.end - c.pos)
	if m.Sparse {
		m.Pairs = make([][2]uint64, 0, sliceCap(n, 2, remaining))
		for i := uint64(0); i < n && c.err == nil; i++ {
			l := c.compressed(8)
			g := c.compressed(8)
			m.Pairs = append(m.Pairs, [2]uint64{l, g})
		}
		sortPairs(m.Pairs)
	} else {
		m.Dense = make([]uint64, 0, sliceCap(n, 1, remaining))
		for i := uint64(0); i < n && c.err == nil; i++ {
			m.Dense = append(m.Dense, c.compressed(8))
		}
	}
	return m
}

func sliceCap(n uint64, elem, remaining int64) int {
	return int(min(n, uint64(max(remaining, 0)/elem)))
}

// readFields decodes fields in wire order into dst; a field added by a
// later version than the record's first is read only while the record has
// bytes left.
func (c *chunkReader) readFields(rec *recordSpec, fields []fieldSpec, dst []Value) {
	base := 0
	if len(fields) > 0 {
		base = fields[0].Since
	}
	var lastType uint8
	for i := range fields {
		f := &fields[i]
		if f.Since > base && c.pos >= c.end {
			dst[i].U = missingDefaults[rec.Name][f.Name]
			continue
		}
		switch f.Kind {
		case kString:
			dst[i].S = c.str()
		case kIDMap:
			dst[i].IDMap = c.idMap()
		case kAttrValue:
			dst[i].Type = lastType
			dst[i].U = c.attrValue(lastType)
		default:
			dst[i].U = c.scalar(f.Kind)
			if f.Enum == "Type" {
				lastType = uint8(dst[i].U)
			}
		}
		if f.Array != nil && c.err == nil {
			n := dst[i].U
			dst[i].Elems = make([][]Value, 0, sliceCap(n, int64(len(f.Array)), int64(c.end-c.pos)))
			for j := uint64(0); j < n && c.err == nil; j++ {
				e := make([]Value, len(f.Array))
				c.readFields(rec, f.Array, e)
				dst[i].Elems = append(dst[i].Elems, e)
			}
		}
	}
}

func sortPairs(p [][2]uint64) {
	slices.SortStableFunc(p, func(a, b [2]uint64) int { return cmp.Compare(a[0], b[0]) })
}
