package symbols

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"io"
	"os"
	"slices"
)

// lineRuns holds the line rows of a table being built for the on-disk
// index: written as they are read, in sorted runs of at most runRows
// rows, to a temporary file in the index folder, and merged when the
// spilled table is written (spill.go), so that building holds one run
// in memory instead of every row of the binary.
type lineRuns struct {
	f    *os.File
	runs []run
	n    int64 // rows written
	end  int64 // bytes written
	err  error // the first write error
}

type run struct{ off, n int64 }

// runRows is the most rows sorted in memory at once (16 bytes each); a
// variable so tests can make many runs of a small binary.
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

// newLineRuns makes the runs' file in dir, unlinked at once (it goes
// when closed, or when the process ends).
func newLineRuns(dir string) (*lineRuns, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(dir, ".symrun-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	return &lineRuns{f: f}, nil
}

// add sorts rows (stably) and writes them as the next run.
func (l *lineRuns) add(rows []lineRow) {
	if len(rows) == 0 || l.err != nil {
		return
	}
	slices.SortStableFunc(rows, lessLine)
	w := bufio.NewWriterSize(io.NewOffsetWriter(l.f, l.end), 1<<16)
	var b [lineRecord]byte
	le := binary.LittleEndian
	for _, r := range rows {
		le.PutUint64(b[:], r.addr)
		le.PutUint32(b[8:], uint32(r.file))
		le.PutUint32(b[12:], uint32(r.line))
		w.Write(b[:])
	}
	if err := w.Flush(); err != nil {
		l.err = err
		return
	}
	l.runs = append(l.runs, run{l.end, int64(len(rows))})
	l.end += int64(len(rows)) * lineRecord
	l.n += int64(len(rows))
}

func (l *lineRuns) close() {
	if l != nil {
		l.f.Close()
	}
}

// merge gives every row of the runs to each in order (as one stable
// sort of all of them: at equal rows, the earlier run's first).
func (l *lineRuns) merge(each func(lineRow) error) error {
	if l.err != nil {
		return l.err
	}
	h := make(runHeap, 0, len(l.runs))
	for i, r := range l.runs {
		c := &runCursor{i: i, left: r.n, r: bufio.NewReaderSize(io.NewSectionReader(l.f, r.off, r.n*lineRecord), 1<<14)}
		if err := c.next(); err != nil {
			return err
		}
		h = append(h, c)
	}
	heap.Init(&h)
	for len(h) > 0 {
		c := h[0]
		if err := each(c.row); err != nil {
			return err
		}
		if c.left == 0 {
			heap.Pop(&h)
			continue
		}
		if err := c.next(); err != nil {
			return err
		}
		heap.Fix(&h, 0)
	}
	return nil
}

// A runCursor reads one run: row is its next row.
type runCursor struct {
	i    int
	left int64
	r    *bufio.Reader
	row  lineRow
	b    [lineRecord]byte
}

func (c *runCursor) next() error {
	if _, err := io.ReadFull(c.r, c.b[:]); err != nil {
		return err
	}
	le := binary.LittleEndian
	c.row = lineRow{le.Uint64(c.b[:]), int32(le.Uint32(c.b[8:])), int32(le.Uint32(c.b[12:]))}
	c.left--
	return nil
}

type runHeap []*runCursor

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := lessLine(h[i].row, h[j].row); c != 0 {
		return c < 0
	}
	return h[i].i < h[j].i
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runCursor)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
