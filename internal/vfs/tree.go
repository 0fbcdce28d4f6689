package vfs

import (
	"container/list"
	"slices"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/columnar"
)

// A Node is a *File or a *Dir.
type Node interface{ isNode() }

// A File is a generated or passed-through regular file.
type File struct {
	View render.View
	// Origin is what the view is made from, for readers of the tree in
	// the same process (a profile.pb.gz's *interchange.Profile, whose
	// tree a diff of two runs reads); nil unless the maker sets it.
	Origin any
}

func (*File) isNode() {}

// NewFile returns a File node serving v.
func NewFile(v render.View) *File { return &File{View: v} }

// An Entry is one named child of a Dir.
type Entry struct {
	Name string
	Node Node
}

// A Dir is a directory. Its entries are static (Add), produced once on
// first listing (Lazy), or made on demand from an index (Indexed,
// LazyIndexed).
type Dir struct {
	mu      sync.Mutex
	entries []Entry // sorted by name once listed
	sorted  bool
	lazy    func(render.Options) []Entry

	indexed     *indexed
	lazyIndexed func() *indexed // made into indexed on first use
	indexOnce   sync.Once
	inputs      *Inputs // checked before the views below are served; nil for none

	src *Source // the source whose root this is; nil for other directories
	at  *place  // where the directory sits once the tree is bound; nil before
}

func (*Dir) isNode() {}

// NewDir returns an empty static directory.
func NewDir() *Dir { return &Dir{} }

// Lazy returns a directory whose entries fn produces on first use.
func Lazy(fn func() []Entry) *Dir {
	return &Dir{lazy: func(render.Options) []Entry { return fn() }}
}

// LazyOptions is Lazy for entries that depend on the mount's options.
func LazyOptions(fn func(render.Options) []Entry) *Dir { return &Dir{lazy: fn} }

// Add adds a child. Names must be unique; Add is for building a tree
// before it is served. A big table (a CSV file whose view is a stream)
// comes with its Parquet twin (withTwins).
func (d *Dir) Add(name string, n Node) {
	for _, e := range withTwins([]Entry{{name, n}}) {
		d.mu.Lock()
		d.entries = append(d.entries, e)
		d.sorted = false
		at := d.at
		d.mu.Unlock()
		at.bind(e.Node, e.Name)
	}
}

// withTwins adds to entries the Parquet twin NAME.parquet (render/columnar)
// of each NAME.csv whose view is a render stream: the big tables. Small
// CSVs, rendered whole, have none.
func withTwins(entries []Entry) []Entry {
	for _, e := range entries {
		f, ok := e.Node.(*File)
		base, csv := strings.CutSuffix(e.Name, ".csv")
		if ok && csv && render.IsStream(f.View) {
			entries = append(entries, Entry{base + ".parquet", NewFile(columnar.Twin(f.View))})
		}
	}
	return entries
}

// AddFile adds a file serving v.
func (d *Dir) AddFile(name string, v render.View) { d.Add(name, NewFile(v)) }

// AddDir adds and returns a new static subdirectory.
func (d *Dir) AddDir(name string) *Dir {
	sub := NewDir()
	d.Add(name, sub)
	return sub
}

// Indexed returns a directory of n entries made on demand: name(i) gives
// the i-th name, and names must be strictly increasing in i, so lookups
// are binary searches; node(i) builds the i-th node. All entries must be
// of one kind (all files or all directories): a listing builds no node
// but the first. Recently built nodes are kept, up to a bound, so their
// views keep their sizes.
func Indexed(n int, name func(i int) string, node func(i int) Node) *Dir {
	return &Dir{indexed: newIndexed(n, name, node)}
}

// LazyIndexed is Indexed for a directory whose entries are known only
// after some work (a profile's procedures): fn gives Indexed's arguments
// on first use (listing or lookup).
func LazyIndexed(fn func() (n int, name func(i int) string, node func(i int) Node)) *Dir {
	return &Dir{lazyIndexed: func() *indexed { return newIndexed(fn()) }}
}

func newIndexed(n int, name func(int) string, node func(int) Node) *indexed {
	return &indexed{n: n, name: name, node: node, memo: map[int]*list.Element{}, order: list.New()}
}

// index is the directory's indexed entries, nil for other directories.
func (d *Dir) index() *indexed {
	if d.lazyIndexed != nil {
		d.indexOnce.Do(func() { d.indexed = d.lazyIndexed() })
	}
	return d.indexed
}

type indexed struct {
	n    int
	name func(int) string
	node func(int) Node

	mu    sync.Mutex
	memo  map[int]*list.Element
	order *list.List
}

// indexedMemo is how many built nodes an Indexed directory keeps. A
// function's folder of two small tables takes about 2 KB: `find` over a
// webgrind profile's functions/ kept 9.7 MB of them at 4096. A node made
// again renders the same bytes (a big view measures its size again, or
// reads it from the on-disk index).
const indexedMemo = 1024

type memoEntry struct {
	i    int
	node Node
}

func (d *Dir) get(i int) Node {
	x := d.index()
	x.mu.Lock()
	if e, ok := x.memo[i]; ok {
		x.order.MoveToFront(e)
		x.mu.Unlock()
		return e.Value.(*memoEntry).node
	}
	x.mu.Unlock()
	n := x.node(i)
	d.mu.Lock()
	at := d.at
	d.mu.Unlock()
	at.bind(n, x.name(i))
	x.mu.Lock()
	defer x.mu.Unlock()
	if e, ok := x.memo[i]; ok {
		return e.Value.(*memoEntry).node
	}
	x.memo[i] = x.order.PushFront(&memoEntry{i, n})
	if x.order.Len() > indexedMemo {
		e := x.order.Back()
		x.order.Remove(e)
		delete(x.memo, e.Value.(*memoEntry).i)
	}
	return n
}

func (d *Dir) list() []Entry {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.lazy != nil {
		var opts render.Options
		if d.at != nil {
			opts = d.at.src.Options
		}
		made := withTwins(d.lazy(opts))
		d.entries = append(d.entries, made...)
		d.lazy = nil
		d.sorted = false
		for _, e := range made {
			d.at.bind(e.Node, e.Name)
		}
	}
	if !d.sorted {
		slices.SortFunc(d.entries, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
		d.entries = slices.CompactFunc(d.entries, func(a, b Entry) bool { return a.Name == b.Name })
		d.sorted = true
	}
	return d.entries
}

// Len is the number of entries.
func (d *Dir) Len() int {
	if x := d.index(); x != nil {
		return x.n
	}
	return len(d.list())
}

// Names returns the entry names in order, calling fn for each until it
// returns false.
func (d *Dir) Names(fn func(name string) bool) {
	if x := d.index(); x != nil {
		for i := 0; i < x.n; i++ {
			if !fn(x.name(i)) {
				return
			}
		}
		return
	}
	for _, e := range d.list() {
		if !fn(e.Name) {
			return
		}
	}
}

// isDirAt reports whether the i-th entry is a directory without building
// it, for Indexed directories.
func (d *Dir) isDirAt(i int) bool {
	if d.index() != nil {
		i = 0
	}
	_, ok := d.At(i).Node.(*Dir)
	return ok
}

// nameAt is the i-th name, without building the node.
func (d *Dir) nameAt(i int) string {
	if x := d.index(); x != nil {
		return x.name(i)
	}
	return d.list()[i].Name
}

// At returns the i-th entry in name order.
func (d *Dir) At(i int) Entry {
	if x := d.index(); x != nil {
		return Entry{x.name(i), d.get(i)}
	}
	return d.list()[i]
}

// Lookup returns the child called name, or nil.
func (d *Dir) Lookup(name string) Node {
	if x := d.index(); x != nil {
		lo, hi := 0, x.n
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if x.name(mid) < name {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo < x.n && x.name(lo) == name {
			return d.get(lo)
		}
		return nil
	}
	entries := d.list()
	i, ok := slices.BinarySearchFunc(entries, name, func(e Entry, n string) int { return strings.Compare(e.Name, n) })
	if !ok {
		return nil
	}
	return entries[i].Node
}

// Walk returns the node at the slash-separated path below d ("." is d).
func (d *Dir) Walk(path string) Node {
	var n Node = d
	if path == "." || path == "" {
		return n
	}
	for _, part := range strings.Split(path, "/") {
		dir, ok := n.(*Dir)
		if !ok {
			return nil
		}
		n = dir.Lookup(part)
		if n == nil {
			return nil
		}
	}
	return n
}

// Volatile reports whether the file's content changes while mounted.
func (f *File) Volatile() bool {
	v, ok := f.View.(render.Volatile)
	return ok && v.Volatile()
}
