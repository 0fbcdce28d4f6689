package interchange

import (
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"sync"

	"github.com/hpcfs/hpcfs/render"
)

// profile.pb.gz is a gzipped pprof profile (profile.proto of
// github.com/google/pprof): one sample type per metric, one sample per
// node with a non-zero exclusive value (its stack leaf first), one
// location per frame, one function per (label, file), one mapping per
// load module, and the tree's interned strings as the string table.
//
// It streams through render's checkpoints instead of being held whole:
// protobuf lets the top-level repeated fields come in any order and
// interleaved, so the profile is a sequence of records (header, samples
// in preorder, locations, functions, mappings, strings), cut into chunks
// of about chunkRaw bytes. Each chunk is deflated by a fresh compressor
// and ends with a sync flush (byte-aligned, no back-references into other
// chunks), so any chunk can be compressed again from its first record
// alone; together they are one deflate stream in one gzip member (pako,
// hence speedscope, reads only a gzip file's first member). A cursor's
// state is the next record plus the CRC-32 and length of the data before
// it, for the gzip trailer. Sizing compresses the profile once; a read
// compresses again only the chunks of its segment.

// chunkRaw is the protobuf bytes per deflate chunk (at least one record).
const chunkRaw = 256 << 10

// pprofPlan is what the records need besides the tree: the pprof
// function of each frame and the mapping of each module, computed once.
type pprofPlan struct {
	t        *Tree
	fnOf     []int32 // per frame: function index
	fnFrame  []int32 // per function: its first frame (label, file, name)
	mapOf    map[int32]int32
	mapFile  []int32
	mapFlags [][2]bool // has file names, has line numbers
	comments []int32
	usedRoot bool
	// record index of the first record of each section
	samples, locations, functions, mappings, strings, end int
}

func newPprofPlan(t *Tree, comments []int32) *pprofPlan {
	p := &pprofPlan{t: t, comments: comments, mapOf: map[int32]int32{}}
	ft := &t.frames
	nf := ft.Len()
	p.fnOf = make([]int32, nf)
	var index idTable
	hash := func(fn int32) uint64 {
		f := p.fnFrame[fn]
		return mix(uint64(uint32(ft.label.get(int(f))))<<32 | uint64(uint32(ft.file.get(int(f)))))
	}
	for i := range int32(nf) {
		label, file := ft.label.get(int(i)), ft.file.get(int(i))
		h := mix(uint64(uint32(label))<<32 | uint64(uint32(file)))
		fn, slot := index.find(h, func(fn int32) bool {
			f := p.fnFrame[fn]
			return ft.label.get(int(f)) == label && ft.file.get(int(f)) == file
		})
		if fn < 0 {
			fn = int32(len(p.fnFrame))
			p.fnFrame = append(p.fnFrame, i)
			index.insert(slot, fn, h, hash)
		}
		p.fnOf[i] = fn
		if mod := ft.module.get(int(i)); mod != 0 {
			mp, ok := p.mapOf[mod]
			if !ok {
				mp = int32(len(p.mapFile))
				p.mapOf[mod] = mp
				p.mapFile = append(p.mapFile, mod)
				p.mapFlags = append(p.mapFlags, [2]bool{})
			}
			p.mapFlags[mp][0] = p.mapFlags[mp][0] || file != 0
			p.mapFlags[mp][1] = p.mapFlags[mp][1] || ft.line.get(int(i)) != 0
		}
	}
	for m := range t.Metrics {
		p.usedRoot = p.usedRoot || t.self(Root, m) != 0
	}
	p.samples = 1
	p.locations = p.samples + t.Len()
	p.functions = p.locations + nf + 1
	p.mappings = p.functions + len(p.fnFrame) + 1
	p.strings = p.mappings + len(p.mapFile)
	p.end = p.strings + t.strs.Len()
	return p
}

// appendRecord appends record r's top-level fields.
func (p *pprofPlan) appendRecord(w *pbWriter, r int) {
	t := p.t
	ft := &t.frames
	nf := ft.Len()
	rootLoc := uint64(nf + 1) // the location of values at the root
	rootFn := uint64(len(p.fnFrame) + 1)
	switch {
	case r < p.samples:
		for m := range t.Metrics {
			w.msg.reset()
			w.msg.int(1, int64(t.metricStr[m][0]))
			w.msg.int(2, int64(t.metricStr[m][1]))
			w.field(1, &w.msg)
		}
		if len(t.Metrics) > 0 {
			w.out.int(14, int64(t.metricStr[0][0]))
		}
		for _, c := range p.comments {
			w.out.int(13, int64(c))
		}
	case r < p.locations:
		x := int32(r - p.samples)
		nm := len(t.Metrics)
		w.vals = t.vals.row(w.vals, int(x)*nm, nm)
		vals := w.vals
		nonzero := false
		for _, v := range vals {
			nonzero = nonzero || v != 0
		}
		if !nonzero {
			return
		}
		w.sub.reset()
		if x == Root {
			w.sub.uvarint(rootLoc)
		} else {
			t.moveTo(&w.path, x)
			for i := len(w.path.frames) - 1; i >= 0; i-- {
				w.sub.uvarint(uint64(w.path.frames[i]) + 1)
			}
		}
		w.msg.reset()
		w.msg.bytes(1, w.sub.b)
		w.sub.reset()
		for _, v := range vals {
			w.sub.uvarint(uint64(v))
		}
		w.msg.bytes(2, w.sub.b)
		w.field(2, &w.msg)
	case r < p.functions:
		i := r - p.locations
		w.sub.reset()
		w.msg.reset()
		if i == nf {
			if !p.usedRoot {
				return
			}
			w.sub.uint(1, rootFn)
			w.msg.uint(1, rootLoc)
		} else {
			w.sub.uint(1, uint64(p.fnOf[i])+1)
			w.sub.int(2, ft.line.get(i))
			w.msg.uint(1, uint64(i)+1)
			if mp, ok := p.mapOf[ft.module.get(i)]; ok {
				w.msg.uint(2, uint64(mp)+1)
			}
			w.msg.uint(3, ft.addr.get(i))
		}
		w.msg.bytes(4, w.sub.b)
		w.field(4, &w.msg)
	case r < p.mappings:
		fn := r - p.functions
		w.msg.reset()
		if fn == len(p.fnFrame) {
			if !p.usedRoot {
				return
			}
			w.msg.uint(1, rootFn)
			w.msg.int(2, int64(t.rootStr))
		} else {
			f := p.fnFrame[fn]
			w.msg.uint(1, uint64(fn)+1)
			label, name := ft.label.get(int(f)), ft.name.get(int(f))
			w.msg.int(2, int64(label))
			// system_name only when it differs: pprof "demangles" a system
			// name equal to the name, cutting <...> as if it were template
			// arguments, so HPCToolkit's "<omp barrier wait>" showed as
			// <unknown>
			if name != label {
				w.msg.int(3, int64(name))
			}
			w.msg.int(4, int64(ft.file.get(int(f))))
		}
		w.field(5, &w.msg)
	case r < p.strings:
		i := r - p.mappings
		w.msg.reset()
		w.msg.uint(1, uint64(i)+1)
		w.msg.int(5, int64(p.mapFile[i]))
		w.msg.uint(7, 1) // has_functions: nothing to symbolize
		w.msg.uint(8, boolInt(p.mapFlags[i][0]))
		w.msg.uint(9, boolInt(p.mapFlags[i][1]))
		w.field(3, &w.msg)
	default:
		w.str = t.strs.appendBytes(w.str[:0], int32(r-p.strings))
		w.out.bytes(6, w.str)
	}
}

func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// pprofGen renders profile.pb.gz; its state is a pprofPos.
type pprofGen struct {
	p *Profile
}

// Bind names the profile's build error after profile.pb.gz.
func (g *pprofGen) Bind(b render.Binding) { g.p.buildErr.bind(b.Report) }

// pprofPos is a position between two chunks.
type pprofPos struct {
	r   int    // next record
	crc uint32 // CRC-32 of the protobuf bytes before r
	n   uint32 // their length mod 2^32
}

type pprofCursor struct {
	plan *pprofPlan
	pos  pprofPos
	w    pbWriter
	out  bytes.Buffer
}

var flateWriters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
	return w
}}

// gzipHeader is RFC 1952's member header: deflate, no name, no time,
// fastest compression, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255}

func (g *pprofGen) Start(state any) (render.Cursor, error) {
	plan, err := g.p.pprofPlan()
	if err != nil {
		return nil, err
	}
	pos, _ := state.(pprofPos)
	return &pprofCursor{plan: plan, pos: pos}, nil
}

func (c *pprofCursor) State() any { return c.pos }

// Next appends the next chunk (the gzip header before the first, the
// trailer after the last).
func (c *pprofCursor) Next(dst []byte) ([]byte, error) {
	if c.pos.r > c.plan.end {
		return dst, io.EOF
	}
	if c.pos.r == 0 {
		dst = append(dst, gzipHeader...)
	}
	c.w.out.reset()
	for c.pos.r < c.plan.end && len(c.w.out.b) < chunkRaw {
		c.plan.appendRecord(&c.w, c.pos.r)
		c.pos.r++
	}
	last := c.pos.r == c.plan.end
	if err := c.plan.t.Err(); err != nil {
		return dst, err
	}
	c.pos.crc = crc32.Update(c.pos.crc, crc32.IEEETable, c.w.out.b)
	c.pos.n += uint32(len(c.w.out.b))
	fw := flateWriters.Get().(*flate.Writer)
	defer flateWriters.Put(fw)
	c.out.Reset()
	fw.Reset(&c.out)
	_, err := fw.Write(c.w.out.b)
	if err == nil && last {
		err = fw.Close()
	} else if err == nil {
		err = fw.Flush()
	}
	if err != nil {
		return dst, err
	}
	if cap(c.w.out.b) > 4*chunkRaw {
		c.w.out.b = nil
	}
	dst = append(dst, c.out.Bytes()...)
	if last {
		for _, v := range []uint32{c.pos.crc, c.pos.n} { // little-endian
			dst = append(dst, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
		}
		c.pos.r++ // past the end
	}
	return dst, nil
}

// pbWriter collects top-level fields in out; msg and sub are scratch for
// nested messages.
type pbWriter struct {
	out, msg, sub pbuf
	path          pathCache // of the last sample
	vals          []int64   // of the last sample
	str           []byte    // the last string
}

// field writes the message in m as top-level field f.
func (w *pbWriter) field(f int, m *pbuf) { w.out.bytes(f, m.b) }

// pbuf encodes protobuf fields into a reused buffer.
type pbuf struct{ b []byte }

func (p *pbuf) reset()             { p.b = p.b[:0] }
func (p *pbuf) tag(f, wire int)    { p.uvarint(uint64(f)<<3 | uint64(wire)) }
func (p *pbuf) int(f int, v int64) { p.uint(f, uint64(v)) }

// uvarint appends v in base-128, low groups first.
func (p *pbuf) uvarint(v uint64) {
	for v >= 0x80 {
		p.b = append(p.b, byte(v)|0x80)
		v >>= 7
	}
	p.b = append(p.b, byte(v))
}

// uint writes a varint field; zero, the proto3 default, is left out.
func (p *pbuf) uint(f int, v uint64) {
	if v != 0 {
		p.tag(f, 0)
		p.uvarint(v)
	}
}

// bytes writes a length-delimited field (a message, packed values or a
// string).
func (p *pbuf) bytes(f int, b []byte) {
	p.tag(f, 2)
	p.uvarint(uint64(len(b)))
	p.b = append(p.b, b...)
}
