package render

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"math/bits"
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

// A tableShape is a table's columns and, per column, what a Row needs
// to write its cells (colFormat).
type tableShape struct {
	cols []Column
	fmts []colFormat
}

// A colFormat is what a Row checks and writes a cell of a column by.
type colFormat struct {
	accept uint8 // the kinds of cell it takes: a bit per valueKind, vEmpty's always set
	kind   Kind
	digits int32 // Hex
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
		t.shape = tableShape{cols: cols, fmts: make([]colFormat, len(cols))}
		for i, c := range cols {
			f := &t.shape.fmts[i]
			f.kind, f.digits = c.Kind, int32(min(max(c.Digits, 0), math.MaxInt32))
			f.accept = 1<<vEmpty | 1<<wantKind(c.Kind)
			if c.Kind == String {
				f.accept |= 1 << vText
			}
			if c.Kind == Number {
				f.accept = 0xff
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
	sh := g.t.shapeOf()
	return &tableCursor{g: g, s: s, started: st.started, row: Row{sh: sh, fmts: sh.fmts}}, nil
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

// scan reads the next row into c.row, in mode; an error (io.EOF at the
// end) ends the view.
func (c *tableCursor) scan(mode rowMode) error {
	r := &c.row
	r.mode = mode
	r.begin()
	if err := r.end(c.s.Scan(r)); err != nil {
		c.done = true
		return err
	}
	return nil
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
	if !c.g.csv {
		return c.nextText(dst)
	}
	r := &c.row
	r.out = dst
	start := len(dst)
	for len(r.out)-start < tableBatch {
		at := len(r.out)
		if err := c.scan(rowCSV); err != nil {
			dst, r.out = r.out[:at], nil // the row's cells so far go
			return dst, endRows(err, at > start)
		}
		if r.n == 0 {
			r.out = append(r.out, '\n')
		} else {
			r.out[len(r.out)-1] = '\n' // the last cell's comma
		}
	}
	dst, r.out = r.out, nil
	return dst, nil
}

// nextText is Next of the text rendering: rows kept as cells, then
// written padded to their columns' widths.
func (c *tableCursor) nextText(dst []byte) ([]byte, error) {
	start := len(dst)
	for len(dst)-start < tableBatch {
		err := c.scan(rowCells)
		if err == nil {
			at := len(dst)
			if dst, err = c.row.sh.appendTextRow(dst, &c.row); err != nil {
				c.done = true
				return dst[:at], err
			}
			continue
		}
		return dst, endRows(err, len(dst) > start)
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
	mode := rowCount
	if !c.g.csv {
		mode = rowCells
	}
	var n int64
	for n < tableBatch {
		if err := c.scan(mode); err != nil {
			return n, endRows(err, n > 0)
		}
		if c.g.csv {
			n += int64(max(c.row.size, 1)) // the cells, each with its comma or the newline
			continue
		}
		k, err := c.row.sh.textRowLen(&c.row)
		if err != nil {
			c.done = true
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
	if sh.fmts[c.col].accept&(1<<c.kind) != 0 {
		return nil
	}
	return sh.misfit(int(c.col), c.kind) // apart, so that check is inlined
}

func (sh *tableShape) misfit(i int, k valueKind) error {
	col := &sh.cols[i]
	return fmt.Errorf("render: column %s (%v) given a cell of kind %d", col.Name, col.Kind, k)
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

// appendValue appends the cell's text as the text rendering writes it
// (floats rounded to 6 significant digits), without alignment; a string
// as text views write names (AppendName: control bytes as \xNN).
func appendValue(dst []byte, col *Column, c *cell) []byte {
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
	return AppendC(dst, c.f(), 'g')
}

// valueLen is len(appendValue(nil, col, c)), counted where it can be.
func valueLen(col *Column, c *cell) int {
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
	}
	var buf [40]byte
	return len(appendValue(buf[:0], col, c))
}

// appendFloatAs appends v as a CSV cell of a column of kind writes it:
// a percentage with 2 decimals, else the shortest decimal (AppendFloat).
func appendFloatAs(dst []byte, kind Kind, v float64) []byte {
	switch kind {
	case Pct:
		return AppendPct(dst, v)
	case PctHalfUp:
		return AppendPctHalfUp(dst, v)
	}
	return AppendFloat(dst, v)
}

// floatLenAs is len(appendFloatAs(nil, kind, v)).
func floatLenAs(kind Kind, v float64) int {
	if kind == Pct || kind == PctHalfUp {
		var buf [40]byte
		return len(appendFloatAs(buf[:0], kind, v))
	}
	return FloatLen(v)
}

// AppendPct appends a percentage as every view writes one: 2 decimals.
func AppendPct(dst []byte, v float64) []byte { return strconv.AppendFloat(dst, v, 'f', 2, 64) }

// FormatPct is AppendPct as a string.
func FormatPct(v float64) string { return string(AppendPct(nil, v)) }

// HexLen is the number of hex digits of v.
func HexLen(v uint64) int { return max((bits.Len64(v)+3)/4, 1) }

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
	return valueLen(col, c)
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
	dst = appendValue(dst, col, c)
	if left && !last {
		dst = appendBlanks(dst, pad)
	}
	return dst
}

func textCellLen(i int, col *Column, c *cell, last bool) int {
	n := valueLen(col, c)
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
