// Package hpcrun decodes HPCToolkit measurement files: hpcrun profiles
// ("HPCRUN-profile____" 02.00, 03.00 and the sparse 04.00, see sparse.go)
// and their traces ("HPCRUN-trace______" 01.00 and 01.01).
//
// Everything is big-endian. A profile is a header followed by epochs that
// run to the end of the file; each epoch holds a metric table, a loadmap
// and a CCT whose nodes all have the same size. Three metric-descriptor
// layouts (A, B, C) share the version string "02.00"; NewFile tells them
// apart from the bytes (see Layout).
//
// Robustness contract: NewFile and every reader in this package never
// panic on malformed input, and never allocate from a length field more
// than the bytes that remain in the input. NewFile reads only headers: the
// CCT nodes stay on disk and are read by NodeReader on demand. A file that
// turns bad part-way keeps every epoch decoded before the bad bytes (the
// last one possibly with fewer complete nodes than announced) and reports
// the problem in File.Problems. Errors are *decode.FormatError values.
package hpcrun

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hpcfs/hpcfs/decode"
)

// format is the name errors carry.
const format = "hpcrun"

const (
	// ProfileMagic starts every profile.
	ProfileMagic = "HPCRUN-profile____"
	// TraceMagic starts every trace.
	TraceMagic = "HPCRUN-trace______"
	epochTag   = "EPOCH___"
	headerSize = 24 // magic, 5-byte version, endian byte
)

// A Layout is one of the metric-descriptor layouts written under "02.00".
type Layout uint8

const (
	LayoutUnknown Layout = iota
	// LayoutA (2010): flags as two big-endian words of a bit-field.
	LayoutA
	// LayoutB (2010-12 … 2017.06): 16 raw flag bytes.
	LayoutB
	// LayoutC (2017.10 …, and 03.00): B plus is-frequency, is-multiplexed,
	// period-mean and num-samples (20 bytes).
	LayoutC
)

func (l Layout) String() string {
	switch l {
	case LayoutA:
		return "A"
	case LayoutB:
		return "B"
	case LayoutC:
		return "C"
	}
	return "unknown"
}

// A MetricType is the kind of a metric (flags byte 0).
type MetricType uint8

const (
	TypeNull MetricType = iota
	TypeRaw
	TypeFinal
	TypeDerived
)

func (t MetricType) String() string { return flagName(uint8(t), "null", "raw", "final", "derived") }

// flagName is the name of flag value v, names[v], or v in decimal past them.
func flagName(v uint8, names ...string) string {
	if int(v) < len(names) {
		return names[v]
	}
	return strconv.Itoa(int(v))
}

// A ValType says whether values are inclusive or exclusive (flags byte 1).
type ValType uint8

const (
	ValNull ValType = iota
	ValIncl
	ValExcl
)

func (t ValType) String() string { return flagName(uint8(t), "null", "inclusive", "exclusive") }

// A ValFmt is how a metric value's 8 bytes are to be read (flags byte 2).
type ValFmt uint8

const (
	FmtNull ValFmt = iota
	FmtInt
	FmtReal
)

func (f ValFmt) String() string { return flagName(uint8(f), "null", "int", "real") }

// An NVPair is a name/value string pair of a header.
type NVPair struct{ Name, Value string }

// A Metric is one metric descriptor of an epoch.
type Metric struct {
	Name, Description string
	Type              MetricType
	ValType           ValType
	ValFmt            ValFmt
	Partner           uint16
	Show              uint8
	ShowPercent       bool
	// BitfieldFlags is set when the flags use the layout-A bit-field
	// encoding (HPCToolkit falls back to it when the raw bytes look wrong).
	BitfieldFlags bool
	Period        uint64
	Formula       string
	FormatStr     string
	// Layout C only.
	HasAux        bool
	IsFrequency   uint16
	IsMultiplexed uint16
	PeriodMean    float64
	NumSamples    uint64
}

// IsReal reports whether the metric's values are IEEE doubles.
func (m *Metric) IsReal() bool { return m.ValFmt == FmtReal }

// A LoadModule is one loadmap entry.
type LoadModule struct {
	ID    uint16
	Name  string
	Flags uint64
}

// An Epoch is one epoch's headers and where its CCT nodes are.
type Epoch struct {
	Index       int
	Off         int64 // offset of the EPOCH___ tag
	Flags       uint64
	Granularity uint64
	RAOffset    uint32
	NV          []NVPair
	Metrics     []Metric
	LoadModules []LoadModule
	Announced   uint64 // node count stored in the file
	NumNodes    uint64 // nodes the epoch spans inside the file
	Complete    uint64 // nodes wholly inside the file (= NumNodes)
	NodesOff    int64  // offset of the first node
	NodeSize    int64
	// Sparse marks the single pseudo-epoch of a 04.00 file: nodes carry a
	// flags byte after the ip, no LUSH fields, and leaves are not negated.
	Sparse bool
}

// LogicalUnwind reports whether nodes carry LUSH assoc and lip fields.
func (e *Epoch) LogicalUnwind() bool { return e.Flags&1 != 0 }

// End is the offset just past the epoch's last announced node.
func (e *Epoch) End() int64 { return e.NodesOff + int64(e.NumNodes)*e.NodeSize }

// LoadModule returns the loadmap entry with id, or nil.
func (e *Epoch) LoadModule(id uint16) *LoadModule {
	if i := int(id) - 1; i >= 0 && i < len(e.LoadModules) && e.LoadModules[i].ID == id {
		return &e.LoadModules[i]
	}
	for i := range e.LoadModules {
		if e.LoadModules[i].ID == id {
			return &e.LoadModules[i]
		}
	}
	return nil
}

// A File is an opened hpcrun profile.
type File struct {
	Version string // "02.00", "03.00", "04.00"
	Endian  byte
	NV      []NVPair
	Layout  Layout
	Epochs  []*Epoch
	// Problems holds the problem that ended decoding early; it is empty
	// when the file decoded to its last byte.
	Problems decode.Problems
	Size     int64
	// Sparse is set for version 04.00 (one pseudo-epoch, see sparse.go).
	Sparse *Sparse

	r      io.ReaderAt
	closer io.Closer
}

// Header returns the value of the header nv-pair name, or "".
func (f *File) Header(name string) string {
	for _, p := range f.NV {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// NumNodes is the number of complete CCT nodes over all epochs.
func (f *File) NumNodes() uint64 {
	var n uint64
	for _, e := range f.Epochs {
		n += e.Complete
	}
	return n
}

// Open opens the named profile.
func Open(name string) (*File, error) {
	var f *File
	closer, err := decode.OpenFile(name, func(r io.ReaderAt, size int64) (err error) {
		f, err = NewFile(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	f.closer = closer
	return f, nil
}

// Close closes the file Open opened.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// ReaderAt returns the input.
func (f *File) ReaderAt() io.ReaderAt { return f.r }

// Version identifies a profile from its first 24 bytes: the version string
// and whether this package decodes it.
func Version(hdr []byte) (version string, supported bool, ok bool) {
	if len(hdr) < headerSize || string(hdr[:len(ProfileMagic)]) != ProfileMagic {
		return "", false, false
	}
	version = string(hdr[18:23])
	v, err := strconv.ParseFloat(version, 64)
	return version, err == nil && v >= 2 && v < 5, true
}

// NewFile decodes the headers of the profile in r (size bytes). It fails
// only when the file header itself is unusable; later problems are kept
// in File.Problems.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	f := &File{r: r, Size: size}
	hdr := make([]byte, headerSize)
	if size < headerSize {
		return nil, errAt("header", 0, "file shorter than the 24-byte header", nil, decode.ErrTruncated)
	}
	if _, err := r.ReadAt(hdr, 0); err != nil && err != io.EOF {
		return nil, err
	}
	version, supported, ok := Version(hdr)
	if !ok {
		return nil, errAt("header", 0, "bad magic", string(hdr[:len(ProfileMagic)]), nil)
	}
	f.Version, f.Endian = version, hdr[23]
	if !supported {
		return nil, errAt("header", 18, "version not supported (hpcfs reads 02.00, 03.00 and 04.00)", version, decode.ErrUnsupportedVersion)
	}
	if version >= "04" {
		return newSparseFile(f, r, size)
	}
	br := &blockReader{r: r, size: size}
	c := newCursor(br, size, headerSize, "header")
	f.NV = c.nvPairs()
	if c.err != nil {
		return nil, c.err
	}
	start := c.off
	if version >= "03" {
		f.Layout = LayoutC
		var err error
		f.Epochs, err = parseEpochs(br, size, start, LayoutC)
		f.Problems.Add(err)
	} else {
		var err error
		f.Layout, f.Epochs, err = detect(br, size, start)
		f.Problems.Add(err)
	}
	return f, nil
}

// detect parses the epochs under layouts B and C and keeps the reading
// that consumes the file exactly with plausible headers, or else the one
// that gets further. A wrong guess soon reads a length or a count from the
// wrong bytes.
func detect(r io.ReaderAt, size, start int64) (Layout, []*Epoch, error) {
	eb, errB := parseEpochs(r, size, start, LayoutB)
	ec, errC := parseEpochs(r, size, start, LayoutC)
	if score(ec, errC) > score(eb, errB) {
		return LayoutC, ec, errC
	}
	return layoutOf(eb), eb, errB
}

// score ranks a reading: a clean parse first, then plausible headers
// (non-empty loadmaps with printable names), then how far it got.
func score(es []*Epoch, err error) int64 {
	var s int64
	if err == nil {
		s += 1 << 62
	}
	if plausible(es) {
		s += 1 << 61
	}
	return s + min(progress(es, err), 1<<60)
}

func plausible(es []*Epoch) bool {
	if len(es) == 0 {
		return false
	}
	for _, e := range es {
		if len(e.LoadModules) == 0 {
			return false
		}
		for _, lm := range e.LoadModules {
			if !printable(lm.Name) {
				return false
			}
		}
		for _, m := range e.Metrics {
			if !printable(m.Name) {
				return false
			}
		}
	}
	return true
}

func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// layoutOf tells A from B: A's flags use the bit-field encoding.
func layoutOf(es []*Epoch) Layout {
	n, old := 0, 0
	for _, e := range es {
		for _, m := range e.Metrics {
			n++
			if m.BitfieldFlags {
				old++
			}
		}
	}
	if n > 0 && old == n {
		return LayoutA
	}
	return LayoutB
}

func progress(es []*Epoch, err error) int64 {
	var p int64
	for _, e := range es {
		p = max(p, e.NodesOff+int64(e.Complete)*e.NodeSize)
	}
	if fe, ok := err.(*decode.FormatError); ok {
		p = max(p, fe.Off)
	}
	return p
}

// parseEpochs reads epoch headers from off to the end of the file; CCT
// nodes are skipped arithmetically.
func parseEpochs(r io.ReaderAt, size, off int64, layout Layout) ([]*Epoch, error) {
	var epochs []*Epoch
	for i := 0; off < size; i++ {
		e, err := parseEpoch(r, size, off, i, layout)
		if e != nil {
			epochs = append(epochs, e)
		}
		if err != nil {
			return epochs, err
		}
		off = e.End()
	}
	return epochs, nil
}

func parseEpoch(r io.ReaderAt, size, off int64, index int, layout Layout) (*Epoch, error) {
	section := "epoch " + strconv.Itoa(index)
	c := newCursor(r, size, off, section)
	e := &Epoch{Index: index, Off: off}
	if tag := c.bytes(8); c.err == nil && string(tag) != epochTag {
		return nil, errAt(section, off, "expected EPOCH___ tag", string(tag), nil)
	}
	e.Flags = c.u64()
	e.Granularity = c.u64()
	e.RAOffset = c.u32()
	e.NV = c.nvPairs()
	c.section = section + " metric table"
	n := c.u32()
	if c.err == nil {
		e.Metrics = make([]Metric, 0, decode.SliceCap(uint64(n), 8+16+8+8, size-c.off))
	}
	for i := uint32(0); i < n && c.err == nil; i++ {
		e.Metrics = append(e.Metrics, c.metric(layout))
	}
	c.section = section + " loadmap"
	n = c.u32()
	if c.err == nil {
		e.LoadModules = make([]LoadModule, 0, decode.SliceCap(uint64(n), 14, size-c.off))
	}
	for i := uint32(0); i < n && c.err == nil; i++ {
		at := c.off
		lm := LoadModule{ID: c.u16(), Name: c.str(), Flags: c.u64()}
		if c.err == nil && uint32(lm.ID) != i+1 {
			c.fail(at, "load module id out of sequence", lm.ID, nil)
		}
		e.LoadModules = append(e.LoadModules, lm)
	}
	c.section = section + " cct"
	e.NumNodes = c.u64()
	e.Announced = e.NumNodes
	if c.err != nil {
		return nil, c.err
	}
	e.NodesOff = c.off
	e.NodeSize = 4 + 4 + 2 + 8 + 8*int64(len(e.Metrics))
	if e.LogicalUnwind() {
		e.NodeSize += 4 + 16
	}
	avail := uint64(size-e.NodesOff) / uint64(e.NodeSize)
	if e.NumNodes > avail {
		e.Complete = avail
		e.NumNodes = avail // End() stays inside the file
		return e, errAt(section+" cct", e.NodesOff+int64(avail)*e.NodeSize,
			"file ends inside the CCT: "+strconv.FormatUint(avail, 10)+" complete nodes", nil, decode.ErrTruncated)
	}
	e.Complete = e.NumNodes
	return e, nil
}

// A Node is one CCT node.
type Node struct {
	ID     int32  // negative for a leaf
	Parent uint32 // 0 for a root
	Assoc  uint32 // LUSH assoc-info (logical unwinding only)
	LMID   uint16
	IP     uint64
	Flags  uint8     // 04.00 only: bit 0 = unwound
	LIP    [2]uint64 // LUSH logical IP (logical unwinding only)
	Values []uint64  // raw bits, one per metric: uint64 or float64 bits by ValFmt
}

// IsLeaf reports whether the stored id was negated.
func (n *Node) IsLeaf() bool { return n.ID < 0 }

// AbsID is the node id without its leaf sign.
func (n *Node) AbsID() uint32 {
	if n.ID < 0 {
		return uint32(-int64(n.ID))
	}
	return uint32(n.ID)
}

// AssocName is HPCToolkit's name for a LUSH association.
func AssocName(assoc uint32) string {
	switch assoc & 0xff {
	case 0:
		return "NULL"
	case 0x11:
		return "1-to-0"
	case 0x36:
		return "1-to-1"
	case 0x42:
		return "M-to-1"
	case 0x54:
		return "1-to-M"
	case 0xa1:
		return "0-to-0"
	}
	return "ERROR!"
}

// A NodeReader reads the CCT nodes of one epoch in order, from any index.
// It is not safe for concurrent use; make one per goroutine.
type NodeReader struct {
	r     io.ReaderAt
	e     *Epoch
	next  uint64 // index of the next node
	buf   []byte
	bufAt uint64 // index of the node at buf[0]
	nbuf  uint64 // nodes in buf
}

const readerBlock = 128 << 10

// NodeReader returns a reader positioned at node index start of e.
func (f *File) NodeReader(e *Epoch, start uint64) *NodeReader {
	per := max(readerBlock/e.NodeSize, 1)
	return &NodeReader{r: f.r, e: e, next: start, buf: make([]byte, per*e.NodeSize)}
}

// Index is the index of the node Next returns next.
func (nr *NodeReader) Index() uint64 { return nr.next }

// Next decodes the next node into n, reusing n.Values. At the end of the
// epoch's complete nodes it returns io.EOF, or a truncation error when the
// epoch announced more.
func (nr *NodeReader) Next(n *Node) error {
	raw, err := nr.NextRaw()
	if err != nil {
		return err
	}
	nr.e.decodeNode(raw, n)
	return nil
}

// NextRaw returns the bytes of the next node, valid until the next call.
func (nr *NodeReader) NextRaw() ([]byte, error) {
	e := nr.e
	if nr.next >= e.Complete {
		if e.Complete < e.Announced {
			return nil, errAt("epoch "+strconv.Itoa(e.Index)+" cct", e.NodesOff+int64(nr.next)*e.NodeSize, "truncated node", nil, decode.ErrTruncated)
		}
		return nil, io.EOF
	}
	if nr.next < nr.bufAt || nr.next >= nr.bufAt+nr.nbuf {
		per := uint64(len(nr.buf)) / uint64(e.NodeSize)
		k := min(per, e.Complete-nr.next)
		b := nr.buf[:k*uint64(e.NodeSize)]
		if _, err := nr.r.ReadAt(b, e.NodesOff+int64(nr.next)*e.NodeSize); err != nil && err != io.EOF {
			return nil, err
		}
		nr.bufAt, nr.nbuf = nr.next, k
	}
	at := (nr.next - nr.bufAt) * uint64(e.NodeSize)
	nr.next++
	return nr.buf[at : at+uint64(e.NodeSize)], nil
}

// DecodeNode decodes the raw bytes of one node of e into n.
func (e *Epoch) decodeNode(b []byte, n *Node) {
	be := binary.BigEndian
	n.ID = int32(be.Uint32(b))
	n.Parent = be.Uint32(b[4:])
	p := 8
	if e.LogicalUnwind() {
		n.Assoc = be.Uint32(b[p:])
		p += 4
	}
	n.LMID = be.Uint16(b[p:])
	n.IP = be.Uint64(b[p+2:])
	p += 10
	if e.Sparse {
		n.Flags = b[p]
		p++
	}
	if e.LogicalUnwind() {
		n.LIP[0] = be.Uint64(b[p:])
		n.LIP[1] = be.Uint64(b[p+8:])
		p += 16
	}
	m := len(e.Metrics)
	if cap(n.Values) < m {
		n.Values = make([]uint64, m)
	}
	n.Values = n.Values[:m]
	for i := range n.Values {
		n.Values[i] = be.Uint64(b[p:])
		p += 8
	}
}

// DecodeNode decodes the raw bytes of one node of e (from NextRaw) into n.
func (e *Epoch) DecodeNode(b []byte, n *Node) { e.decodeNode(b, n) }

// RawNodeID is the id of the raw node b (from NextRaw), as stored: negative
// for a leaf of some hpcrun versions.
func RawNodeID(b []byte) int32 { return int32(binary.BigEndian.Uint32(b)) }

// RawNodeParent is the parent id of the raw node b (0 for a root).
func RawNodeParent(b []byte) uint32 { return binary.BigEndian.Uint32(b[4:]) }

// RawValue is the bits of metric k of the raw node b of e.
func (e *Epoch) RawValue(b []byte, k int) uint64 {
	return binary.BigEndian.Uint64(b[e.valuesOffset()+8*k:])
}

// valuesOffset is where the metric values start in a node of e (the
// layout decodeNode reads).
func (e *Epoch) valuesOffset() int {
	p := 4 + 4 + 2 + 8
	if e.LogicalUnwind() {
		p += 4 + 16
	}
	if e.Sparse {
		p++
	}
	return p
}

// Float is the value bits of a Real metric.
func Float(bits uint64) float64 { return math.Float64frombits(bits) }

// cursor is a sequential reader with a sticky error (like debug/dwarf's buf).
type cursor struct {
	r       io.ReaderAt
	size    int64
	off     int64
	section string
	err     error
}

func newCursor(r io.ReaderAt, size, off int64, section string) *cursor {
	return &cursor{r: r, size: size, off: off, section: section}
}

func errAt(section string, off int64, msg string, val any, kind error) *decode.FormatError {
	return decode.ErrAt(format, section, off, msg, val, kind)
}

func (c *cursor) fail(off int64, msg string, val any, err error) {
	if c.err == nil {
		c.err = errAt(c.section, off, msg, val, err)
	}
}

func (c *cursor) bytes(n int64) []byte {
	if c.err != nil {
		return nil
	}
	b, err := decode.ReadAt(c.r, c.size, c.off, n)
	if err != nil {
		if err == io.ErrUnexpectedEOF {
			c.fail(c.off, "unexpected end of file", nil, decode.ErrTruncated)
		} else {
			c.err = err
		}
		return nil
	}
	c.off += n
	return b
}

func (c *cursor) u16() uint16 {
	if b := c.bytes(2); b != nil {
		return binary.BigEndian.Uint16(b)
	}
	return 0
}

func (c *cursor) u32() uint32 {
	if b := c.bytes(4); b != nil {
		return binary.BigEndian.Uint32(b)
	}
	return 0
}

func (c *cursor) u64() uint64 {
	if b := c.bytes(8); b != nil {
		return binary.BigEndian.Uint64(b)
	}
	return 0
}

func (c *cursor) str() string {
	at := c.off
	n := c.u32()
	if c.err != nil {
		return ""
	}
	if int64(n) > c.size-c.off {
		c.fail(at, "string length runs past the end of the file", n, decode.ErrTruncated)
		return ""
	}
	return string(c.bytes(int64(n)))
}

func (c *cursor) nvPairs() []NVPair {
	n := c.u32()
	if c.err != nil {
		return nil
	}
	out := make([]NVPair, 0, decode.SliceCap(uint64(n), 8, c.size-c.off))
	for i := uint32(0); i < n && c.err == nil; i++ {
		p := NVPair{Name: c.str()}
		p.Value = c.str()
		out = append(out, p)
	}
	return out
}

func (c *cursor) metric(layout Layout) Metric {
	m := Metric{Name: c.str()}
	m.Description = c.str()
	flags := c.bytes(16)
	if flags != nil {
		m.setFlags(flags)
	}
	m.Period = c.u64()
	m.Formula = c.str()
	m.FormatStr = c.str()
	if layout == LayoutC {
		m.HasAux = true
		m.IsFrequency = c.u16()
		m.IsMultiplexed = c.u16()
		m.PeriodMean = math.Float64frombits(c.u64())
		m.NumSamples = c.u64()
	}
	return m
}

// setFlags decodes the 16 flag bytes the way HPCToolkit's reader does: raw
// x86 bytes, unless they do not look like it, then the bit-field words.
func (m *Metric) setFlags(b []byte) {
	if (b[0] == 1 || b[0] == 2) && b[3] == 0 && bytes.Equal(b[8:16], make([]byte, 8)) {
		m.Type = MetricType(b[0])
		m.ValType = ValType(b[1])
		m.ValFmt = ValFmt(b[2])
		m.Partner = binary.LittleEndian.Uint16(b[4:])
		m.Show = b[6]
		m.ShowPercent = b[7] != 0
		return
	}
	w := binary.BigEndian.Uint64(b)
	m.BitfieldFlags = true
	m.Type = MetricType(w & 0xf)
	m.ValType = ValType(w >> 4 & 0xf)
	m.ValFmt = ValFmt(w >> 8 & 0xf)
	m.Partner = uint16(w >> 12)
	m.Show = uint8(w >> 28 & 1)
	m.ShowPercent = w>>29&1 != 0
}

// blockReader serves the many small header reads from one cached block.
type blockReader struct {
	r     io.ReaderAt
	size  int64
	block []byte
	at    int64
}

const headerBlock = 32 << 10

func (b *blockReader) ReadAt(p []byte, off int64) (int, error) {
	if len(p) > headerBlock/2 {
		return b.r.ReadAt(p, off)
	}
	n := 0
	for n < len(p) {
		o := off + int64(n)
		if b.block == nil || o < b.at || o >= b.at+int64(len(b.block)) {
			if o >= b.size {
				return n, io.EOF
			}
			k := min(int64(headerBlock), b.size-o)
			buf := make([]byte, k)
			m, err := b.r.ReadAt(buf, o)
			if m < int(k) {
				if err == nil {
					err = io.ErrUnexpectedEOF
				}
				return n, err
			}
			b.block, b.at = buf, o
		}
		n += copy(p[n:], b.block[o-b.at:])
	}
	return n, nil
}
