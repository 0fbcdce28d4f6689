package render

import (
	"fmt"
	"math"
)

// A Row receives the cells of one table row, in column order. For a CSV
// view it is written, or its length counted, as the cells come: a cell
// costs one call that checks it against its column and appends its text
// (or adds its length) and a comma; the last comma becomes the newline.
// Nothing is stored per cell, and the value's kind is the method's, so
// only a Uint or Float cell looks at its column's kind (hex, percentage).
// For the aligned text rendering, whose cells are padded to widths
// known only when each is written, and for a zero Row, it keeps the
// cells with a value instead, each with its column.
type Row struct {
	mode   rowMode
	n      int    // the cells given so far, empty ones included
	misfit misfit // rowCSV, rowCount: the first cell that did not fit its column

	sh   *tableShape // the columns the cells are checked against
	fmts []colFormat // rowCSV, rowCount: sh.fmts

	out  []byte // rowCSV: the rows so far, this one's cells each followed by a comma
	size int    // rowCount: this row's bytes so far, each cell's comma included
	rep  repeat // rowCSV, rowCount: this row's last Float cell

	cells []cell // rowCells: the cells with a value, in column order
}

// A misfit is a cell of kind (vEmpty: none) given to column col that
// does not take it: a bug of the format, which fails the read instead
// of writing a wrong file.
type misfit struct {
	col  int
	kind valueKind
}

// A rowMode is what a Row does with its cells.
type rowMode uint8

const (
	rowCells rowMode = iota // keep them (text rendering; the zero Row)
	rowCSV                  // append their CSV text to out
	rowCount                // add their CSV text's length to size
)

// A repeat is a Float cell written in a row: a cell after it with the
// same value in a column of the same kind (a leaf's inclusive and
// exclusive values) is copied, or counted, without formatting it again.
type repeat struct {
	ok     bool
	kind   Kind
	bits   uint64
	at, to int // rowCSV: its text in out; rowCount: to-at is its length
}

type valueKind uint8

const (
	vEmpty valueKind = iota
	vString
	vInt
	vUint
	vFloat
	vText // a String cell of a Text
)

type cell struct {
	kind valueKind
	col  int32  // the column
	u    uint64 // Uint, or the bits of an Int or a Float
	s    string
}

// f is a Float cell's value.
func (c *cell) f() float64 { return math.Float64frombits(c.u) }

// begin readies the row for the next one.
func (r *Row) begin() {
	r.n, r.size, r.rep.ok, r.misfit = 0, 0, false, misfit{}
	r.cells = r.cells[:0]
}

// reset empties the row for the next one, kept as cells.
func (r *Row) reset() { r.cells, r.n = r.cells[:0], 0 }

func (r *Row) add(c cell) *Row {
	c.col = int32(r.n)
	r.cells = append(r.cells, c)
	r.n++
	return r
}

// fit takes the next column for a cell of kind k: its format, or nil
// when it does not take such a cell (kept for end to report; a column
// past the last is end's row length error). It is inlined: it calls
// nothing.
func (r *Row) fit(k valueKind) *colFormat {
	i := r.n
	r.n = i + 1
	if uint(i) < uint(len(r.fmts)) && r.fmts[i].accept&(1<<k) != 0 {
		return &r.fmts[i]
	}
	if r.misfit.kind == vEmpty {
		r.misfit = misfit{i, k}
	}
	return nil
}

// Str appends a String cell.
func (r *Row) Str(s string) *Row {
	switch r.mode {
	case rowCSV:
		if r.fit(vString) != nil {
			r.out = append(AppendCSVField(r.out, s), ',')
		}
	case rowCount:
		if r.fit(vString) != nil {
			r.size += csvStringLen(s) + 1
		}
	default:
		r.add(cell{kind: vString, s: s})
	}
	return r
}

// Int appends an Int or Ns cell.
func (r *Row) Int(v int64) *Row {
	switch r.mode {
	case rowCSV:
		if r.fit(vInt) != nil {
			r.out = append(appendInt(r.out, v), ',')
		}
	case rowCount:
		if r.fit(vInt) != nil {
			r.size += intLen(v) + 1
		}
	default:
		r.add(cell{kind: vInt, u: uint64(v)})
	}
	return r
}

// Uint appends a Uint or Hex cell.
func (r *Row) Uint(v uint64) *Row {
	switch r.mode {
	case rowCSV:
		if f := r.fit(vUint); f == nil {
		} else if f.kind == Hex {
			r.out = append(AppendHexPadded(r.out, v, int(f.digits)), ',')
		} else {
			r.out = append(AppendUint(r.out, v), ',')
		}
	case rowCount:
		if f := r.fit(vUint); f == nil {
		} else if f.kind == Hex {
			r.size += 3 + max(int(f.digits), HexLen(v))
		} else {
			r.size += DecimalLen(v) + 1
		}
	default:
		r.add(cell{kind: vUint, u: v})
	}
	return r
}

// Float appends a Float or Pct cell.
func (r *Row) Float(v float64) *Row {
	switch r.mode {
	case rowCSV:
		if f := r.fit(vFloat); f != nil {
			r.csvFloat(f.kind, v)
		}
	case rowCount:
		if f := r.fit(vFloat); f != nil {
			r.countFloat(f.kind, v)
		}
	default:
		r.add(cell{kind: vFloat, u: math.Float64bits(v)})
	}
	return r
}

func (r *Row) csvFloat(kind Kind, v float64) {
	bits := math.Float64bits(v)
	if p := &r.rep; p.ok && p.bits == bits && p.kind == kind {
		at := len(r.out)
		r.out = append(append(r.out, r.out[p.at:p.to]...), ',')
		p.at, p.to = at, len(r.out)-1
		return
	}
	at := len(r.out)
	r.out = appendFloatAs(r.out, kind, v)
	r.rep = repeat{ok: true, kind: kind, bits: bits, at: at, to: len(r.out)}
	r.out = append(r.out, ',')
}

func (r *Row) countFloat(kind Kind, v float64) {
	bits := math.Float64bits(v)
	if p := &r.rep; p.ok && p.bits == bits && p.kind == kind {
		r.size += p.to - p.at + 1
		return
	}
	n := floatLenAs(kind, v)
	r.rep = repeat{ok: true, kind: kind, bits: bits, to: n}
	r.size += n + 1
}

// A Text is a string that a table writes again and again (the name of a
// definition, the kind of an event): NewText works out its CSV field
// once, so that a cell of it is copied, or counted, without being
// scanned for quoting each time.
type Text struct {
	s   string
	csv string // its CSV field: s itself when it needs no quotes
}

// NewText returns s as a Text.
func NewText(s string) Text {
	t := Text{s: s, csv: s}
	if csvStringLen(s) != len(s) {
		t.csv = string(AppendCSVField(nil, s))
	}
	return t
}

// String is the text.
func (t *Text) String() string { return t.s }

// Text appends a String cell of t.
func (r *Row) Text(t *Text) *Row {
	switch r.mode {
	case rowCSV:
		if r.fit(vText) != nil {
			r.out = append(append(r.out, t.csv...), ',')
		}
	case rowCount:
		if r.fit(vText) != nil {
			r.size += len(t.csv) + 1
		}
	default:
		r.add(cell{kind: vText, s: t.s})
	}
	return r
}

// Empty appends an empty cell (no value) of any column.
func (r *Row) Empty() *Row {
	r.n++
	switch r.mode {
	case rowCSV:
		r.out = append(r.out, ',')
	case rowCount:
		r.size++
	}
	return r
}

// Empties appends n empty cells.
func (r *Row) Empties(n int) *Row {
	n = max(n, 0)
	r.n += n
	switch r.mode {
	case rowCSV:
		r.out = appendCommas(r.out, n)
	case rowCount:
		r.size += n
	}
	return r
}

// Len is the number of cells given so far, empty ones included: the
// column the next cell goes to.
func (r *Row) Len() int { return r.n }

// end checks the row that the scanner's Scan gave (err), as the columns
// want it: the scanner's error, else a row of the wrong length, else
// the first cell that did not fit its column.
func (r *Row) end(err error) error {
	if n := len(r.sh.cols); err == nil && r.n != n {
		err = fmt.Errorf("render: a row of %d cells in a table of %d columns", r.n, n)
	}
	if err == nil && r.misfit.kind != vEmpty {
		err = r.sh.misfit(r.misfit.col, r.misfit.kind)
	}
	return err
}
