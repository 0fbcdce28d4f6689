package hpcrun

import (
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/render"
)

// proftt renders the text of `hpcproftt --dump` (HPCToolkit 2016.12):
// a banner, the file header, then per epoch its header, metric table,
// loadmap and CCT nodes, and the closing line. Positions are (part, node):
// part 0 is the banner and header, part 2k+1 the headers of epoch k, part
// 2k+2 its nodes, and the last part the closing line.
type proftt struct {
	p    *profile
	f    *hpcrun.File
	part int
	node uint64
	nr   *hpcrun.NodeReader
	n    hpcrun.Node
}

type ptPos struct {
	part int
	node uint64
}

func (p *profile) startProftt(state any) (render.Cursor, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	c := &proftt{p: p, f: f}
	if s, ok := state.(ptPos); ok {
		c.part, c.node = s.part, s.node
	}
	return c, nil
}

func (c *proftt) State() any { return ptPos{c.part, c.node} }

const rule = "=============================================================================\n"

func (c *proftt) Next(dst []byte) ([]byte, error) {
	f := c.f
	last := 2*len(f.Epochs) + 1
	switch {
	case c.part == 0:
		dst = fmt.Appendf(dst, "%s%s\n%sHPCRUN-profile____\n[hdr:\n  (version: %s)\n  (endian: %s)\n",
			rule, c.p.file, rule, f.Version, []byte{f.Endian})
		dst = appendNV(dst, f.NV)
		dst = append(dst, "]\n"...)
		c.part++
		return dst, nil
	case c.part == last:
		if f.Problems.Err() != nil {
			return dst, f.Problems.Err()
		}
		c.part++
		return fmt.Appendf(dst, "\n[You look fine today! (num-epochs: %d)]\n", len(f.Epochs)), nil
	case c.part > last:
		return dst, io.EOF
	case c.part%2 == 1:
		e := f.Epochs[c.part/2]
		dst = appendEpochHeader(dst, e)
		c.part++
		c.node = 0
		return dst, nil
	}
	e := f.Epochs[c.part/2-1]
	if c.nr == nil || c.nr.Index() != c.node {
		c.nr = f.NodeReader(e, c.node)
	}
	for k := 0; k < 64; k++ {
		if err := c.nr.Next(&c.n); err == io.EOF {
			c.part++
			c.nr = nil
			return append(dst, "]\n"...), nil
		} else if err != nil {
			return dst, err
		}
		dst = appendProfttNode(dst, e, &c.n)
		c.node++
	}
	return dst, nil
}

func appendNV(dst []byte, nv []hpcrun.NVPair) []byte {
	for _, p := range nv {
		dst = fmt.Appendf(dst, "  [nv-pair: '%s', '%s']\n", render.EscapeName(p.Name), render.EscapeName(p.Value))
	}
	return dst
}

// appendEpochHeader appends what hpcproftt --dump prints before an
// epoch's nodes, with its printf formats.
func appendEpochHeader(dst []byte, e *hpcrun.Epoch) []byte {
	dst = fmt.Appendf(dst, "EPOCH___\n[epoch-hdr:\n  (flags: 0x%x)\n  (measurement-granularity: %d)\n  (RA-to-callsite-offset: %d)\n",
		e.Flags, e.Granularity, e.RAOffset)
	dst = appendNV(dst, e.NV)
	dst = fmt.Appendf(dst, "]\n[metric-tbl: (num-entries: %d)\n", len(e.Metrics))
	for i := range e.Metrics {
		m := &e.Metrics[i]
		dst = fmt.Appendf(dst, "  [(nm: %s) (desc: %s) ((ty: %d) (val-ty: %d) (val-fmt: %d) (partner: %d) (show: %d) (showPercent: %d)) (period: %d) (formula: %s) (format: %s)",
			render.EscapeName(m.Name), render.EscapeName(m.Description), m.Type, m.ValType, m.ValFmt, m.Partner, m.Show, bit(m.ShowPercent), m.Period, render.EscapeName(m.Formula), render.EscapeName(m.FormatStr))
		if m.HasAux {
			// %d of a 64-bit argument prints its low 32 bits as an int.
			dst = fmt.Appendf(dst, "\n    (frequency: %d) (multiplexed: %d) (period-mean: %s) (num-samples: %d)",
				m.IsFrequency, m.IsMultiplexed, render.AppendC(nil, m.PeriodMean, 'f'), int32(uint32(m.NumSamples)))
		}
		dst = append(dst, "]\n"...)
	}
	dst = fmt.Appendf(dst, "]\n[loadmap: (num-entries: %d)\n", len(e.LoadModules))
	for _, lm := range e.LoadModules {
		dst = fmt.Appendf(dst, "  [(id: %d) (nm: %s) (flg: 0x%x)]\n", lm.ID, render.EscapeName(lm.Name), lm.Flags)
	}
	return fmt.Appendf(dst, "]\n[cct: (num-nodes: %d)\n", e.Announced)
}

func appendProfttNode(dst []byte, e *hpcrun.Epoch, n *hpcrun.Node) []byte {
	dst = append(dst, "  [node: (id: "...)
	dst = strconv.AppendInt(dst, int64(n.ID), 10)
	dst = append(dst, ") (id-parent: "...)
	dst = strconv.AppendInt(dst, int64(int32(n.Parent)), 10)
	dst = append(dst, ") "...)
	lush := e.LogicalUnwind()
	if lush {
		dst = append(dst, "(as: "...)
		dst = appendAssoc(dst, n.Assoc)
		dst = append(dst, ") "...)
	}
	dst = append(dst, "(lm-id: "...)
	dst = strconv.AppendUint(dst, uint64(n.LMID), 10)
	dst = append(dst, ") (lm-ip: 0x"...)
	dst = strconv.AppendUint(dst, n.IP, 16)
	dst = append(dst, ") "...)
	if lush {
		dst = append(dst, "(lip: "...)
		dst = appendLIP(dst, n.LIP)
		dst = append(dst, ')')
	}
	dst = append(dst, "\n  (metrics:"...)
	for i, v := range n.Values {
		dst = append(dst, ' ')
		if e.Metrics[i].ValFmt == hpcrun.FmtReal {
			dst = render.AppendC(dst, math.Float64frombits(v), 'g')
		} else {
			dst = strconv.AppendUint(dst, v, 10)
		}
		if i+1 < len(n.Values) {
			dst = append(dst, ' ')
		}
	}
	return append(dst, ")\n  ]\n"...)
}

// appendAssoc writes HPCToolkit's "<assoc> (<path length>)".
func appendAssoc(dst []byte, assoc uint32) []byte {
	dst = append(dst, hpcrun.AssocName(assoc)...)
	dst = append(dst, " ("...)
	dst = strconv.AppendUint(dst, uint64(assoc>>8), 10)
	return append(dst, ')')
}

func appendLIP(dst []byte, lip [2]uint64) []byte {
	dst = append(dst, "0x"...)
	dst = strconv.AppendUint(dst, lip[0], 16)
	dst = append(dst, " 0x"...)
	return strconv.AppendUint(dst, lip[1], 16)
}
