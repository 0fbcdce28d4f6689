package otf2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
)

// Record type bytes shared by every chunked file.
const (
	bufEndOfChunk  = 0x00
	bufEndOfFile   = 0x02
	bufChunkHeader = 0x03
	bufTimestamp   = 0x05
	bufAttrList    = 0x06
	endianLittle   = 0x42
	endianBig      = 0x23
	chunkHeaderLen = 18
)

func errAt(section string, off int64, msg string, val any, kind error) error {
	return decode.ErrAt("otf2", section, off, msg, val, kind)
}

// A chunkReader walks the records of one chunked file (.evt, .def, .snap)
// through a window of the current chunk (window bytes at a time, more for
// a longer record), so that a reader holds little memory and a reader
// started in the middle of a chunk reads only what it decodes. Values are
// read with a sticky error, as debug/dwarf's buf: after the first error
// every read returns zero.
type chunkReader struct {
	r         io.ReaderAt // nil: buf holds the whole chunk (the anchor)
	size      int64
	name      string
	chunkSize int64
	buf       []byte // bytes [lo, lo+len(buf)) of the current chunk
	lo        int
	win       int   // bytes the next read takes at least
	clen      int   // length of the current chunk
	chunkOff  int64 // file offset of the current chunk
	pos       int   // read position in the chunk
	end       int   // end of the current record (for bounded reads)
	order     binary.ByteOrder
	big       bool
	err       error
	eof       bool // the end-of-file record was read
}

func newChunkReader(r io.ReaderAt, size int64, name string, chunkSize uint64) *chunkReader {
	cs := int64(min(chunkSize, uint64(max(size, 0)), 1<<30))
	return &chunkReader{r: r, size: size, name: name, chunkSize: cs, chunkOff: -1}
}

// offset is the file offset of the read position.
func (c *chunkReader) offset() int64 { return c.chunkOff + int64(c.pos) }

func (c *chunkReader) fail(off int64, msg string, val any, kind error) {
	if c.err == nil {
		c.err = errAt(c.name, off, msg, val, kind)
	}
	c.end = c.pos
}

// load reads the chunk that starts at file offset off and its header.
func (c *chunkReader) load(off int64) bool {
	if off >= c.size {
		c.fail(off, "file ends without an end-of-file record", nil, decode.ErrTruncated)
		return false
	}
	n := min(c.chunkSize, c.size-off)
	if n < chunkHeaderLen {
		c.fail(off, "chunk shorter than its header", n, decode.ErrTruncated)
		return false
	}
	c.chunkOff, c.clen, c.pos, c.lo, c.buf = off, int(n), 0, 0, c.buf[:0]
	c.end = c.clen
	if !c.ensure(chunkHeaderLen) {
		return false
	}
	h := c.buf
	if h[0] != bufChunkHeader {
		c.fail(off, "no chunk header", h[0], nil)
		return false
	}
	switch h[1] {
	case endianLittle:
		c.order, c.big = binary.LittleEndian, false
	case endianBig:
		c.order, c.big = binary.BigEndian, true
	default:
		c.fail(off+1, "bad endianness byte", h[1], nil)
		return false
	}
	c.pos, c.end = chunkHeaderLen, chunkHeaderLen
	return true
}

// A reader reads a chunk firstWindow bytes at a time, twice as many at
// each read after that up to window: a cursor that renders a segment of a
// merged view reads a few KB of each location, one that goes on reads in
// large blocks.
const (
	firstWindow = 4 << 10
	window      = 64 << 10
)

// windows holds the buffers of released readers (EventReader.Release): a
// reader that renders a segment of a merged view is made for it, and
// allocating its windows anew was most of the server's allocation (a
// fresh mount's events.txt of 4M events of 16 locations: 37 collections).
var windows sync.Pool

// release gives buf to windows; the reader reads again into another if
// it is used after.
func (c *chunkReader) release() {
	if c.r != nil && cap(c.buf) > 0 {
		b := c.buf[:cap(c.buf)]
		windows.Put(&b)
	}
	c.buf, c.lo = nil, c.pos
}

// ensure makes bytes [pos, pos+n) of the chunk available in buf; false
// (with c.err set) when they are past the chunk or cannot be read.
func (c *chunkReader) ensure(n int) bool {
	if c.pos >= c.lo && c.pos+n <= c.lo+len(c.buf) {
		return true
	}
	return c.fill(n)
}

// fill reads bytes [pos, pos+n) of the chunk, and up to a window more,
// into buf.
func (c *chunkReader) fill(n int) bool {
	if c.r == nil || c.pos+n > c.clen {
		c.fail(c.offset(), "record ends inside a field", nil, decode.ErrTruncated)
		return false
	}
	c.win = min(max(2*c.win, firstWindow), window)
	k := min(max(n, c.win), c.clen-c.pos)
	if cap(c.buf) < k {
		if p, ok := windows.Get().(*[]byte); ok && cap(*p) >= k {
			c.buf = *p
		} else {
			c.buf = make([]byte, k)
		}
	}
	c.buf = c.buf[:k]
	if _, err := c.r.ReadAt(c.buf, c.chunkOff+int64(c.pos)); err != nil && err != io.EOF {
		// The file failing is no malformed input: the error as it is.
		if c.err == nil {
			c.err = fmt.Errorf("%s: %w", c.name, err)
		}
		c.end, c.buf = c.pos, c.buf[:0]
		return false
	}
	c.lo = c.pos
	return true
}

// span makes the next n bytes of the chunk (fewer at its end) the bytes
// the field reads may take, read into buf: the field reads check only
// the end.
func (c *chunkReader) span(n int) bool {
	c.end = c.pos + min(n, c.clen-c.pos)
	return c.ensure(c.end - c.pos)
}

// at is the byte at chunk position i (ensured).
func (c *chunkReader) at(i int) byte { return c.buf[i-c.lo] }

// next returns the type byte of the next record, moving to the next chunk
// at an end-of-chunk mark; it returns bufEndOfFile at the end of the file
// and on error (c.err tells which).
func (c *chunkReader) next() byte {
	for c.err == nil && !c.eof {
		if c.chunkOff < 0 {
			if !c.load(0) {
				break
			}
			continue
		}
		if c.pos >= c.clen {
			if !c.load(c.chunkOff + c.chunkSize) {
				break
			}
			continue
		}
		if !c.ensure(1) {
			break
		}
		t := c.at(c.pos)
		c.pos++
		if t == bufEndOfChunk {
			if c.chunkOff+int64(c.clen) >= c.size {
				c.fail(c.offset()-1, "file ends without an end-of-file record", nil, decode.ErrTruncated)
				break
			}
			if !c.load(c.chunkOff + c.chunkSize) {
				break
			}
			continue
		}
		c.end = c.pos
		if t == bufEndOfFile {
			c.eof = true
		}
		return t
	}
	return bufEndOfFile
}

// recordLen reads a record's length (one byte, or 0xFF and a raw u64),
// reads the record into buf and sets its end; it returns the end position.
func (c *chunkReader) recordLen() int {
	start := c.pos
	if !c.span(9) {
		return c.pos
	}
	n := uint64(c.u8())
	if n == 0xff {
		n = c.u64raw()
	}
	if c.err != nil {
		return c.pos
	}
	if n > uint64(c.clen-c.pos) {
		c.fail(c.chunkOff+int64(start), "record length runs past the chunk", n, decode.ErrTruncated)
		return c.pos
	}
	if !c.span(int(n)) {
		return c.pos
	}
	return c.end
}

// need reports whether the record has n more bytes (they are in buf).
func (c *chunkReader) need(n int) bool {
	if c.end-c.pos < n {
		c.fail(c.offset(), "record ends inside a field", nil, decode.ErrTruncated)
		return false
	}
	return true
}

func (c *chunkReader) u8() uint8 {
	if !c.need(1) {
		return 0
	}
	v := c.at(c.pos)
	c.pos++
	return v
}

// raw returns the next n bytes of the record (nil past its end).
func (c *chunkReader) raw(n int) []byte {
	if !c.need(n) {
		return nil
	}
	b := c.buf[c.pos-c.lo : c.pos-c.lo+n]
	c.pos += n
	return b
}

func (c *chunkReader) u16() uint16 {
	if b := c.raw(2); b != nil {
		return c.order.Uint16(b)
	}
	return 0
}

func (c *chunkReader) u32raw() uint32 {
	if b := c.raw(4); b != nil {
		return c.order.Uint32(b)
	}
	return 0
}

func (c *chunkReader) u64raw() uint64 {
	if b := c.raw(8); b != nil {
		return c.order.Uint64(b)
	}
	return 0
}

// compressed reads a compressed integer of at most width bytes: a count k,
// then k low-order bytes; 0xFF is all ones.
func (c *chunkReader) compressed(width int) uint64 {
	if !c.need(1) {
		return 0
	}
	k := int(c.at(c.pos))
	if k == 0xff {
		c.pos++
		if width == 4 {
			return math.MaxUint32
		}
		return math.MaxUint64
	}
	if k > width {
		c.fail(c.offset(), "bad compressed integer size", k, nil)
		return 0
	}
	if !c.need(1 + k) {
		return 0
	}
	b := c.buf[c.pos-c.lo+1 : c.pos-c.lo+1+k]
	c.pos += 1 + k
	var v uint64
	if c.big {
		for _, x := range b {
			v = v<<8 | uint64(x)
		}
	} else {
		for i := k - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
	}
	return v
}

// signed extends a compressed signed value of width bytes.
func signed(v uint64, width int) uint64 {
	if width == 4 {
		return uint64(int64(int32(uint32(v))))
	}
	return v
}

func (c *chunkReader) str() string {
	if c.pos < c.end {
		b := c.buf[c.pos-c.lo : c.end-c.lo]
		if i := bytes.IndexByte(b, 0); i >= 0 {
			s := string(b[:i])
			c.pos += i + 1
			return s
		}
	}
	c.fail(c.offset(), "string without its NUL", nil, decode.ErrTruncated)
	return ""
}

// scalar reads one field of kind k as 64 bits (floats as their bits,
// signed values sign-extended).
func (c *chunkReader) scalar(k fieldKind) uint64 {
	switch k {
	case kU8:
		return uint64(c.u8())
	case kU16:
		return uint64(c.u16())
	case kI8:
		return uint64(int64(int8(c.u8())))
	case kI16:
		return uint64(int64(int16(c.u16())))
	case kF32:
		return uint64(math.Float64bits(float64(math.Float32frombits(c.u32raw()))))
	case kF64, kTime:
		return c.u64raw()
	case kCU32:
		return c.compressed(4)
	case kCU64:
		return c.compressed(8)
	case kCI32:
		return signed(c.compressed(4), 4)
	case kCI64:
		return c.compressed(8)
	}
	c.fail(c.offset(), "field kind not scalar", k, nil)
	return 0
}
