package interchange

import (
	"hash/maphash"
	"math"
	"math/bits"
)

// idTable is an open-addressing hash index of dense int32 ids: the
// caller keeps the keys (in its own arrays) and supplies their hashes and
// equality, so an entry costs one 32-bit slot (two per id at the highest
// load) instead of a map entry holding the key again. A slot keeps the
// top bits of its key's hash above the id (the bits the id leaves free),
// so that a lookup compares keys (which may be in a spilled column, a
// read from disk) almost only for the key it finds.
type idTable struct {
	slots []uint32 // 0 is empty; else id+1 in the low bits, a tag above
	bits  uint     // log2(len(slots)): the id's bits (ids+1 < len/2)
	n     int
}

// tag is the top bits of h, where a slot keeps them.
func (t *idTable) tag(h uint64) uint32 { return uint32(h>>(32+t.bits)) << t.bits }

// find returns the id whose key equals the one hashed to h (eq), or -1
// and the slot where insert puts a new id.
func (t *idTable) find(h uint64, eq func(id int32) bool) (int32, int) {
	if len(t.slots) == 0 {
		return -1, -1
	}
	mask := len(t.slots) - 1
	tag, ids := t.tag(h), uint32(mask)
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return -1, i
		}
		if s&^ids == tag && eq(int32(s&ids)-1) {
			return int32(s&ids) - 1, i
		}
	}
}

// insert adds id, whose key hashes to h, at slot (from find); it grows
// the table when half full, hashing the ids again with hash.
func (t *idTable) insert(slot int, id int32, h uint64, hash func(id int32) uint64) {
	if slot < 0 || 2*(t.n+1) > len(t.slots) {
		t.grow(hash)
		_, slot = t.find(h, func(int32) bool { return false })
	}
	t.slots[slot] = uint32(id+1) | t.tag(h)
	t.n++
}

func (t *idTable) grow(hash func(id int32) uint64) {
	old, oldBits := t.slots, t.bits
	t.slots = make([]uint32, max(64, 2*len(old)))
	t.bits = uint(bits.TrailingZeros(uint(len(t.slots))))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s == 0 {
			continue
		}
		id := int32(s&(1<<oldBits-1)) - 1
		h := hash(id)
		i := int(h) & mask
		for t.slots[i] != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = uint32(id+1) | t.tag(h)
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

// strTable interns strings into one byte column: id i is
// blob[end[i-1]:end[i]]. Id 0 is "".
type strTable struct {
	seed    maphash.Seed
	blob    column[uint8]
	end     column[uint32]
	index   idTable
	scratch []byte // for id and hashOf, which run only while building
}

// init makes s hold only "".
func (s *strTable) init() {
	s.seed = maphash.MakeSeed()
	s.end.append(0)
}

// appendBytes appends string id to dst.
func (s *strTable) appendBytes(dst []byte, id int32) []byte {
	lo := uint32(0)
	if id > 0 {
		lo = s.end.get(int(id - 1))
	}
	return s.blob.appendRow(dst, int(lo), int(s.end.get(int(id))-lo))
}

// Len is the number of strings.
func (s *strTable) Len() int { return s.end.Len() }

func (s *strTable) hashOf(id int32) uint64 {
	s.scratch = s.appendBytes(s.scratch[:0], id)
	return maphash.Bytes(s.seed, s.scratch)
}

// id interns v.
func (s *strTable) id(v string) int32 {
	if v == "" {
		return 0
	}
	h := maphash.String(s.seed, v)
	id, slot := s.index.find(h, func(id int32) bool {
		s.scratch = s.appendBytes(s.scratch[:0], id)
		return string(s.scratch) == v
	})
	if id >= 0 {
		return id
	}
	if s.blob.Len()+len(v) > math.MaxUint32 {
		return 0 // more than 4 GiB of distinct names: shown as [unknown]
	}
	id = int32(s.end.Len())
	for i := range len(v) {
		s.blob.append(v[i])
	}
	s.end.append(uint32(s.blob.Len()))
	s.index.insert(slot, id, h, s.hashOf)
	return id
}
