package hpcdb

import "encoding/binary"

// Damage of the 4.0 generation's files, for tests of what hpcfs reports.

// SetContextCount rewrites the context count in the header of a 4.0
// cct.db.
func SetContextCount(cct []byte, n uint32) { binary.BigEndian.PutUint32(cct[18:], n) }

// tupleElem is the size of one identifier of a 4.0 tuple: kind u16,
// physical u64, logical u64.
const tupleElem = 18

// TupleSize is the size of the 4.0 identifier tuple at off of profile.db:
// its u16 count and the identifiers.
func TupleSize(profile []byte, off uint64) int {
	return 2 + tupleElem*int(binary.BigEndian.Uint16(profile[off:]))
}

// SetTupleCount rewrites the identifier count of the tuple at off.
func SetTupleCount(profile []byte, off uint64, n uint16) {
	binary.BigEndian.PutUint16(profile[off:], n)
}

// SetTupleKind rewrites the kind of identifier j of the tuple at off.
func SetTupleKind(profile []byte, off uint64, j int, kind uint16) {
	binary.BigEndian.PutUint16(profile[off+2+uint64(j)*tupleElem:], kind)
}

// TupleKind is the kind of identifier j of the tuple at off.
func TupleKind(profile []byte, off uint64, j int) uint16 {
	return binary.BigEndian.Uint16(profile[off+2+uint64(j)*tupleElem:])
}
