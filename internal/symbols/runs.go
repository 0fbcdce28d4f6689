package symbols

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
)

// sortRuns holds the records of one section of a table being built for
// the on-disk index (line rows, function ranges): written as they are
// read, in sorted runs of at most runRows records, to a temporary file in
// the index folder, and merged when the spilled table is written
// (spill.go), so that building holds one run in memory instead of every
// record of the binary.
type sortRuns[T any] struct {
	f    *os.File
	runs []run
	n    int64 // records written
	end  int64 // bytes written
	err  error // the first write error
	rec  recordOf[T]
}

type run struct{ off, n int64 }

// recordOf says how records of type T are ordered and stored: size
// bytes each, put and get (little-endian).
type recordOf[T any] struct {
	size int
	put  func([]byte, T)
	get  func([]byte) T
	cmp  func(T, T) int
}

// runRows is the most records sorted in memory at once; a variable so
// tests can make many runs of a small binary.
var runRows = 1 << 18

// lessLine orders line rows by address; at one address the end of a
// sequence comes before the start of the next. Sorted stably, rows of
// one sequence keep their order.
func lessLine(x, y lineRow) int {
	if c := cmp.Compare(x.addr, y.addr); c != 0 {
		return c
	}
	return cmp.Compare(min(x.file, 0), min(y.file, 0))
}

var lineRecordOf = recordOf[lineRow]{
	size: lineRecord,
	put: func(b []byte, r lineRow) {
		le := binary.LittleEndian
		le.PutUint64(b, r.addr)
		le.PutUint32(b[8:], uint32(r.file))
		le.PutUint32(b[12:], uint32(r.line))
	},
	get: func(b []byte) lineRow {
		le := binary.LittleEndian
		return lineRow{le.Uint64(b), int32(le.Uint32(b[8:])), int32(le.Uint32(b[12:]))}
	},
	cmp: lessLine,
}

// A funcRun is a function range as built (parent the index of a range
// as built), with its depth of nesting and its own index as built.
type funcRun struct {
	funcRange
	depth, orig int32
}

// funcRunRecordOf orders ranges by start, outer before inner at one
// start, else as built.
var funcRunRecordOf = recordOf[funcRun]{
	size: funcRecord + 8,
	put: func(b []byte, r funcRun) {
		le := binary.LittleEndian
		le.PutUint64(b, r.lo)
		le.PutUint64(b[8:], r.hi)
		for i, v := range []int32{r.parent, r.name, r.callFile, r.callLine, r.depth, r.orig} {
			le.PutUint32(b[16+4*i:], uint32(v))
		}
	},
	get: func(b []byte) funcRun {
		le := binary.LittleEndian
		v := func(i int) int32 { return int32(le.Uint32(b[16+4*i:])) }
		return funcRun{funcRange{le.Uint64(b), le.Uint64(b[8:]), v(0), v(1), v(2), v(3)}, v(4), v(5)}
	},
	cmp: func(x, y funcRun) int {
		if c := cmp.Compare(x.lo, y.lo); c != 0 {
			return c
		}
		if c := cmp.Compare(x.depth, y.depth); c != 0 {
			return c
		}
		return cmp.Compare(x.orig, y.orig)
	},
}

// newSortRuns makes the runs' file in dir, unlinked at once (it goes
// when closed, or when the process ends).
func newSortRuns[T any](dir string, rec recordOf[T]) (*sortRuns[T], error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".symrun-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &sortRuns[T]{f: f, rec: rec}, nil
}

// add sorts records (stably) and writes them as the next run.
func (l *sortRuns[T]) add(records []T) {
	if len(records) == 0 || l.err != nil {
		return
	}
	slices.SortStableFunc(records, l.rec.cmp)
	w := bufio.NewWriterSize(io.NewOffsetWriter(l.f, l.end), 1<<16)
	b := make([]byte, l.rec.size)
	for _, r := range records {
		l.rec.put(b, r)
		w.Write(b)
	}
	if err := w.Flush(); err != nil {
		l.err = err
		return
	}
	l.runs = append(l.runs, run{l.end, int64(len(records))})
	l.end += int64(len(records)) * int64(l.rec.size)
	l.n += int64(len(records))
}

func (l *sortRuns[T]) close() {
	if l != nil {
		l.f.Close()
	}
}

// merge gives every record of the runs to each in order (as one stable
// sort of all of them: of equal records, the earlier run's first).
func (l *sortRuns[T]) merge(each func(T) error) error {
	if l.err != nil {
		return l.err
	}
	h := &runHeap[T]{cmp: l.rec.cmp}
	for i, r := range l.runs {
		c := &runCursor[T]{i: i, left: r.n, b: make([]byte, l.rec.size),
			r: bufio.NewReaderSize(io.NewSectionReader(l.f, r.off, r.n*int64(l.rec.size)), 1<<14)}
		if err := c.next(l.rec.get); err != nil {
			return err
		}
		h.c = append(h.c, c)
	}
	heap.Init(h)
	for len(h.c) > 0 {
		c := h.c[0]
		if err := each(c.rec); err != nil {
			return err
		}
		if c.left == 0 {
			heap.Pop(h)
			continue
		}
		if err := c.next(l.rec.get); err != nil {
			return err
		}
		heap.Fix(h, 0)
	}
	return nil
}

// A runCursor reads one run: rec is its next record.
type runCursor[T any] struct {
	i    int
	left int64
	r    *bufio.Reader
	rec  T
	b    []byte
}

func (c *runCursor[T]) next(get func([]byte) T) error {
	if _, err := io.ReadFull(c.r, c.b); err != nil {
		return err
	}
	c.rec = get(c.b)
	c.left--
	return nil
}

type runHeap[T any] struct {
	c   []*runCursor[T]
	cmp func(T, T) int
}

func (h *runHeap[T]) Len() int { return len(h.c) }
func (h *runHeap[T]) Less(i, j int) bool {
	if c := h.cmp(h.c[i].rec, h.c[j].rec); c != 0 {
		return c < 0
	}
	return h.c[i].i < h.c[j].i
}
func (h *runHeap[T]) Swap(i, j int) { h.c[i], h.c[j] = h.c[j], h.c[i] }
func (h *runHeap[T]) Push(x any)    { h.c = append(h.c, x.(*runCursor[T])) }
func (h *runHeap[T]) Pop() any {
	x := h.c[len(h.c)-1]
	h.c = h.c[:len(h.c)-1]
	return x
}

// funcRuns are a table's function ranges in runs, with what merges them
// into the table's order.
type funcRuns struct {
	*sortRuns[funcRun]
}

// sorted gives the ranges in the table's order, parent links remapped
// to it. It merges the runs twice: first to learn where each range goes
// (4 bytes a range held meanwhile), then to give them.
func (l funcRuns) sorted(each func(funcRange) error) error {
	if l.n >= 1<<31 {
		return errTooMany
	}
	where := make([]int32, l.n)
	k := int32(0)
	if err := l.merge(func(r funcRun) error {
		if r.orig < 0 || int64(r.orig) >= l.n {
			return errTooMany
		}
		where[r.orig] = k
		k++
		return nil
	}); err != nil {
		return err
	}
	return l.merge(func(r funcRun) error {
		if r.parent >= 0 && int64(r.parent) < l.n {
			r.parent = where[r.parent]
		}
		return each(r.funcRange)
	})
}

var errTooMany = errors.New("function ranges out of range in their runs")
