package dcpi

import (
	"io"
	"path"
	"strconv"
	"time"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/render"
)

// keyWidth is the width of the key column of dcpicat's header block.
const keyWidth = 21

func appendKey(dst []byte, key string) []byte {
	dst = append(dst, key...)
	for n := len(key); n < keyWidth; n++ {
		dst = append(dst, ' ')
	}
	if len(key) >= keyWidth {
		dst = append(dst, ' ')
	}
	return dst
}

func appendField(dst []byte, key, value string) []byte {
	dst = appendKey(dst, key)
	dst = append(dst, value...)
	return append(dst, '\n')
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

func hex12(v uint64) string { return string(render.AppendHexPadded(nil, v, 12)) }

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
	b := append([]byte(nil), h.Raw...)
	b = append(b, "\n== decoded header ==\n"...)
	for _, l := range h.Lines {
		v := l.Value
		switch l.Key {
		case "version":
			if h.Version != "" && v == h.Version {
				v += " (major " + u(h.Major) + ", minor " + u(h.Minor) + ")"
			}
		case "epoch":
			if v == h.Epoch {
				v += " (" + epochUTC(v) + ")"
			}
		case "tstart":
			if h.BodyDecodable() {
				v = hex12(h.Tstart)
			}
		case "tsize":
			if v == u(h.Tsize) {
				v += " bytes (" + string(render.AppendHex(nil, h.Tsize)) + ")"
			}
		}
		key := l.Key
		if key == "" {
			key = "(no key)"
		}
		b = appendField(b, key, v+kindNote(l.Kind))
	}
	align := "not a multiple of 4"
	if h.Size()%4 == 0 {
		align = "a multiple of 4"
	}
	b = appendField(b, "header_bytes", u(uint64(h.Size()))+" ("+align+")")
	if len(h.Problems) == 0 {
		b = appendField(b, "header_check", "ok")
	}
	for _, e := range h.Problems {
		b = appendField(b, "header_problem", e.Error())
	}
	b = append(b, "\n== body ==\n"...)
	if err := h.BodyErr(); err != nil {
		b = appendField(b, "sample_data", "not decodable: "+err.Error())
		return b, nil
	}
	s, err := p.summary()
	if err != nil {
		return nil, err
	}
	b = appendField(b, "body_bytes", u(uint64(p.size-h.Size())))
	b = appendField(b, "chunks", u(uint64(s.Chunks)))
	b = appendField(b, "counts", u(uint64(s.Counts)))
	b = appendField(b, "addresses_sampled", u(uint64(s.Addresses)))
	b = appendField(b, "samples", u(s.Samples))
	b = appendField(b, "min_count", u(uint64(s.MinCount)))
	b = appendField(b, "max_count", u(uint64(s.MaxCount)))
	b = appendField(b, "address_rule", "tstart + offset + 4*i (offset in bytes)")
	if s.BodyErr != nil {
		b = appendField(b, "body_error", s.BodyErr.Error())
	}
	if s.FooterErr == nil {
		b = appendField(b, "footer_total_offsets", u(uint64(s.Footer.TotalOffsets)))
		b = appendField(b, "footer_total_samples", u(uint64(s.Footer.TotalSamples)))
	}
	if err := s.FooterCheck(); err != nil {
		b = appendField(b, "footer_check", err.Error())
	} else {
		b = appendField(b, "footer_check", "ok")
	}
	return b, nil
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
	var b []byte
	b = appendField(b, "name", p.profileName())
	if h.Image != "" {
		b = appendField(b, "image", h.Image)
	}
	for _, v := range h.Values("path") {
		b = appendField(b, "path", v)
	}
	if h.Epoch != "" {
		b = appendField(b, "epoch", h.Epoch)
	}
	if h.Platform != "" {
		b = appendField(b, "platform", h.Platform)
	}
	b = appendField(b, "text_start", hex12(h.Tstart))
	b = appendField(b, "text_size", hex12(h.Tsize))
	b = appendField(b, "event", u(total)+" "+h.Event+":"+u(h.Period)+":10000")
	return b
}

const csvHeader = "address,offset,count,pct,cum_pct\n"

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
		dst = appendCSVRow(dst, s, h.Tstart, s.Count, c.st.cum, c.total, c.pcts)
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
		n += csvRowLen(s, c.f.Header.Tstart, c.st.cum, c.total, c.pcts)
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

func appendCSVRow(dst []byte, s dcpi.Sample, tstart uint64, count uint32, cum, total uint64, pcts [][]byte) []byte {
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
	return append(dst, '\n')
}

// csvRowLen is the length of the row appendCSVRow appends.
func csvRowLen(s dcpi.Sample, tstart uint64, cum, total uint64, pcts [][]byte) int64 {
	n := 2 + max(12, hexLen(tstart+s.Offset)) + 1 + int64(render.DecimalLen(s.Offset)) + 1 + int64(render.DecimalLen(uint64(s.Count))) + 1
	if s.Count < pctSmall {
		n += int64(len(pcts[s.Count]))
	} else {
		n += int64(render.FloatLen(pct(uint64(s.Count), total)))
	}
	return n + 1 + int64(render.FloatLen(pct(cum, total))) + 1
}
