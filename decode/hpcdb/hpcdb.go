// Package hpcdb decodes HPCToolkit databases of two generations: the
// "experiment.xml 4.0" generation (experiment.xml version 4.0, profile.db,
// cct.db and trace.db, as written by the prof2 hpcprof of 2021–2022) and
// the meta.db generation of HPCToolkit 2022.10 and later (meta.db,
// profile.db, cct.db, trace.db, see metadb.go). ProfileDB, CCTDB and
// TraceDB read both generations' files and present them alike.
//
// The binary files of the 4.0 generation are big-endian. Their version bytes are 1.0 (the
// "4.0" of the documentation is the XML version), the footers of
// profile.db and cct.db are stored in host order, trace.db has none, and
// cct.db value pairs are 12 bytes (research/hpctoolkit.md §3).
//
// Robustness contract: every decoder works over an io.ReaderAt of known
// size, never panics on malformed input and never allocates from a length
// field more than the bytes that remain in the input. Headers are read by
// NewXxx; everything else is read on demand, so a file that is truncated or
// corrupt past its header still opens, and the failing accessor reports a
// *decode.FormatError with the file name and byte offset.
package hpcdb

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

const format = "hpcdb"

var be = binary.BigEndian

// Magics of the three binary files.
const (
	ProfileMagic = "HPCPROF-profdb__"
	CCTMagic     = "HPCPROF-cctdb___"
	TraceMagic   = "HPCPROF-tracedb_"
)

// Footers as an x86 writer stores them (a host-order uint64 store).
const (
	ProfileFooter = "tfBDFORP"
	CCTFooter     = "rtfBDTCC"
)

// Markers that end the index lists of profile.db and cct.db blocks.
const (
	ProfileEndMarker = 0x656E6421
	CCTEndMarker     = 0x6564
)

// Sizes of the records of the value blocks, which a dump walks in file
// order.
const (
	ProfileValueSize = 10 // a profile's (metric, value) pair
	ProfileCtxSize   = 12 // a profile's (context, index) pair
	CCTValueSize     = 12 // a context's (profile, value) pair
	CCTMetricSize    = 10 // a context's (metric, index) pair
)

// Fixed sizes of the records.
const (
	HeaderSize      = 128
	profInfoSize    = 52
	idElemSize      = 18
	idElemSize4     = 16
	profValSize     = ProfileValueSize
	profCtxSize     = ProfileCtxSize
	ctxInfoSize     = 22
	cctValSize      = CCTValueSize
	cctMetricSize   = CCTMetricSize
	traceHdrSize    = 22
	TraceSampleSize = 12
)

// A FooterStatus tells how a file ends.
type FooterStatus int

const (
	FooterOK          FooterStatus = iota // the expected footer, host order as written on x86
	FooterSwapped                         // the footer as written on a big-endian host
	FooterMissing                         // no footer where it should be
	FooterNotExpected                     // the file has no footer (trace.db)
	FooterPresent                         // the expected ASCII footer (meta.db generation)
)

func (s FooterStatus) String() string {
	switch s {
	case FooterOK:
		return "ok (little-endian host order)"
	case FooterSwapped:
		return "ok (big-endian host order)"
	case FooterMissing:
		return "missing"
	case FooterNotExpected:
		return "none (trace.db has no footer)"
	case FooterPresent:
		return "ok"
	}
	return "unknown"
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// file is what the three binary decoders share.
type file struct {
	r      io.ReaderAt
	size   int64
	name   string
	closer io.Closer
	bo     binary.ByteOrder // big-endian (4.0) or little-endian (meta.db generation)
	meta   bool             // a file of the meta.db generation
}

// Meta reports whether the file is of the meta.db generation.
func (f *file) Meta() bool { return f.meta }

func (f *file) errAt(off int64, msg string, val any) error {
	return decode.ErrAt(format, f.name, off, msg, val, nil)
}

func (f *file) truncAt(off int64, msg string) error {
	return decode.ErrAt(format, f.name, off, msg, nil, decode.ErrTruncated)
}

// read reads n bytes at off, reporting a truncation as a FormatError.
func (f *file) read(off, n int64, what string) ([]byte, error) {
	b, err := decode.ReadAt(f.r, f.size, off, n)
	if err == io.ErrUnexpectedEOF {
		return nil, f.truncAt(off, what+" runs past the end of the file")
	}
	return b, err
}

// readRecords reads an array of n records of stride bytes at ptr (whose
// location is stored at ptrAt), cut to the records the file holds; a
// cut adds a problem. It returns the bytes and the number of records;
// ok is false when the array cannot be read at all.
func (f *file) readRecords(ptr, n, stride uint64, ptrAt int64, what string, problems *decode.Problems) (raw []byte, count uint64, ok bool) {
	if ptr > uint64(f.size) {
		problems.Add(f.truncAt(ptrAt, what+" past the end of the file"))
		return nil, 0, false
	}
	if avail := (uint64(f.size) - ptr) / stride; n > avail {
		problems.Add(f.truncAt(int64(ptr+avail*stride), what+" run past the end of the file"))
		n = avail
	}
	raw, err := f.read(int64(ptr), int64(n*stride), what)
	if err != nil {
		problems.Add(err)
		return nil, 0, false
	}
	return raw, n, true
}

// readInto fills dst at off.
func (f *file) readInto(dst []byte, off int64, what string) error {
	if off < 0 || off > f.size || int64(len(dst)) > f.size-off {
		return f.truncAt(off, what+" runs past the end of the file")
	}
	n, err := f.r.ReadAt(dst, off)
	if n == len(dst) {
		return nil
	}
	if err == nil || err == io.EOF {
		return f.truncAt(off, what+" runs past the end of the file")
	}
	return err
}

// Size is the file's size in bytes.
func (f *file) Size() int64 { return f.size }

// Close closes the file when it was opened by name.
func (f *file) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// footerAt checks that the 8 bytes at off, where the last block of the
// file ends, are its footer want (what hpcproftt checks): nil when they
// are, a truncation error when the file ends first, an error saying
// "no footer after the last <block> block" otherwise.
func (f *file) footerAt(off uint64, want, section, block string) error {
	b, err := decode.ReadAt(f.r, f.size, int64(min(off, uint64(f.size)+1)), 8)
	if err == io.ErrUnexpectedEOF {
		return decode.ErrAt(format, section, int64(min(off, uint64(f.size))), "runs past the end of the file", nil, decode.ErrTruncated)
	}
	if err != nil {
		return err
	}
	if string(b) != want {
		return decode.ErrAt(format, section, int64(off), "no footer after the last "+block+" block: file incomplete", nil, nil)
	}
	return nil
}

func (f *file) footer(want string) FooterStatus {
	if f.size < 8 {
		return FooterMissing
	}
	b := make([]byte, 8)
	if _, err := f.r.ReadAt(b, f.size-8); err != nil && err != io.EOF {
		return FooterMissing
	}
	switch string(b) {
	case want:
		return FooterOK
	case reverse(want):
		return FooterSwapped
	}
	return FooterMissing
}

// header reads and checks the common 24-byte prefix: magic, version,
// count and number of sections.
type commonHeader struct {
	Major, Minor uint8
	Count        uint32
	NumSec       uint16
}

func (f *file) commonHeader(magic string, minSize int64) (commonHeader, []byte, error) {
	var h commonHeader
	f.bo = be
	if f.size < minSize {
		b := make([]byte, min(f.size, 16))
		f.r.ReadAt(b, 0)
		if string(b) != magic[:len(b)] {
			return h, nil, f.errAt(0, "bad magic", string(b))
		}
		return h, nil, f.truncAt(0, "header runs past the end of the file")
	}
	b, err := f.read(0, minSize, "header")
	if err != nil {
		return h, nil, err
	}
	if string(b[:16]) != magic {
		return h, nil, f.errAt(0, "bad magic", string(b[:16]))
	}
	h.Major, h.Minor = b[16], b[17]
	h.Count = be.Uint32(b[18:])
	h.NumSec = be.Uint16(b[22:])
	if h.Major != 1 && h.Major != 4 {
		return h, b, decode.ErrAt(format, f.name, 16, "unsupported version", versionString(h.Major, h.Minor), decode.ErrUnsupportedVersion)
	}
	return h, b, nil
}

func versionString(major, minor uint8) string {
	return strconv.FormatUint(uint64(major), 10) + "." + strconv.FormatUint(uint64(minor), 10)
}

// ReaderAt is the file's content.
func (f *file) ReaderAt() io.ReaderAt { return f.r }

// ReadRaw reads n bytes at off, reporting a short file as a FormatError.
func (f *file) ReadRaw(off, n int64) ([]byte, error) { return f.read(off, n, "data") }
