package hpcdb

import (
	"bufio"
	"encoding/binary"
	"math"
)

// The meta.db generation (HPCToolkit 2022.10 and later): WriteMeta writes
// the same tree, costs and traces as Write, as meta.db, profile.db, cct.db
// and trace.db of format version 4.0, little-endian.
//
// The tree hangs from one entry point ("main thread", context id
// EntryID, with the inclusive values of the whole tree); procedure frames are functions reached by a call, lines and
// loops are lexical contexts with a source location, call sites are
// instructions. Metric k has one propagated and one summary id per scope:
// MetaIDs. Config.Extra lengthens every extendable structure, as a later
// minor version may, and adds a flex word to every context.

var le = binary.LittleEndian

// MetaIDs are the metric ids of base metric k in the meta.db generation:
// the function (exclusive) and execution (inclusive) scopes, used both as
// propMetricId and as statMetricId (the Sum summary).
func MetaIDs(k int) (exc, inc int) { return 2 * k, 2*k + 1 }

// CountIDs are the statMetricIds of base metric k's count summaries
// (formula "1", combine sum: the number of thread profiles with a value)
// when Config.Counts is set.
func (g *DB) CountIDs(k int) (exc, inc int) { return g.StatIDs(StatCount, k) }

// The partials hpcprof --stats adds to each metric's Sum (src/hpcprof/
// metric.cpp, Metric::freeze), as summaries of the summary profile over
// the thread profiles with a value: their count, the sum of their
// squares, their min and max. HPCToolkit's Mean is Sum/Count, StdDev
// sqrt(SumSq/Count - Mean^2) and CfVar StdDev/Mean.
const (
	StatCount = iota // formula "1", combine sum
	StatSumSq        // formula "($$^2)" (as hpcprof's metadb sink writes x^2), combine sum
	StatMin          // formula "$$", combine min
	StatMax          // formula "$$", combine max
)

// statSummaries are the formula and combine (0 sum, 1 min, 2 max) of each
// partial.
var statSummaries = [...]struct {
	formula string
	combine byte
}{{"1", 0}, {"($$^2)", 0}, {"$$", 1}, {"$$", 2}}

// StatIDs are the statMetricIds of base metric k's partial s (StatCount,
// ...) when Config.Counts (the count only) or Config.Stats is set.
func (g *DB) StatIDs(s, k int) (exc, inc int) {
	return 2*g.Metrics*(1+s) + 2*k, 2*g.Metrics*(1+s) + 2*k + 1
}

// numStats is how many partials besides the Sum each scope has.
func (g *DB) numStats() int {
	switch {
	case g.Stats:
		return len(statSummaries)
	case g.Counts:
		return 1
	}
	return 0
}

// EntryID is the context id of the entry point.
func (g *DB) EntryID() int { return g.NumContexts() }

// MetaFiles are the source files of the generated meta.db.
var MetaFiles = []string{"/src/app/main.c", "/src/app/util, \"x\".c"}

// MetaModule is the load module of the generated meta.db.
const MetaModule = "/opt/app/bin/app"

// MetaLine is the source line of a line or loop context c.
func MetaLine(c int) uint32 { return uint32(10 + c%500) }

// MetaFile is the index in MetaFiles of context c's source file.
func MetaFile(c int) int { return c % len(MetaFiles) }

// WriteMeta generates the database described by c into dir in the
// meta.db generation.
func WriteMeta(dir string, c Config) (*DB, error) {
	g := New(c)
	if err := writeFiles(dir, []namedWriter{{"meta.db", g.writeMetaDB}, {"profile.db", g.writeProfile4}, {"cct.db", g.writeCCT4}, {"trace.db", g.writeTrace4}}); err != nil {
		return nil, err
	}
	return g, nil
}

// header4 is the common file header with room for nsec sections.
func header4(format string, nsec int, extra int) []byte {
	b := append([]byte("HPCTOOLKIT"+format), 4, 0)
	return append(b, make([]byte, nsec*16+extra)...)
}

// writeOneSection4 writes the file header of a 4.x file of one section,
// whose own header of headLen bytes (aligned to 8: h) is followed by n
// entries of stride bytes, and returns that section, to be filled and
// written, with the offset of its entries, n and stride set; ptr is its
// offset in the file.
func writeOneSection4(w *bufio.Writer, format string, extra int, headLen, stride uint64, n int) (sec []byte, ptr, h uint64) {
	hdr := pad8(header4(format, 1, extra))
	ptr = uint64(len(hdr))
	h = align8(headLen)
	size := h + uint64(n)*stride
	le.PutUint64(hdr[0x10:], size)
	le.PutUint64(hdr[0x18:], ptr)
	w.Write(hdr)
	sec = make([]byte, align8(size))
	le.PutUint64(sec, ptr+h)
	le.PutUint32(sec[8:], uint32(n))
	sec[12] = byte(stride)
	return sec, ptr, h
}

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

func (g *DB) writeMetaDB(w *bufio.Writer) error {
	x := g.Extra
	b := header4("meta", 8, x)
	b = pad8(b)
	// strings of the Common String Table, placed later; refs are patched
	var strtab []byte
	strOff := map[string]uint64{}
	type ref struct {
		at int
		s  string
	}
	var refs []ref
	str := func(at int, s string) {
		if _, ok := strOff[s]; !ok {
			strOff[s] = uint64(len(strtab))
			strtab = append(append(strtab, s...), 0)
		}
		refs = append(refs, ref{at, s})
	}
	// local strings: appended right after the structure that points to them
	cstr := func(at int, s string) {
		le.PutUint64(b[at:], uint64(len(b)))
		b = append(append(b, s...), 0)
	}

	// General Properties
	p := len(b)
	b = append(b, make([]byte, 16+x)...)
	cstr(p, "synthetic")
	cstr(p+8, "Synthetic database written by testdata/gen/hpcdb.")
	b = pad8(b)
	le.PutUint64(b[0x10:], uint64(len(b)-p))
	le.PutUint64(b[0x18:], uint64(p))

	// Identifier Names
	p = len(b)
	names := []string{"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"}
	h := int(align8(uint64(9 + x)))
	b = append(b, make([]byte, h)...)
	le.PutUint64(b[p:], uint64(p+h))
	b[p+8] = byte(len(names))
	arr := len(b)
	b = append(b, make([]byte, 8*len(names))...)
	for i, n := range names {
		cstr(arr+8*i, n)
	}
	b = pad8(b)
	le.PutUint64(b[0x20:], uint64(len(b)-p))
	le.PutUint64(b[0x28:], uint64(p))

	// Performance Metrics: scopes function (transitive, bit 0) and execution
	p = len(b)
	szMetric, szInst, szSum, szScope := 32+x, 16+x, 24+x, 16+x
	h = int(align8(uint64(0x1b + x)))
	b = append(b, make([]byte, h)...)
	scopes := len(b)
	b = append(b, make([]byte, 2*szScope)...)
	metrics := len(b)
	b = append(b, make([]byte, g.Metrics*szMetric)...)
	insts := len(b)
	b = append(b, make([]byte, g.Metrics*2*szInst)...)
	nsum := 2 + 2*g.numStats()
	sums := len(b)
	b = append(b, make([]byte, g.Metrics*nsum*szSum)...)
	le.PutUint64(b[p:], uint64(metrics))
	le.PutUint32(b[p+8:], uint32(g.Metrics))
	b[p+12], b[p+13], b[p+14] = byte(szMetric), byte(szInst), byte(szSum)
	le.PutUint64(b[p+16:], uint64(scopes))
	le.PutUint16(b[p+24:], 2)
	b[p+26] = byte(szScope)
	cstr(scopes, "function")
	b[scopes+8], b[scopes+9] = 3, 0
	cstr(scopes+szScope, "execution")
	b[scopes+szScope+8], b[scopes+szScope+9] = 2, 0xFF
	for k := 0; k < g.Metrics; k++ {
		m := metrics + k*szMetric
		cstr(m, MetricName(k))
		le.PutUint64(b[m+8:], uint64(insts+k*2*szInst))
		le.PutUint64(b[m+16:], uint64(sums+k*nsum*szSum))
		le.PutUint16(b[m+24:], 2)
		le.PutUint16(b[m+26:], uint16(nsum))
		e, i := MetaIDs(k)
		for j, id := range []int{e, i} {
			in := insts + (k*2+j)*szInst
			le.PutUint64(b[in:], uint64(scopes+j*szScope))
			le.PutUint16(b[in+8:], uint16(id))
			s := sums + (k*nsum+j)*szSum
			le.PutUint64(b[s:], uint64(scopes+j*szScope))
			cstr(s+8, "$$")
			b[s+16] = 0
			le.PutUint16(b[s+18:], uint16(id))
		}
		for st := range g.numStats() {
			se, si := g.StatIDs(st, k)
			for j, id := range []int{se, si} {
				s := sums + (k*nsum+2+2*st+j)*szSum
				le.PutUint64(b[s:], uint64(scopes+j*szScope))
				cstr(s+8, statSummaries[st].formula)
				b[s+16] = statSummaries[st].combine
				le.PutUint16(b[s+18:], uint16(id))
			}
		}
	}
	b = pad8(b)
	le.PutUint64(b[0x30:], uint64(len(b)-p))
	le.PutUint64(b[0x38:], uint64(p))

	// Load Modules, Source Files, Functions
	table := func(sec, n, size int, fill func(i, at int)) int {
		p := len(b)
		h := int(align8(uint64(14 + x)))
		b = append(b, make([]byte, h+n*size)...)
		le.PutUint64(b[p:], uint64(p+h))
		le.PutUint32(b[p+8:], uint32(n))
		le.PutUint16(b[p+12:], uint16(size))
		for i := 0; i < n; i++ {
			fill(i, p+h+i*size)
		}
		le.PutUint64(b[0x10+sec*16:], uint64(len(b)-p))
		le.PutUint64(b[0x18+sec*16:], uint64(p))
		return p + h
	}
	modArr := table(5, 1, 16+x, func(i, at int) { str(at+8, MetaModule) })
	fileArr := table(6, len(MetaFiles), 16+x, func(i, at int) { str(at+8, MetaFiles[i]) })
	szFile := 16 + x
	szFn := 40 + x
	fnArr := table(7, len(g.Procs), szFn, func(i, at int) {
		str(at, g.Procs[i])
		le.PutUint64(b[at+8:], uint64(modArr))
		le.PutUint64(b[at+16:], uint64(0x1000+16*i))
		le.PutUint64(b[at+24:], uint64(fileArr+(i%len(MetaFiles))*szFile))
		le.PutUint32(b[at+32:], uint32(1+i))
	})

	// Context Tree: one entry point whose children are the root's
	n := len(g.Parent)
	kids := make([][]int32, n)
	for c := 1; c < n; c++ {
		kids[g.Parent[c]] = append(kids[g.Parent[c]], int32(c))
	}
	extraWord := 0
	if x > 0 {
		extraWord = 1
	}
	flexWords := func(c int) int {
		switch g.Kind[c] {
		case KindPF:
			return 1 + extraWord
		case KindL:
			return 4 + extraWord
		}
		return 2 + extraWord
	}
	ctxSize := func(c int) int { return 32 + 8*flexWords(c) }
	p = len(b)
	h = int(align8(uint64(11 + x)))
	szEntry := 32 + x
	b = append(b, make([]byte, h+szEntry)...)
	entry := p + h
	le.PutUint64(b[p:], uint64(entry))
	le.PutUint16(b[p+8:], 1)
	b[p+10] = byte(szEntry)
	arrSize := make([]int, n)
	arrPos := make([]int, n)
	off := len(b)
	for v := 0; v < n; v++ {
		for _, u := range kids[v] {
			arrSize[v] += ctxSize(int(u))
		}
		if arrSize[v] > 0 {
			arrPos[v] = off
			off += arrSize[v]
		}
	}
	b = append(b, make([]byte, off-len(b))...)
	le.PutUint64(b[entry:], uint64(arrSize[0]))
	le.PutUint64(b[entry+8:], uint64(arrPos[0]))
	le.PutUint32(b[entry+16:], uint32(g.EntryID()))
	le.PutUint16(b[entry+20:], 1)
	str(entry+24, "main thread")
	for v := 0; v < n; v++ {
		at := arrPos[v]
		for _, u32 := range kids[v] {
			u := int(u32)
			le.PutUint64(b[at:], uint64(arrSize[u]))
			le.PutUint64(b[at+8:], uint64(arrPos[u]))
			le.PutUint32(b[at+16:], uint32(u))
			f := at + 32
			switch g.Kind[u] {
			case KindPF:
				b[at+0x14], b[at+0x15], b[at+0x16] = 1, 1, 0
				le.PutUint64(b[f:], uint64(fnArr+int(g.Proc[u])*szFn))
			case KindS, KindL:
				b[at+0x14], b[at+0x15], b[at+0x16] = 2, 0, 2
				le.PutUint64(b[f:], uint64(fileArr+MetaFile(u)*szFile))
				le.PutUint32(b[f+8:], MetaLine(u))
				if g.Kind[u] == KindL {
					b[at+0x14], b[at+0x16] = 6, 1
					le.PutUint64(b[f+16:], uint64(modArr))
					le.PutUint64(b[f+24:], uint64(0x1000+4*u))
				}
				le.PutUint16(b[at+0x18:], 1)
			default: // call site: an instruction
				b[at+0x14], b[at+0x15], b[at+0x16] = 4, 0, 3
				le.PutUint64(b[f:], uint64(modArr))
				le.PutUint64(b[f+8:], uint64(0x1000+4*u))
				le.PutUint16(b[at+0x18:], 1)
			}
			b[at+0x17] = byte(flexWords(u))
			at += ctxSize(u)
		}
	}
	le.PutUint64(b[0x40:], uint64(len(b)-p))
	le.PutUint64(b[0x48:], uint64(p))

	// Common String Table
	b = pad8(b)
	p = len(b)
	b = append(b, strtab...)
	for _, r := range refs {
		le.PutUint64(b[r.at:], uint64(p)+strOff[r.s])
	}
	le.PutUint64(b[0x50:], uint64(len(strtab)))
	le.PutUint64(b[0x58:], uint64(p))
	b = append(pad8(b), "_meta.db"...)
	_, err := w.Write(b)
	return err
}

// MetricName is the name of base metric k.
func MetricName(k int) string { return "COST" + string(rune('A'+k%26)) + " (s)" }

// metaBlock renders profile p's values (p = 0: the summary) as the
// meta.db generation stores them.
func (g *DB) metaBlock(p int, exc, inc [][]float64, cnt *counts) block {
	var b block
	var addVal func(v float64, id int)
	cur := -1
	// the partials of the context just written come after its sums
	flush := func() {
		if cnt == nil || cur < 0 || cur >= len(g.Parent) {
			return
		}
		for st := range cnt.exc {
			for k := 0; k < g.Metrics; k++ {
				e, i := g.StatIDs(st, k)
				if cnt.exc[st][k][cur] != 0 {
					addVal(cnt.exc[st][k][cur], e)
				}
				if cnt.inc[st][k][cur] != 0 {
					addVal(cnt.inc[st][k][cur], i)
				}
			}
		}
	}
	addCtx := func(c int) {
		flush()
		cur = c
		b.ctxs = le.AppendUint32(b.ctxs, uint32(c))
		b.ctxs = le.AppendUint64(b.ctxs, b.nv)
		b.nc++
	}
	addVal = func(v float64, id int) {
		b.vals = le.AppendUint16(b.vals, uint16(id))
		b.vals = le.AppendUint64(b.vals, math.Float64bits(v))
		b.nv++
	}
	g.eachValue(p, exc, inc, MetaIDs, addCtx, addVal)
	flush()
	// the entry point: inclusive values of the whole tree
	addCtx(g.EntryID())
	for k := 0; k < g.Metrics; k++ {
		if _, i := MetaIDs(k); inc[k][0] != 0 {
			addVal(inc[k][0], i)
		}
	}
	for st := 0; cnt != nil && st < len(cnt.inc); st++ {
		for k := 0; k < g.Metrics; k++ {
			if _, i := g.StatIDs(st, k); cnt.inc[st][k][0] != 0 {
				addVal(cnt.inc[st][k][0], i)
			}
		}
	}
	return b
}

// counts are the summary profile's partials besides the sums (StatCount,
// ...): per partial, metric and context, over the thread profiles with an
// exclusive or inclusive value there, accumulated in profile order.
type counts struct{ exc, inc [][][]float64 }

// add accumulates value v of one thread profile into partials ps[..][k][c].
func (cnt *counts) add(ps [][][]float64, k, c int, v float64) {
	if v == 0 {
		return
	}
	first := ps[StatCount][k][c] == 0
	ps[StatCount][k][c]++
	if len(ps) == 1 {
		return
	}
	ps[StatSumSq][k][c] += v * v
	if first || v < ps[StatMin][k][c] {
		ps[StatMin][k][c] = v
	}
	if first || v > ps[StatMax][k][c] {
		ps[StatMax][k][c] = v
	}
}

func (g *DB) writeProfile4(w *bufio.Writer) error {
	x := g.Extra
	np := g.Threads + 1
	hdr := header4("prof", 2, x)
	hdr = pad8(hdr)
	infoPtr := uint64(len(hdr))
	h := align8(uint64(13 + x))
	stride := uint64(48 + x)
	infoSize := h + uint64(np)*stride
	tuplePtr := infoPtr + align8(infoSize)
	var tuples []byte
	tupleOff := make([]uint64, np)
	for p := 1; p < np; p++ {
		tupleOff[p] = tuplePtr + uint64(len(tuples))
		t := g.Tuple(p)
		tuples = le.AppendUint16(tuples, uint16(len(t)))
		tuples = append(tuples, 0, 0, 0, 0, 0, 0)
		for _, e := range t {
			phys, flags := e.logical, uint16(0)
			if e.kind>>14 == 0 {
				phys, flags = e.phys, 1
			}
			tuples = append(tuples, byte(e.kind&0x3FFF), 0)
			tuples = le.AppendUint16(tuples, flags)
			tuples = le.AppendUint32(tuples, uint32(e.logical))
			tuples = le.AppendUint64(tuples, phys)
		}
	}
	dataPtr := tuplePtr + align8(uint64(len(tuples)))
	exc, inc := g.threadArrays()
	sumE, sumI := g.threadArrays()
	var cnt *counts
	if n := g.numStats(); n > 0 {
		cnt = &counts{exc: make([][][]float64, n), inc: make([][][]float64, n)}
		for st := range n {
			cnt.exc[st], cnt.inc[st] = g.threadArrays()
		}
	}
	type info struct {
		nv, vals, ctxs uint64
		nc             uint32
	}
	infos := make([]info, np)
	off := dataPtr
	place := func(p int, b block) {
		infos[p] = info{nv: b.nv, nc: b.nc, vals: off}
		off = align8(off + uint64(len(b.vals)))
		infos[p].ctxs = off
		off = align8(off + uint64(len(b.ctxs)))
	}
	// blocks are rendered twice (to size, to write) so that memory does
	// not grow with the number of profiles; the summary comes first
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
			for c := range exc[k] {
				sumE[k][c] += exc[k][c]
				sumI[k][c] += inc[k][c]
				if cnt != nil {
					cnt.add(cnt.exc, k, c, exc[k][c])
					cnt.add(cnt.inc, k, c, inc[k][c])
				}
			}
		}
	}
	sum := g.metaBlock(0, sumE, sumI, cnt)
	place(0, sum)
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
		}
		place(p, g.metaBlock(p, exc, inc, nil))
	}
	le.PutUint64(hdr[0x10:], infoSize)
	le.PutUint64(hdr[0x18:], infoPtr)
	le.PutUint64(hdr[0x20:], uint64(len(tuples)))
	le.PutUint64(hdr[0x28:], tuplePtr)
	w.Write(hdr)
	sec := make([]byte, align8(infoSize))
	le.PutUint64(sec, infoPtr+h)
	le.PutUint32(sec[8:], uint32(np))
	sec[12] = byte(stride)
	for p, in := range infos {
		e := sec[h+uint64(p)*stride:]
		le.PutUint64(e, in.nv)
		le.PutUint64(e[8:], in.vals)
		le.PutUint32(e[16:], in.nc)
		le.PutUint64(e[24:], in.ctxs)
		le.PutUint64(e[32:], tupleOff[p])
		if p == 0 {
			le.PutUint32(e[40:], 1)
		}
	}
	w.Write(sec)
	w.Write(tuples)
	pos := tuplePtr + uint64(len(tuples))
	write := func(b block) {
		for _, part := range [][]byte{b.vals, b.ctxs} {
			w.Write(part)
			pos += uint64(len(part))
			pad(w, int(align8(pos)-pos))
			pos = align8(pos)
		}
	}
	pad(w, int(dataPtr-pos))
	pos = dataPtr
	write(sum)
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
		}
		write(g.metaBlock(p, exc, inc, nil))
	}
	w.WriteString("_prof.db")
	return nil
}

// cctChunk bounds the values held at once while writing cct.db.
const cctChunk = 1 << 25

func (g *DB) writeCCT4(w *bufio.Writer) error {
	x := g.Extra
	n := g.NumContexts() + 1 // the entry point last
	nl := len(g.Parent)
	nids := 2 * g.Metrics
	counts := make([]uint32, n*nids)
	exc, inc := g.threadArrays()
	value := func(p, c, k int) (e, i float64) {
		if c < nl {
			return exc[k][c], inc[k][c]
		}
		if c < g.NumContexts() {
			e = g.UnlistedCost(p, c-nl, k)
			return e, e
		}
		return 0, inc[k][0] // the entry point
	}
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
		}
		for c := 0; c < n; c++ {
			for k := 0; k < g.Metrics; k++ {
				e, i := value(p, c, k)
				if e != 0 {
					counts[c*nids+2*k]++
				}
				if i != 0 {
					counts[c*nids+2*k+1]++
				}
			}
		}
	}
	stride := uint64(32 + x)
	sec, infoPtr, h := writeOneSection4(w, "ctxt", x, uint64(13+x), stride, n)
	off := infoPtr + uint64(len(sec))
	for c := 0; c < n; c++ {
		nv, nm := valueCounts(counts[c*nids : c*nids+nids])
		e := sec[h+uint64(c)*stride:]
		le.PutUint64(e, nv)
		le.PutUint16(e[16:], nm)
		if nv > 0 {
			le.PutUint64(e[8:], off)
			off = align8(off + nv*12)
			le.PutUint64(e[24:], off)
			off = align8(off + uint64(nm)*10)
		}
	}
	w.Write(sec)
	type entry struct {
		v    float64
		prof uint32
	}
	// the values, a range of contexts at a time
	per := max(1, cctChunk/max(1, g.Threads*nids))
	for a := 0; a < n; a += per {
		z := min(n, a+per)
		cells := make([][]entry, (z-a)*nids)
		for p := 1; p <= g.Threads; p++ {
			for k := 0; k < g.Metrics; k++ {
				g.Values(p, k, exc[k], inc[k])
			}
			for c := a; c < z; c++ {
				for k := 0; k < g.Metrics; k++ {
					e, i := value(p, c, k)
					for j, v := range [2]float64{e, i} {
						if v != 0 {
							cells[(c-a)*nids+2*k+j] = append(cells[(c-a)*nids+2*k+j], entry{v, uint32(p)})
						}
					}
				}
			}
		}
		for c := a; c < z; c++ {
			var idx uint64
			var mets []byte
			for j, cell := range cells[(c-a)*nids : (c-a)*nids+nids] {
				if len(cell) == 0 {
					continue
				}
				mets = le.AppendUint16(mets, cellMetricID(MetaIDs, j))
				mets = le.AppendUint64(mets, idx)
				for _, v := range cell {
					var b [12]byte
					le.PutUint32(b[:], v.prof)
					le.PutUint64(b[4:], math.Float64bits(v.v))
					w.Write(b[:])
					idx++
				}
			}
			if idx == 0 {
				continue
			}
			pad(w, int(align8(idx*12)-idx*12))
			w.Write(mets)
			pad(w, int(align8(uint64(len(mets)))-uint64(len(mets))))
		}
	}
	w.WriteString("__ctx.db")
	return nil
}

func (g *DB) writeTrace4(w *bufio.Writer) error {
	x := g.Extra
	t := g.Threads
	stride := uint64(24 + x)
	sec, secPtr, h := writeOneSection4(w, "trce", x, uint64(32+x), stride, t)
	if t > 0 && g.Samples > 0 {
		le.PutUint64(sec[16:], g.TraceTime(1, 0))
		le.PutUint64(sec[24:], g.TraceTime(t, g.Samples-1))
	}
	off := secPtr + uint64(len(sec))
	for p := 1; p <= t; p++ {
		e := sec[h+uint64(p-1)*stride:]
		le.PutUint32(e, uint32(p))
		le.PutUint64(e[8:], off)
		off += uint64(g.Samples) * 12
		le.PutUint64(e[16:], off)
	}
	w.Write(sec)
	var b [12]byte
	for p := 1; p <= t; p++ {
		for j := 0; j < g.Samples; j++ {
			le.PutUint64(b[:], g.TraceTime(p, j))
			le.PutUint32(b[8:], g.TraceCtx(p, j))
			w.Write(b[:])
		}
	}
	w.WriteString("trace.db")
	return nil
}
