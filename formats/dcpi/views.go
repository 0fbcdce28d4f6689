package dcpi

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"time"

	"github.com/hpcfs/hpcfs/decode/dcpi"
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
	b := new(bytes.Buffer)
	for _, l := range bytes.SplitAfter(h.Raw, []byte("\n")) {
		line, nl := bytes.CutSuffix(l, []byte("\n"))
		b.WriteString(render.EscapeName(string(line)))
		if nl {
			b.WriteByte('\n')
		}
	}
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
		fmt.Fprintf(b, key+"%s%s\n", render.EscapeName(k), render.EscapeName(v), kindNote(l.Kind))
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
	fmt.Fprintf(&b, key+"%s\n", "name", render.EscapeName(p.profileName()))
	if h.Image != "" {
		fmt.Fprintf(&b, key+"%s\n", "image", render.EscapeName(h.Image))
	}
	for _, v := range h.Values("path") {
		fmt.Fprintf(&b, key+"%s\n", "path", render.EscapeName(v))
	}
	if h.Epoch != "" {
		fmt.Fprintf(&b, key+"%s\n", "epoch", render.EscapeName(h.Epoch))
	}
	if h.Platform != "" {
		fmt.Fprintf(&b, key+"%s\n", "platform", render.EscapeName(h.Platform))
	}
	fmt.Fprintf(&b, key+"0x%012x\n", "text_start", h.Tstart)
	fmt.Fprintf(&b, key+"0x%012x\n", "text_size", h.Tsize)
	fmt.Fprintf(&b, key+"%d %s:%d:10000\n", "event", total, render.EscapeName(h.Event), h.Period)
	return b.Bytes()
}
