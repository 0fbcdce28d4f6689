package dcpi

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"strconv"
	"time"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/render"
)

// key formats the key column of dcpicat's header block: 21 columns, and
// at least one blank after a longer key.
const key = "%-20s "

// epochUTC decodes YYMMDDHHMM or YYYYMMDDHHMMSS.
func epochUTC(s string) string {
	layout := "0601021504"
	if len(s) == 14 {
		layout = "20060102150405"
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		return "not a valid date"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// headerText is the header as stored, then the decoded fields and the
// footer check.
func (p *profile) headerText() ([]byte, error) {
	h := p.hdr
	b := bytes.NewBuffer(bytes.Clone(h.Raw))
	b.WriteString("\n== decoded header ==\n")
	for _, l := range h.Lines {
		v := l.Value
		switch l.Key {
		case "version":
			if h.Version != "" && v == h.Version {
				v += fmt.Sprintf(" (major %d, minor %d)", h.Major, h.Minor)
			}
		case "epoch":
			if v == h.Epoch {
				v += " (" + epochUTC(v) + ")"
			}
		case "tstart":
			if h.BodyDecodable() {
				v = fmt.Sprintf("0x%012x", h.Tstart)
			}
		case "tsize":
			if v == strconv.FormatUint(h.Tsize, 10) {
				v += fmt.Sprintf(" bytes (%#x)", h.Tsize)
			}
		}
		k := l.Key
		if k == "" {
			k = "(no key)"
		}
		fmt.Fprintf(b, key+"%s%s\n", k, v, kindNote(l.Kind))
	}
	align := "not a multiple of 4"
	if h.Size()%4 == 0 {
		align = "a multiple of 4"
	}
	fmt.Fprintf(b, key+"%d (%s)\n", "header_bytes", h.Size(), align)
	if len(h.Problems) == 0 {
		fmt.Fprintf(b, key+"ok\n", "header_check")
	}
	for _, e := range h.Problems {
		fmt.Fprintf(b, key+"%v\n", "header_problem", e)
	}
	b.WriteString("\n== body ==\n")
	if err := h.BodyErr(); err != nil {
		fmt.Fprintf(b, key+"not decodable: %v\n", "sample_data", err)
		return b.Bytes(), nil
	}
	s, err := p.summary()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(b, key+"%d\n", "body_bytes", p.size-h.Size())
	fmt.Fprintf(b, key+"%d\n", "chunks", s.Chunks)
	fmt.Fprintf(b, key+"%d\n", "counts", s.Counts)
	fmt.Fprintf(b, key+"%d\n", "addresses_sampled", s.Addresses)
	fmt.Fprintf(b, key+"%d\n", "samples", s.Samples)
	fmt.Fprintf(b, key+"%d\n", "min_count", s.MinCount)
	fmt.Fprintf(b, key+"%d\n", "max_count", s.MaxCount)
	fmt.Fprintf(b, key+"tstart + offset + 4*i (offset in bytes)\n", "address_rule")
	if s.BodyErr != nil {
		fmt.Fprintf(b, key+"%v\n", "body_error", s.BodyErr)
	}
	if s.FooterErr == nil {
		fmt.Fprintf(b, key+"%d\n", "footer_total_offsets", s.Footer.TotalOffsets)
		fmt.Fprintf(b, key+"%d\n", "footer_total_samples", s.Footer.TotalSamples)
	}
	check := "ok"
	if err := s.FooterCheck(); err != nil {
		check = err.Error()
	}
	fmt.Fprintf(b, key+"%s\n", "footer_check", check)
	return b.Bytes(), nil
}

func kindNote(k dcpi.Kind) string {
	switch k {
	case dcpi.Optional:
		return " (optional)"
	case dcpi.Unknown:
		return " (unknown, kept)"
	}
	return ""
}

// profileName is dcpicat's "name": the base name of the image's path line,
// else the profile file's name.
func (p *profile) profileName() string {
	if ps := p.hdr.Values("path"); len(ps) > 0 {
		return path.Base(ps[0])
	}
	return path.Base(p.rel)
}

// dcpicatHeader is the header block of samples.txt.
func (p *profile) dcpicatHeader(total uint64) []byte {
	h := p.hdr
	var b bytes.Buffer
	fmt.Fprintf(&b, key+"%s\n", "name", p.profileName())
	if h.Image != "" {
		fmt.Fprintf(&b, key+"%s\n", "image", h.Image)
	}
	for _, v := range h.Values("path") {
		fmt.Fprintf(&b, key+"%s\n", "path", v)
	}
	if h.Epoch != "" {
		fmt.Fprintf(&b, key+"%s\n", "epoch", h.Epoch)
	}
	if h.Platform != "" {
		fmt.Fprintf(&b, key+"%s\n", "platform", h.Platform)
	}
	fmt.Fprintf(&b, key+"0x%012x\n", "text_start", h.Tstart)
	fmt.Fprintf(&b, key+"0x%012x\n", "text_size", h.Tsize)
	fmt.Fprintf(&b, key+"%d %s:%d:10000\n", "event", total, h.Event, h.Period)
	return b.Bytes()
}

const csvHeader = "address,offset,count,pct,cum_pct," + symbols.CSVColumns + "\n"

// samplesGen renders samples.txt (txt) or samples.csv: one row per
// address with at least one sample, in address order.
type samplesGen struct {
	p   *profile
	txt bool
}

type samplesState struct {
	pos     dcpi.Pos
	cum     uint64
	started bool // the header block is written
}

type samplesCursor struct {
	g     *samplesGen
	f     *dcpi.File
	sr    *dcpi.SampleReader
	total uint64
	pcts  [][]byte
	st    samplesState
	done  bool
}

func (g *samplesGen) Start(state any) (render.Cursor, error) {
	s, err := g.p.summary()
	if err != nil {
		return nil, err
	}
	f, err := g.p.open()
	if err != nil {
		return nil, err
	}
	c := &samplesCursor{g: g, f: f, total: total(s)}
	c.pcts = g.p.pctTable(c.total)
	if st, ok := state.(samplesState); ok {
		c.st = st
	} else {
		c.st.pos = f.Start()
	}
	c.sr = f.Samples(c.st.pos)
	return c, nil
}

func (c *samplesCursor) State() any {
	st := c.st
	st.pos = c.sr.Pos()
	return st
}

// batch is the output a Next call aims for: whole rows, about this many
// bytes, small enough that the last call of a segment fits the slack
// render leaves past its end.
const batch = 2 << 10

func (c *samplesCursor) Next(dst []byte) ([]byte, error) {
	if c.done {
		return dst, io.EOF
	}
	if !c.st.started {
		c.st.started = true
		if c.g.txt {
			return append(dst, c.g.p.dcpicatHeader(c.total)...), nil
		}
		return append(dst, csvHeader...), nil
	}
	start := len(dst)
	h := c.f.Header
	for len(dst)-start < batch {
		s, err := c.sr.Next()
		if err != nil {
			// Data errors were reported by the summary scan; the view ends.
			c.done = true
			if len(dst) == start {
				return dst, io.EOF
			}
			return dst, nil
		}
		if s.Count == 0 {
			continue
		}
		if c.g.txt {
			dst = appendTxtRow(dst, s.Address(h), s.Count)
			continue
		}
		c.st.cum += uint64(s.Count)
		dst = c.g.p.appendCSVRow(dst, s, h.Tstart, s.Count, c.st.cum, c.total, c.pcts)
	}
	return dst, nil
}

// NextLen measures samples.txt or samples.csv without rendering it.
func (c *samplesCursor) NextLen() (int64, error) {
	if c.done {
		return 0, io.EOF
	}
	if !c.st.started {
		c.st.started = true
		if !c.g.txt {
			return int64(len(csvHeader)), nil
		}
		return int64(len(c.g.p.dcpicatHeader(c.total))), nil
	}
	var n int64
	for n < batch {
		s, err := c.sr.Next()
		if err != nil {
			c.done = true
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		if s.Count == 0 {
			continue
		}
		if c.g.txt {
			n += txtRowLen(s.Address(c.f.Header), s.Count)
			continue
		}
		c.st.cum += uint64(s.Count)
		n += c.g.p.csvRowLen(s, c.f.Header.Tstart, c.st.cum, c.total, c.pcts)
	}
	return n, nil
}

// countWidth is the width of dcpicat's count column; a wider count is
// still preceded by one blank.
const countWidth = 8

func appendTxtRow(dst []byte, addr uint64, count uint32) []byte {
	dst = render.AppendHexPadded(dst, addr, 12)
	for n := render.DecimalLen(uint64(count)); n < countWidth-1; n++ {
		dst = append(dst, ' ')
	}
	dst = append(dst, ' ')
	dst = strconv.AppendUint(dst, uint64(count), 10)
	return append(dst, '\n')
}

func hexLen(v uint64) int64 {
	n := int64(1)
	for v >= 16 {
		v >>= 4
		n++
	}
	return n
}

func txtRowLen(addr uint64, count uint32) int64 {
	return 2 + max(12, hexLen(addr)) + max(countWidth, 1+int64(render.DecimalLen(uint64(count)))) + 1
}

func (p *profile) appendCSVRow(dst []byte, s dcpi.Sample, tstart uint64, count uint32, cum, total uint64, pcts [][]byte) []byte {
	dst = render.AppendHexPadded(dst, tstart+s.Offset, 12)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, s.Offset, 10)
	dst = append(dst, ',')
	dst = strconv.AppendUint(dst, uint64(count), 10)
	dst = append(dst, ',')
	if count < pctSmall {
		dst = append(dst, pcts[count]...)
	} else {
		dst = render.AppendFloat(dst, pct(uint64(count), total))
	}
	dst = append(dst, ',')
	dst = render.AppendFloat(dst, pct(cum, total))
	dst = append(dst, ',')
	dst = symbols.AppendCSV(dst, p.frames(tstart+s.Offset))
	return append(dst, '\n')
}

// csvRowLen is the length of the row appendCSVRow appends.
func (p *profile) csvRowLen(s dcpi.Sample, tstart uint64, cum, total uint64, pcts [][]byte) int64 {
	n := 2 + max(12, hexLen(tstart+s.Offset)) + 1 + int64(render.DecimalLen(s.Offset)) + 1 + int64(render.DecimalLen(uint64(s.Count))) + 1
	if s.Count < pctSmall {
		n += int64(len(pcts[s.Count]))
	} else {
		n += int64(render.FloatLen(pct(uint64(s.Count), total)))
	}
	var sym [256]byte
	n += 1 + int64(len(symbols.AppendCSV(sym[:0], p.frames(tstart+s.Offset))))
	return n + 1 + int64(render.FloatLen(pct(cum, total))) + 1
}
