package otf2

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
		}
	}
}

// EnumName returns OTF2's constant name for value v of enum name, or "".
func EnumName(enum string, v uint64) string {
	return enumNames[enum][v]
}
