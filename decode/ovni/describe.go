package ovni

import (
	"encoding/binary"
	"strconv"
	"strings"
)

// A Describer writes the description plain ovnidump of one release (1.6
// and later) prints for an event: the text of the event's declaration
// with its arguments read from the payload. It is safe for concurrent use.
type Describer struct {
	specs map[[3]byte]*evSpec
}

// An evSpec is one compiled declaration: the arguments' types and offsets
// and the description split into literal text and argument references.
type evSpec struct {
	parts  []descPart
	need   int // payload bytes the fixed-size arguments span
	strOff int // offset of the str argument; -1 without one
}

type descPart struct {
	text string // literal text, when arg < 0
	arg  int    // index into args, or -1
	hex  bool   // printf %#llx (the only explicit format any release uses)
	typ  argType
	off  int
}

type argType uint8

const (
	argU8 argType = iota
	argU16
	argU32
	argU64
	argI8
	argI16
	argI32
	argI64
	argStr
)

var argTypes = map[string]argType{"u8": argU8, "u16": argU16, "u32": argU32, "u64": argU64,
	"i8": argI8, "i16": argI16, "i32": argI32, "i64": argI64, "str": argStr}

var argSizes = [...]int{argU8: 1, argU16: 2, argU32: 4, argU64: 8, argI8: 1, argI16: 2, argI32: 4, argI64: 8, argStr: 0}

// DescribedFrom is the first release whose ovnidump describes events.
const DescribedFrom = 6

// descMax is the longest description ovnidump prints: it formats into a
// 1024-byte buffer and prints UNKNOWN when the text does not fit.
const descMax = 1023

// NewDescriber returns the describer of ovnidump 1.<minor>; nil before 1.6
// (whose ovnidump prints payload bytes). Releases newer than the newest
// table known use the newest.
func NewDescriber(minor int) *Describer {
	if minor < DescribedFrom {
		return nil
	}
	minor = min(minor, DescribedUntil)
	d := &Describer{specs: map[[3]byte]*evSpec{}}
	for _, decl := range eventDecls {
		if minor < int(decl.from) || minor > int(decl.until) {
			continue
		}
		d.specs[[3]byte{decl.sig[0], decl.sig[1], decl.sig[2]}] = compile(decl.sig, decl.desc)
	}
	return d
}

// Signatures returns the declarations ovnidump 1.<minor> describes, in
// the form of its tables ("MCV", "+" for a jumbo event, then the payload's
// arguments: "VTx(u32 taskid, u32 bodyid)"); nil before 1.6. Tests write
// traces with every event from them.
func Signatures(minor int) []string {
	if minor < DescribedFrom {
		return nil
	}
	minor = min(minor, DescribedUntil)
	var sigs []string
	for _, decl := range eventDecls {
		if int(decl.from) <= minor && minor <= int(decl.until) {
			sigs = append(sigs, decl.sig)
		}
	}
	return sigs
}

// ReleaseMinor reads the minor release number from a library version
// such as "1.10.0"; -1 when it is not one.
func ReleaseMinor(version string) int {
	major, rest, ok := strings.Cut(version, ".")
	if !ok || major != "1" {
		return -1
	}
	minor, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(minor)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// compile parses a declaration of the tables below, which are all well
// formed ("MCV[+][(type name, ...)]", "%{name}" and "%#llx{name}").
func compile(sig, desc string) *evSpec {
	type arg struct {
		typ argType
		off int
	}
	args := map[string]arg{}
	off := 0
	if len(sig) > 3 && sig[3] == '+' {
		off = 4 // the jumbo size
	}
	if i := strings.IndexByte(sig, '('); i >= 0 {
		for _, a := range strings.Split(strings.TrimSuffix(sig[i+1:], ")"), ",") {
			typ, name, _ := strings.Cut(strings.TrimSpace(a), " ")
			t := argTypes[typ]
			args[name] = arg{t, off}
			off += argSizes[t]
		}
	}
	s := &evSpec{need: off, strOff: -1}
	for _, a := range args {
		if a.typ == argStr {
			s.strOff = a.off
		}
	}
	for desc != "" {
		i := strings.IndexByte(desc, '%')
		if i < 0 {
			s.parts = append(s.parts, descPart{text: desc, arg: -1})
			break
		}
		if i > 0 {
			s.parts = append(s.parts, descPart{text: desc[:i], arg: -1})
		}
		open := strings.IndexByte(desc[i:], '{') + i
		end := strings.IndexByte(desc[open:], '}') + open
		a := args[desc[open+1:end]]
		s.parts = append(s.parts, descPart{arg: 0, hex: open > i+1, typ: a.typ, off: a.off})
		desc = desc[end+1:]
	}
	return s
}

// Append appends ev's description, or "UNKNOWN" (as ovnidump) for an event
// without a declaration or whose text would be too long. ovnidump's
// payload points into the mapped stream, so arguments that reach past
// the payload (and a str argument without its NUL) read the bytes that
// follow the event in from, and zeros past its end (or without from).
// An event without payload has no pointer there (ovnidump dies on it):
// its arguments read as zeros.
func (d *Describer) Append(dst []byte, ev *Event, from *Stream) []byte {
	s := d.specs[ev.MCV]
	if s == nil {
		return append(dst, "UNKNOWN"...)
	}
	payload := ev.Payload
	if len(payload) > 0 && (len(payload) < s.need || s.strOff >= 0 && indexNUL(payload[min(s.strOff, len(payload)):]) < 0) {
		payload = append(payload[:len(payload):len(payload)], from.Following(ev, s.need+descMax)...)
	}
	start := len(dst)
	for _, p := range s.parts {
		if p.arg < 0 {
			dst = append(dst, p.text...)
			if len(dst)-start > descMax {
				return append(dst[:start], "UNKNOWN"...)
			}
			continue
		}
		dst = appendArg(dst, p, payload)
		// ovnidump's snprintf of an argument must leave room for the NUL
		if len(dst)-start >= descMax {
			return append(dst[:start], "UNKNOWN"...)
		}
	}
	return dst
}

func appendArg(dst []byte, p descPart, payload []byte) []byte {
	if p.typ == argStr {
		var b []byte
		if p.off < len(payload) {
			b = payload[p.off:]
		}
		if i := indexNUL(b); i >= 0 {
			b = b[:i]
		}
		return append(dst, b...)
	}
	var buf [8]byte
	if p.off < len(payload) {
		copy(buf[:argSizes[p.typ]], payload[p.off:])
	}
	u := binary.LittleEndian.Uint64(buf[:])
	var v int64
	signed := true
	switch p.typ {
	case argI8:
		v = int64(int8(u))
	case argI16:
		v = int64(int16(u))
	case argI32:
		v = int64(int32(u))
	case argI64:
		v = int64(u)
	default:
		signed = false
	}
	switch {
	case p.hex:
		// %#llx: the argument as unsigned hex, 0x before any but 0
		if signed {
			u = uint64(v)
		}
		if u != 0 {
			dst = append(dst, '0', 'x')
		}
		return strconv.AppendUint(dst, u, 16)
	case signed:
		return strconv.AppendInt(dst, v, 10)
	}
	return strconv.AppendUint(dst, u, 10)
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// PayloadU32 reads the little-endian u32 at off of a payload as stored
// (for a jumbo event its 4 size bytes come first); false when it ends
// before.
func PayloadU32(p []byte, off int) (uint32, bool) {
	if off < 0 || len(p) < off+4 {
		return 0, false
	}
	return binary.LittleEndian.Uint32(p[off:]), true
}

// PayloadStr is the NUL-terminated string at off of a payload (to its end
// when it has no NUL).
func PayloadStr(p []byte, off int) []byte {
	if off < 0 || off >= len(p) {
		return nil
	}
	s := p[off:]
	if i := indexNUL(s); i >= 0 {
		s = s[:i]
	}
	return s
}
