package otf2

import "slices"

// A fieldKind is how one record field is stored.
type fieldKind uint8

const (
	kU8        fieldKind = iota // raw byte
	kU16                        // raw 2 bytes
	kI8                         // raw signed byte
	kI16                        // raw signed 2 bytes
	kF32                        // raw IEEE float
	kF64                        // raw IEEE double
	kCU32                       // compressed uint32
	kCU64                       // compressed uint64
	kCI32                       // compressed int32
	kCI64                       // compressed int64
	kTime                       // raw uint64 timestamp
	kString                     // NUL-terminated bytes
	kAttrValue                  // an OTF2_Type byte read before it, then the value
	kIDMap                      // a mapping table
)

// A fieldSpec is one field of a record, in wire order.
type fieldSpec struct {
	Name    string
	Kind    fieldKind
	Ref     string // the definition class a reference points to ("" if none)
	Enum    string // the enum of the value ("" if none)
	Mapping uint8  // the mapping table type that translates it (noMapping if none)
	Attic   bool   // kept on disk for old readers, not shown
	Since   int    // OTF2 version that added it, major*100+minor
	Array   []fieldSpec
}

const noMapping = 255

type recKind uint8

const (
	recDef       recKind = iota // global and local definition
	recGlobalDef                // global only
	recLocalDef                 // local only
	recEvent
	recSnap // snapshot record (.snap files)
)

// A RecordSpec describes one record type.
type recordSpec struct {
	ID        uint8
	Name      string // OTF2 name ("MpiSend")
	Upper     string // otf2-print's name ("MPI_SEND")
	Kind      recKind
	Singleton bool // no length byte: the payload is one compressed integer
	Fields    []fieldSpec
}

var (
	globalDefSpecs [256]*recordSpec
	localDefSpecs  [256]*recordSpec
	eventSpecs     [256]*recordSpec
	snapSpecs      [256]*recordSpec
	// maxEventFields is the most scalar fields of any event record.
	maxEventFields int
)

func init() {
	for i := range recordSpecs {
		r := &recordSpecs[i]
		switch r.Kind {
		case recDef:
			globalDefSpecs[r.ID] = r
			localDefSpecs[r.ID] = r
		case recGlobalDef:
			globalDefSpecs[r.ID] = r
		case recLocalDef:
			localDefSpecs[r.ID] = r
		case recEvent:
			eventSpecs[r.ID] = r
			maxEventFields = max(maxEventFields, len(r.Fields))
		case recSnap:
			snapSpecs[r.ID] = r
			maxEventFields = max(maxEventFields, len(r.Fields))
		}
	}
}

// An enumSpec names the values of one OTF2 enum.
type enumSpec struct {
	Bitset bool // flags: a value is a set of them
	Names  map[uint64]string
}

// EnumName returns the name of value v of enum (its OTF2 constant without
// the enum's prefix, "ON" for OTF2_MEASUREMENT_ON) and whether it has one.
func EnumName(enum string, v uint64) (string, bool) {
	s, ok := enums[enum].Names[v]
	return s, ok
}

// EnumBitset reports whether enum is a set of flags.
func EnumBitset(enum string) bool { return enums[enum].Bitset }

// EnumFlags returns the names of the flags of enum set in v, in the order
// of their values, and the bits no flag names. The zero flag is not listed.
func EnumFlags(enum string, v uint64) (names []string, rest uint64) {
	e := enums[enum]
	vals := make([]uint64, 0, len(e.Names))
	for k := range e.Names {
		if k != 0 {
			vals = append(vals, k)
		}
	}
	slices.Sort(vals)
	for _, k := range vals {
		if v&k == k {
			names = append(names, e.Names[k])
			v &^= k
		}
	}
	return names, v
}

// A RecordInfo describes a record type for callers that show records.
type RecordInfo struct {
	ID     uint8
	Name   string // "MpiSend"
	Upper  string // "MPI_SEND"
	Fields []FieldInfo
}

// A FieldInfo describes one field of a record.
type FieldInfo struct {
	Name   string
	Enum   string // the enum of the value, "" if none
	Ref    string // the definition class referenced, "" if none
	Signed bool
	Float  bool
	String bool // a NUL-terminated string
	Array  bool // a count followed by elements
}

// EventRecords describes every event record type, by type byte.
func EventRecords() []RecordInfo { return infos(&eventSpecs) }

// SnapRecords describes every snapshot record type, by type byte. Those
// that repeat an event record have its name and fields, after
// origEventTime.
func SnapRecords() []RecordInfo { return infos(&snapSpecs) }

func infos(specs *[256]*recordSpec) []RecordInfo {
	var out []RecordInfo
	for _, s := range specs {
		if s != nil {
			out = append(out, s.info())
		}
	}
	return out
}

func (s *recordSpec) info() RecordInfo {
	r := RecordInfo{ID: s.ID, Name: s.Name, Upper: s.Upper}
	for _, f := range s.Fields {
		r.Fields = append(r.Fields, FieldInfo{
			Name: f.Name, Enum: f.Enum, Ref: f.Ref,
			Signed: f.Kind == kI8 || f.Kind == kI16 || f.Kind == kCI32 || f.Kind == kCI64,
			Float:  f.Kind == kF32 || f.Kind == kF64,
			String: f.Kind == kString,
			Array:  f.Array != nil,
		})
	}
	return r
}

// FieldIndex is the index of field name, or -1.
func (r *RecordInfo) FieldIndex(name string) int {
	for i := range r.Fields {
		if r.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// Info describes the event's record type.
func (e *Event) Info() RecordInfo { return e.spec.info() }
