package columnar

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// A rowReader reads the records of a CSV view as encoding/csv reads them
// (RFC 4180; a CRLF ending a line or inside a quoted field read as LF;
// empty lines skipped; every record as many fields as the first), but
// appends each record's fields to a buffer of the caller's instead of
// holding the line twice and its fields as a string a third time: an ovni
// jumbo payload, one 3.7 MB cell, was held thrice here before parquet-go
// copied it.
type rowReader struct {
	in     sliceReader
	off    int64 // input offset just past the last record read
	fields int   // fields per record: the first record's count
	line   int   // records read, for errors
	// stop, when not 0, ends a read with errPast as soon as the record is
	// known to end past input offset stop, before its bytes are copied:
	// the row after a full row group is not read whole (a 3.7 MB jumbo
	// line only to learn that it starts the next group).
	stop int64
}

// A sliceReader is a bufio.Reader, or a render.NewReader of a view that
// hands out its rendered records without copying them.
type sliceReader interface {
	ReadSlice(delim byte) ([]byte, error)
	Peek(n int) ([]byte, error)
}

var (
	errBareQuote = errors.New(`bare " in a field`)
	errQuote     = errors.New(`extraneous or missing " in a quoted field`)
	errFieldNum  = errors.New("wrong number of fields")
	errPast      = errors.New("the record ends past the stop offset")
)

// read appends the fields of the next record to buf and their end offsets
// in buf to ends (field i is buf[ends[i-1]:ends[i]], the first starting
// at the len(buf) given). It returns io.EOF when no record is left.
func (r *rowReader) read(buf []byte, ends []int) ([]byte, []int, error) {
	r.line++
	const (
		start    = iota // before a field
		bare            // in an unquoted field
		quoted          // in a quoted field
		quote           // after a '"' in a quoted field
		quoteCR         // after '"' and '\r'
		quotedCR        // after a '\r' in a quoted field
	)
	state, empty := start, true // empty: nothing of the record yet (an empty line is skipped)
	fieldAt := len(buf)
	end := func() {
		ends = append(ends, len(buf))
	}
	record := func() ([]byte, []int, error) {
		if r.fields == 0 {
			r.fields = len(ends)
		} else if len(ends) != r.fields {
			return buf, ends, r.errorf(errFieldNum)
		}
		return buf, ends, nil
	}
	for {
		chunk, err := r.in.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return buf, ends, err
		}
		if r.stop > 0 && r.off+int64(len(chunk)) > r.stop {
			// A record ends at a '\n' or at the end, and chunk holds the
			// first '\n' after r.off, at its end, if any: the record ends
			// at or after chunk.
			return buf, ends, errPast
		}
		for i := 0; i < len(chunk); i++ {
			c := chunk[i]
			switch state {
			case start:
				if empty && (c == '\n' || c == '\r' && r.lfNext(chunk, i, err)) {
					continue // an empty line
				}
				empty = false
				fieldAt = len(buf)
				if c == '"' {
					state = quoted
					continue
				}
				state = bare
				i--
			case bare:
				if buf, i = upTo(buf, chunk, i, ",\n\""); i == len(chunk) {
					continue
				}
				switch chunk[i] {
				case '"':
					return buf, ends, r.errorf(errBareQuote)
				case ',':
					end()
					state = start
					empty = false
				case '\n':
					if len(buf) > fieldAt && buf[len(buf)-1] == '\r' {
						buf = buf[:len(buf)-1]
					}
					end()
					r.off += int64(i + 1)
					return record()
				}
			case quoted:
				if buf, i = upTo(buf, chunk, i, "\"\r"); i == len(chunk) {
					continue
				}
				if chunk[i] == '"' {
					state = quote
				} else {
					state = quotedCR
				}
			case quotedCR:
				if c != '\n' {
					buf = append(buf, '\r')
				}
				state = quoted
				i--
			case quote:
				switch c {
				case '"':
					buf = append(buf, '"')
					state = quoted
				case ',':
					end()
					state = start
				case '\n':
					end()
					r.off += int64(i + 1)
					return record()
				case '\r':
					state = quoteCR
				default:
					return buf, ends, r.errorf(errQuote)
				}
			case quoteCR:
				if c != '\n' {
					return buf, ends, r.errorf(errQuote)
				}
				end()
				r.off += int64(i + 1)
				return record()
			}
		}
		r.off += int64(len(chunk))
		if err == io.EOF {
			switch {
			case empty && state == start:
				return buf, ends, io.EOF
			case state == quoted || state == quotedCR:
				return buf, ends, r.errorf(errQuote)
			case state == bare && len(buf) > fieldAt && buf[len(buf)-1] == '\r':
				buf = buf[:len(buf)-1]
			}
			end()
			return record()
		}
	}
}

// upTo appends chunk[i:] to buf up to the first byte of set and returns
// that byte's position, or len(chunk) when there is none.
func upTo(buf, chunk []byte, i int, set string) ([]byte, int) {
	k := bytes.IndexAny(chunk[i:], set)
	if k < 0 {
		return append(buf, chunk[i:]...), len(chunk)
	}
	return append(buf, chunk[i:i+k]...), i + k
}

// lfNext says whether the '\r' at chunk[i] ends its line: a '\n'
// follows it, or it is the input's last byte (encoding/csv drops a '\r'
// before the end).
func (r *rowReader) lfNext(chunk []byte, i int, err error) bool {
	if i+1 < len(chunk) {
		return chunk[i+1] == '\n'
	}
	if err == io.EOF {
		return true
	}
	next, _ := r.in.Peek(1) // chunk is not read past i any more: Peek may reuse it
	return len(next) == 1 && next[0] == '\n'
}

func (r *rowReader) errorf(err error) error {
	return fmt.Errorf("record %d: %w", r.line, err)
}
