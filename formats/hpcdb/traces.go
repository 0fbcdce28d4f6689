package hpcdb

import (
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

func (d *db) traceEntries() []vfs.Entry {
	m := d.model.get()
	var out []vfs.Entry
	seen := map[string]bool{}
	for i, l := range d.trace.Lines {
		name := "trace-" + strconv.Itoa(i)
		if int(l.Prof) < len(m.profNames) {
			name = m.profNames[l.Prof]
		}
		if seen[name] {
			name += "~" + strconv.Itoa(i)
		}
		seen[name] = true
		for _, csv := range []bool{false, true} {
			file := name + ".txt"
			if csv {
				file = name + ".csv"
			}
			gen := &traceGen{d: d, m: m, line: i, csv: csv, where: "traces/" + file}
			out = append(out, vfs.Entry{Name: file, Node: vfs.NewFile(d.stream(gen, "traces/"+file))})
		}
	}
	return out
}

// traceGen renders one trace line; the state is the index of the next
// sample (plus one for the CSV, whose state 0 is the header row). Samples
// are fixed-size records, so a checkpoint is a sample index and sizing
// only reads the samples and adds up digit counts and path lengths.
type traceGen struct {
	d     *db
	m     *model
	line  int
	csv   bool
	where string

	unknown sync.Once // reports the first sample of a context defined nowhere
}

// checkCtx reports, once per view, a sample whose context id the
// database defines nowhere: its function and path are left empty.
func (g *traceGen) checkCtx(ctx uint32, k uint64) {
	m := g.m
	if m.listed(int(ctx)) {
		return
	}
	g.unknown.Do(func() {
		g.d.src.Errors.Report(g.where, fmt.Errorf("sample %d has context id %d, which the database defines nowhere (function and path left empty; later ones are not listed)", k, ctx))
	})
}

const traceBatch = 512

// EncodeState writes a sample index.
func (g *traceGen) EncodeState(state any) []byte {
	var w render.StateWriter
	return w.Uint(state.(uint64)).Bytes()
}

func (g *traceGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	v := r.Uint(g.d.trace.Lines[g.line].NumSamples() + 1)
	return v, r.Err()
}

func (g *traceGen) Start(state any) (render.Cursor, error) {
	c := &traceCursor{g: g, total: g.d.trace.Lines[g.line].NumSamples()}
	if state != nil {
		c.k = state.(uint64)
	} else if !g.csv {
		c.k = 1
	}
	return c, nil
}

type traceCursor struct {
	g     *traceGen
	k     uint64 // next sample + 1; 0 = CSV header
	total uint64
	buf   []hpcdb.Sample
	times render.DecimalPrefix // absolute times
	rel   render.DecimalPrefix // times relative to the minimum
}

func (c *traceCursor) State() any { return c.k }

func (c *traceCursor) samples() ([]hpcdb.Sample, error) {
	k := c.k - 1
	avail := c.g.d.trace.Avail(c.g.line)
	if k >= avail {
		if avail < c.total {
			return nil, dataErr("trace.db", int64(c.g.d.trace.Lines[c.g.line].Start+avail*hpcdb.TraceSampleSize), "trace line runs past the end of the file")
		}
		return nil, io.EOF
	}
	n := min(avail-k, traceBatch)
	var err error
	c.buf, err = c.g.d.trace.Samples(c.g.line, k, n, c.buf[:0])
	return c.buf, err
}

const csvHeader = "time_ns,t_ns,ctx_id,function,depth,path\n"

func decLen(v int64) int64 {
	if v < 0 {
		return int64(render.DecimalLen(uint64(-v))) + 1
	}
	return int64(render.DecimalLen(uint64(v)))
}

func (c *traceCursor) NextLen() (int64, error) {
	if c.k == 0 {
		c.k = 1
		return int64(len(csvHeader)), nil
	}
	s, err := c.samples()
	if len(s) == 0 {
		return 0, err
	}
	m := c.g.m
	var n int64
	for i, x := range s {
		c.g.checkCtx(x.Ctx, c.k-1+uint64(i))
		t := int64(x.Time - m.minTime)
		n += int64(render.DecimalLen(x.Time)) + decLen(t) + int64(render.DecimalLen(uint64(x.Ctx)))
		f := int32(-1)
		if int(x.Ctx) < m.numCtx {
			f = m.frame[x.Ctx]
		}
		if c.g.csv {
			n += 6 // five commas and the newline
			n += int64(render.DecimalLen(uint64(max(0, frameDepth(m, f)))))
			if f >= 0 {
				n += int64(m.nameCSVLen[f]) + int64(m.pathCSVLen[f])
			}
		} else {
			n += 7 // three double spaces and the newline
			if f >= 0 {
				n += int64(m.pathLen[f])
			}
		}
	}
	c.k += uint64(len(s))
	return n, err
}

func frameDepth(m *model, f int32) int32 {
	if f < 0 {
		return 0
	}
	return m.frameDepth[f]
}

func (c *traceCursor) Next(dst []byte) ([]byte, error) {
	if c.k == 0 {
		c.k = 1
		return append(dst, csvHeader...), nil
	}
	s, err := c.samples()
	m := c.g.m
	var path []byte
	for i, x := range s {
		c.g.checkCtx(x.Ctx, c.k-1+uint64(i))
		t := int64(x.Time - m.minTime)
		f := int32(-1)
		if int(x.Ctx) < m.numCtx {
			f = m.frame[x.Ctx]
		}
		dst = c.times.AppendUint(dst, x.Time)
		if c.g.csv {
			dst = append(dst, ',')
			dst = c.rel.AppendInt(dst, t)
			dst = append(dst, ',')
			dst = strconv.AppendUint(dst, uint64(x.Ctx), 10)
			dst = append(dst, ',')
			if f >= 0 {
				if name := m.frameName(f); int(m.nameCSVLen[f]) == len(name) {
					dst = append(dst, name...)
				} else {
					dst = render.AppendCSVField(dst, string(name))
				}
			}
			dst = append(dst, ',')
			dst = strconv.AppendInt(dst, int64(frameDepth(m, f)), 10)
			dst = append(dst, ',')
			if f >= 0 {
				if m.pathCSVLen[f] == m.pathLen[f] {
					dst = m.appendPath(dst, int(x.Ctx))
				} else {
					path = m.appendPath(path[:0], int(x.Ctx))
					dst = render.AppendCSVField(dst, string(path))
				}
			}
		} else {
			dst = append(dst, ' ', ' ')
			dst = c.rel.AppendInt(dst, t)
			dst = append(dst, ' ', ' ')
			dst = strconv.AppendUint(dst, uint64(x.Ctx), 10)
			dst = append(dst, ' ', ' ')
			dst = m.appendPath(dst, int(x.Ctx))
		}
		dst = append(dst, '\n')
	}
	c.k += uint64(len(s))
	return dst, err
}
