package ovni

import (
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/render"
)

// batchBytes is how much output one Next call renders at most (it always
// renders at least one event).
const batchBytes = 8 << 10

func appendDumpLine(dst []byte, prefix string, ev *ovni.Event) []byte {
	dst = append(dst, prefix...)
	dst = strconv.AppendInt(dst, int64(ev.Clock), 10)
	dst = append(dst, ' ', ' ', ev.MCV[0], ev.MCV[1], ev.MCV[2])
	if len(ev.Payload) > 0 {
		dst = append(dst, ' ')
		for _, c := range ev.Payload {
			dst = append(dst, ':', hexDigits[c>>4], hexDigits[c&0xf])
		}
	}
	return append(dst, '\n')
}

const hexDigits = "0123456789abcdef"

func dumpLineLen(prefix string, clock uint64, payload int64) int64 {
	n := int64(len(prefix)) + int64(signedLen(int64(clock))) + 2 + 3 + 1
	if payload > 0 {
		n += 1 + 3*payload
	}
	return n
}

func signedLen(v int64) int {
	if v < 0 {
		return 1 + render.DecimalLen(uint64(-v))
	}
	return render.DecimalLen(uint64(v))
}

const csvHeader = "time_ns,t_ns,mcv,model,category,value,jumbo,payload_size,payload_hex\n"

// mcvText is one MCV byte as CSV text: printable ASCII as is, anything
// else as \xNN so that the CSV stays valid UTF-8.
func mcvText(dst []byte, c byte) []byte {
	if c >= 0x20 && c < 0x7f {
		return append(dst, c)
	}
	return append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
}

func plainMCV(c byte) bool { return c > 0x20 && c < 0x7f && c != '"' && c != ',' }

// appendCSVLine writes one event; t_ns is its clock less base, the
// trace's first clock.
func appendCSVLine(dst []byte, ev *ovni.Event, base uint64) []byte {
	dst = strconv.AppendUint(dst, ev.Clock, 10)
	dst = append(dst, ',')
	if ev.Clock >= base {
		dst = strconv.AppendUint(dst, ev.Clock-base, 10)
	} else {
		dst = append(dst, '-')
		dst = strconv.AppendUint(dst, base-ev.Clock, 10)
	}
	dst = append(dst, ',')
	m := ev.MCV
	if plainMCV(m[0]) && plainMCV(m[1]) && plainMCV(m[2]) {
		dst = append(dst, m[0], m[1], m[2], ',', m[0], ',', m[1], ',', m[2])
	} else {
		var scratch [16]byte
		dst = render.AppendCSVField(dst, string(mcvText(mcvText(mcvText(scratch[:0], m[0]), m[1]), m[2])))
		for _, c := range m {
			dst = append(dst, ',')
			dst = render.AppendCSVField(dst, string(mcvText(scratch[:0], c)))
		}
	}
	if ev.Jumbo() {
		dst = append(dst, ",1,"...)
	} else {
		dst = append(dst, ",0,"...)
	}
	dst = strconv.AppendInt(dst, int64(len(ev.Payload)), 10)
	dst = append(dst, ',')
	if len(ev.Payload) > 0 {
		dst = append(dst, '0', 'x')
		dst = render.AppendHexBytes(dst, ev.Payload)
	}
	return append(dst, '\n')
}

// streamGen renders one stream's events.txt or events.csv; its state is
// the offset of the next event (or -1 before the CSV header).
type streamGen struct {
	th  *thread
	csv bool
}

type streamCursor struct {
	g      *streamGen
	base   uint64 // the trace's first clock, for t_ns
	r      *ovni.Reader
	header bool // the CSV header is still to be written
	err    error
	ev     ovni.Event
}

func (g *streamGen) Start(state any) (render.Cursor, error) {
	s, err := g.th.open()
	if s == nil {
		return nil, err
	}
	c := &streamCursor{g: g, err: err}
	if g.csv {
		c.base = g.th.trace.baseClock()
	}
	off, ok := state.(int64)
	if !ok {
		c.header = g.csv
		off = s.Start()
	}
	c.r = s.NewReader(off, 64<<10)
	return c, nil
}

func (c *streamCursor) State() any {
	if c.header {
		return nil
	}
	return c.r.Offset()
}

func (c *streamCursor) Next(dst []byte) ([]byte, error) {
	if c.err != nil {
		return dst, c.err
	}
	if c.header {
		c.header = false
		return append(dst, csvHeader...), nil
	}
	start := len(dst)
	for len(dst)-start < batchBytes {
		if err := c.r.Next(&c.ev); err != nil {
			if len(dst) > start && err != io.EOF {
				c.err = err
				return dst, nil
			}
			return dst, err
		}
		if c.g.csv {
			dst = appendCSVLine(dst, &c.ev, c.base)
		} else {
			dst = appendDumpLine(dst, c.g.th.prefix, &c.ev)
		}
	}
	return dst, nil
}

// NextLen sizes the text view without rendering it.
func (c *streamCursor) NextLen() (int64, error) {
	if c.g.csv {
		b, err := c.Next(nil)
		return int64(len(b)), err
	}
	if c.err != nil {
		return 0, c.err
	}
	var n int64
	for n < batchBytes {
		clock, _, payload, err := c.r.Skip()
		if err != nil {
			if n > 0 && err != io.EOF {
				c.err = err
				return n, nil
			}
			return n, err
		}
		n += dumpLineLen(c.g.th.prefix, clock, payload)
	}
	return n, nil
}
