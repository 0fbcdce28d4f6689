package callgrind

// Kinds of names; each has its own compression id space.
const (
	objectNames = iota
	fileNames
	functionNames
)

// Names interns the names of a profile (objects, files, functions share
// one list) and keeps the name compression mappings "(id) name" of every
// kind with the offset where each was defined, so that a decoder resumed
// in the middle of the file resolves "(id)" as a forward pass would.
//
// The first full pass (Summarize) fills it; later decoders only read it.
type Names struct {
	list  []string
	index map[string]int32
	defs  [3]map[int64][]nameDef
	// cur maps small ids to name+1 as a forward pass has them (unfrozen).
	cur    [3][]int32
	frozen bool
}

// maxDirectID bounds the ids kept in the cur slices.
const maxDirectID = 1 << 22

type nameDef struct {
	off  int64
	name int32
}

func newNames() *Names {
	n := &Names{index: map[string]int32{}}
	for i := range n.defs {
		n.defs[i] = map[int64][]nameDef{}
	}
	n.intern("")
	return n
}

// Name returns name number i ("" when out of range).
func (n *Names) Name(i int32) string {
	if i < 0 || int(i) >= len(n.list) {
		return ""
	}
	return n.list[i]
}

// Len is the number of distinct names.
func (n *Names) Len() int { return len(n.list) }

// Bytes estimates the memory the names hold.
func (n *Names) Bytes() int64 {
	var b int64
	for _, s := range n.list {
		b += int64(len(s)) + 16 + 40 // string header, map entry
	}
	for _, m := range n.defs {
		b += int64(len(m)) * 64
	}
	return b
}

func (n *Names) intern(s string) int32 {
	if i, ok := n.index[s]; ok {
		return i
	}
	i := int32(len(n.list))
	n.list = append(n.list, s)
	n.index[s] = i
	return i
}

func (n *Names) internBytes(b []byte) int32 {
	if i, ok := n.index[string(b)]; ok {
		return i
	}
	if n.frozen {
		return 0
	}
	return n.intern(string(b))
}

// define records that id of kind means name from offset off on.
func (n *Names) define(kind int, id, off int64, name int32) {
	if n.frozen {
		return
	}
	ds := n.defs[kind][id]
	if len(ds) > 0 && ds[len(ds)-1].name == name {
		return
	}
	if n.cur[kind] == nil {
		n.cur[kind] = make([]int32, 0, 1024)
	}
	n.defs[kind][id] = append(ds, nameDef{off, name})
	if id >= 0 && id < maxDirectID {
		c := n.cur[kind]
		for int64(len(c)) <= id {
			c = append(c, 0)
		}
		c[id] = name + 1
		n.cur[kind] = c
	}
}

// lookup returns the name id of kind had at offset off.
func (n *Names) lookup(kind int, id, off int64) (int32, bool) {
	if !n.frozen && id >= 0 && id < int64(len(n.cur[kind])) {
		v := n.cur[kind][id]
		return v - 1, v > 0
	}
	ds := n.defs[kind][id]
	for k := len(ds) - 1; k >= 0; k-- {
		if ds[k].off <= off {
			return ds[k].name, true
		}
	}
	return 0, false
}
