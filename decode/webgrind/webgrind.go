// Package webgrind decodes webgrind's preprocessed callgrind files,
// format versions 4, 5, 6 and 7 (webgrind 0.4 to 1.9).
//
// Every number is an unsigned 32-bit little-endian word. Word 0 is the
// version (there is no magic), word 1 the absolute offset of the header
// text, which runs to the end of the file, word 2 the function count, then
// one absolute record address per function. Versions 5 to 7 store one
// summed record per function with called-from lists (and, from 6 on,
// sub-call lists); version 4 stores one record per invocation and a
// separate region of sub-call records.
//
// Robustness: the decoder never panics and never allocates from a count or
// address it has not checked against the bytes that remain in the input.
// A count or address that cannot fit in the file is a *decode.FormatError
// (wrapping decode.ErrFormat or decode.ErrTruncated) for the record that
// holds it; records before it stay readable.
package webgrind

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hpcfs/hpcfs/decode"
)

// Version is the format version word of a preprocessed file.
type Version uint32

// The versions this package reads.
const (
	V4 Version = 4
	V5 Version = 5
	V6 Version = 6
	V7 Version = 7
)

func (v Version) String() string { return strconv.FormatUint(uint64(v), 10) }

// Supported reports whether the decoder reads version v.
func (v Version) Supported() bool { return v >= V4 && v <= V7 }

// HasLine reports whether function records carry a definition line (v7).
func (v Version) HasLine() bool { return v == V7 }

// HasSubCalls reports whether function records carry sub-call lists.
// Version 5 stores called-from lists only; version 4 stores sub-calls per
// invocation.
func (v Version) HasSubCalls() bool { return v != V5 }

// NoCaller is the called-from function of a version 4 invocation that was
// never called (pack('V', -1)), e.g. {main}.
const NoCaller = 0xFFFFFFFF

const (
	format   = "webgrind"
	wordSize = 4
	callSize = 16 // function, line, count, cost
	invSize  = 32 // version 4 invocation record
	maxLine  = 1 << 20
	// maxHeaderText bounds the header text read at open.
	maxHeaderText = 16 << 20
)

// A Call is one entry of a called-from or sub-call list: the other
// function, the line of the call in the caller's file, the number of calls
// and their summed inclusive cost.
type Call struct {
	Function uint32
	Line     uint32
	Count    uint64
	Cost     uint64
}

// A Function is the summary record of one function. For version 4 the
// totals are aggregated from its invocation records.
type Function struct {
	Nr   int
	Addr int64
	Line uint32 // definition line; version 7 only

	Self        uint64
	Inclusive   uint64
	Invocations uint64

	// Lengths of the stored lists (versions 5 to 7).
	CalledFromCount uint32
	SubCallCount    uint32

	// TotalCallCost is version 4's total_call_cost word.
	TotalCallCost uint64

	File string
	Name string
}

// An Invocation is one version 4 invocation record.
type Invocation struct {
	Self        uint32
	Inclusive   uint32
	CallCost    uint32
	Caller      uint32 // NoCaller if never called
	CallerInv   uint32
	CallerLine  uint32
	SubCallN    uint32
	SubCallAddr uint32
}

// A SubCall is one version 4 sub-call record.
type SubCall struct {
	Function   uint32
	Invocation uint32
	Line       uint32
	Cost       uint32
}

// A File is an opened preprocessed file.
type File struct {
	Version    Version
	HeaderAddr int64
	// StoredCount is the function count word; Addrs holds the addresses
	// that fit in the file (fewer than StoredCount when it cannot fit).
	StoredCount uint32
	Addrs       []uint32
	// HeaderLines are the header text lines as stored, without '\n'.
	HeaderLines []string
	// Problems found while opening: the file is still readable up to them.
	Problems decode.Problems

	r      io.ReaderAt
	size   int64
	closer io.Closer
}

// Open opens the named file.
func Open(name string) (*File, error) {
	var wf *File
	closer, err := decode.OpenFile(name, func(r io.ReaderAt, size int64) (err error) {
		wf, err = NewFile(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	wf.closer = closer
	return wf, nil
}

// Close closes the file if Open opened it.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Size is the size of the input in bytes.
func (f *File) Size() int64 { return f.size }

// NumFunctions is the number of functions whose address could be read.
func (f *File) NumFunctions() int { return len(f.Addrs) }

func errAt(section string, off int64, msg string, val any, kind error) error {
	return decode.ErrAt(format, section, off, msg, val, kind)
}

// HeadWords returns the header address and the function count word of
// the first 12 bytes of a preprocessed file, which head must hold.
func HeadWords(head []byte) (headerAddr int64, count uint32) {
	return int64(binary.LittleEndian.Uint32(head[4:])), binary.LittleEndian.Uint32(head[8:])
}

// Sniff reports whether the first bytes of an input of the given size
// look like a preprocessed file: a supported version, a header address
// at or after the address table, and function addresses (those within
// head) that start right after the table and increase. Damage behind the
// table (a header text cut short, bytes appended) does not change the
// answer: such a file is a damaged preprocessed file, not another format.
func Sniff(head []byte, size int64) (Version, bool) {
	if len(head) < 12 {
		return 0, false
	}
	v := Version(binary.LittleEndian.Uint32(head))
	ha := int64(binary.LittleEndian.Uint32(head[4:]))
	n := int64(binary.LittleEndian.Uint32(head[8:]))
	table := 12 + 4*n
	if !v.Supported() || ha < table {
		return 0, false
	}
	if n == 0 {
		return v, ha == 12
	}
	if len(head) < 16 || size < 16 {
		return 0, false
	}
	prev := int64(-1)
	for i := int64(0); i < n && 16+4*i <= int64(len(head)); i++ {
		a := int64(binary.LittleEndian.Uint32(head[12+4*i:]))
		if i == 0 && a != table || a <= prev || a >= ha {
			return 0, false
		}
		prev = a
	}
	return v, true
}

// NewFile reads the file header, the function addresses and the header
// text of a preprocessed file of size bytes. It fails only when the input
// is not a preprocessed file of a supported version; later damage is
// listed in Problems.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	head, err := decode.ReadAt(r, size, 0, 12)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errAt("file header", 0, "file shorter than its 12-byte header", size, decode.ErrTruncated)
		}
		return nil, err
	}
	f := &File{r: r, size: size}
	f.Version = Version(binary.LittleEndian.Uint32(head))
	if !f.Version.Supported() {
		return nil, errAt("file header", 0, "unsupported format version", uint32(f.Version), decode.ErrUnsupportedVersion)
	}
	f.HeaderAddr = int64(binary.LittleEndian.Uint32(head[4:]))
	f.StoredCount = binary.LittleEndian.Uint32(head[8:])

	n := int64(f.StoredCount)
	if fit := (size - 12) / wordSize; n > fit {
		f.Problems.Add(errAt("function addresses", 8,
			fmt.Sprintf("function count %d cannot fit in %d bytes; reading the %d that fit", n, size, fit), nil, decode.ErrTruncated))
		n = fit
	}
	if f.HeaderAddr <= size && f.HeaderAddr >= 12 && n > (f.HeaderAddr-12)/wordSize {
		n = (f.HeaderAddr - 12) / wordSize
		f.Problems.Add(errAt("function addresses", 8,
			fmt.Sprintf("function count %d runs into the header text at %d; reading %d", f.StoredCount, f.HeaderAddr, n), nil, decode.ErrFormat))
	}
	raw, err := readAt(r, size, 12, n*wordSize)
	if err != nil {
		return nil, err
	}
	f.Addrs = make([]uint32, n)
	for i := range f.Addrs {
		f.Addrs[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	if err := f.readHeaderText(); err != nil {
		f.Problems.Add(err)
	}
	return f, nil
}

func (f *File) readHeaderText() error {
	if f.HeaderAddr > f.size {
		return errAt("headers", 4, "header address past the end of the file", f.HeaderAddr, decode.ErrTruncated)
	}
	n := min(f.size-f.HeaderAddr, maxHeaderText)
	text, err := readAt(f.r, f.size, f.HeaderAddr, n)
	if err != nil {
		return err
	}
	off := f.HeaderAddr
	firstBad, bad := int64(0), 0 // the first line that is not text; how many are not
	for len(text) > 0 {
		line, rest, complete := bytes.Cut(text, []byte{'\n'})
		if !isText(line) {
			// Kept as stored, as webgrind's PHP reads it; views escape it.
			if bad++; bad == 1 {
				firstBad = off
			}
		}
		if !complete {
			if off+int64(len(line)) < f.size {
				return errAt("headers", f.HeaderAddr, "header text longer than 16 MiB", f.size-f.HeaderAddr, decode.ErrFormat)
			}
			return errAt("headers", off, "the last header line has no newline: the file is cut (the line is left out)", string(line), decode.ErrTruncated)
		}
		f.HeaderLines = append(f.HeaderLines, string(line))
		off += int64(len(line)) + 1
		text = rest
	}
	if bad > 0 {
		f.Problems.Add(errAt("headers", firstBad,
			fmt.Sprintf("bytes that are not text in %d header line(s), the first here (kept as stored)", bad), nil, decode.ErrFormat))
	}
	if ParseHeaders(f.HeaderLines).Runs == 0 {
		return errAt("headers", f.HeaderAddr, "no summary: line (percentages are 0.00)", nil, decode.ErrFormat)
	}
	return nil
}

// isText reports whether a header line is UTF-8 text without control
// characters other than tab and carriage return.
func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\r' || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(b)
}

// Headers is the header map as webgrind's Reader builds it.
type Headers struct {
	// Keys in first-seen order and their values (last one wins).
	Keys   []string
	Values map[string]string
	// Runs counts the summary lines; Summary sums their first numbers.
	Runs    int
	Summary float64
}

// Get returns the value of key, "" when absent.
func (h *Headers) Get(key string) string { return h.Values[key] }

// ParseHeaders reads header lines as webgrind's Reader does: up to the
// first empty line, each line split at ": " into key and value (the text
// after a second ": " is dropped), summary lines counted and their first
// numbers summed.
func ParseHeaders(lines []string) *Headers {
	h := &Headers{Values: map[string]string{}}
	for _, line := range lines {
		line = strings.Trim(line, " \t\n\r\x00\x0b")
		if line == "" || line == "0" {
			break
		}
		parts := strings.Split(line, ": ")
		key, val := parts[0], ""
		if len(parts) > 1 {
			val = parts[1]
		}
		if key == "summary" {
			h.Runs++
			h.Summary += leadingNumber(val)
			continue
		}
		if _, ok := h.Values[key]; !ok {
			h.Keys = append(h.Keys, key)
		}
		h.Values[key] = val
	}
	return h
}

// leadingNumber is PHP's (double) cast of the first space-separated word.
func leadingNumber(s string) float64 {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i >= 0 {
		s = s[:i]
	}
	end := 0
	for end < len(s) && (s[end] >= '0' && s[end] <= '9' || s[end] == '.' || s[end] == '-' || s[end] == '+' || s[end] == 'e' || s[end] == 'E') {
		end++
	}
	for end > 0 {
		if v, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return v
		}
		end--
	}
	return 0
}

// readAt is decode.ReadAt that also accepts empty reads at the end.
func readAt(r io.ReaderAt, size, off, n int64) ([]byte, error) {
	if n == 0 && off >= 0 && off <= size {
		return nil, nil
	}
	return decode.ReadAt(r, size, off, n)
}
