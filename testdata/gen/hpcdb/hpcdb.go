// Package hpcdb writes synthetic HPCToolkit databases of the experiment.xml
// 4.0 generation (experiment.xml, profile.db, cct.db, trace.db; Write) or
// of the meta.db generation (meta.db, profile.db, cct.db, trace.db;
// WriteMeta, meta.go) of any shape, for tests and benchmarks. Output is deterministic for a Config.
//
// The calling-context tree is a random depth-first walk whose context ids
// follow document order. Only line (S) contexts carry sampled costs; a
// procedure frame's exclusive value is the sum of its lines, every
// context's inclusive value the sum of the lines below it, and a line
// stores its cost under both ids, as prof2 does. The summary profile holds
// the sums over the thread profiles under the partial ids of the
// MetricTable, whose numbering deliberately differs from real files.
package hpcdb

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// Config is the shape of a database.
type Config struct {
	Threads  int     // thread profiles (the summary profile comes on top)
	Contexts int     // contexts, root included
	Metrics  int     // base metrics; each has an inclusive and an exclusive id
	Density  float64 // fraction of line contexts with a cost in each thread (0 means 0.5)
	Samples  int     // trace samples per thread; 0 writes empty trace lines
	ValidCCT bool    // write cct.db values; false zero-fills its data area like the real files
	GPU      bool    // identifier tuples with GPU device and stream kinds
	Unlisted int     // contexts with values but no experiment.xml tag (ids past the tree)
	Extra    int     // meta.db generation: bytes added to every extendable structure
	Counts   bool    // meta.db generation: each scope also has a count summary (formula "1"): CountIDs
	Stats    bool    // meta.db generation: Counts, and the other partials of hpcprof --stats (sum of squares, min, max): StatIDs
	Seed     uint64
	Names    []string // meta.db generation: the first procedures' names (hostile names in tests)
}

// Metric ids of base metric k: thread profiles (MetricDBTable), summary
// partials and the visible Sum statistics.
func ThreadIDs(k int) (exc, inc int)  { return 10 + 2*k, 11 + 2*k }
func PartialIDs(k int) (exc, inc int) { return 300 + 2*k, 301 + 2*k }
func SumIDs(k int) (exc, inc int)     { return 601 + 2*k, 600 + 2*k }

// Kinds of the generated context tree.
const (
	KindRoot = iota
	KindPF
	KindC
	KindS
	KindL
)

// A DB is the generated database's structure, for tests to check against.
type DB struct {
	Config
	Parent []int32 // ctx -> parent ctx
	Kind   []uint8
	Proc   []int32 // procedure index for PF contexts
	Procs  []string
	// Lines are the contexts that can carry costs and trace samples.
	Lines []int32
}

func (g *DB) hash(a, b, c uint64) uint64 {
	x := g.Seed*0x9E3779B97F4A7C15 ^ a*0xBF58476D1CE4E5B9 ^ b*0x94D049BB133111EB ^ c*0x2545F4914F6CDD1D
	x ^= x >> 31
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 29
	x *= 0x94D049BB133111EB
	return x ^ x>>32
}

// Cost is thread p's (1-based) cost of metric k at line context c, or 0.
func (g *DB) Cost(p, c, k int) float64 {
	d := g.Density
	if d == 0 {
		d = 0.5
	}
	if float64(g.hash(uint64(p), uint64(c), 1<<20)%1_000_000) >= d*1e6 {
		return 0
	}
	return float64(1+g.hash(uint64(p), uint64(c), uint64(k))%1_000_000) / 1e6
}

// New builds the tree of a database without writing it.
func New(c Config) *DB {
	g := &DB{Config: c}
	n := max(c.Contexts, 2)
	g.Parent = make([]int32, n)
	g.Kind = make([]uint8, n)
	g.Proc = make([]int32, n)
	nprocs := max(n/8, 4)
	for i := 0; i < nprocs; i++ {
		name := fmt.Sprintf("func_%d", i)
		switch i % 97 {
		case 3:
			name = fmt.Sprintf("operator,(%d)", i)
		case 5:
			name = fmt.Sprintf(`say "hi" %d`, i)
		}
		if i < len(c.Names) {
			name = c.Names[i]
		}
		g.Procs = append(g.Procs, name)
	}
	g.Parent[0] = -1
	hasKid := make([]bool, n)
	stack := []int32{0}
	for id := 1; id < n; id++ {
		// go up a random amount, keeping C contexts with a child closed
		for len(stack) > 1 {
			top := stack[len(stack)-1]
			h := g.hash(uint64(id), 7, 0) % 100
			full := g.Kind[top] == KindC && hasKid[top]
			if full || len(stack) > 24 || h < 30 {
				stack = stack[:len(stack)-1]
				continue
			}
			break
		}
		top := stack[len(stack)-1]
		var kind uint8
		switch g.Kind[top] {
		case KindRoot, KindC:
			kind = KindPF
		default:
			switch h := g.hash(uint64(id), 8, 0) % 100; {
			case h < 50:
				kind = KindS
			case h < 85:
				kind = KindC
			default:
				kind = KindL
			}
		}
		g.Parent[id], g.Kind[id] = top, kind
		hasKid[top] = true
		if kind == KindPF {
			g.Proc[id] = int32(g.hash(uint64(id), 9, 0) % uint64(nprocs))
		}
		if kind == KindS {
			g.Lines = append(g.Lines, int32(id))
		} else {
			stack = append(stack, int32(id))
		}
	}
	return g
}

// Frame is the procedure-frame context enclosing c (c itself for a PF),
// or -1.
func (g *DB) Frame(c int) int {
	for c >= 0 && g.Kind[c] != KindPF {
		c = int(g.Parent[c])
	}
	return c
}

// Values computes thread p's exclusive and inclusive values of metric k
// for every context.
func (g *DB) Values(p, k int, exc, inc []float64) {
	clear(exc)
	clear(inc)
	for _, c := range g.Lines {
		v := g.Cost(p, int(c), k)
		if v == 0 {
			continue
		}
		exc[c] = v
		inc[c] = v
		if f := g.Frame(int(c)); f >= 0 {
			exc[f] += v
		}
	}
	for c := len(g.Parent) - 1; c > 0; c-- {
		inc[g.Parent[c]] += inc[c]
	}
}

// UnlistedCost is thread p's exclusive (= inclusive) cost at unlisted
// context number u (id len(Parent)+u).
func (g *DB) UnlistedCost(p, u, k int) float64 {
	return float64(1+g.hash(uint64(p), uint64(u), uint64(k)+99)%1000) / 1e3
}

// Write generates the database described by c into dir.
func Write(dir string, c Config) (*DB, error) {
	g := New(c)
	if err := writeFiles(dir, []namedWriter{{"experiment.xml", g.writeXML}, {"profile.db", g.writeProfile}, {"cct.db", g.writeCCT}, {"trace.db", g.writeTrace}}); err != nil {
		return nil, err
	}
	return g, nil
}

// A namedWriter writes the file name of a database.
type namedWriter struct {
	name string
	fn   func(w *bufio.Writer) error
}

// writeFiles writes each file into dir, made if missing.
func writeFiles(dir string, files []namedWriter) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range files {
		if err := writeFile(filepath.Join(dir, f.name), f.fn); err != nil {
			return err
		}
	}
	return nil
}

func writeFile(path string, fn func(*bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := fn(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(s)
}

// TraceTime is the timestamp of sample j of thread p.
func (g *DB) TraceTime(p, j int) uint64 {
	return 1_600_000_000_000_000_000 + uint64(j)*1000 + uint64(p)*7
}

// TraceCtx is the context of sample j of thread p.
func (g *DB) TraceCtx(p, j int) uint32 {
	if len(g.Lines) == 0 {
		return 0
	}
	return uint32(g.Lines[g.hash(uint64(p), uint64(j), 77)%uint64(len(g.Lines))])
}

func (g *DB) writeXML(w *bufio.Writer) error {
	fmt.Fprintf(w, "<?xml version=\"1.0\"?>\n<HPCToolkitExperiment version=\"4.0\">\n<Header n=\"synthetic\">\n<Info/>\n</Header>\n<SecCallPathProfile i=\"0\" n=\"synthetic\">\n<SecHeader>\n<IdentifierNameTable>\n")
	for i, n := range []string{"SUMMARY", "NODE", "RANK", "THREAD", "GPUDEVICE", "GPUCONTEXT", "GPUSTREAM", "CORE"} {
		fmt.Fprintf(w, "<Identifier i=\"%d\" n=\"%s\"/>\n", i, n)
	}
	w.WriteString("</IdentifierNameTable>\n<MetricTable>\n")
	for k := 0; k < g.Metrics; k++ {
		name := fmt.Sprintf("METRIC%d (sec)", k)
		pe, pi := PartialIDs(k)
		se, si := SumIDs(k)
		for _, m := range []struct {
			id, partner int
			stat, t     string
			show        int
			ftype, frm  string
		}{
			{pi, pe, "PARTIAL:0 (I)", "inclusive", 4, "combine", fmt.Sprintf("sum($%d, $%d)", pi, pi)},
			{pe, pi, "PARTIAL:0 (E)", "exclusive", 4, "combine", fmt.Sprintf("sum($%d, $%d)", pe, pe)},
			{si, se, "Sum (I)", "inclusive", 1, "view", fmt.Sprintf("$%d", pi)},
			{se, si, "Sum (E)", "exclusive", 1, "view", fmt.Sprintf("$%d", pe)},
		} {
			fmt.Fprintf(w, "<Metric i=\"%d\" o=\"%d\" n=\"%s:%s\" md=\"%s\" v=\"derived-incr\" t=\"%s\" partner=\"%d\" show=\"%d\" show-percent=\"1\">\n<MetricFormula t=\"%s\" frm=\"%s\"/>\n<Info><NV n=\"units\" v=\"events\"/></Info>\n</Metric>\n",
				m.id, m.id, name, m.stat, name, m.t, m.partner, m.show, m.ftype, m.frm)
		}
	}
	w.WriteString("</MetricTable>\n<MetricDBTable>\n")
	for k := 0; k < g.Metrics; k++ {
		e, i := ThreadIDs(k)
		fmt.Fprintf(w, "<MetricDB i=\"%d\" n=\"METRIC%d (sec) (I)\"/>\n<MetricDB i=\"%d\" n=\"METRIC%d (sec) (E)\"/>\n", i, k, e, k)
	}
	w.WriteString("</MetricDBTable>\n<TraceDBTable>\n")
	if g.Samples > 0 && g.Threads > 0 {
		fmt.Fprintf(w, "<TraceDB i=\"0\" db-min-time=\"%d\" db-max-time=\"%d\" u=\"1000000000\"/>\n", g.TraceTime(1, 0), g.TraceTime(g.Threads, g.Samples-1))
	}
	w.WriteString("</TraceDBTable>\n<LoadModuleTable>\n<LoadModule i=\"0\" n=\"unknown module\"/>\n")
	for i := 1; i <= 5; i++ {
		fmt.Fprintf(w, "<LoadModule i=\"%d\" n=\"/usr/lib/libsynth%d.so\"/>\n", i, i)
	}
	w.WriteString("</LoadModuleTable>\n<FileTable>\n<File i=\"2147483647\" n=\"&lt;unknown file&gt;\"/>\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(w, "<File i=\"%d\" n=\"./src/file_%d.c\"/>\n", i, i)
	}
	w.WriteString("</FileTable>\n<ProcedureTable>\n")
	for i, p := range g.Procs {
		fmt.Fprintf(w, "<Procedure i=\"%d\" n=\"%s\" v=\"0x%x\"/>\n", i+10, xmlEscape(p), 0x400000+i*16)
	}
	w.WriteString("</ProcedureTable>\n<Info/>\n</SecHeader>\n<SecCallPathProfileData>\n")
	var stack []int32
	closeTag := func(c int32) {
		w.WriteString([...]string{"", "</PF>\n", "</C>\n", "", "</L>\n"}[g.Kind[c]])
	}
	for c := 1; c < len(g.Parent); c++ {
		for len(stack) > 0 && stack[len(stack)-1] != g.Parent[c] {
			closeTag(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
		}
		file := g.hash(uint64(c), 3, 0) % 50
		line := 1 + g.hash(uint64(c), 4, 0)%999
		switch g.Kind[c] {
		case KindPF:
			fmt.Fprintf(w, "<PF i=\"%d\" n=\"%d\" s=\"%d\" v=\"0x%x\" f=\"%d\" l=\"%d\" lm=\"%d\">\n", c, g.Proc[c]+10, g.Proc[c]+10, 0x400000+int(g.Proc[c])*16, g.Proc[c]%50, line, 1+g.Proc[c]%5)
		case KindC:
			fmt.Fprintf(w, "<C i=\"%d\" s=\"%d\" l=\"%d\" v=\"0x%x\" it=\"%d\">\n", c, c, line, 0x400000+c, c)
		case KindL:
			fmt.Fprintf(w, "<L i=\"%d\" s=\"%d\" v=\"0\" f=\"%d\" l=\"%d\">\n", c, c, file, line)
		case KindS:
			fmt.Fprintf(w, "<S i=\"%d\" it=\"%d\" l=\"%d\" s=\"%d\" v=\"0\"/>\n", c, c, line, c)
		}
		if g.Kind[c] != KindS {
			stack = append(stack, int32(c))
		}
	}
	for len(stack) > 0 {
		closeTag(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
	}
	w.WriteString("</SecCallPathProfileData>\n</SecCallPathProfile>\n</HPCToolkitExperiment>\n")
	return nil
}

var be = binary.BigEndian

func put16(w io.Writer, v uint16) { var b [2]byte; be.PutUint16(b[:], v); w.Write(b[:]) }
func put32(w io.Writer, v uint32) { var b [4]byte; be.PutUint32(b[:], v); w.Write(b[:]) }
func put64(w io.Writer, v uint64) { var b [8]byte; be.PutUint64(b[:], v); w.Write(b[:]) }
func pad(w io.Writer, n int)      { w.Write(make([]byte, n)) }
func align8(v uint64) uint64      { return (v + 7) &^ 7 }

type idElem struct {
	kind          uint16
	phys, logical uint64
}

// Tuple is the identifier tuple of profile p (0 = summary).
func (g *DB) Tuple(p int) []idElem {
	if p == 0 {
		return []idElem{{0, 0, 0}}
	}
	t := p - 1
	if g.GPU && t%2 == 1 {
		return []idElem{{0x0001, 0xABCD, 0}, {0xC002, 0, uint64(t / 4)}, {0xC004, 0, uint64(t / 2 % 2)}, {0xC006, 0, uint64(t)}}
	}
	return []idElem{{0x0001, 0xABCD, 0}, {0xC002, 0, uint64(t / 2)}, {0xC003, 0, uint64(t % 2)}}
}

// block is one profile's sparse values.
type block struct {
	vals []byte // value pairs, 10 bytes each
	ctxs []byte // context pairs, 12 bytes each (end pair included)
	nv   uint64
	nc   uint32
}

// eachValue walks profile p's values (p = 0: the summary) in the order
// profile.db stores them: ctx for each context that has values (the
// tree's, then the unlisted ones), val for each value with its metric id
// from ids (exclusive, inclusive).
func (g *DB) eachValue(p int, exc, inc [][]float64, ids func(k int) (exc, inc int), ctx func(c int), val func(v float64, id int)) {
	n := len(g.Parent)
	for c := 0; c < n; c++ {
		any := false
		for k := 0; k < g.Metrics; k++ {
			if inc[k][c] != 0 || exc[k][c] != 0 {
				any = true
			}
		}
		if !any {
			continue
		}
		ctx(c)
		for k := 0; k < g.Metrics; k++ {
			e, i := ids(k)
			if exc[k][c] != 0 {
				val(exc[k][c], e)
			}
			if inc[k][c] != 0 {
				val(inc[k][c], i)
			}
		}
	}
	for u := 0; u < g.Unlisted; u++ {
		ctx(n + u)
		for k := 0; k < g.Metrics; k++ {
			e, i := ids(k)
			v := 0.0
			if p == 0 {
				for q := 1; q <= g.Threads; q++ {
					v += g.UnlistedCost(q, u, k)
				}
			} else {
				v = g.UnlistedCost(p, u, k)
			}
			val(v, e)
			val(v, i)
		}
	}
}

// profileBlock renders profile p's block (p = 0: summary from sums).
func (g *DB) profileBlock(p int, exc, inc [][]float64) block {
	var b block
	var tmp [12]byte
	addCtx := func(c int) {
		be.PutUint32(tmp[:], uint32(c))
		be.PutUint64(tmp[4:], b.nv)
		b.ctxs = append(b.ctxs, tmp[:12]...)
		b.nc++
	}
	addVal := func(v float64, id int) {
		be.PutUint64(tmp[:], math.Float64bits(v))
		be.PutUint16(tmp[8:], uint16(id))
		b.vals = append(b.vals, tmp[:10]...)
		b.nv++
	}
	ids := ThreadIDs
	if p == 0 {
		ids = PartialIDs
	}
	g.eachValue(p, exc, inc, ids, addCtx, addVal)
	be.PutUint32(tmp[:], 0x656E6421)
	be.PutUint64(tmp[4:], b.nv)
	b.ctxs = append(b.ctxs, tmp[:12]...)
	return b
}

func (g *DB) threadArrays() (exc, inc [][]float64) {
	n := len(g.Parent)
	exc, inc = make([][]float64, g.Metrics), make([][]float64, g.Metrics)
	for k := range exc {
		exc[k], inc[k] = make([]float64, n), make([]float64, n)
	}
	return
}

// header40 writes the 128-byte header of an HPCToolkit 4.0 .db file:
// magic, version 1.0, the count of the first section's entries, then the
// size and offset of each section (sections holds them in pairs).
func header40(w *bufio.Writer, magic string, n uint32, sections ...uint64) {
	w.WriteString(magic)
	w.Write([]byte{1, 0})
	put32(w, n)
	put16(w, uint16(len(sections)/2))
	for _, v := range sections {
		put64(w, v)
	}
	pad(w, 128-24-8*len(sections))
}

// valueCounts is the number of values of a context and of metric ids
// with any, from the count of values per metric id.
func valueCounts(perID []uint32) (values uint64, ids uint16) {
	for _, k := range perID {
		if k > 0 {
			values += uint64(k)
			ids++
		}
	}
	return values, ids
}

// cellMetricID is the metric id of cell j of a context's value cells,
// which go exclusive, inclusive per metric: metric j/2's ids under ids.
func cellMetricID(ids func(k int) (exc, inc int), j int) uint16 {
	e, i := ids(j / 2)
	if j%2 == 1 {
		return uint16(i)
	}
	return uint16(e)
}

func (g *DB) writeProfile(w *bufio.Writer) error {
	np := g.Threads + 1
	piSize := uint64(52 * np)
	tuplePtr := 128 + align8(piSize)
	var tuples []byte
	tupleOff := make([]uint64, np)
	for p := 0; p < np; p++ {
		tupleOff[p] = tuplePtr + uint64(len(tuples))
		t := g.Tuple(p)
		tuples = be.AppendUint16(tuples, uint16(len(t)))
		for _, e := range t {
			tuples = be.AppendUint16(tuples, e.kind)
			tuples = be.AppendUint64(tuples, e.phys)
			tuples = be.AppendUint64(tuples, e.logical)
		}
	}
	dataPtr := tuplePtr + align8(uint64(len(tuples)))
	// Blocks are rendered twice (once to size, once to write) so that
	// memory does not grow with the number of profiles.
	exc, inc := g.threadArrays()
	sumE, sumI := g.threadArrays()
	type info struct {
		nv  uint64
		nc  uint32
		off uint64
	}
	infos := make([]info, np)
	off := dataPtr
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
			for c := range exc[k] {
				sumE[k][c] += exc[k][c]
				sumI[k][c] += inc[k][c]
			}
		}
		b := g.profileBlock(p, exc, inc)
		infos[p] = info{b.nv, b.nc, off}
		off += uint64(len(b.vals) + len(b.ctxs))
	}
	sum := g.profileBlock(0, sumE, sumI)
	infos[0] = info{sum.nv, sum.nc, off}

	header40(w, "HPCPROF-profdb__", uint32(np), piSize, 128, uint64(len(tuples)), tuplePtr)
	for p, in := range infos {
		put64(w, tupleOff[p])
		put64(w, 0)
		put64(w, 0)
		put64(w, 0)
		put64(w, in.nv)
		put32(w, in.nc)
		put64(w, in.off)
	}
	pad(w, int(align8(piSize)-piSize))
	w.Write(tuples)
	pad(w, int(dataPtr-tuplePtr-uint64(len(tuples))))
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
		}
		b := g.profileBlock(p, exc, inc)
		w.Write(b.vals)
		w.Write(b.ctxs)
	}
	w.Write(sum.vals)
	w.Write(sum.ctxs)
	w.WriteString("tfBDFORP")
	return nil
}

// NumContexts is the size of the context-id space, unlisted ids included.
func (g *DB) NumContexts() int { return len(g.Parent) + g.Unlisted }

func (g *DB) writeCCT(w *bufio.Writer) error {
	n := g.NumContexts()
	nids := 2 * g.Metrics
	type entry struct {
		v    float64
		prof uint32
	}
	counts := make([]uint32, n*nids) // values per (context, metric id)
	var cells [][]entry              // the values, only for a valid cct.db
	if g.ValidCCT {
		cells = make([][]entry, n*nids)
	}
	exc, inc := g.threadArrays()
	for p := 1; p <= g.Threads; p++ {
		for k := 0; k < g.Metrics; k++ {
			g.Values(p, k, exc[k], inc[k])
		}
		for c := 0; c < n; c++ {
			for k := 0; k < g.Metrics; k++ {
				var e, i float64
				if c < len(g.Parent) {
					e, i = exc[k][c], inc[k][c]
				} else {
					e = g.UnlistedCost(p, c-len(g.Parent), k)
					i = e
				}
				for j, v := range [2]float64{e, i} {
					if v == 0 {
						continue
					}
					counts[c*nids+2*k+j]++
					if cells != nil {
						cells[c*nids+2*k+j] = append(cells[c*nids+2*k+j], entry{v, uint32(p)})
					}
				}
			}
		}
	}
	ciSize := uint64(22 * n)
	off := 128 + align8(ciSize)
	header40(w, "HPCPROF-cctdb___", uint32(n), ciSize, 128)
	sizes := make([]uint64, n)
	for c := 0; c < n; c++ {
		nv, nm := valueCounts(counts[c*nids : c*nids+nids])
		put32(w, uint32(c))
		put64(w, nv)
		put16(w, nm)
		put64(w, off)
		if nv > 0 {
			sizes[c] = nv*12 + uint64(nm+1)*10
		}
		off += sizes[c]
	}
	pad(w, int(align8(ciSize)-ciSize))
	for c := 0; c < n; c++ {
		if !g.ValidCCT {
			pad(w, int(sizes[c]))
			continue
		}
		if sizes[c] == 0 {
			continue
		}
		var idx uint64
		var mets []byte
		// metric ids ascending: within a metric the exclusive id comes first
		for j, cell := range cells[c*nids : c*nids+nids] {
			if len(cell) == 0 {
				continue
			}
			mets = be.AppendUint16(mets, cellMetricID(ThreadIDs, j))
			mets = be.AppendUint64(mets, idx)
			for _, x := range cell {
				put64(w, math.Float64bits(x.v))
				put32(w, x.prof)
				idx++
			}
		}
		w.Write(mets)
		put16(w, 0x6564)
		put64(w, idx)
	}
	w.WriteString("rtfBDTCC")
	return nil
}

func (g *DB) writeTrace(w *bufio.Writer) error {
	t := g.Threads
	hdrSize := uint64(22 * t)
	off := 128 + align8(hdrSize)
	header40(w, "HPCPROF-tracedb_", uint32(t), hdrSize, 128)
	for p := 1; p <= t; p++ {
		put32(w, uint32(p))
		put16(w, 0)
		put64(w, off)
		off += uint64(g.Samples) * 12
		put64(w, off)
	}
	pad(w, int(align8(hdrSize)-hdrSize))
	for p := 1; p <= t; p++ {
		for j := 0; j < g.Samples; j++ {
			put64(w, g.TraceTime(p, j))
			put32(w, g.TraceCtx(p, j))
		}
	}
	return nil
}
