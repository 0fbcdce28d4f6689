package dcpi

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// MaxHeader bounds the ASCII header: a file whose terminator line
// "samples" is not found in its first MaxHeader bytes is not a profile.
const MaxHeader = 1 << 20

// ErrNoHeader reports input that holds no DCPI header.
var ErrNoHeader = errors.New("no DCPI profile header")

// A Kind tells which rule of the header grammar a line falls under.
type Kind uint8

const (
	Required Kind = iota // version image epoch platform event period tstart tsize cpuspeed
	Optional             // cpuamask cpuimplv cpucount path
	Unknown              // any other word
)

var kindNames = [...]string{"required", "optional", "unknown"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// A Line is one header line as stored.
type Line struct {
	Key   string // the first word
	Value string // the rest of the line after the separating blanks; "" if malformed
	Kind  Kind
	Off   int64 // byte offset of the line in the file
}

// What the value of a known key must look like.
type syntax uint8

const (
	restOfLine syntax = iota
	digits
	hexDigits
	version
	timeStamp
)

var known = map[string]struct {
	kind Kind
	syn  syntax
}{
	"version":  {Required, version},
	"image":    {Required, hexDigits},
	"epoch":    {Required, timeStamp},
	"platform": {Required, restOfLine},
	"event":    {Required, restOfLine},
	"period":   {Required, digits},
	"tstart":   {Required, hexDigits},
	"tsize":    {Required, digits},
	"cpuspeed": {Required, digits},
	"cpuamask": {Optional, hexDigits},
	"cpuimplv": {Optional, digits},
	"cpucount": {Optional, digits},
	"path":     {Optional, restOfLine},
}

// RequiredKeys lists the keys that must occur exactly once, in the order
// of the specification.
var RequiredKeys = []string{"version", "image", "epoch", "platform", "event", "period", "tstart", "tsize", "cpuspeed"}

// A Header is the decoded ASCII header.
type Header struct {
	Raw   []byte // the header as stored, terminator line included
	Lines []Line // every line before the terminator, in file order

	// Fields of the required lines; zero when the line is missing or bad.
	Version  string // as stored, e.g. "pdb-0.07"
	Major    uint64
	Minor    uint64
	Image    string // hex digits as stored
	Epoch    string // YYMMDDHHMM or YYYYMMDDHHMMSS as stored
	Platform string
	Event    string
	Period   uint64
	Tstart   uint64 // text_start(image)
	Tsize    uint64 // bytes
	CPUSpeed uint64

	// Problems lists every broken rule of the grammar, in file order,
	// each a *decode.FormatError with the offset of its line.
	Problems decode.Problems

	validVersion, validTstart bool
}

// Size is the header length in bytes: the offset of the binary body.
func (h *Header) Size() int64 { return int64(len(h.Raw)) }

// Values returns the values of the lines with key, in file order.
func (h *Header) Values(key string) []string {
	var out []string
	for _, l := range h.Lines {
		if l.Key == key {
			out = append(out, l.Value)
		}
	}
	return out
}

// Err joins the header's problems; nil when the header follows the grammar.
func (h *Header) Err() error { return h.Problems.Err() }

// BodyDecodable reports whether the samples can be decoded: the version
// is pdb-0.06 or pdb-0.07 and there is exactly one valid tstart line.
func (h *Header) BodyDecodable() bool {
	return h.validVersion && h.validTstart && h.BodyErr() == nil
}

// BodyErr says why the samples cannot be decoded, or nil.
func (h *Header) BodyErr() error {
	switch {
	case !h.validVersion:
		return decode.ErrAt("dcpi", "header", 0, "no valid version line; the sample data cannot be decoded", nil, nil)
	case h.Major == 1:
		return decode.ErrAt("dcpi", "header", h.Size(), "the binary layout of major version 1 was never published; the sample data cannot be decoded", h.Version, decode.ErrUnsupportedVersion)
	case h.Major != 0 || (h.Minor != 6 && h.Minor != 7):
		return decode.ErrAt("dcpi", "header", h.Size(), "only versions pdb-0.06 and pdb-0.07 have a documented binary layout; the sample data cannot be decoded", h.Version, decode.ErrUnsupportedVersion)
	case !h.validTstart:
		return decode.ErrAt("dcpi", "header", 0, "no single valid tstart line; the sample data cannot be decoded", nil, nil)
	}
	return nil
}

func (h *Header) problem(off int64, msg string, val any) {
	h.Problems.Add(decode.ErrAt("dcpi", "header", off, msg, val, nil))
}

// readHeader finds the terminator line within the first MaxHeader bytes.
func readHeader(r io.ReaderAt, size int64) ([]byte, error) {
	limit := min(size, MaxHeader)
	var buf []byte
	const block = 4096
	for off := int64(0); off < limit; off += block {
		n := min(block, limit-off)
		b, err := decode.ReadAt(r, size, off, n)
		if err != nil {
			return nil, err
		}
		start := len(buf)
		buf = append(buf, b...)
		// A terminator ends at a newline; look at every newline of the new
		// block (and the line that began in the previous one).
		for i := start; i < len(buf); i++ {
			if buf[i] != '\n' {
				continue
			}
			lineStart := bytes.LastIndexByte(buf[:i], '\n') + 1
			if isTerminator(buf[lineStart:i]) {
				return buf[:i+1], nil
			}
		}
	}
	return nil, decode.ErrAt("dcpi", "header", 0, "no terminator line \"samples\" in the first bytes", limit, ErrNoHeader)
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

// isTerminator reports whether line (without its newline) is
// "samples" <space>*.
func isTerminator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("samples")) {
		return false
	}
	for _, c := range line[len("samples"):] {
		if !isBlank(c) {
			return false
		}
	}
	return true
}

// ParseHeader decodes the header at the start of r. It returns an error
// only when no terminator line is found (ErrNoHeader) or r fails; broken
// grammar rules are listed in Header.Problems.
func ParseHeader(r io.ReaderAt, size int64) (*Header, error) {
	raw, err := readHeader(r, size)
	if err != nil {
		return nil, err
	}
	return parseHeader(raw), nil
}

func parseHeader(raw []byte) *Header {
	h := &Header{Raw: raw}
	seen := map[string]int{}
	off := 0
	for {
		nl := bytes.IndexByte(raw[off:], '\n')
		line := raw[off : off+nl]
		if isTerminator(line) {
			break
		}
		h.parseLine(line, int64(off), seen)
		off += nl + 1
	}
	end := int64(len(raw))
	for _, k := range RequiredKeys {
		if seen[k] == 0 {
			h.problem(end, "missing required line", k)
		}
	}
	h.validVersion = h.validVersion && seen["version"] == 1
	h.validTstart = h.validTstart && seen["tstart"] == 1
	return h
}

func (h *Header) parseLine(line []byte, off int64, seen map[string]int) {
	i := 0
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	key := string(line[:i])
	j := i
	for j < len(line) && isBlank(line[j]) {
		j++
	}
	value := string(line[j:])
	k, isKnown := known[key]
	kind := Unknown
	if isKnown {
		kind = k.kind
	}
	h.Lines = append(h.Lines, Line{Key: key, Value: value, Kind: kind, Off: off})
	switch {
	case i == 0:
		h.problem(off, "line does not start with a word", string(line))
		return
	case j == i:
		h.problem(off, "no blank between key and value", string(line))
		return
	case j == len(line):
		h.problem(off, "line has no value", key)
		return
	}
	if !isKnown {
		return
	}
	if k.kind == Required {
		seen[key]++
		if seen[key] > 1 {
			h.problem(off, "repeated required line", key)
			return
		}
	}
	switch k.syn {
	case digits:
		v, ok := parseDigits(value)
		if !ok {
			h.problem(off, key+" is not a decimal number", value)
			return
		}
		switch key {
		case "period":
			h.Period = v
		case "tsize":
			h.Tsize = v
		case "cpuspeed":
			h.CPUSpeed = v
		}
	case hexDigits:
		if !isHex(value) {
			h.problem(off, key+" is not a hex number", value)
			return
		}
		switch key {
		case "image":
			h.Image = value
		case "tstart":
			v, err := strconv.ParseUint(value, 16, 64)
			if err != nil {
				h.problem(off, "tstart does not fit in 64 bits", value)
				return
			}
			h.Tstart, h.validTstart = v, true
		}
	case timeStamp:
		if !isDigits(value) || (len(value) != 10 && len(value) != 14) {
			h.problem(off, "epoch is not YYMMDDHHMM or YYYYMMDDHHMMSS", value)
			return
		}
		h.Epoch = value
	case version:
		major, minor, ok := parseVersion(value)
		if !ok {
			h.problem(off, "version is not pdb-<major>.<minor>", value)
			return
		}
		h.Version, h.Major, h.Minor, h.validVersion = value, major, minor, true
	case restOfLine:
		switch key {
		case "platform":
			h.Platform = value
		case "event":
			h.Event = value
		}
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func parseDigits(s string) (uint64, bool) {
	if !isDigits(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func parseVersion(s string) (major, minor uint64, ok bool) {
	rest, found := bytes.CutPrefix([]byte(s), []byte("pdb-"))
	if !found {
		return 0, 0, false
	}
	a, b, found := bytes.Cut(rest, []byte("."))
	if !found {
		return 0, 0, false
	}
	major, ok1 := parseDigits(string(a))
	minor, ok2 := parseDigits(string(b))
	return major, minor, ok1 && ok2
}
