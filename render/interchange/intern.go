package interchange

import (
	"bytes"
	"hash/maphash"
	"math"
)

// idTable is an open-addressing hash index of dense int32 ids: the
// caller keeps the keys (in its own arrays) and supplies their hashes and
// equality, so an entry costs one int32 slot (two per id at the highest
// load) instead of a map entry holding the key again.
type idTable struct {
	slots []int32 // id+1; 0 is empty
	n     int
}

// find returns the id whose key equals the one hashed to h (eq), or -1
// and the slot where insert puts a new id.
func (t *idTable) find(h uint64, eq func(id int32) bool) (int32, int) {
	if len(t.slots) == 0 {
		return -1, -1
	}
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1, i
		}
		if eq(s - 1) {
			return s - 1, i
		}
	}
}

// insert adds id at slot (from find); it grows the table when half full,
// hashing the ids again with hash.
func (t *idTable) insert(slot int, id int32, hash func(id int32) uint64) {
	if slot < 0 || 2*(t.n+1) > len(t.slots) {
		t.grow(hash)
		_, slot = t.find(hash(id), func(int32) bool { return false })
	}
	t.slots[slot] = id + 1
	t.n++
}

func (t *idTable) grow(hash func(id int32) uint64) {
	old := t.slots
	t.slots = make([]int32, max(64, 2*len(old)))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		i := int(hash(s-1)) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// mix is a 64-bit finalizer (splitmix64) for hashing integer keys.
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}

// strTable interns strings into one byte blob: id i is
// blob[end[i-1]:end[i]]. Id 0 is "".
type strTable struct {
	seed  maphash.Seed
	blob  []byte
	end   []uint32
	index idTable
}

func newStrTable() strTable {
	return strTable{seed: maphash.MakeSeed(), end: []uint32{0}}
}

func (s *strTable) bytes(id int32) []byte {
	lo := uint32(0)
	if id > 0 {
		lo = s.end[id-1]
	}
	return s.blob[lo:s.end[id]:s.end[id]]
}

// Len is the number of strings.
func (s *strTable) Len() int { return len(s.end) }

func (s *strTable) hashOf(id int32) uint64 { return maphash.Bytes(s.seed, s.bytes(id)) }

// id interns v.
func (s *strTable) id(v string) int32 {
	if v == "" {
		return 0
	}
	h := maphash.String(s.seed, v)
	id, slot := s.index.find(h, func(id int32) bool { return string(s.bytes(id)) == v })
	if id >= 0 {
		return id
	}
	if len(s.blob)+len(v) > math.MaxUint32 {
		return 0 // more than 4 GiB of distinct names: shown as [unknown]
	}
	id = int32(len(s.end))
	s.blob = append(s.blob, v...)
	s.end = append(s.end, uint32(len(s.blob)))
	s.index.insert(slot, id, s.hashOf)
	return id
}

// compare orders two interned strings as strings.Compare does.
func (s *strTable) compare(a, b int32) int { return bytes.Compare(s.bytes(a), s.bytes(b)) }
