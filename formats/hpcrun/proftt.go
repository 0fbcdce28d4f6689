package hpcrun

import (
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
		dst = append(dst, rule...)
		dst = append(dst, c.p.file...)
		dst = append(dst, '\n')
		dst = append(dst, rule...)
		dst = append(dst, "HPCRUN-profile____\n[hdr:\n  (version: "...)
		dst = append(dst, f.Version...)
		dst = append(dst, ")\n  (endian: "...)
		dst = append(dst, f.Endian)
		dst = append(dst, ")\n"...)
		dst = appendNV(dst, f.NV)
		dst = append(dst, "]\n"...)
		c.part++
		return dst, nil
	case c.part == last:
		if f.Problems.Err() != nil {
			return dst, f.Problems.Err()
		}
		c.part++
		dst = append(dst, "\n[You look fine today! (num-epochs: "...)
		dst = strconv.AppendInt(dst, int64(len(f.Epochs)), 10)
		return append(dst, ")]\n"...), nil
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
		dst = append(dst, "  [nv-pair: '"...)
		dst = append(dst, p.Name...)
		dst = append(dst, "', '"...)
		dst = append(dst, p.Value...)
		dst = append(dst, "']\n"...)
	}
	return dst
}

func appendEpochHeader(dst []byte, e *hpcrun.Epoch) []byte {
	dst = append(dst, "EPOCH___\n[epoch-hdr:\n  (flags: 0x"...)
	dst = strconv.AppendUint(dst, e.Flags, 16)
	dst = append(dst, ")\n  (measurement-granularity: "...)
	dst = strconv.AppendUint(dst, e.Granularity, 10)
	dst = append(dst, ")\n  (RA-to-callsite-offset: "...)
	dst = strconv.AppendUint(dst, uint64(e.RAOffset), 10)
	dst = append(dst, ")\n"...)
	dst = appendNV(dst, e.NV)
	dst = append(dst, "]\n[metric-tbl: (num-entries: "...)
	dst = strconv.AppendInt(dst, int64(len(e.Metrics)), 10)
	dst = append(dst, ")\n"...)
	for i := range e.Metrics {
		m := &e.Metrics[i]
		dst = append(dst, "  [(nm: "...)
		dst = append(dst, m.Name...)
		dst = append(dst, ") (desc: "...)
		dst = append(dst, m.Description...)
		dst = append(dst, ") ((ty: "...)
		dst = strconv.AppendInt(dst, int64(m.Type), 10)
		dst = append(dst, ") (val-ty: "...)
		dst = strconv.AppendInt(dst, int64(m.ValType), 10)
		dst = append(dst, ") (val-fmt: "...)
		dst = strconv.AppendInt(dst, int64(m.ValFmt), 10)
		dst = append(dst, ") (partner: "...)
		dst = strconv.AppendUint(dst, uint64(m.Partner), 10)
		dst = append(dst, ") (show: "...)
		dst = strconv.AppendInt(dst, int64(m.Show), 10)
		dst = append(dst, ") (showPercent: "...)
		dst = append(dst, boolDigit(m.ShowPercent)...)
		dst = append(dst, ")) (period: "...)
		dst = strconv.AppendUint(dst, m.Period, 10)
		dst = append(dst, ") (formula: "...)
		dst = append(dst, m.Formula...)
		dst = append(dst, ") (format: "...)
		dst = append(dst, m.FormatStr...)
		dst = append(dst, ')')
		if m.HasAux {
			dst = append(dst, "\n    (frequency: "...)
			dst = strconv.AppendInt(dst, int64(m.IsFrequency), 10)
			dst = append(dst, ") (multiplexed: "...)
			dst = strconv.AppendInt(dst, int64(m.IsMultiplexed), 10)
			dst = append(dst, ") (period-mean: "...)
			dst = render.AppendC(dst, m.PeriodMean, 'f')
			dst = append(dst, ") (num-samples: "...)
			// %d of a 64-bit argument prints its low 32 bits as an int.
			dst = strconv.AppendInt(dst, int64(int32(uint32(m.NumSamples))), 10)
			dst = append(dst, ')')
		}
		dst = append(dst, "]\n"...)
	}
	dst = append(dst, "]\n[loadmap: (num-entries: "...)
	dst = strconv.AppendInt(dst, int64(len(e.LoadModules)), 10)
	dst = append(dst, ")\n"...)
	for _, lm := range e.LoadModules {
		dst = append(dst, "  [(id: "...)
		dst = strconv.AppendUint(dst, uint64(lm.ID), 10)
		dst = append(dst, ") (nm: "...)
		dst = append(dst, lm.Name...)
		dst = append(dst, ") (flg: 0x"...)
		dst = strconv.AppendUint(dst, lm.Flags, 16)
		dst = append(dst, ")]\n"...)
	}
	dst = append(dst, "]\n[cct: (num-nodes: "...)
	dst = strconv.AppendUint(dst, e.Announced, 10)
	return append(dst, ")\n"...)
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
