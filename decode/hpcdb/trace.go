package hpcdb

import (
	"io"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
)

// TraceHeader is the fixed header of trace.db.
type TraceHeader struct {
	Major, Minor uint8
	NumTraces    uint32
	NumSec       uint16
	HdrSize      uint64 // Trace Header section size
	HdrPtr       uint64

	// meta.db generation: the Context Trace Headers section header
	TracesPtr    uint64 // pTraces
	TraceSize    uint8  // szTrace, the stride of the trace headers
	MinTimestamp uint64
	MaxTimestamp uint64
}

// A TraceLine is one 22-byte trace header: the profile it belongs to and
// its samples' byte range.
type TraceLine struct {
	Prof  uint32
	Index uint16 // "trace type" in the documentation; always 0 in practice
	Start uint64
	End   uint64
}

// NumSamples is the number of whole 12-byte samples in the line.
func (t TraceLine) NumSamples() uint64 {
	if t.End < t.Start {
		return 0
	}
	return (t.End - t.Start) / TraceSampleSize
}

// A Sample is one trace sample: nanoseconds since the epoch and the XML
// context id (`it`) of its call path.
type Sample struct {
	Time uint64
	Ctx  uint32
}

// A TraceDB is an open trace.db.
type TraceDB struct {
	file
	Header TraceHeader
	Lines  []TraceLine
	// Problems reports a header section shorter than NumTraces entries.
	Problems decode.Problems
}

// NewTraceDB reads the header and trace headers of the trace.db in r.
func NewTraceDB(r io.ReaderAt, size int64) (*TraceDB, error) {
	t := &TraceDB{file: file{r: r, size: size, name: "trace.db"}}
	if head, _ := decode.ReadAt(r, size, 0, min(size, 10)); IsMeta(head) {
		return t, t.openV4()
	}
	h, b, err := t.commonHeader(TraceMagic, 40)
	if err != nil {
		return nil, err
	}
	t.Header = TraceHeader{Major: h.Major, Minor: h.Minor, NumTraces: h.Count, NumSec: h.NumSec,
		HdrSize: be.Uint64(b[24:]), HdrPtr: be.Uint64(b[32:])}
	n := uint64(t.Header.NumTraces)
	if t.Header.HdrPtr > uint64(size) {
		t.Problems.Add(t.truncAt(32, "trace header section past the end of the file"))
		return t, nil
	}
	avail := (uint64(size) - t.Header.HdrPtr) / traceHdrSize
	if n > avail {
		t.Problems.Add(t.truncAt(int64(t.Header.HdrPtr+avail*traceHdrSize), "trace headers run past the end of the file"))
		n = avail
	}
	hb, err := t.read(int64(t.Header.HdrPtr), int64(n*traceHdrSize), "trace headers")
	if err != nil {
		return nil, err
	}
	t.Lines = make([]TraceLine, n)
	for i := range t.Lines {
		e := hb[i*traceHdrSize:]
		t.Lines[i] = TraceLine{Prof: be.Uint32(e), Index: be.Uint16(e[4:]), Start: be.Uint64(e[6:]), End: be.Uint64(e[14:])}
	}
	return t, nil
}

// OpenTraceDB opens the trace.db at path.
func OpenTraceDB(path string) (*TraceDB, error) {
	var t *TraceDB
	c, err := decode.OpenFile(path, func(r io.ReaderAt, size int64) (err error) {
		t, err = NewTraceDB(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	t.closer = c
	return t, nil
}

// openV4 reads the header and the trace headers of a meta.db-generation
// trace.db.
func (t *TraceDB) openV4() error {
	major, minor, secs, err := t.v4Header(FormatTrace, 1)
	if err != nil {
		return err
	}
	h := &t.Header
	*h = TraceHeader{Major: major, Minor: minor, NumSec: 1, HdrSize: secs[0].Size, HdrPtr: secs[0].Ptr}
	b, err := t.sectionHeader(secs[0], 0x20, "trace headers", 0x10)
	if err != nil {
		t.Problems.Add(err)
		return nil
	}
	h.TracesPtr, h.NumTraces, h.TraceSize = le.Uint64(b), le.Uint32(b[8:]), b[12]
	h.MinTimestamp, h.MaxTimestamp = le.Uint64(b[16:]), le.Uint64(b[24:])
	if h.TraceSize < 0x18 {
		t.Problems.Add(t.errAt(int64(h.HdrPtr)+12, "trace header size too small", h.TraceSize))
		return nil
	}
	stride := uint64(h.TraceSize)
	hb, n, ok := t.readRecords(h.TracesPtr, uint64(h.NumTraces), stride, int64(h.HdrPtr), "trace headers", &t.Problems)
	if !ok {
		return nil
	}
	t.Lines = make([]TraceLine, n)
	for i := range t.Lines {
		e := hb[uint64(i)*stride:]
		t.Lines[i] = TraceLine{Prof: le.Uint32(e), Start: le.Uint64(e[8:]), End: le.Uint64(e[16:])}
	}
	return nil
}

// Footer reports how the file ends: the 4.0 generation's trace.db has no
// footer.
func (t *TraceDB) Footer() FooterStatus {
	if t.meta {
		return t.footer4(TraceFooter4)
	}
	return FooterNotExpected
}

// Avail is the number of samples of line i that lie inside the file.
func (t *TraceDB) Avail(i int) uint64 {
	l := t.Lines[i]
	n := l.NumSamples()
	if l.Start >= uint64(t.size) {
		return 0
	}
	return min(n, (uint64(t.size)-l.Start)/TraceSampleSize)
}

// SamplesAt reads n samples starting at byte off into dst.
func (t *TraceDB) SamplesAt(off int64, n uint64, dst []Sample) ([]Sample, error) {
	if n > uint64(t.size) {
		return dst, t.truncAt(off, "trace samples run past the end of the file")
	}
	var b []byte
	var err error
	if n <= pooledSamples {
		// a view renders a trace in batches of a few hundred samples: their
		// bytes are read into a pooled buffer, not a new one each time
		bp := samplePool.Get().(*[]byte)
		defer samplePool.Put(bp)
		b = (*bp)[:n*TraceSampleSize]
		err = t.readInto(b, off, "trace samples")
	} else {
		b, err = t.read(off, int64(n*TraceSampleSize), "trace samples")
	}
	if err != nil {
		return dst, err
	}
	if t.meta {
		for j := uint64(0); j < n; j++ {
			e := b[j*TraceSampleSize:]
			dst = append(dst, Sample{le.Uint64(e), le.Uint32(e[8:])})
		}
		return dst, nil
	}
	for j := uint64(0); j < n; j++ {
		e := b[j*TraceSampleSize:]
		dst = append(dst, Sample{be.Uint64(e), be.Uint32(e[8:])})
	}
	return dst, nil
}

// pooledSamples is the most samples SamplesAt reads through samplePool.
const pooledSamples = 1024

var samplePool = sync.Pool{New: func() any { b := make([]byte, pooledSamples*TraceSampleSize); return &b }}

// Samples reads samples [k, k+n) of line i into dst; it stops with a
// FormatError at the end of the file.
func (t *TraceDB) Samples(i int, k, n uint64, dst []Sample) ([]Sample, error) {
	l := t.Lines[i]
	total := l.NumSamples()
	if k >= total {
		return dst, nil
	}
	n = min(n, total-k)
	return t.SamplesAt(int64(l.Start+k*TraceSampleSize), n, dst)
}
