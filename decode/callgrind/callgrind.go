// Package callgrind decodes profiles in the Callgrind format (valgrind's
// "Callgrind Format Specification", version 1), which also covers
// cachegrind's output and Xdebug's profiler files, plain or gzip-compressed.
//
// NewFile reads the header only. Decoders stream the body line by line and
// hold no line records: a Decoder returns one Record per cost line, call or
// jump, and its State resumes decoding at a later position. Summarize makes
// the one full pass that builds the function and call tables.
//
// Malformed lines never stop decoding: each becomes a reported problem
// (a *decode.FormatError with the byte offset of the line) and the line is
// skipped. Decoders never panic and allocate at most one bounded line
// buffer beyond the tables.
package callgrind

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

const formatName = "callgrind"

// A Header holds the lines before the first body line (and the summary:
// and totals: lines wherever they appear, once the body has been read).
type Header struct {
	FormatLine bool // the "# callgrind format" marker was present
	Version    string
	Creator    string
	Cmd        string
	Pid        string
	Thread     string
	Part       string
	Positions  []string // "instr", "line" in order; default ["line"]
	Events     []string
	LongNames  []string // parallel to Events; "" where no event: line names it
	Derived    []string // inherited event types as written: "Sum = Ir + Dr"
	Desc       []string // "type: value"
	Summary    []int64
	Totals     []int64
	Other      []string // other "key: value" lines, verbatim
}

// HasInstr and HasLine report the subpositions of cost lines.
func (h *Header) HasInstr() bool { return hasPos(h.Positions, "instr") }
func (h *Header) HasLine() bool  { return hasPos(h.Positions, "line") }

func hasPos(ps []string, p string) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// A File is an opened profile.
type File struct {
	r      io.ReaderAt
	size   int64
	Gzip   bool
	Header Header
	// BodyOff is the offset in the decompressed stream of the first body line.
	BodyOff int64
	// Problems found in the header.
	Problems decode.Problems
	closer   io.Closer
	start    int64 // stream offset where the profile starts
	end      int64 // stream offset where the profile ends (a section of the file), -1: at the end
}

// Size is the size of the file on disk.
func (f *File) Size() int64 { return f.size }

// Close closes the file if Open opened it.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// Open opens the profile at path.
func Open(path string) (*File, error) {
	var f *File
	c, err := decode.OpenFile(path, func(r io.ReaderAt, size int64) error {
		var err error
		f, err = NewFile(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	f.closer = c
	return f, nil
}

// IsGzip reports whether head starts with the gzip magic.
func IsGzip(head []byte) bool { return len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b }

// Sniff reports whether head, the first bytes of a decompressed file,
// looks like a callgrind or cachegrind profile: the "# callgrind format"
// marker, or header lines ("key: value", comments, blank lines) up to an
// "events:" line among the first lines.
func Sniff(head []byte) bool {
	if bytes.HasPrefix(head, []byte("# callgrind format")) {
		return true
	}
	keys, damaged := 0, 0
	for n := 0; n < 64 && len(head) > 0; n++ {
		line, rest, found := bytes.Cut(head, []byte("\n"))
		if !found && len(rest) == 0 && len(head) >= 2048 {
			return false
		}
		head = rest
		line = trimCR(line)
		switch {
		case len(bytes.TrimSpace(line)) == 0, line[0] == '#', isMarker(line):
			continue
		case bytes.HasPrefix(line, []byte("events:")):
			return damaged == 0 || keys > damaged // events: alone is a whole header
		}
		key, _, ok := bytes.Cut(line, []byte(":"))
		switch {
		case ok && isKey(key):
			keys++
		case keys > 0 && damaged < maxDamagedHeader && !isBodyLine(line):
			damaged++ // a damaged header line between good ones
		default:
			return false
		}
	}
	return false
}

// maxDamagedHeader is how many damaged lines a header may have among
// good "key: value" lines before the events: line and still be read.
const maxDamagedHeader = 2

// isBodyLine reports whether line starts like a body line: a cost line
// (a number, +n, -n or *) or a "key=" specification.
func isBodyLine(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	if c := line[0]; c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
		return true
	}
	key, _, ok := bytes.Cut(line, []byte("="))
	if !ok || len(key) == 0 {
		return false
	}
	for _, c := range key {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isKey(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ' ' || c == '-') {
			return false
		}
	}
	return true
}

// SniffFile reads the start of the file at path (decompressing gzip) and
// reports whether it is a profile and whether it is compressed.
func SniffFile(path string) (ok, gz bool) {
	f, err := os.Open(path)
	if err != nil {
		return false, false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if IsGzip(head) {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return false, true
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			return false, true
		}
		n, _ = io.ReadFull(zr, head[:cap(head)])
		return Sniff(head[:n]), true
	}
	return Sniff(head), false
}

// NewFile reads the header of the profile in r (size bytes).
func NewFile(r io.ReaderAt, size int64) (*File, error) { return NewSection(r, size, 0, -1) }

// SectionMarker starts each profile of an Xdebug file written in append
// mode (xdebug.profiler_append): every run adds its profile after it.
const SectionMarker = "==== NEW PROFILING FILE"

// isMarker reports whether line is a SectionMarker line.
func isMarker(line []byte) bool { return bytes.HasPrefix(line, []byte(SectionMarker)) }

// A Section is the stream range [Start, End) of one profile of an Xdebug
// append-mode file.
type Section struct{ Start, End int64 }

// Sections returns the profiles of an Xdebug append-mode file: each
// starts after a SectionMarker line (or at the file's start, when a
// profile precedes the first marker) and ends at the next marker line. It
// reads the whole (decompressed) stream once; nil when there are fewer
// than two.
func (f *File) Sections() []Section {
	lr := openLines(f.r, f.size, f.Gzip, 0, -1)
	var out []Section
	content := false // a non-blank line before the first marker
	for {
		line, off, _, tooLong, ok := lr.next()
		if !ok {
			break
		}
		switch {
		case !tooLong && isMarker(line):
			if n := len(out); n > 0 {
				out[n-1].End = off
			} else if content {
				out = append(out, Section{0, off})
			}
			out = append(out, Section{lr.off, -1})
		case len(out) == 0 && len(bytes.TrimSpace(line)) > 0:
			content = true
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// Section opens section s of f (Sections); it reads through f, which
// stays the one to close.
func (f *File) Section(s Section) (*File, error) { return NewSection(f.r, f.size, s.Start, s.End) }

// NewSection reads the header of the profile in stream bytes [start, end)
// of r (size bytes; end -1 for the end of the stream): one section of an
// append-mode file (Sections).
func NewSection(r io.ReaderAt, size int64, start, end int64) (*File, error) {
	f := &File{r: r, size: size, start: start, end: end}
	var magic [2]byte
	if n, _ := r.ReadAt(magic[:], 0); n == 2 {
		f.Gzip = IsGzip(magic[:])
	}
	f.Header.Positions = []string{"line"}
	lr := openLines(r, size, f.Gzip, start, end)
	first := true
	damaged := 0
	for {
		line, off, _, tooLong, ok := lr.next()
		if !ok {
			f.BodyOff = lr.off
			break
		}
		if tooLong {
			f.Problems.Add(problem("header", off, "line longer than 1 MiB skipped", nil))
			continue
		}
		if first && bytes.HasPrefix(line, []byte("# callgrind format")) {
			f.Header.FormatLine = true
		}
		first = false
		if len(bytes.TrimSpace(line)) == 0 || line[0] == '#' || isMarker(line) {
			continue
		}
		if !isHeaderLine(line) {
			if len(f.Header.Events) == 0 && damaged < maxDamagedHeader && !isBodyLine(line) {
				damaged++
				f.Problems.Add(problem("header", off, "damaged header line skipped", string(line)))
				continue
			}
			f.BodyOff = off
			break
		}
		if err := f.Header.set(line, off); err != nil {
			f.Problems.Add(err)
		}
	}
	if lr.err != nil {
		f.Problems.Add(problem("header", lr.off, "reading: "+lr.err.Error(), nil))
	}
	if len(f.Header.Events) == 0 {
		return nil, decode.ErrAt(formatName, "header", f.BodyOff, "no events: line before the body", nil, nil)
	}
	f.Header.fillLongNames()
	return f, nil
}

// isHeaderLine reports whether line is "key: value" (a word, then ':').
func isHeaderLine(line []byte) bool {
	for i, c := range line {
		switch {
		case c == ':':
			return i > 0
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ' ' || c == '-':
		default:
			return false
		}
	}
	return false
}

func problem(section string, off int64, msg string, val any) *decode.FormatError {
	return decode.ErrAt(formatName, section, off, msg, val, nil)
}

// set applies one "key: value" line.
func (h *Header) set(line []byte, off int64) error {
	k, v, _ := strings.Cut(string(line), ":")
	v = strings.TrimSpace(v)
	switch strings.TrimSpace(k) {
	case "version":
		h.Version = v
		if v != "" && v[0] > '1' && v[0] <= '9' {
			return problem("header", off, "format version above 1, read as version 1", v)
		}
	case "creator":
		h.Creator = v
	case "cmd":
		h.Cmd = v
	case "pid":
		h.Pid = v
	case "thread":
		h.Thread = v
	case "part":
		h.Part = v
	case "desc":
		h.Desc = append(h.Desc, v)
	case "positions":
		h.Positions = strings.Fields(v)
		for _, p := range h.Positions {
			if p != "instr" && p != "line" && p != "addr" {
				return problem("header", off, "unknown subposition", p)
			}
		}
		for i, p := range h.Positions {
			if p == "addr" {
				h.Positions[i] = "instr"
			}
		}
	case "events":
		h.Events = strings.Fields(v)
		seen := map[string]bool{}
		var dup error
		for i, e := range h.Events {
			name := e
			for k := 2; seen[name]; k++ {
				name = e + "_" + strconv.Itoa(k)
			}
			if name != e && dup == nil {
				dup = problem("header", off, "event named twice: the second is "+name, e)
			}
			seen[name], h.Events[i] = true, name
		}
		return dup
	case "event":
		name, rest, _ := strings.Cut(v, ":")
		name = strings.TrimSpace(name)
		if n, expr, ok := strings.Cut(name, "="); ok {
			h.Derived = append(h.Derived, strings.TrimSpace(n)+" = "+strings.TrimSpace(expr))
			name = strings.TrimSpace(n)
		}
		h.Other = append(h.Other, "event: "+name+" : "+strings.TrimSpace(rest))
	case "summary":
		c, err := parseCostList(v)
		if err != nil {
			return problem("header", off, "bad summary: line", v)
		}
		h.Summary = c
	case "totals":
		c, err := parseCostList(v)
		if err != nil {
			return problem("header", off, "bad totals: line", v)
		}
		h.Totals = c
	default:
		h.Other = append(h.Other, string(line))
	}
	return nil
}

// fillLongNames takes the long names from the "event:" lines kept in Other.
func (h *Header) fillLongNames() {
	h.LongNames = make([]string, len(h.Events))
	var other []string
	for _, l := range h.Other {
		rest, ok := strings.CutPrefix(l, "event: ")
		if !ok {
			other = append(other, l)
			continue
		}
		name, long, _ := strings.Cut(rest, " : ")
		for i, e := range h.Events {
			if e == name {
				h.LongNames[i] = long
			}
		}
		if !hasPos(h.Events, name) {
			other = append(other, "event: "+name+": "+long)
		}
	}
	h.Other = other
}

func parseCostList(v string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Fields(v) {
		n, ok := parseNumber([]byte(f))
		if !ok {
			return out, decode.ErrFormat
		}
		out = append(out, n)
	}
	return out, nil
}
