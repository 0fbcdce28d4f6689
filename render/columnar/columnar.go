// Package columnar renders the Parquet twin of a CSV view: the same
// header and rows as typed, zstd-compressed columns in row groups, for
// DuckDB, pandas/pyarrow, Polars and Spark, which scan it in parallel
// and far faster than the CSV.
//
// A twin reads its CSV, so any table that renders as CSV gets one: each
// column's type comes from its cells (INT64 when every non-empty cell is
// a decimal integer, DOUBLE when every one is a number, else UTF-8
// strings; an empty cell is a null). The file is streamed like any view:
// one record per row group, each encoded alone by parquet-go into a small
// Parquet file of its own whose column chunks are moved to their place in
// the twin (their offsets shifted), and a footer of every row group's
// metadata. The first pass (planAndEncode) takes the types of the first
// row group's cells and encodes every row group with them, checking each
// cell, so it counts the rows and learns every row group's length and the
// footer while reading the CSV once; sizing then encodes nothing
// (NextLen). A cell of a wider type further on ends that pass: the CSV is
// scanned whole for the types and sizing encodes the row groups. The
// checkpoints (the CSV offset of each row group) and the footer go to the
// on-disk index, so a later mount knows the size at once and a read
// re-encodes only the row group it falls in. Memory: one row group (at most 4 MiB of CSV, its
// rows and encoded columns) per cursor, and the footer.
package columnar

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/render"
	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// A Kind is a column's Parquet type.
type Kind uint8

// Kinds from the narrowest; a column takes the widest its cells need.
const (
	Null   Kind = iota // only empty cells: written as strings, all null
	Int64              // INT64
	Double             // DOUBLE
	String             // BYTE_ARRAY UTF8
	Blob               // String with a cell longer than blobCell: no min/max statistics
)

// groupRows is the most rows a row group holds: DuckDB scans row groups
// in parallel (its own are 122880 rows), and one row group's encoded
// columns are what a cursor holds. groupBytes bounds a row group by the
// bytes of its CSV rows too (a group ends before the row that would take
// it past them; a longer row is a group of its own), so that a table of
// long cells (ovni jumbo payloads, MBs of hex each) is encoded a few MB
// at a time: one 11 MB group of them took a server to 150 MiB.
const (
	groupRows  = 1 << 17
	groupBytes = 4 << 20
)

// blobCell is the longest cell a string column keeps min/max statistics
// for: parquet-go writes a page's smallest and largest value whole into
// the page header, the column index and the footer, so an ovni jumbo
// payload of 3.7 MB of hex was stored three times over and held in
// memory as often.
const blobCell = 64 << 10

// longCells is the largest buffer of cells a reader of the CSV keeps for
// the next rows: one that grew past it held a jumbo cell.
const longCells = 1 << 20

const magic = "PAR1"

// Twin returns the Parquet twin of the CSV view csv, a render.Stream that
// takes its index key from the tree (render.Binder) like any view.
func Twin(csv render.View) render.View {
	return render.Stream(&twinGen{csv: csv}, nil)
}

// plan is what the first pass learns of the CSV.
type plan struct {
	names []string
	kinds []Kind
	rows  int64
}

type twinGen struct {
	csv render.View

	planOnce sync.Once
	plan     *plan
	planErr  error
	layout   *layout // the row groups' lengths when the plan's pass encoded them

	mu       sync.Mutex
	footer   []byte // when known: from sizing, or from the index
	footerAt int64  // its offset in the twin, when made here
	binding  render.Binding
	bound    bool // binding was given: row groups are kept on disk
}

// twinPos is a position in the twin: before row group group (its first
// row, row, at byte csvOff of the CSV, its bytes at off of the twin), or,
// when row is the plan's number of rows, before the footer (ended: after
// it).
type twinPos struct {
	plan        *plan
	group, row  int64
	csvOff, off int64
	begun       bool
	ended       bool
	footer      []byte // before the footer only
}

// layout is what the first pass learns of the row groups when it
// encodes them: each one's bytes in the twin, rows and the CSV offset
// after it, so that sizing (NextLen) encodes nothing again.
type layout struct {
	lens, rows, csvEnds []int64
}

func (g *twinGen) getPlan() (*plan, error) {
	g.planOnce.Do(func() { g.plan, g.layout, g.planErr = g.planAndEncode() })
	return g.plan, g.planErr
}

// planAndEncode is the first pass over the CSV, made once: the kinds of
// the first row group's cells (the head), then every row group encoded
// with them while its cells are checked against them, which gives the
// rows' count, the layout and the footer in one pass over the rest. A
// cell that does not fit its column's kind (a column empty in the head,
// an integer column with a fraction further on) ends it: the CSV is then
// scanned whole for the kinds and the row groups are encoded again while
// sizing. Encoding before knowing every kind is safe because the kinds
// decide the bytes: a pass that found them all fitting wrote what a pass
// after a whole scan would.
func (g *twinGen) planAndEncode() (*plan, *layout, error) {
	head, complete, err := scanPlan(g.csv, groupRows)
	if err != nil || len(head.names) == 0 {
		return head, nil, err
	}
	c := &twinCursor{g: g, whole: true, spec: true, schema: schemaOf(head)}
	c.pos = twinPos{plan: &plan{names: head.names, kinds: head.kinds, rows: math.MaxInt64}, begun: true, off: int64(len(magic))}
	l := &layout{}
	var buf []byte
	for !c.eof {
		row, csvOff := c.pos.row, c.pos.csvOff
		buf, err = c.appendGroup(buf[:0])
		if err == errWiden {
			p, _, err := scanPlan(g.csv, math.MaxInt64)
			return p, nil, err
		}
		if err != nil {
			return nil, nil, err
		}
		if c.pos.row == row {
			break // no row left
		}
		l.lens, l.rows, l.csvEnds = append(l.lens, int64(len(buf))), append(l.rows, c.pos.row-row), append(l.csvEnds, c.pos.csvOff)
		g.keepGroup(&group{kinds: kindsKey(head.kinds), index: c.pos.group, row: row, csvOff: csvOff, off: c.pos.off,
			rows: c.pos.row - row, csvEnd: c.pos.csvOff, data: buf}, false)
		c.pos.off += int64(len(buf))
		c.pos.group++
	}
	if complete && c.pos.row != head.rows {
		return nil, nil, fmt.Errorf("columnar: %d rows encoded of %d", c.pos.row, head.rows)
	}
	c.pos.plan.rows = c.pos.row
	if _, err := c.footer(); err != nil {
		return nil, nil, err
	}
	return c.pos.plan, l, nil
}

// csvReader reads the CSV from byte off with a cursor of its own
// (render.NewReader), not through the segment cache the twin's own reads
// need.
func csvReader(v render.View, off int64) (*rowReader, error) {
	in, err := render.NewReader(v, off)
	if err != nil {
		return nil, err
	}
	if sr, ok := in.(sliceReader); ok {
		return &rowReader{in: sr}, nil // a jumbo line is read in one piece, not 256 KiB ones
	}
	return &rowReader{in: bufio.NewReaderSize(in, 256<<10)}, nil
}

// scanPlan reads the CSV, up to limit rows: its header, its rows' count
// and its columns' kinds; complete when that was every row.
func scanPlan(v render.View, limit int64) (p *plan, complete bool, err error) {
	r, err := csvReader(v, 0)
	if err != nil {
		return nil, false, err
	}
	buf, ends, err := r.read(nil, nil)
	if err == io.EOF {
		return &plan{}, true, nil
	}
	if err != nil {
		return nil, false, csvError(err)
	}
	p = &plan{kinds: make([]Kind, len(ends))}
	for i := range ends {
		p.names = append(p.names, string(cellOf(buf, ends, i)))
	}
	for p.rows < limit {
		buf, ends, err = r.read(buf[:0], ends[:0])
		if err == io.EOF {
			return p, true, nil
		}
		if err != nil {
			return nil, false, csvError(err)
		}
		p.rows++
		for i := range ends {
			switch cell, k := cellOf(buf, ends, i), p.kinds[i]; {
			case len(cell) > blobCell:
				p.kinds[i] = Blob
			case k < String && len(cell) > 0:
				p.kinds[i] = max(k, kindOf(string(cell)))
			}
		}
		if cap(buf) > longCells {
			buf = nil // a jumbo cell's: not kept for the rows after it
		}
	}
	return p, false, nil
}

// cellOf is field i of a record that rowReader.read appended to buf from
// its start.
func cellOf(buf []byte, ends []int, i int) []byte {
	if i == 0 {
		return buf[:ends[0]]
	}
	return buf[ends[i-1]:ends[i]]
}

// kindOf is the narrowest kind that holds a non-empty cell.
func kindOf(cell string) Kind {
	if _, err := strconv.ParseInt(cell, 10, 64); err == nil {
		return Int64
	}
	if f, err := strconv.ParseFloat(cell, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && cell[len(cell)-1] != 'f' {
		return Double
	}
	return String
}

// csvError says that the CSV twin does not parse: a bug of the view, not
// of the input, so it fails reads instead of ending the view quietly.
func csvError(err error) error { return fmt.Errorf("columnar: the CSV view does not parse: %w", err) }

// footerNear is how close to the footer a checkpoint is stored with it:
// render keeps one at least every 64 KiB, so the last one is within this
// and a later mount renders the footer without encoding the row groups.
const footerNear = 1 << 20

// EncodeState writes a twinPos for the on-disk index, with the footer
// when the position is near it.
// NotKept: a twin's encoded row groups are kept already (groups.go), so
// its sizing pass counts them (render.NotKept).
func (g *twinGen) NotKept() {}

func (g *twinGen) EncodeState(state any) []byte {
	p := state.(twinPos)
	g.mu.Lock()
	if g.footer != nil && g.footerAt-p.off < footerNear {
		p.footer = g.footer
	}
	g.mu.Unlock()
	var w render.StateWriter
	w.Int(p.group).Int(p.row).Int(p.csvOff).Int(p.off).Bool(p.begun).Bool(p.ended).Int(p.plan.rows).Uint(uint64(len(p.plan.names)))
	for i, n := range p.plan.names {
		w.Uint(uint64(len(n))).Raw([]byte(n)).Uint(uint64(p.plan.kinds[i]))
	}
	w.Uint(uint64(len(p.footer))).Raw(p.footer)
	return w.Bytes()
}

// DecodeState reads what EncodeState wrote; a footer in it is kept for
// every cursor.
func (g *twinGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	p := twinPos{plan: &plan{}, group: r.Int(0, math.MaxInt64), row: r.Int(0, math.MaxInt64), csvOff: r.Int(0, math.MaxInt64),
		off: r.Int(0, math.MaxInt64), begun: r.Bool(), ended: r.Bool()}
	p.plan.rows = r.Int(0, math.MaxInt64)
	if p.row > p.plan.rows {
		return nil, fmt.Errorf("columnar: row %d of %d", p.row, p.plan.rows)
	}
	n := int(r.Uint(uint64(len(b))))
	for range n {
		l := int(r.Uint(uint64(len(r.Rest()))))
		p.plan.names = append(p.plan.names, string(r.Rest()[:l]))
		r.Skip(l)
		p.plan.kinds = append(p.plan.kinds, Kind(r.Uint(uint64(Blob))))
	}
	if l := int(r.Uint(uint64(len(r.Rest())))); l > 0 {
		p.footer = bytes.Clone(r.Rest()[:l])
		r.Skip(l)
		g.mu.Lock()
		g.footer = p.footer
		g.mu.Unlock()
	}
	return p, r.Err()
}

type twinCursor struct {
	g      *twinGen
	pos    twinPos
	schema *parquet.Schema
	groups []format.RowGroup // every row group so far, when the cursor began at 0
	whole  bool              // it did
	enc    bytes.Buffer
	row    []parquet.Row
	cells  []byte // the cells of a batch of rows
	spec   bool   // the first pass: rows until EOF, cells checked against the kinds (errWiden)
	eof    bool   // the first pass read the last row
	len    []byte // NextLen's buffer when it renders
}

// errWiden ends the first pass at a cell that its column's kind does not
// hold.
var errWiden = errors.New("columnar: a cell wider than its column's kind")

// codec is the zstd codec of every twin: one encoder, made once, with a
// window of the size of a page. parquet-go's own codec made an encoder
// with an 8 MB window for each row group (72 MB peak RSS to size a
// 300k-row twin).
var codec = newZstd()

type zstdCodec struct {
	enc *kzstd.Encoder
	dec *kzstd.Decoder
}

func newZstd() *zstdCodec {
	enc, err := kzstd.NewWriter(nil, kzstd.WithEncoderConcurrency(1), kzstd.WithWindowSize(256<<10),
		kzstd.WithZeroFrames(true), kzstd.WithEncoderCRC(false))
	if err != nil {
		panic(err) // the options are constant
	}
	dec, err := kzstd.NewReader(nil, kzstd.WithDecoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return &zstdCodec{enc, dec}
}

func (*zstdCodec) String() string                            { return "ZSTD" }
func (*zstdCodec) CompressionCodec() format.CompressionCodec { return format.Zstd }

// Encode compresses src; safe for concurrent use (EncodeAll is).
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// Decode is not used by a writer; it decompresses src.
func (c *zstdCodec) Decode(dst, src []byte) ([]byte, error) { return c.dec.DecodeAll(src, dst[:0]) }

func (g *twinGen) Start(state any) (render.Cursor, error) {
	c := &twinCursor{g: g}
	if p, ok := state.(twinPos); ok {
		c.pos = p
	} else {
		p, err := g.getPlan()
		if err != nil {
			return nil, err
		}
		c.pos.plan, c.whole = p, true
		if g.layout != nil {
			c.whole = false // the first pass made the footer; NextLen skips row groups
		}
	}
	c.schema = schemaOf(c.pos.plan)
	return c, nil
}

func (c *twinCursor) State() any {
	p := c.pos
	if p.row < p.plan.rows {
		p.footer = nil
	}
	return p
}

func (c *twinCursor) Next(dst []byte) ([]byte, error) {
	p := &c.pos
	switch {
	case !p.begun:
		p.begun = true
		p.off += int64(len(magic))
		return append(dst, magic...), nil
	case p.row < p.plan.rows:
		start := len(dst)
		var err error
		if gr := c.cached(); gr != nil {
			dst = append(dst, gr.data...)
			p.row += gr.rows
			p.csvOff = gr.csvEnd
		} else {
			before := *p
			if dst, err = c.appendGroup(dst); err != nil {
				return dst[:start], err
			}
			c.g.keepGroup(&group{kinds: kindsKey(p.plan.kinds), index: p.group, row: before.row, csvOff: before.csvOff, off: p.off,
				rows: p.row - before.row, csvEnd: p.csvOff, data: dst[start:]}, true)
		}
		p.off += int64(len(dst) - start)
		p.group++
		if p.row == p.plan.rows {
			p.footer, err = c.footer()
			if err != nil {
				return dst[:start], err
			}
		}
		return dst, nil
	case !p.ended:
		footer := p.footer
		if footer == nil {
			var err error
			if footer, err = c.footer(); err != nil {
				return dst, err
			}
		}
		p.ended = true
		dst = append(dst, footer...)
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(footer)))
		return append(dst, magic...), nil
	}
	return dst, io.EOF
}

// cached is the row group at the cursor when it was kept (groups.go);
// nil when it must be encoded: always for a cursor that makes the
// footer from the row groups it encodes (whole), which needs their
// metadata.
func (c *twinCursor) cached() *group {
	if c.whole || c.spec {
		return nil
	}
	return c.g.cachedGroup(&c.pos)
}

// NextLen is Next's length: for a row group that the first pass encoded
// (a cursor from the start of a twin whose plan made the layout) it is
// known without encoding it again.
func (c *twinCursor) NextLen() (int64, error) {
	p, l := &c.pos, c.g.layout
	if l != nil && p.plan == c.g.plan && p.begun && p.row < p.plan.rows && p.group < int64(len(l.lens)) {
		n := l.lens[p.group]
		p.row += l.rows[p.group]
		p.csvOff = l.csvEnds[p.group]
		p.off += n
		p.group++
		if p.row == p.plan.rows {
			c.g.mu.Lock()
			p.footer = c.g.footer
			c.g.mu.Unlock()
		}
		return n, nil
	}
	var err error
	c.len, err = c.Next(c.len[:0])
	return int64(len(c.len)), err
}

// footer is the file's metadata: made from the row groups this cursor
// encoded when it began at 0, else the one the generator knows (from the
// sizing pass or the index), else made by encoding every row group again.
func (c *twinCursor) footer() ([]byte, error) {
	if n := c.pos.plan.rows; !c.whole && n > 0 {
		c.g.mu.Lock()
		f := c.g.footer
		c.g.mu.Unlock()
		if f != nil {
			return f, nil
		}
		all := &twinCursor{g: c.g, pos: twinPos{plan: c.pos.plan}, whole: true, schema: c.schema}
		var buf []byte
		var err error
		for all.pos.row < n {
			if buf, err = all.Next(buf[:0]); err != nil {
				return nil, err
			}
		}
		return all.pos.footer, nil
	}
	elems, err := schemaElements(c.schema)
	if err != nil {
		return nil, err
	}
	md := format.FileMetaData{Version: 1, Schema: elems, NumRows: c.pos.plan.rows, RowGroups: c.groups, CreatedBy: "hpcfs"}
	f, err := thrift.Marshal(new(thrift.CompactProtocol), &md)
	if err != nil {
		return nil, err
	}
	c.g.mu.Lock()
	c.g.footer, c.g.footerAt = f, c.pos.off
	c.g.mu.Unlock()
	return f, nil
}

// appendGroup encodes the rows of the current row group and appends its
// column chunks.
func (c *twinCursor) appendGroup(dst []byte) ([]byte, error) {
	p := &c.pos
	r, err := csvReader(c.g.csv, p.csvOff)
	if err != nil {
		return dst, err
	}
	if p.row == 0 && p.csvOff == 0 {
		if _, _, err := r.read(nil, nil); err != nil {
			return dst, csvError(err)
		}
	}
	rows := min(groupRows, p.plan.rows-p.row)
	first, end := r.off, r.off // the group's first row; the end of its last
	c.enc.Reset()
	opts := []parquet.WriterOption{c.schema, parquet.Compression(codec), parquet.CreatedBy("hpcfs", "", "")}
	for i, k := range p.plan.kinds {
		if k == Blob {
			opts = append(opts, parquet.SkipPageStatistics(p.plan.names[i]), parquet.SkipPageBounds(p.plan.names[i]))
		}
	}
	w := parquet.NewWriter(&c.enc, opts...)
	const batch = 256
	if c.row == nil {
		c.row = make([]parquet.Row, batch)
	}
	done, full := int64(0), false
	var ends []int
	buf := c.cells[:0] // the batch's cells, which its rows point into until written
	for done < rows && !full {
		k := 0
		for ; k < batch && done < rows; k++ {
			if len(buf) > longCells {
				// After a long row the next (the next group's, when this
				// one is full) goes to a buffer of its own instead of
				// growing this one past both. The batch goes on: where
				// WriteRows is called decides the pages.
				buf = nil
			}
			from := len(buf)
			if r.stop = 0; done > 0 {
				r.stop = first + groupBytes
			}
			var err error
			if buf, ends, err = r.read(buf, ends[:0]); err == errPast {
				// The next row starts the next group, which reads it
				// again: the reader, which holds it rendered (a jumbo
				// line, MBs), goes before this group is encoded.
				full, r = true, nil
				break
			}
			if err == io.EOF && c.spec {
				c.eof = true
				break
			}
			if err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return dst, csvError(err)
			}
			if done > 0 && r.off-first > groupBytes {
				full = true // this row starts the next group
				break
			}
			var fits bool
			if c.row[k], fits = appendRow(c.row[k][:0], buf, from, ends, p.plan.kinds); !fits && c.spec {
				return dst, errWiden
			}
			end = r.off
			done++
		}
		if _, err := w.WriteRows(c.row[:k]); err != nil {
			return dst, err
		}
		if c.eof {
			break
		}
		for i := range k {
			clear(c.row[i]) // the rows' byte arrays: garbage once written
		}
		buf = buf[:0]
	}
	if done == 0 && c.eof {
		return dst, nil // the first pass: no row left
	}
	c.cells = buf
	if cap(buf) > longCells {
		c.cells = nil // a jumbo cell's: not kept for the next group
	}
	if err := w.Close(); err != nil {
		return dst, err
	}
	p.csvOff += end
	p.row += done
	return c.moveChunks(dst)
}

// moveChunks appends the column chunks of the one-row-group file in c.enc
// and keeps its metadata, shifted to where they land.
func (c *twinCursor) moveChunks(dst []byte) ([]byte, error) {
	b := c.enc.Bytes()
	var md format.FileMetaData
	if len(b) < 12 {
		return dst, errors.New("columnar: short row group file")
	}
	flen := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if flen > len(b)-12 {
		return dst, errors.New("columnar: bad row group footer")
	}
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), b[len(b)-8-flen:len(b)-8], &md); err != nil {
		return dst, err
	}
	if len(md.RowGroups) != 1 {
		return dst, fmt.Errorf("columnar: %d row groups in one", len(md.RowGroups))
	}
	rg := md.RowGroups[0]
	end := int64(len(magic))
	for i := range rg.Columns {
		m := &rg.Columns[i].MetaData
		first := m.DataPageOffset
		if m.DictionaryPageOffset > 0 {
			first = min(first, m.DictionaryPageOffset)
		}
		if first != end {
			return dst, fmt.Errorf("columnar: column chunk %d at %d, not %d", i, first, end)
		}
		end += m.TotalCompressedSize
	}
	if end > int64(len(b)) {
		return dst, errors.New("columnar: column chunks past the file")
	}
	delta := c.pos.off - int64(len(magic))
	for i := range rg.Columns {
		cc := &rg.Columns[i]
		cc.FileOffset += delta
		cc.MetaData.DataPageOffset += delta
		if cc.MetaData.DictionaryPageOffset > 0 {
			cc.MetaData.DictionaryPageOffset += delta
		}
		cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0, 0, 0
		if i < len(c.pos.plan.kinds) && c.pos.plan.kinds[i] == Blob {
			st := &cc.MetaData.Statistics
			st.Min, st.Max, st.MinValue, st.MaxValue = nil, nil, nil, nil
		}
	}
	rg.FileOffset = c.pos.off
	rg.TotalCompressedSize = end - int64(len(magic))
	rg.Ordinal = int16(min(c.pos.group, math.MaxInt16))
	if c.whole {
		c.groups = append(c.groups, rg)
	}
	return append(dst, b[len(magic):end]...), nil
}

// appendRow converts one CSV record, appended by rowReader.read to buf
// from byte at, to a Parquet row whose byte arrays point into buf (the
// writer copies them); fits says whether every cell fits its column's
// kind (kindOf(cell) <= kind, a String cell not longer than blobCell).
func appendRow(row parquet.Row, buf []byte, at int, ends []int, kinds []Kind) (_ parquet.Row, fits bool) {
	fits = true
	for i, e := range ends {
		cell := buf[at:e]
		at = e
		var v parquet.Value
		switch {
		case len(cell) == 0:
			row = append(row, parquet.NullValue().Level(0, 0, i))
			continue
		case kinds[i] == Null:
			fits = false
			row = append(row, parquet.NullValue().Level(0, 0, i))
			continue
		case kinds[i] == Int64:
			n, err := strconv.ParseInt(string(cell), 10, 64)
			fits = fits && err == nil
			v = parquet.Int64Value(n)
		case kinds[i] == Double:
			f, err := strconv.ParseFloat(string(cell), 64)
			fits = fits && err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) && cell[len(cell)-1] != 'f'
			v = parquet.DoubleValue(f)
		default:
			fits = fits && (kinds[i] == Blob || len(cell) <= blobCell)
			v = parquet.ByteArrayValue(cell)
		}
		row = append(row, v.Level(0, 1, i))
	}
	return row, fits
}

// schemaOf is the Parquet schema of a plan: one optional column per CSV
// column, in the CSV's order.
func schemaOf(p *plan) *parquet.Schema {
	fields := make([]parquet.Field, len(p.names))
	for i, name := range p.names {
		var n parquet.Node
		switch p.kinds[i] {
		case Int64:
			n = parquet.Int(64)
		case Double:
			n = parquet.Leaf(parquet.DoubleType)
		default:
			n = parquet.String()
		}
		fields[i] = field{Node: parquet.Optional(n), name: name}
	}
	return parquet.NewSchema("table", ordered{fields: fields})
}

// schemaElements is the schema as the footer lists it.
func schemaElements(s *parquet.Schema) ([]format.SchemaElement, error) {
	var b bytes.Buffer
	w := parquet.NewWriter(&b, s)
	if err := w.Close(); err != nil {
		return nil, err
	}
	f, err := parquet.OpenFile(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		return nil, err
	}
	return f.Metadata().Schema, nil
}

// ordered is a group node whose fields keep the CSV's order
// (parquet.Group sorts them by name).
type ordered struct {
	parquet.Group
	fields []parquet.Field
}

func (g ordered) Fields() []parquet.Field { return g.fields }

type field struct {
	parquet.Node
	name string
}

func (f field) Name() string                      { return f.name }
func (f field) Value(reflect.Value) reflect.Value { return reflect.Value{} }
