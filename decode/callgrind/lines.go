package callgrind

import (
	"bytes"
	"compress/gzip"
	"io"
)

const (
	readChunk = 256 << 10
	// MaxLine bounds one line; a longer one is reported and skipped.
	MaxLine = 1 << 20
)

// A lineReader returns the lines of the (decompressed) profile from an
// offset on, without copying them: a returned line is valid until the next
// call.
type lineReader struct {
	src        io.Reader
	buf        []byte
	start, end int
	off        int64 // stream offset of buf[start]
	eof        bool
	err        error // a read error other than io.EOF
}

// openLines returns a lineReader at stream offset off of r (size bytes;
// gzip-compressed when gz), ending at stream offset end (-1: at the end of
// the stream).
func openLines(r io.ReaderAt, size int64, gz bool, off, end int64) *lineReader {
	lr := openStream(r, size, gz, off)
	if end >= 0 && lr.src != nil {
		lr.src = io.LimitReader(lr.src, max(end-lr.off, 0))
	}
	return lr
}

func openStream(r io.ReaderAt, size int64, gz bool, off int64) *lineReader {
	lr := &lineReader{buf: make([]byte, readChunk)}
	if !gz {
		if off > size {
			off = size
		}
		lr.src = io.NewSectionReader(r, off, size-off)
		lr.off = off
		return lr
	}
	zr, err := gzip.NewReader(io.NewSectionReader(r, 0, size))
	if err != nil {
		lr.err = err
		lr.eof = true
		return lr
	}
	zr.Multistream(true)
	lr.src = zr
	if off > 0 {
		n, err := io.CopyN(io.Discard, zr, off)
		lr.off = n
		if err != nil {
			lr.eof = true
			if err != io.EOF {
				lr.err = err
			}
		}
	}
	return lr
}

// fill reads more input after the unread bytes; it reports whether any
// arrived.
func (lr *lineReader) fill() bool {
	if lr.eof {
		return false
	}
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		if len(lr.buf) >= MaxLine+readChunk {
			return false
		}
		nb := make([]byte, 2*len(lr.buf))
		copy(nb, lr.buf[:lr.end])
		lr.buf = nb
	}
	n, err := lr.src.Read(lr.buf[lr.end:])
	lr.end += n
	if err != nil {
		lr.eof = true
		if err != io.EOF {
			lr.err = err
		}
	}
	return n > 0 || !lr.eof
}

// next returns the next line without its "\n" (and "\r"), its stream
// offset, and whether it ended with a newline. ok is false at the end.
// A line longer than MaxLine comes back as tooLong, cut.
func (lr *lineReader) next() (line []byte, off int64, terminated, tooLong, ok bool) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n'); i >= 0 {
			line = lr.buf[lr.start : lr.start+i]
			off = lr.off
			lr.start += i + 1
			lr.off += int64(i + 1)
			return trimCR(line), off, true, false, true
		}
		if lr.end-lr.start > MaxLine {
			return lr.skipLong()
		}
		if !lr.fill() {
			if lr.start == lr.end {
				return nil, lr.off, false, false, false
			}
			line = lr.buf[lr.start:lr.end]
			off = lr.off
			lr.off += int64(lr.end - lr.start)
			lr.start = lr.end
			return trimCR(line), off, false, false, true
		}
	}
}

// skipLong drops the rest of an over-long line.
func (lr *lineReader) skipLong() (line []byte, off int64, terminated, tooLong, ok bool) {
	off = lr.off
	line = append([]byte(nil), lr.buf[lr.start:lr.start+64]...)
	for {
		if i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n'); i >= 0 {
			lr.start += i + 1
			lr.off += int64(i + 1)
			return line, off, true, true, true
		}
		lr.off += int64(lr.end - lr.start)
		lr.start = lr.end
		if !lr.fill() {
			return line, off, false, true, true
		}
	}
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}
