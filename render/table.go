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

// A Row receives the cells of one table row, in column order.
type Row struct {
	cells []cell
}

type valueKind uint8

const (
	vEmpty valueKind = iota
	vString
	vInt
	vUint
	vFloat
)

type cell struct {
	kind valueKind
	u    uint64 // Uint, or the bits of an Int
	f    float64
	s    string
}

// Str appends a String cell.
func (r *Row) Str(s string) *Row { r.cells = append(r.cells, cell{kind: vString, s: s}); return r }

// Int appends an Int or Ns cell.
func (r *Row) Int(v int64) *Row { r.cells = append(r.cells, cell{kind: vInt, u: uint64(v)}); return r }

// Uint appends a Uint or Hex cell.
func (r *Row) Uint(v uint64) *Row { r.cells = append(r.cells, cell{kind: vUint, u: v}); return r }

// Float appends a Float or Pct cell.
func (r *Row) Float(v float64) *Row { r.cells = append(r.cells, cell{kind: vFloat, f: v}); return r }

// Empty appends an empty cell (no value) of any column.
func (r *Row) Empty() *Row { r.cells = append(r.cells, cell{}); return r }

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

	layoutOnce sync.Once
	cols       []Column
}

// columns are the table's columns: Columns, or what Layout gives.
func (t *Table) columns() []Column {
	if t.Layout == nil {
		return t.Columns
	}
	t.layoutOnce.Do(func() { t.cols = t.Layout() })
	return t.cols
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
func (t *Table) CSV() View { return Stream(&tableGen{t: t, csv: true}, nil) }

// Text returns the table as aligned text after preamble (nil: a header
// line of the column names; a func returning nothing: no header).
func (t *Table) Text(preamble func() ([]byte, error)) View {
	return Stream(&tableGen{t: t, preamble: preamble}, nil)
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
	var row Row
	cols := t.columns()
	for _, c := range cols {
		row.Str(c.Name)
	}
	var dst []byte
	for i := range cols {
		dst = appendTextCell(dst, i, &cols[i], &row.cells[i], i == len(cols)-1)
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
	return &tableCursor{g: g, s: s, started: st.started}, nil
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
	c.row.cells = c.row.cells[:0]
	err := c.s.Scan(&c.row)
	if n := len(c.g.t.columns()); err == nil && len(c.row.cells) != n {
		err = fmt.Errorf("render: a row of %d cells in a table of %d columns", len(c.row.cells), n)
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
		if dst, err = c.g.appendRow(dst, c.row.cells); err != nil {
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
		k, err := c.g.rowLen(c.row.cells)
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

func (g *tableGen) appendRow(dst []byte, cells []cell) ([]byte, error) {
	return g.t.appendRow(dst, cells, g.csv)
}

func (t *Table) appendRow(dst []byte, cells []cell, csv bool) ([]byte, error) {
	cols := t.columns()
	for i := range cells {
		if csv && cells[i].kind == vEmpty {
			if i > 0 {
				dst = append(dst, ',')
			}
			continue
		}
		if err := check(&cols[i], &cells[i]); err != nil {
			return dst, err
		}
		if csv {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendCSVCell(dst, &cols[i], &cells[i])
		} else {
			dst = appendTextCell(dst, i, &cols[i], &cells[i], i == len(cells)-1)
		}
	}
	return append(dst, '\n'), nil
}

func (g *tableGen) rowLen(cells []cell) (int64, error) {
	cols := g.t.columns()
	n := len(cells) // the commas and the newline
	if !g.csv {
		n = 1
	}
	for i := range cells {
		if g.csv && cells[i].kind == vEmpty {
			continue
		}
		if err := check(&cols[i], &cells[i]); err != nil {
			return 0, err
		}
		if g.csv {
			n += csvCellLen(&cols[i], &cells[i])
		} else {
			n += textCellLen(i, &cols[i], &cells[i], i == len(cells)-1)
		}
	}
	return int64(n), nil
}

// check reports a cell whose value does not fit its column: a bug in the
// format, which fails the read instead of writing a wrong file.
func check(col *Column, c *cell) error {
	if c.kind == vEmpty || col.Kind == Number || int(col.Kind) < len(kindCell) && kindCell[col.Kind] == c.kind {
		return nil
	}
	return fmt.Errorf("render: column %s (%v) given a cell of kind %d", col.Name, col.Kind, c.kind)
}

// kindCell is the kind of cell each column kind takes (Number takes any).
var kindCell = [...]valueKind{String: vString, Int: vInt, Uint: vUint, Float: vFloat, Hex: vUint, Ns: vInt, Pct: vFloat, PctHalfUp: vFloat}

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
		return strconv.AppendInt(dst, int64(c.u), 10)
	}
	switch col.Kind {
	case Uint:
		return AppendUint(dst, c.u)
	case Hex:
		return AppendHexPadded(dst, c.u, col.Digits)
	case Pct:
		return AppendPct(dst, c.f)
	case PctHalfUp:
		return AppendPctHalfUp(dst, c.f)
	case Number:
		if c.kind == vUint {
			return AppendUint(dst, c.u)
		}
	}
	if csv {
		return AppendFloat(dst, c.f)
	}
	return AppendC(dst, c.f, 'g')
}

// valueLen is len(appendValue(nil, col, c, csv)), counted where it can be.
func valueLen(col *Column, c *cell, csv bool) int {
	switch c.kind {
	case vEmpty:
		return 0
	case vString:
		return len(EscapeName(c.s))
	case vInt:
		if v := int64(c.u); v < 0 {
			return 1 + DecimalLen(uint64(-v))
		}
		return DecimalLen(c.u)
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
			return FloatLen(c.f)
		}
	case Float:
		if csv {
			return FloatLen(c.f)
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

func appendCSVCell(dst []byte, col *Column, c *cell) []byte {
	if c.kind == vString {
		return AppendCSVField(dst, c.s)
	}
	return appendValue(dst, col, c, true)
}

func csvCellLen(col *Column, c *cell) int {
	if c.kind == vString {
		if plainCSV(c.s) {
			return len(c.s)
		}
		s := EscapeCSV(c.s)
		if FieldNeedsQuotes(s) {
			return 2 + len(s) + strings.Count(s, `"`)
		}
		return len(s)
	}
	return valueLen(col, c, true)
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
