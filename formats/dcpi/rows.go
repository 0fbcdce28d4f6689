package dcpi

import (
	"io"
	"math"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/render"
)

// samples.txt, samples.csv and top.csv are render.Tables: the scanners
// below yield their rows, and render sizes them, indexes the scanners'
// positions on disk and writes the bytes.

// csvColumns are the columns of samples.csv and top.csv: the sample, then
// the source location of its address (symbols.Columns).
var csvColumns = append([]render.Column{
	{Name: "address", Kind: render.Hex, Digits: 12},
	{Name: "offset", Kind: render.Hex},
	{Name: "count", Kind: render.Uint},
	{Name: "pct", Kind: render.Pct},
	{Name: "cum_pct", Kind: render.Pct},
}, symbols.Columns...)

// countWidth is the width of dcpicat's count column; a wider count is
// still preceded by one blank.
const countWidth = 8

// txtColumns are the columns of samples.txt, as dcpicat aligns them.
var txtColumns = []render.Column{
	{Name: "address", Kind: render.Hex, Digits: 12},
	{Name: "count", Kind: render.Uint, Width: countWidth},
}

func addViews(p *profile) {
	d := p.viewDir
	d.AddFile("header.txt", render.Bytes(p.headerText, nil))
	if !p.hdr.BodyDecodable() {
		return
	}
	txt := &render.Table{Columns: txtColumns, Open: p.openSamples(false)}
	d.AddFile("samples.txt", txt.Text(func() ([]byte, error) {
		s, err := p.summary()
		if err != nil {
			return nil, err
		}
		return p.dcpicatHeader(total(s)), nil
	}))
	csv := &render.Table{Columns: csvColumns, Open: p.openSamples(true), Inputs: p.symbolFiles}
	d.AddFile("samples.csv", csv.CSV())
	top := &render.Table{Columns: csvColumns, Open: p.openTop, Inputs: p.symbolFiles}
	d.AddFile("top.csv", top.CSV())
}

// rowSums carries what the CSV rows add up as they go.
type rowSums struct {
	p      *profile
	tstart uint64
	total  uint64 // the denominator of pct
	cum    uint64
}

// csvRow fills a row of samples.csv or top.csv.
func (s *rowSums) csvRow(row *render.Row, off uint64, count uint32) {
	s.cum += uint64(count)
	addr := s.tstart + off
	row.Uint(addr).Uint(off).Uint(uint64(count)).Float(pct(uint64(count), s.total)).Float(pct(s.cum, s.total))
	symbols.Cells(row, s.p.frames(addr))
}

// start opens the profile for a scanner: the summary (for the total) and
// the body.
func (p *profile) start() (*dcpi.File, rowSums, error) {
	s, err := p.summary()
	if err != nil {
		return nil, rowSums{}, err
	}
	f, err := p.open()
	if err != nil {
		return nil, rowSums{}, err
	}
	return f, rowSums{p: p, tstart: f.Header.Tstart, total: total(s)}, nil
}

// sampleScan yields the addresses with at least one sample, in address
// order: samples.csv's rows (csv) or samples.txt's.
type sampleScan struct {
	rowSums
	csv bool
	h   *dcpi.Header
	sr  *dcpi.SampleReader
}

func (p *profile) openSamples(csv bool) func(pos []byte) (render.Scanner, error) {
	return func(pos []byte) (render.Scanner, error) {
		f, sums, err := p.start()
		if err != nil {
			return nil, err
		}
		s := &sampleScan{rowSums: sums, csv: csv, h: f.Header}
		at := f.Start()
		if len(pos) > 0 {
			if at, s.cum, err = decodePos(pos); err != nil {
				return nil, err
			}
		}
		s.sr = f.Samples(at)
		return s, nil
	}
}

func (s *sampleScan) Scan(row *render.Row) error {
	for {
		smp, err := s.sr.Next()
		if err != nil {
			// Data errors were reported by the summary scan; the view ends.
			return io.EOF
		}
		if smp.Count == 0 {
			continue
		}
		if !s.csv {
			row.Uint(smp.Address(s.h)).Uint(uint64(smp.Count))
			return nil
		}
		s.csvRow(row, smp.Offset, smp.Count)
		return nil
	}
}

func (s *sampleScan) Pos() []byte { return encodePos(s.sr.Pos(), s.cum) }

func encodePos(pos dcpi.Pos, cum uint64, more ...uint64) []byte {
	b, _ := pos.AppendBinary(nil)
	w := (&render.StateWriter{}).Raw(b).Uint(cum)
	for _, v := range more {
		w.Uint(v)
	}
	return w.Bytes()
}

// decodePos reads what encodePos wrote; more receives the extra fields.
func decodePos(b []byte, more ...*uint64) (dcpi.Pos, uint64, error) {
	pos, rest, err := dcpi.DecodePos(b)
	if err != nil {
		return pos, 0, err
	}
	r := render.NewStateReader(rest)
	cum := r.Uint(math.MaxUint64)
	for _, v := range more {
		*v = r.Uint(1 << 40)
	}
	return pos, cum, r.Err()
}
