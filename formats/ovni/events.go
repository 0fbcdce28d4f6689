package ovni

import (
	"io"
	"slices"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/render"
)

// batchBytes is how much output one Next call renders at most (it always
// renders at least one event).
const batchBytes = 8 << 10

// A dumpForm is the line layout of one ovnidump release.
type dumpForm uint8

const (
	// formV1 is ovnidump at the v1 specification commit and 1.0.x:
	// "<loom>.<pid>.<tid>  <clock>  <MCV>[ :xx...]".
	formV1 dumpForm = iota
	// formDelta is ovnidump 1.2 to 1.5: "<relpath>  <clock>  <delta>
	// <MCV>[ :xx...]", the clock in 10 columns, the delta (from the
	// stream's previous event) signed in 10 columns.
	formDelta
	// formHex is ovnidump -x from 1.6 on: "<clock>  <MCV>  <relpath>
	// [:xx...]", the clock in 10 columns.
	formHex
)

// appendLine appends th's dump line of ev; last is the clock of the
// stream's previous event (0 before the first).
func (th *thread) appendLine(dst []byte, ev *ovni.Event, last int64) []byte {
	switch th.form {
	case formV1:
		dst = append(dst, th.key...)
		if c := int64(ev.Clock); c < 0 {
			dst = strconv.AppendInt(dst, c, 10)
		} else {
			dst = render.AppendUint(dst, uint64(c))
		}
		dst = append(dst, ' ', ' ', ev.MCV[0], ev.MCV[1], ev.MCV[2])
		if len(ev.Payload) > 0 {
			dst = append(dst, ' ')
		}
	case formDelta:
		dst = append(dst, th.key...)
		dst = appendPadded(dst, int64(ev.Clock), false)
		dst = append(dst, ' ', ' ')
		dst = appendPadded(dst, int64(ev.Clock)-last, true)
		dst = append(dst, ' ', ' ', ev.MCV[0], ev.MCV[1], ev.MCV[2])
		if len(ev.Payload) > 0 {
			dst = append(dst, ' ')
		}
	default:
		dst = appendPadded(dst, int64(ev.Clock), false)
		dst = append(dst, ' ', ' ', ev.MCV[0], ev.MCV[1], ev.MCV[2], ' ', ' ')
		dst = append(dst, th.key...)
	}
	return append(appendColonHex(dst, ev.Payload), '\n')
}

// appendDescribed appends th's line of ev in plain ovnidump's layout (1.6
// and later): "<clock>  <MCV>  <stream path>  <description>".
func (th *thread) appendDescribed(dst []byte, ev *ovni.Event, d *ovni.Describer) []byte {
	dst = appendPadded(dst, int64(ev.Clock), false)
	dst = append(dst, ' ', ' ', ev.MCV[0], ev.MCV[1], ev.MCV[2], ' ', ' ')
	dst = append(dst, th.key...)
	s, _ := th.open()
	return append(d.Append(dst, ev, s), '\n')
}

// colonHex holds ":xx" for every byte value.
var colonHex = func() (t [256 * 3]byte) {
	for i := range 256 {
		t[3*i], t[3*i+1], t[3*i+2] = ':', hexDigits[i>>4], hexDigits[i&0xf]
	}
	return t
}()

// appendColonHex appends ":xx" for every byte of p.
func appendColonHex(dst, p []byte) []byte {
	n := len(dst)
	dst = slices.Grow(dst, 3*len(p))[:n+3*len(p)]
	out := dst[n:]
	for i, c := range p {
		copy(out[3*i:3*i+3], colonHex[3*int(c):])
	}
	return dst
}

// lineLen is the length of appendLine's line without rendering it.
func (th *thread) lineLen(clock uint64, last int64, payload int64) int64 {
	n := int64(len(th.key)) + 3 + 3*payload + 1
	switch th.form {
	case formV1:
		n += int64(signedLen(int64(clock))) + 2
		if payload > 0 {
			n++
		}
	case formDelta:
		n += paddedLen(int64(clock), false) + 2 + paddedLen(int64(clock)-last, true) + 2
		if payload > 0 {
			n++
		}
	default:
		n += paddedLen(int64(clock), false) + 2 + 2
	}
	return n
}

// appendPadded appends v as printf's %10ld (or %+10ld with plus): the
// spaces, the sign, then the digits written in place.
func appendPadded(dst []byte, v int64, plus bool) []byte {
	u, sign := uint64(v), byte(0)
	switch {
	case v < 0:
		u, sign = uint64(-v), '-' // -MinInt64 wraps to its magnitude
	case plus:
		sign = '+'
	}
	w := render.DecimalLen(u)
	if sign != 0 {
		w++
	}
	if w < 10 {
		dst = append(dst, "          "[:10-w]...)
	}
	if sign != 0 {
		dst = append(dst, sign)
	}
	return render.AppendUint(dst, u)
}

func digitsLen(v int64, plus bool) int64 {
	n := int64(signedLen(v))
	if plus && v >= 0 {
		n++
	}
	return n
}

func paddedLen(v int64, plus bool) int64 { return max(10, digitsLen(v, plus)) }

const hexDigits = "0123456789abcdef"

func signedLen(v int64) int {
	if v < 0 {
		return 1 + render.DecimalLen(uint64(-v))
	}
	return render.DecimalLen(uint64(v))
}

const csvHeader = "time_ns,t_ns,mcv,model,category,value,jumbo,payload_size,payload_hex,event\n"

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
	dst = append(dst, ',')
	dst = append(dst, eventNames[ev.MCV]...)
	return append(dst, '\n')
}

// streamGen renders one stream's events.txt or events.csv; its state is
// a streamPos (nil before the CSV header). A cursor, not a render.Table:
// events.txt is ovnidump's layout (a tool's dump, kept byte for byte),
// and events.csv shares its stream reader and position; a jumbo event's
// payload (megabytes) is written as hex from the input bytes in place,
// where a table cell would first copy it into a string per event.
type streamGen struct {
	th  *thread
	csv bool
}

// A streamPos is where a stream view goes on: the offset of the next
// event and the clock of the event before it.
type streamPos struct {
	off, last int64
}

type streamCursor struct {
	g      *streamGen
	base   uint64 // the trace's first clock, for t_ns
	r      *ovni.Reader
	last   int64 // clock of the previous event
	header bool  // the CSV header is still to be written
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
	pos, ok := state.(streamPos)
	if !ok {
		c.header = g.csv
		pos.off = s.Start()
	}
	c.last = pos.last
	c.r = s.NewReader(pos.off, 64<<10)
	return c, nil
}

func (c *streamCursor) State() any {
	if c.header {
		return nil
	}
	return streamPos{c.r.Offset(), c.last}
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
			dst = c.g.th.appendLine(dst, &c.ev, c.last)
		}
		c.last = int64(c.ev.Clock)
	}
	c.ev.Payload = nil // a jumbo payload is not held until the next call
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
		n += c.g.th.lineLen(clock, c.last, payload)
		c.last = int64(clock)
	}
	return n, nil
}
