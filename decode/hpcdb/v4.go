package hpcdb

import (
	"encoding/binary"
	"io"

	"github.com/hpcfs/hpcfs/decode"
)

var le = binary.LittleEndian

// Magic is the common prefix of the meta.db generation's files; the four
// bytes after it name the file.
const Magic = "HPCTOOLKIT"

// Format identifiers of the meta.db generation's files.
const (
	FormatMeta    = "meta"
	FormatProfile = "prof"
	FormatCCT     = "ctxt"
	FormatTrace   = "trce"
)

// Footers of the meta.db generation's files (ASCII, not byte-swapped).
const (
	MetaFooter     = "_meta.db"
	ProfileFooter4 = "_prof.db"
	CCTFooter4     = "__ctx.db"
	TraceFooter4   = "trace.db"
)

// A Section is one {size, pointer} pair of a meta.db-generation header.
type Section struct {
	Size, Ptr uint64
}

// IsMeta reports whether b starts with the magic of a meta.db-generation
// file.
func IsMeta(b []byte) bool { return len(b) >= len(Magic) && string(b[:len(Magic)]) == Magic }

// v4Header reads the 16-byte common header and nsec sections of a
// meta.db-generation file with format identifier id.
func (f *file) v4Header(id string, nsec int) (major, minor uint8, secs []Section, err error) {
	f.bo, f.meta = le, true
	b, err := f.read(0, 16, "header")
	if err != nil {
		return 0, 0, nil, err
	}
	if string(b[:10]) != Magic || string(b[10:14]) != id {
		return 0, 0, nil, f.errAt(0, "bad magic", string(b[:14]))
	}
	major, minor = b[14], b[15]
	if major != 4 {
		return major, minor, nil, decode.ErrAt(format, f.name, 14, "unsupported version", versionString(major, minor), decode.ErrUnsupportedVersion)
	}
	b, err = f.read(16, int64(nsec)*16, "header sections")
	if err != nil {
		return major, minor, nil, err
	}
	secs = make([]Section, nsec)
	for i := range secs {
		secs[i] = Section{le.Uint64(b[i*16:]), le.Uint64(b[i*16+8:])}
	}
	return major, minor, secs, nil
}

// sectionHeader reads the first n bytes of the section s (its header
// structure); a section shorter than n is an error.
func (f *file) sectionHeader(s Section, n int64, what string, hdrOff int64) ([]byte, error) {
	if s.Size < uint64(n) {
		return nil, f.errAt(hdrOff, what+" section too small", s.Size)
	}
	if s.Ptr > uint64(f.size) {
		return nil, f.truncAt(hdrOff+8, what+" section past the end of the file")
	}
	return f.read(int64(s.Ptr), n, what+" section header")
}

// footer4 reports whether the file ends with the meta.db generation's
// footer want.
func (f *file) footer4(want string) FooterStatus {
	if f.size < 8 {
		return FooterMissing
	}
	b := make([]byte, 8)
	if _, err := f.r.ReadAt(b, f.size-8); err != nil && err != io.EOF {
		return FooterMissing
	}
	if string(b) == want {
		return FooterPresent
	}
	return FooterMissing
}
