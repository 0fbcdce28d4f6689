package otf2

import (
	"encoding/binary"
	"io"

	"github.com/hpcfs/hpcfs/decode"
)

// An Anchor is the anchor file <name>.otf2: versions, chunk sizes, counts
// and the archive's properties.
type Anchor struct {
	BigEndian         bool
	AnchorFormat      uint8 // 1 to 3
	TraceFormat       uint8
	Major, Minor, Fix uint8 // the OTF2 version that wrote the archive
	EventChunkSize    uint64
	DefChunkSize      uint64
	Substrate         uint8 // 1 POSIX, 2 SION, 3 NONE
	Compression       uint8 // 1 none, 2 zlib
	NumLocations      uint64
	NumGlobalDefs     uint64
	Machine           string
	Creator           string
	Description       string
	Properties        [][2]string // name, value
	TraceID           uint64
	HasTraceID        bool // anchor format 2 and later
	NumSnapshots      uint32
	NumThumbnails     uint32
	HasSnapshotCounts bool // anchor format 3 and later
}

// maxAnchor bounds the anchor file read into memory.
const maxAnchor = 16 << 20

// ReadAnchor decodes the anchor file r of size bytes named name.
func ReadAnchor(r io.ReaderAt, size int64, name string) (*Anchor, error) {
	if size > maxAnchor {
		return nil, errAt(name, 0, "anchor file too large", size, nil)
	}
	data, err := decode.ReadAt(r, size, 0, size)
	if err != nil {
		return nil, errAt(name, 0, "read: "+err.Error(), nil, decode.ErrTruncated)
	}
	c := &chunkReader{name: name, buf: data, clen: len(data), end: len(data), chunkOff: 0}
	if len(data) < 2 || data[0] != bufChunkHeader {
		return nil, errAt(name, 0, "not an OTF2 anchor file", nil, nil)
	}
	a := &Anchor{}
	switch data[1] {
	case endianLittle:
		c.order = binary.LittleEndian
	case endianBig:
		c.order, c.big, a.BigEndian = binary.BigEndian, true, true
	default:
		return nil, errAt(name, 1, "bad endianness byte", data[1], nil)
	}
	c.pos = 2
	if c.str() != "OTF2" {
		return nil, errAt(name, 2, "no OTF2 magic", nil, nil)
	}
	a.AnchorFormat = c.u8()
	if c.err == nil && a.AnchorFormat == 0 {
		return nil, errAt(name, c.offset()-1, "anchor format 0", nil, decode.ErrUnsupportedVersion)
	}
	a.TraceFormat = c.u8()
	a.Major, a.Minor, a.Fix = c.u8(), c.u8(), c.u8()
	a.EventChunkSize = c.u64raw()
	a.DefChunkSize = c.u64raw()
	a.Substrate = c.u8()
	a.Compression = c.u8()
	a.NumLocations = c.u64raw()
	a.NumGlobalDefs = c.u64raw()
	a.Machine = c.str()
	a.Creator = c.str()
	a.Description = c.str()
	if a.AnchorFormat > 1 {
		n := c.u32raw()
		for i := uint32(0); i < n && c.err == nil; i++ {
			k := c.str()
			v := c.str()
			a.Properties = append(a.Properties, [2]string{k, v})
		}
		a.TraceID = c.u64raw()
		a.HasTraceID = true
	}
	if a.AnchorFormat > 2 {
		a.NumSnapshots = c.u32raw()
		a.NumThumbnails = c.u32raw()
		a.HasSnapshotCounts = true
	}
	if c.err != nil {
		return nil, c.err
	}
	if a.EventChunkSize < chunkHeaderLen+2 || a.DefChunkSize < chunkHeaderLen+2 {
		return nil, errAt(name, 10, "chunk size too small", a.EventChunkSize, nil)
	}
	if a.Compression > 1 {
		return nil, errAt(name, 0, "compressed archives are not supported", a.Compression, decode.ErrUnsupportedVersion)
	}
	if a.Substrate == 2 {
		return nil, errAt(name, 0, "SION archives are not supported", nil, decode.ErrUnsupportedVersion)
	}
	return a, nil
}
