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
		out = append(out,
			vfs.Entry{Name: name + ".txt", Node: vfs.NewFile(d.traceTable(m, i, false, "traces/"+name+".txt").Text(noHeader))},
			vfs.Entry{Name: name + ".csv", Node: vfs.NewFile(d.traceTable(m, i, true, "traces/"+name+".csv").CSV())})
	}
	return out
}

func noHeader() ([]byte, error) { return nil, nil }

// traceTable is one trace line as traces/<name>.csv (csv) or .txt: a row
// per sample, with its context's function and path. Samples are
// fixed-size records, so a position is a sample index and sizing only
// reads the samples.
func (d *db) traceTable(m *model, line int, csv bool, where string) *render.Table {
	var unknown sync.Once // reports the first sample of a context defined nowhere
	t := &render.Table{Columns: traceTxtColumns, Open: func(pos []byte) (render.Scanner, error) {
		s := &traceScan{d: d, m: m, line: line, csv: csv, total: d.trace.Lines[line].NumSamples()}
		s.checkCtx = func(ctx uint32, k uint64) {
			if m.listed(int(ctx)) {
				return
			}
			unknown.Do(func() {
				d.src.Errors.Report(where, fmt.Errorf("sample %d has context id %d, which the database defines nowhere (function and path left empty; later ones are not listed)", k, ctx))
			})
		}
		if len(pos) > 0 {
			r := render.NewStateReader(pos)
			s.k = r.Uint(s.total)
			if err := r.Err(); err != nil {
				return nil, err
			}
		}
		return s, nil
	}}
	if csv {
		t.Columns = traceColumns
	}
	return t
}

var traceColumns = []render.Column{
	{Name: "time_ns", Kind: render.Uint},
	{Name: "t_ns", Kind: render.Int},
	{Name: "ctx_id", Kind: render.Uint},
	{Name: "function"},
	{Name: "depth", Kind: render.Int},
	{Name: "path"},
}

// traceTxtColumns are traces/<name>.txt's: the time, the time since the
// first sample, the context id and its path, two blanks apart.
var traceTxtColumns = []render.Column{
	{Name: "time_ns", Kind: render.Uint},
	{Name: "t_ns", Kind: render.Int, Sep: "  "},
	{Name: "ctx_id", Kind: render.Uint, Sep: "  "},
	{Name: "path", Sep: "  "},
}

const traceBatch = 512

type traceScan struct {
	d        *db
	m        *model
	line     int
	csv      bool
	checkCtx func(ctx uint32, k uint64) // reports, once per view, a sample whose context id the database defines nowhere
	k, total uint64                     // the next sample; the line's samples
	buf      []hpcdb.Sample             // read ahead: samples k, k+1, ...
	err      error                      // what ended the read of buf, reported after its samples
	path     []byte
}

func (s *traceScan) Pos() []byte { return (&render.StateWriter{}).Uint(s.k).Bytes() }

// fill reads the samples from k into buf.
func (s *traceScan) fill() error {
	avail := s.d.trace.Avail(s.line)
	if s.k >= avail {
		if avail < s.total {
			return dataErr("trace.db", int64(s.d.trace.Lines[s.line].Start+avail*hpcdb.TraceSampleSize), "trace line runs past the end of the file")
		}
		return io.EOF
	}
	var err error
	s.buf, err = s.d.trace.Samples(s.line, s.k, min(avail-s.k, traceBatch), s.buf[:0])
	if len(s.buf) == 0 && err == nil {
		err = io.EOF
	}
	s.err = err
	return err
}

func (s *traceScan) Scan(r *render.Row) error {
	if len(s.buf) == 0 {
		if s.err != nil {
			return s.err
		}
		if err := s.fill(); len(s.buf) == 0 {
			return err
		}
	}
	x := s.buf[0]
	m := s.m
	s.checkCtx(x.Ctx, s.k)
	f := int32(-1)
	if int(x.Ctx) < m.numCtx {
		f = m.frame[x.Ctx]
	}
	r.Uint(x.Time).Int(int64(x.Time - m.minTime)).Uint(uint64(x.Ctx))
	s.path = m.appendPath(s.path[:0], int(x.Ctx))
	if s.csv {
		if f >= 0 {
			r.Str(string(m.frameName(f)))
		} else {
			r.Empty()
		}
		r.Int(int64(frameDepth(m, f)))
	}
	r.Str(string(s.path))
	s.buf = s.buf[1:]
	s.k++
	return nil
}

func frameDepth(m *model, f int32) int32 {
	if f < 0 {
		return 0
	}
	return m.frameDepth[f]
}
