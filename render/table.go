package render

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A Kind is the type of a table column: how its cells are written.
type Kind uint8

const (
	String    Kind = iota // text; quoted in CSV when RFC 4180 needs it
	Int                   // signed decimal integer
	Uint                  // unsigned decimal integer
	Float                 // CSV: shortest decimal that reads back (AppendFloat); text: 6 significant digits
	Hex                   // 0x and lower-case hex digits, zero-padded to Column.Digits
	Ns                    // a time or duration in integer nanoseconds (signed)
	Pct                   // a percentage with 2 decimals
	PctHalfUp             // a percentage with 2 decimals, halves rounded up as PHP's number_format (AppendPctHalfUp)
	Number                // an Int, Uint or Float cell, each as its own kind writes it (a metric integer in one row, real in another)
)

var kindNames = [...]string{"String", "Int", "Uint", "Float", "Hex", "Ns", "Pct", "PctHalfUp", "Number"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Column is one column of a Table.
type Column struct {
	Name string // the header, from docs/vocabulary.md
	Kind Kind
	// Digits is the least number of hex digits of a Hex column.
	Digits int
	// Width is the least width of the column in the text rendering,
	// counting the separator before it (Sep); cells are right-aligned,
	// String cells left-aligned.
	Width int
	// Sep is what separates the column from the one before in the text
	// rendering; "" is one blank.
	Sep string
}

// sep is the text separator before column i.
func (c *Column) sep(i int) string {
	switch {
	case i == 0:
		return ""
	case c.Sep == "":
		return " "
	}
	return c.Sep
}

// A Row receives the cells of one table row, in column order. It holds
// only the cells with a value, each with its column: an empty cell costs
// a counter increment, and a row is built in place in a buffer reused
// from row to row.
type Row struct {
	cells []cell // the cells with a value, in column order
	n     int    // the cells given so far, empty ones included
}

type valueKind uint8

const (
	vEmpty valueKind = iota
	vString
	vInt
	vUint
	vFloat
	vText // a String cell of a Text: u is its CSV field's length
)

type cell struct {
	kind valueKind
	col  int32  // the column
	u    uint64 // Uint, or the bits of an Int or a Float
	s    string
}

// f is a Float cell's value.
func (c *cell) f() float64 { return math.Float64frombits(c.u) }

// reset empties the row for the next one.
func (r *Row) reset() { r.cells, r.n = r.cells[:0], 0 }

func (r *Row) add(c cell) *Row {
	c.col = int32(r.n)
	r.cells = append(r.cells, c)
	r.n++
	return r
}

// Str appends a String cell.
func (r *Row) Str(s string) *Row { return r.add(cell{kind: vString, s: s}) }

// Int appends an Int or Ns cell.
func (r *Row) Int(v int64) *Row { return r.add(cell{kind: vInt, u: uint64(v)}) }

// Uint appends a Uint or Hex cell.
func (r *Row) Uint(v uint64) *Row { return r.add(cell{kind: vUint, u: v}) }

// Float appends a Float or Pct cell.
func (r *Row) Float(v float64) *Row { return r.add(cell{kind: vFloat, u: math.Float64bits(v)}) }

// A Text is a string that a table writes again and again (the name of a
// definition, the kind of an event): NewText works out its CSV field
// once, so that a cell of it is copied, or counted, without being
// scanned for quoting each time.
type Text struct {
	s   string
	csv int // the length of its CSV field
}

// NewText returns s as a Text.
func NewText(s string) Text { return Text{s: s, csv: csvStringLen(s)} }

// String is the text.
func (t *Text) String() string { return t.s }

// Text appends a String cell of t.
func (r *Row) Text(t *Text) *Row { return r.add(cell{kind: vText, u: uint64(t.csv), s: t.s}) }

// Empty appends an empty cell (no value) of any column.
func (r *Row) Empty() *Row { r.n++; return r }

// Empties appends n empty cells.
func (r *Row) Empties(n int) *Row { r.n += max(n, 0); return r }

// Len is the number of cells given so far, empty ones included: the
// column the next cell goes to.
func (r *Row) Len() int { return r.n }

// A Scanner yields the rows of a table in order.
type Scanner interface {
	// Scan appends the next row's cells to row; io.EOF at the end. Any
	// other error ends the view as Cursor.Next's does.
	Scan(row *Row) error
	// Pos is the position before the next row: Table.Open(Pos()) resumes
	// there. The bytes are the scanner's own (a decoder's position and
	// what the rows carry, such as a running sum).
	Pos() []byte
}

// A Table is a view made of typed rows: the same rows render as CSV (a
// header row of the column names, RFC 4180 quoting, exact numbers) or as
// aligned text. Lengths are counted from the cells without rendering
// them; the cursor position (the scanner's Pos) is written to the on-disk
// index by render, so a table needs no cursor or state codec of its own.
type Table struct {
	Columns []Column
	// Layout, when not nil, gives the columns on first use instead of
	// Columns: columns that depend on what only a lazy read of the input
	// tells (a profile's events or metrics). Called once.
	Layout func() []Column
	// Inputs, when not nil, names files beyond the source's own that the
	// rows depend on (see ExtraInputs); asked for on first sizing.
	Inputs func() []string
	// Open returns a scanner at pos, a value its Pos returned, or at the
	// first row when pos is empty. A pos read back from the on-disk index
	// may be damaged: Open checks it (an error makes render measure the
	// view again).
	Open func(pos []byte) (Scanner, error)
	// OnDataError, when not nil, receives the malformed-input error that
	// ended the CSV or text view, once (Stream's onDataError); when nil,
	// the tree's Binding gives it.
	OnDataError func(error)
	// Bind, when not nil, is told the view's Binding (Stream passes it
	// on), to keep results of the table's own beside the index (Saved).
	Bind func(Binding)

	shapeOnce sync.Once
	shape     tableShape
}

// A tableShape is a table's columns and, per column, the kinds of cell
// it takes (a bit per valueKind, vEmpty's always set).
type tableShape struct {
	cols   []Column
	accept []uint8
}

// columns are the table's columns: Columns, or what Layout gives.
func (t *Table) columns() []Column { return t.shapeOf().cols }

// shapeOf is the table's shape, made on first use.
func (t *Table) shapeOf() *tableShape {
	t.shapeOnce.Do(func() {
		cols := t.Columns
		if t.Layout != nil {
			cols = t.Layout()
		}
		t.shape = tableShape{cols: cols, accept: make([]uint8, len(cols))}
		for i, c := range cols {
			t.shape.accept[i] = 1<<vEmpty | 1<<wantKind(c.Kind)
			if c.Kind == String {
				t.shape.accept[i] |= 1 << vText
			}
			if c.Kind == Number {
				t.shape.accept[i] = 0xff
			}
		}
	})
	return &t.shape
}

// wantKind is the kind of cell a column of kind k takes (Number: any).
func wantKind(k Kind) valueKind {
	switch k {
	case String:
		return vString
	case Int, Ns:
		return vInt
	case Uint, Hex:
		return vUint
	case Float, Pct, PctHalfUp:
		return vFloat
	}
	return vEmpty
}

// Counted is the Open of a table of n rows, row i filled by fill.
func Counted(n int64, fill func(i int64, row *Row) error) func(pos []byte) (Scanner, error) {
	return func(pos []byte) (Scanner, error) {
		s := &counted{n: n, fill: fill}
		if len(pos) > 0 {
			r := NewStateReader(pos)
			s.i = int64(r.Uint(uint64(n)))
			if err := r.Err(); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
}

type counted struct {
	i, n int64
	fill func(int64, *Row) error
}

func (s *counted) Scan(row *Row) error {
	if s.i >= s.n {
		return io.EOF
	}
	if err := s.fill(s.i, row); err != nil {
		return err
	}
	s.i++
	return nil
}

func (s *counted) Pos() []byte { return (&StateWriter{}).Uint(uint64(s.i)).Bytes() }

// CSV returns the table as a CSV view.
func (t *Table) CSV() View { return Stream(&tableGen{t: t, csv: true}, t.OnDataError) }

// Text returns the table as aligned text after preamble (nil: a header
// line of the column names; a func returning nothing: no header).
func (t *Table) Text(preamble func() ([]byte, error)) View {
	return Stream(&tableGen{t: t, preamble: preamble}, t.OnDataError)
}

// Header is the CSV header row of the table.
func (t *Table) Header() string {
	var b strings.Builder
	for i, c := range t.columns() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(AppendCSVField(nil, c.Name))
	}
	b.WriteByte('\n')
	return b.String()
}

// textHeader is the aligned line of column names.
func (t *Table) textHeader() []byte {
	var dst []byte
	cols := t.columns()
	for i, c := range cols {
		dst = appendTextCell(dst, i, &cols[i], &cell{kind: vString, s: c.Name}, i == len(cols)-1)
	}
	return append(dst, '\n')
}

// tableGen renders a Table as CSV or text; its states are tableState.
type tableGen struct {
	t        *Table
	csv      bool
	preamble func() ([]byte, error)
}

type tableState struct {
	started bool // the header or preamble is written
	pos     []byte
}

// tableBatch is the output a Next call aims for: whole rows, small
// enough that the last call of a segment fits the slack render leaves.
const tableBatch = 2 << 10

func (g *tableGen) Start(state any) (Cursor, error) {
	st, _ := state.(tableState)
	s, err := g.t.Open(st.pos)
	if err != nil {
		return nil, err
	}
	return &tableCursor{g: g, shape: g.t.shapeOf(), s: s, started: st.started}, nil
}

// Bind passes the view's Binding to the table's Bind.
func (g *tableGen) Bind(b Binding) {
	if g.t.Bind != nil {
		g.t.Bind(b)
	}
}

// ExtraInputs gives the table's Inputs.
func (g *tableGen) ExtraInputs() []string {
	if g.t.Inputs == nil {
		return nil
	}
	return g.t.Inputs()
}

func (g *tableGen) EncodeState(state any) []byte {
	st := state.(tableState)
	return (&StateWriter{}).Bool(st.started).Raw(st.pos).Bytes()
}

func (g *tableGen) DecodeState(b []byte) (any, error) {
	r := NewStateReader(b)
	st := tableState{started: r.Bool()}
	if r.bad {
		return nil, ErrBadState
	}
	st.pos = bytes.Clone(r.Rest()) // Open checks it
	return st, nil
}

type tableCursor struct {
	g       *tableGen
	shape   *tableShape
	s       Scanner
	started bool
	row     Row
	done    bool
}

func (c *tableCursor) State() any {
	return tableState{started: c.started, pos: c.s.Pos()}
}

func (c *tableCursor) head() ([]byte, error) {
	switch {
	case c.g.csv:
		return []byte(c.g.t.Header()), nil
	case c.g.preamble != nil:
		return c.g.preamble()
	}
	return c.g.t.textHeader(), nil
}

// scan reads the next row into c.row; false at the end or on an error.
func (c *tableCursor) scan() (bool, error) {
	c.row.reset()
	err := c.s.Scan(&c.row)
	if n := len(c.shape.cols); err == nil && c.row.n != n {
		err = fmt.Errorf("render: a row of %d cells in a table of %d columns", c.row.n, n)
	}
	if err != nil {
		c.done = true
		return false, err
	}
	return true, nil
}

func (c *tableCursor) Next(dst []byte) ([]byte, error) {
	if c.done {
		return dst, io.EOF
	}
	if !c.started {
		h, err := c.head()
		if err != nil {
			return dst, err
		}
		c.started = true
		return append(dst, h...), nil
	}
	start := len(dst)
	for len(dst)-start < tableBatch {
		ok, err := c.scan()
		if !ok {
			return dst, endRows(err, len(dst) > start)
		}
		if dst, err = c.shape.appendRow(dst, &c.row, c.g.csv); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// NextLen counts what Next would append.
func (c *tableCursor) NextLen() (int64, error) {
	if c.done {
		return 0, io.EOF
	}
	if !c.started {
		h, err := c.head()
		if err != nil {
			return 0, err
		}
		c.started = true
		return int64(len(h)), nil
	}
	var n int64
	for n < tableBatch {
		ok, err := c.scan()
		if !ok {
			return n, endRows(err, n > 0)
		}
		k, err := c.shape.rowLen(&c.row, c.g.csv)
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// endRows is the error of a batch that ended on err: io.EOF is held back
// when the batch has rows (the next call reports it).
func endRows(err error, some bool) error {
	if err == io.EOF && some {
		return nil
	}
	return err
}

// appendRow appends row r, checked against the columns, as CSV or text.
func (sh *tableShape) appendRow(dst []byte, r *Row, csv bool) ([]byte, error) {
	if !csv {
		return sh.appendTextRow(dst, r)
	}
	w := 0 // the commas written: the column of the next cell
	var prev *cell
	prevAt := 0 // where prev's text starts in dst
	for i := range r.cells {
		c := &r.cells[i]
		if err := sh.check(c); err != nil {
			return dst, err
		}
		dst = appendCommas(dst, int(c.col)-w)
		if prev != nil && sh.sameText(prev, c) {
			// a number as the cell before wrote it (a leaf's inclusive
			// and exclusive values): copied, not formatted again
			at := len(dst)
			dst = append(dst, dst[prevAt:at-(int(c.col)-w)]...)
			w, prev, prevAt = int(c.col), c, at
			continue
		}
		w, prev, prevAt = int(c.col), c, len(dst)
		switch col := &sh.cols[c.col]; {
		case c.kind == vString:
			dst = AppendCSVField(dst, c.s)
		case c.kind == vText && int(c.u) == len(c.s):
			dst = append(dst, c.s...)
		case c.kind == vText:
			dst = AppendCSVField(dst, c.s)
		case c.kind == vInt:
			dst = appendInt(dst, int64(c.u))
		case c.kind == vUint && (col.Kind == Uint || col.Kind == Number):
			dst = AppendUint(dst, c.u)
		default:
			dst = appendValue(dst, col, c, true)
		}
	}
	dst = appendCommas(dst, len(sh.cols)-1-w)
	return append(dst, '\n'), nil
}

// rowLen is the length of appendRow's row, counted without rendering.
func (sh *tableShape) rowLen(r *Row, csv bool) (int64, error) {
	if !csv {
		return sh.textRowLen(r)
	}
	n := max(len(sh.cols), 1) // the commas and the newline
	var prev *cell
	prevLen := 0
	for i := range r.cells {
		c := &r.cells[i]
		if err := sh.check(c); err != nil {
			return 0, err
		}
		if prev != nil && sh.sameText(prev, c) {
			n += prevLen
			prev = c
			continue
		}
		k := 0
		switch col := &sh.cols[c.col]; {
		case c.kind == vString:
			k = csvStringLen(c.s)
		case c.kind == vText:
			k = int(c.u)
		case c.kind == vInt:
			k = intLen(int64(c.u))
		case c.kind == vUint && (col.Kind == Uint || col.Kind == Number):
			k = DecimalLen(c.u)
		default:
			k = valueLen(col, c, true)
		}
		n += k
		prev, prevLen = c, k
	}
	return int64(n), nil
}

// sameText reports whether CSV writes cell c as it wrote prev, the cell
// with a value before it: the same number of the same kind in columns
// that write it alike (strings are not compared).
func (sh *tableShape) sameText(prev, c *cell) bool {
	if c.kind == vString || c.kind == vText || c.u != prev.u || c.kind != prev.kind {
		return false
	}
	a, b := &sh.cols[prev.col], &sh.cols[c.col]
	return a.Kind == b.Kind && a.Digits == b.Digits
}

// textCell is the cell of column i of r, its k-th cell with a value
// when that is column i's (then k moves past it); an empty cell else.
func (sh *tableShape) textCell(r *Row, i int, k *int) (cell, error) {
	if *k >= len(r.cells) || int(r.cells[*k].col) != i {
		return cell{}, nil
	}
	c := &r.cells[*k]
	*k++
	t := *c
	if t.kind == vText {
		t.kind = vString // text views write names (AppendName)
	}
	return t, sh.check(c)
}

func (sh *tableShape) appendTextRow(dst []byte, r *Row) ([]byte, error) {
	k := 0
	for i := range sh.cols {
		c, err := sh.textCell(r, i, &k)
		if err != nil {
			return dst, err
		}
		dst = appendTextCell(dst, i, &sh.cols[i], &c, i == len(sh.cols)-1)
	}
	return append(dst, '\n'), nil
}

func (sh *tableShape) textRowLen(r *Row) (int64, error) {
	n, k := 1, 0
	for i := range sh.cols {
		c, err := sh.textCell(r, i, &k)
		if err != nil {
			return 0, err
		}
		n += textCellLen(i, &sh.cols[i], &c, i == len(sh.cols)-1)
	}
	return int64(n), nil
}

// check reports a cell whose value does not fit its column: a bug in the
// format, which fails the read instead of writing a wrong file.
func (sh *tableShape) check(c *cell) error {
	if sh.accept[c.col]&(1<<c.kind) != 0 {
		return nil
	}
	return sh.misfit(c) // apart, so that check is inlined
}

func (sh *tableShape) misfit(c *cell) error {
	col := &sh.cols[c.col]
	return fmt.Errorf("render: column %s (%v) given a cell of kind %d", col.Name, col.Kind, c.kind)
}

const commas = ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,"

// appendCommas appends n commas (none when n <= 0).
func appendCommas(dst []byte, n int) []byte {
	for ; n > len(commas); n -= len(commas) {
		dst = append(dst, commas...)
	}
	if n > 0 {
		dst = append(dst, commas[:n]...)
	}
	return dst
}

// appendInt is strconv.AppendInt(dst, v, 10).
func appendInt(dst []byte, v int64) []byte {
	if v < 0 {
		return AppendUint(append(dst, '-'), -uint64(v))
	}
	return AppendUint(dst, uint64(v))
}

// intLen is len(appendInt(nil, v)).
func intLen(v int64) int {
	if v < 0 {
		return 1 + DecimalLen(-uint64(v))
	}
	return DecimalLen(uint64(v))
}

// appendValue appends the cell's text, as CSV (exact) or text (rounded)
// writes it, without quoting or alignment; a string as text views write
// names (AppendName: control bytes as \xNN).
func appendValue(dst []byte, col *Column, c *cell, csv bool) []byte {
	switch c.kind {
	case vEmpty:
		return dst
	case vString:
		return AppendName(dst, c.s)
	case vInt:
		return appendInt(dst, int64(c.u))
	}
	switch col.Kind {
	case Uint:
		return AppendUint(dst, c.u)
	case Hex:
		return AppendHexPadded(dst, c.u, col.Digits)
	case Pct:
		return AppendPct(dst, c.f())
	case PctHalfUp:
		return AppendPctHalfUp(dst, c.f())
	case Number:
		if c.kind == vUint {
			return AppendUint(dst, c.u)
		}
	}
	if csv {
		return AppendFloat(dst, c.f())
	}
	return AppendC(dst, c.f(), 'g')
}

// valueLen is len(appendValue(nil, col, c, csv)), counted where it can be.
func valueLen(col *Column, c *cell, csv bool) int {
	switch c.kind {
	case vEmpty:
		return 0
	case vString:
		return len(EscapeName(c.s))
	case vInt:
		return intLen(int64(c.u))
	}
	switch col.Kind {
	case Uint:
		return DecimalLen(c.u)
	case Hex:
		return 2 + max(col.Digits, HexLen(c.u))
	case Number:
		if c.kind == vUint {
			return DecimalLen(c.u)
		}
		if csv {
			return FloatLen(c.f())
		}
	case Float:
		if csv {
			return FloatLen(c.f())
		}
	}
	var buf [40]byte
	return len(appendValue(buf[:0], col, c, csv))
}

// AppendPct appends a percentage as every view writes one: 2 decimals.
func AppendPct(dst []byte, v float64) []byte { return strconv.AppendFloat(dst, v, 'f', 2, 64) }

// FormatPct is AppendPct as a string.
func FormatPct(v float64) string { return string(AppendPct(nil, v)) }

// HexLen is the number of hex digits of v.
func HexLen(v uint64) int {
	n := 1
	for v >= 16 {
		v >>= 4
		n++
	}
	return n
}

// csvStringLen is len(AppendCSVField(nil, s)).
func csvStringLen(s string) int {
	acc := scanClasses(s)
	if acc&(clEscLF|clHigh) == 0 {
		if !asciiNeedsQuotes(s, acc) {
			return len(s)
		}
	} else {
		s = EscapeCSV(s)
		if !FieldNeedsQuotes(s) {
			return len(s)
		}
	}
	if acc&clDQ == 0 {
		return 2 + len(s)
	}
	return 2 + len(s) + strings.Count(s, `"`)
}

// textWidth is the number of characters of a text cell (runes of a
// string; a number's are bytes).
func textWidth(col *Column, c *cell) int {
	if c.kind == vString {
		return utf8.RuneCountInString(EscapeName(c.s))
	}
	return valueLen(col, c, false)
}

// textPad is the number of blanks before (right-aligned) or after
// (left-aligned String) a text cell of n bytes in column i.
func textPad(i int, col *Column, n int) int {
	n += len(col.sep(i))
	return max(col.Width-n, 0)
}

func appendTextCell(dst []byte, i int, col *Column, c *cell, last bool) []byte {
	dst = append(dst, col.sep(i)...)
	pad := textPad(i, col, textWidth(col, c))
	left := col.Kind == String
	if !left {
		dst = appendBlanks(dst, pad)
	}
	dst = appendValue(dst, col, c, false)
	if left && !last {
		dst = appendBlanks(dst, pad)
	}
	return dst
}

func textCellLen(i int, col *Column, c *cell, last bool) int {
	n := valueLen(col, c, false)
	pad := textPad(i, col, textWidth(col, c))
	if col.Kind == String && last {
		pad = 0
	}
	return n + len(col.sep(i)) + pad
}

func appendBlanks(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

var _ StateCodec = (*tableGen)(nil)

// Groups is the Open of a table whose rows come in n groups (the calls
// of a function, the invocations of one): group(i) returns the number of
// rows of group i, the fill of its row j and an error that ends the table
// after those rows (nil when the group is whole). Positions are (group,
// row); a scanner resumed in a group asks group(i) again.
func Groups(n int64, group func(i int64) (int64, func(j int64, row *Row) error, error)) func(pos []byte) (Scanner, error) {
	return func(pos []byte) (Scanner, error) {
		s := &grouped{n: n, group: group}
		if len(pos) > 0 {
			r := NewStateReader(pos)
			s.i, s.j = int64(r.Uint(uint64(n))), int64(r.Uint(1<<62))
			if err := r.Err(); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
}

type grouped struct {
	i, j, n int64
	group   func(int64) (int64, func(int64, *Row) error, error)

	loaded bool // k, fill and err are group i's
	k      int64
	fill   func(int64, *Row) error
	err    error
}

func (s *grouped) Scan(row *Row) error {
	for s.i < s.n {
		if !s.loaded {
			s.k, s.fill, s.err = s.group(s.i)
			s.loaded = true
		}
		if s.j < s.k {
			if err := s.fill(s.j, row); err != nil {
				return err
			}
			s.j++
			return nil
		}
		if s.err != nil {
			return s.err
		}
		s.i, s.j, s.loaded = s.i+1, 0, false
	}
	return io.EOF
}

func (s *grouped) Pos() []byte {
	return (&StateWriter{}).Uint(uint64(s.i)).Uint(uint64(s.j)).Bytes()
}

// AppendCSV appends the whole table as CSV: a small table's bytes (see
// SmallCSV). On an error that ends the rows it returns the rows before it
// with the error.
func (t *Table) AppendCSV(dst []byte) ([]byte, error) {
	c, err := (&tableGen{t: t, csv: true}).Start(nil)
	if err != nil {
		return dst, err
	}
	for {
		if dst, err = c.Next(dst); err != nil {
			if err == io.EOF {
				err = nil
			}
			return dst, err
		}
	}
}

// SmallCSV returns the table as the CSV view of a small file (Bytes):
// rendered whole on first use, without checkpoints or a Parquet twin.
// onDataError nil: the tree's Binding reports under the view's path.
func (t *Table) SmallCSV(onDataError func(error)) View {
	return Bytes(func() ([]byte, error) { return t.AppendCSV(nil) }, onDataError)
}

// AppendPctHalfUp appends a percentage with 2 decimals as PHP's
// number_format(v, 2) writes it (webgrind's tables): v is first rounded
// to 15 significant digits, then a half rounds up. Values past 2^53
// hundredths, negative or NaN are written as AppendPct writes them.
func AppendPctHalfUp(dst []byte, v float64) []byte {
	hundredths := v * 100
	if hundredths >= 1<<53 || math.IsNaN(hundredths) || v < 0 {
		return AppendPct(dst, v)
	}
	n := uint64(math.Floor(hundredths + 0.5))
	if frac := hundredths - math.Floor(hundredths); math.Abs(frac-0.5) < 1e-6 {
		n = roundHalfUpPHP(v)
	}
	dst = AppendUint(dst, n/100)
	dst = append(dst, '.')
	return AppendPadded(dst, n%100, 2)
}

// roundHalfUpPHP is round(v*100) as PHP's round(v, 2) computes it near a
// half: v is first rounded to 15 significant digits, then half rounds up.
func roundHalfUpPHP(v float64) uint64 {
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], v, 'e', 14, 64) // d.dddddddddddddde±XX
	var mant [15]byte
	mant[0] = s[0]
	copy(mant[1:], s[2:16])
	exp, _ := strconv.Atoi(string(s[17:]))
	keep := exp + 3 // digits of v*100 before the decimal point
	var n uint64
	for k := 0; k < keep; k++ {
		d := uint64(0)
		if k < len(mant) {
			d = uint64(mant[k] - '0')
		}
		n = n*10 + d
	}
	if keep >= 0 && keep < len(mant) && mant[keep] >= '5' {
		n++
	}
	return n
}
