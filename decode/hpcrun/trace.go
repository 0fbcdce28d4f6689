package hpcrun

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// Trace flag bits (version 01.01).
const (
	TraceDataCentric = 1 << 0 // records carry a metric id
	TraceLCARecorded = 1 << 1
)

// A Trace is an opened .hpctrace file: a header, then fixed-size records
// (time, CCT node id[, metric id]) to the end of the file.
type Trace struct {
	Version    string // "01.00" or "01.01"
	Flags      uint64
	HeaderSize int64
	RecordSize int64
	NumRecords int64
	// Problems reports trailing bytes that do not make a whole record.
	Problems decode.Problems

	r      io.ReaderAt
	closer io.Closer
}

// A Sample is one trace record.
type Sample struct {
	Time     uint64
	NodeID   uint32
	MetricID uint32 // data-centric traces only
}

// DataCentric reports whether records carry a metric id.
func (t *Trace) DataCentric() bool { return t.Flags&TraceDataCentric != 0 }

// OpenTrace opens the named trace.
func OpenTrace(name string) (*Trace, error) {
	var t *Trace
	closer, err := decode.OpenFile(name, func(r io.ReaderAt, size int64) (err error) {
		t, err = NewTrace(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	t.closer = closer
	return t, nil
}

// Close closes the file OpenTrace opened.
func (t *Trace) Close() error {
	if t.closer != nil {
		return t.closer.Close()
	}
	return nil
}

// NewTrace decodes the header of the trace in r (size bytes).
func NewTrace(r io.ReaderAt, size int64) (*Trace, error) {
	c := newCursor(r, size, 0, "trace header")
	hdr := c.bytes(headerSize)
	if c.err != nil {
		return nil, c.err
	}
	if string(hdr[:len(TraceMagic)]) != TraceMagic {
		return nil, errAt("trace header", 0, "bad magic", string(hdr[:len(TraceMagic)]), nil)
	}
	t := &Trace{r: r, Version: string(hdr[18:23]), RecordSize: 12}
	v, err := strconv.ParseFloat(t.Version, 64)
	if err != nil || v < 1 || v >= 2 {
		return nil, errAt("trace header", 18, "trace version not supported (hpcfs reads 01.00 and 01.01)", t.Version, decode.ErrUnsupportedVersion)
	}
	if v > 1.0 {
		t.Flags = c.u64()
		if c.err != nil {
			return nil, c.err
		}
	}
	if t.DataCentric() {
		t.RecordSize = 16
	}
	t.HeaderSize = c.off
	body := size - t.HeaderSize
	t.NumRecords = body / t.RecordSize
	if rest := body % t.RecordSize; rest != 0 {
		t.Problems.Add(errAt("trace", size-rest, "file ends inside a record ("+strconv.FormatInt(rest, 10)+" bytes)", nil, decode.ErrTruncated))
	}
	return t, nil
}

// UnknownNode is the error for sample i naming a calling context id that
// the profile's tree does not hold: hpcrun writes only ids of its tree,
// so the sample (or the tree) is damaged.
func (t *Trace) UnknownNode(i int64, id uint32) error {
	return errAt("trace", t.HeaderSize+i*t.RecordSize+8, "sample "+strconv.FormatInt(i, 10)+" names a calling context that is not in the profile's tree: its frame is left empty", id, decode.ErrFormat)
}

// ReadSamples decodes up to len(dst) records starting at record index i
// and returns how many it decoded.
func (t *Trace) ReadSamples(dst []Sample, i int64) (int, error) {
	n := min(int64(len(dst)), t.NumRecords-i)
	if n <= 0 {
		return 0, io.EOF
	}
	buf := make([]byte, n*t.RecordSize)
	if _, err := t.r.ReadAt(buf, t.HeaderSize+i*t.RecordSize); err != nil && err != io.EOF {
		return 0, err
	}
	be := binary.BigEndian
	for k := int64(0); k < n; k++ {
		b := buf[k*t.RecordSize:]
		s := Sample{Time: be.Uint64(b), NodeID: be.Uint32(b[8:])}
		if t.RecordSize == 16 {
			s.MetricID = be.Uint32(b[12:])
		}
		dst[k] = s
	}
	return int(n), nil
}
