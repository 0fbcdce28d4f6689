package hpcdb

import (
	"io"
	"math"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// CCTHeader is the fixed header of cct.db.
type CCTHeader struct {
	Major, Minor uint8
	NumCtx       uint32
	NumSec       uint16
	InfoSize     uint64 // Context Info section size
	InfoPtr      uint64

	// meta.db generation: the Context Info section header
	CtxsPtr uint64 // pCtxs
	CtxSize uint8  // szCtx, the stride of the context infos
}

// A CtxInfo is one 22-byte entry of the Context Info section.
type CtxInfo struct {
	Ctx       uint32
	NumVals   uint64
	NumMetric uint16 // metrics with a non-zero value
	Offset    uint64 // of the Context Sparse Value Block (meta.db generation: pValues)

	MetricOffset uint64 // meta.db generation: pMetricIndices
	meta         bool
}

// BlockSize is the size of the context's value block; an empty context
// has an empty block (no end pair). In the meta.db generation it is the
// size of the values array.
func (c CtxInfo) BlockSize() uint64 {
	if c.NumVals == 0 {
		return 0
	}
	if c.meta {
		return c.NumVals * cctValSize
	}
	return c.NumVals*cctValSize + (uint64(c.NumMetric)+1)*cctMetricSize
}

// A ProfValue is one (value, profile index) pair of a cct.db block.
type ProfValue struct {
	Value float64
	Prof  uint32
}

// A MetricIdx is one (metric id, first value index) pair of a cct.db block.
type MetricIdx struct {
	Metric uint16
	Index  uint64
}

// A CCTDB is an open cct.db.
type CCTDB struct {
	file
	Header CCTHeader
	// Problems reports a context info array that runs past the end of
	// the file or its section; Header.NumCtx then counts the whole entries
	// that the file holds.
	Problems decode.Problems
}

// NewCCTDB reads the header of the cct.db in r.
func NewCCTDB(r io.ReaderAt, size int64) (*CCTDB, error) {
	c := &CCTDB{file: file{r: r, size: size, name: "cct.db"}}
	if head, _ := decode.ReadAt(r, size, 0, min(size, 10)); IsMeta(head) {
		major, minor, secs, err := c.v4Header(FormatCCT, 1)
		if err != nil {
			return nil, err
		}
		c.Header = CCTHeader{Major: major, Minor: minor, NumSec: 1, InfoSize: secs[0].Size, InfoPtr: secs[0].Ptr}
		b, err := c.sectionHeader(secs[0], 0x0d, "context info", 0x10)
		if err != nil {
			return nil, err
		}
		c.Header.CtxsPtr, c.Header.NumCtx, c.Header.CtxSize = le.Uint64(b), le.Uint32(b[8:]), b[12]
		if c.Header.CtxSize < 0x20 {
			return nil, c.errAt(int64(secs[0].Ptr)+12, "context info size too small", c.Header.CtxSize)
		}
		if avail := (uint64(size) - min(c.Header.CtxsPtr, uint64(size))) / uint64(c.Header.CtxSize); uint64(c.Header.NumCtx) > avail {
			c.Problems.Add(c.truncAt(int64(min(c.Header.CtxsPtr+avail*uint64(c.Header.CtxSize), uint64(size))), "context infos run past the end of the file"))
			c.Header.NumCtx = uint32(avail)
		}
		return c, nil
	}
	h, b, err := c.commonHeader(CCTMagic, 40)
	if err != nil {
		return nil, err
	}
	c.Header = CCTHeader{Major: h.Major, Minor: h.Minor, NumCtx: h.Count, NumSec: h.NumSec,
		InfoSize: be.Uint64(b[24:]), InfoPtr: be.Uint64(b[32:])}
	// every context has an info entry in the section: a count past what
	// the file holds is damage, and would size every per-context table
	ptr := min(c.Header.InfoPtr, uint64(size))
	if avail := min(uint64(size)-ptr, c.Header.InfoSize) / ctxInfoSize; uint64(c.Header.NumCtx) > avail {
		c.Problems.Add(c.errAt(18, "context count past the "+strconv.FormatUint(avail, 10)+" context infos the file holds", c.Header.NumCtx))
		c.Header.NumCtx = uint32(avail)
	}
	return c, nil
}

// OpenCCTDB opens the cct.db at path.
func OpenCCTDB(path string) (*CCTDB, error) {
	var c *CCTDB
	cl, err := decode.OpenFile(path, func(r io.ReaderAt, size int64) (err error) {
		c, err = NewCCTDB(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	c.closer = cl
	return c, nil
}

// FooterAt checks the footer of a 4.0 cct.db at off, the end of its last
// context block.
func (c *CCTDB) FooterAt(off uint64) error {
	return c.footerAt(off, CCTFooter, "cct.db", "context")
}

// Footer reports how the file ends.
func (c *CCTDB) Footer() FooterStatus {
	if c.meta {
		return c.footer4(CCTFooter4)
	}
	return c.footer(CCTFooter)
}

// Infos reads n context infos starting at entry k into dst.
func (c *CCTDB) Infos(k, n uint64, dst []CtxInfo) ([]CtxInfo, error) {
	if k+n > uint64(c.Header.NumCtx) {
		n = uint64(c.Header.NumCtx) - min(k, uint64(c.Header.NumCtx))
	}
	if c.meta {
		stride := uint64(c.Header.CtxSize)
		if c.Header.CtxsPtr > uint64(c.size) || k > uint64(c.size) {
			return dst, c.truncAt(int64(c.Header.InfoPtr), "context infos past the end of the file")
		}
		b, err := c.read(int64(c.Header.CtxsPtr+k*stride), int64(n*stride), "context info")
		if err != nil {
			return dst, err
		}
		for j := uint64(0); j < n; j++ {
			e := b[j*stride:]
			dst = append(dst, CtxInfo{Ctx: uint32(k + j), NumVals: le.Uint64(e), Offset: le.Uint64(e[8:]),
				NumMetric: le.Uint16(e[16:]), MetricOffset: le.Uint64(e[24:]), meta: true})
		}
		return dst, nil
	}
	if c.Header.InfoPtr > uint64(c.size) {
		return dst, c.truncAt(32, "context info section past the end of the file")
	}
	b, err := c.read(int64(c.Header.InfoPtr+k*ctxInfoSize), int64(n*ctxInfoSize), "context info")
	if err != nil {
		return dst, err
	}
	for j := uint64(0); j < n; j++ {
		e := b[j*ctxInfoSize:]
		dst = append(dst, CtxInfo{Ctx: be.Uint32(e), NumVals: be.Uint64(e[4:]), NumMetric: be.Uint16(e[12:]), Offset: be.Uint64(e[14:])})
	}
	return dst, nil
}

// Info reads the info of context ctx.
func (c *CCTDB) Info(ctx uint32) (CtxInfo, error) {
	if ctx >= c.Header.NumCtx {
		return CtxInfo{}, c.errAt(18, "context id out of range", ctx)
	}
	infos, err := c.Infos(uint64(ctx), 1, nil)
	if err != nil {
		return CtxInfo{}, err
	}
	return infos[0], nil
}

// Block reads the value block described by info: the value pairs and the
// metric-index pairs including the end pair.
func (c *CCTDB) Block(info CtxInfo) ([]ProfValue, []MetricIdx, error) {
	size := info.BlockSize()
	if info.NumVals > uint64(c.size) || info.Offset > uint64(c.size) || size > uint64(c.size)-info.Offset {
		return nil, nil, c.truncAt(int64(min(info.Offset, uint64(c.size))), "context value block runs past the end of the file")
	}
	if size == 0 {
		return nil, nil, nil
	}
	if info.meta {
		return c.blockV4(info)
	}
	return c.BlockAt(int64(info.Offset), info.NumVals, info.NumMetric)
}

// blockV4 reads a meta.db-generation block: the values at pValues and
// the metric index at pMetricIndices, with an end pair made up (the last
// metric's values end at NumVals).
func (c *CCTDB) blockV4(info CtxInfo) ([]ProfValue, []MetricIdx, error) {
	size := uint64(c.size)
	if info.MetricOffset > size || uint64(info.NumMetric)*cctMetricSize > size-info.MetricOffset {
		return nil, nil, c.truncAt(int64(min(info.MetricOffset, size)), "context metric index runs past the end of the file")
	}
	b, err := c.read(int64(info.Offset), int64(info.NumVals*cctValSize), "context values")
	if err != nil {
		return nil, nil, err
	}
	vals := make([]ProfValue, info.NumVals)
	for j := range vals {
		e := b[j*cctValSize:]
		vals[j] = ProfValue{math.Float64frombits(le.Uint64(e[4:])), le.Uint32(e)}
	}
	b, err = c.read(int64(info.MetricOffset), int64(info.NumMetric)*cctMetricSize, "context metric index")
	if err != nil {
		return nil, nil, err
	}
	mets := make([]MetricIdx, int(info.NumMetric)+1)
	for j := 0; j < int(info.NumMetric); j++ {
		e := b[j*cctMetricSize:]
		mets[j] = MetricIdx{le.Uint16(e), le.Uint64(e[2:])}
	}
	mets[info.NumMetric] = MetricIdx{CCTEndMarker, info.NumVals}
	return vals, mets, nil
}

// BlockAt reads a value block of numVals values and numMetric metrics at
// off, as hpcproftt does when it reads blocks one after the other.
func (c *CCTDB) BlockAt(off int64, numVals uint64, numMetric uint16) ([]ProfValue, []MetricIdx, error) {
	if numVals > uint64(c.size) {
		return nil, nil, c.truncAt(off, "context value block runs past the end of the file")
	}
	size := int64(numVals*cctValSize + (uint64(numMetric)+1)*cctMetricSize)
	b, err := c.read(off, size, "context value block")
	if err != nil {
		return nil, nil, err
	}
	vals := make([]ProfValue, numVals)
	for j := range vals {
		e := b[j*cctValSize:]
		vals[j] = ProfValue{math.Float64frombits(be.Uint64(e)), be.Uint32(e[8:])}
	}
	b = b[numVals*cctValSize:]
	mets := make([]MetricIdx, int(numMetric)+1)
	for j := range mets {
		e := b[j*cctMetricSize:]
		mets[j] = MetricIdx{be.Uint16(e), be.Uint64(e[2:])}
	}
	return vals, mets, nil
}

// A CtxValue is one value of a context: metric id, profile index, value.
type CtxValue struct {
	Metric uint16
	Prof   uint32
	Value  float64
}

// ContextValues decodes the block of context ctx into (metric, profile,
// value) triples, checking its metric index.
func (c *CCTDB) ContextValues(ctx uint32) ([]CtxValue, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return nil, err
	}
	vals, mets, err := c.Block(info)
	if err != nil || len(vals) == 0 {
		return nil, err
	}
	if err := checkMetricIndex(mets, info.NumVals); err != nil {
		return nil, c.errAt(int64(info.Offset), err.Error(), ctx)
	}
	out := make([]CtxValue, 0, len(vals))
	for m := 0; m+1 < len(mets); m++ {
		for j := mets[m].Index; j < mets[m+1].Index; j++ {
			out = append(out, CtxValue{mets[m].Metric, vals[j].Prof, vals[j].Value})
		}
	}
	return out, nil
}

type strErr string

func (e strErr) Error() string { return string(e) }

func checkMetricIndex(mets []MetricIdx, numVals uint64) error {
	last := mets[len(mets)-1]
	if last.Metric != CCTEndMarker || last.Index != numVals {
		return strErr("metric index has no end marker (zero-filled data area?)")
	}
	for m := 1; m < len(mets); m++ {
		if mets[m].Index < mets[m-1].Index {
			return strErr("metric index out of order")
		}
	}
	return nil
}

// DataValid samples up to n non-empty context blocks, spread over the id
// space, and reports whether their metric indices are well formed. Both
// known real cct.db files have a zero-filled data area; callers then derive
// per-context values from profile.db.
func (c *CCTDB) DataValid(n int) (bool, error) {
	num := uint64(c.Header.NumCtx)
	if num == 0 {
		return true, nil
	}
	checked := 0
	step := max(num/uint64(max(n, 1)), 1)
	for k := uint64(0); k < num && checked < n; k += step {
		// find the next non-empty context at or after k
		infos, err := c.Infos(k, min(step, 64), nil)
		if err != nil {
			return false, err
		}
		for _, info := range infos {
			if info.NumVals == 0 {
				continue
			}
			_, mets, err := c.Block(info)
			if err != nil {
				return false, err
			}
			if checkMetricIndex(mets, info.NumVals) != nil {
				return false, nil
			}
			checked++
			break
		}
	}
	return true, nil
}
