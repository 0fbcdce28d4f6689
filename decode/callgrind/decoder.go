package callgrind

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"math"

	"github.com/hpcfs/hpcfs/decode"
)

// A Kind is the kind of a Record.
type Kind uint8

const (
	// Cost is a cost line: self cost at a position.
	Cost Kind = iota + 1
	// Call is a calls= line with its cost line: the inclusive cost of
	// Count calls from the position to the function CFn.
	Call
	// Jump is a jump= line with its position line.
	Jump
	// CondJump is a jcnd= line with its position line.
	CondJump
)

func (k Kind) keyword() string {
	switch k {
	case Call:
		return "calls="
	case Jump:
		return "jump="
	case CondJump:
		return "jcnd="
	}
	return "?"
}

func (k Kind) String() string {
	switch k {
	case Cost:
		return "cost"
	case Call:
		return "call"
	case Jump:
		return "jump"
	case CondJump:
		return "jcnd"
	}
	return "?"
}

// None is the name number of a position not given yet.
const None int32 = -1

// A State is where a Decoder is between two records: the stream offset of
// the next line and the position context in force there. It holds no
// pointers, so it can be kept as a checkpoint and encoded.
type State struct {
	Off               int64
	Obj, FnFile, File int32 // ob=, fl= (the function's file), fl=/fi=/fe= (the current source file)
	Fn                int32
	CObj, CFile, CFn  int32 // cob=, cfi=/cfl=, cfn=
	Instr             uint64
	Line              int64
	NoInstr, NoLine   bool // subpositions, inverted so that the zero State means "line"
}

// AppendBinary appends an encoding of s that DecodeState reads back (a
// view's position in an on-disk index).
func (s State) AppendBinary(b []byte) ([]byte, error) {
	for _, v := range []int64{s.Off, int64(s.Obj), int64(s.FnFile), int64(s.File), int64(s.Fn),
		int64(s.CObj), int64(s.CFile), int64(s.CFn), int64(s.Instr), s.Line, bit(s.NoInstr), bit(s.NoLine)} {
		b = binary.AppendVarint(b, v)
	}
	return b, nil
}

func bit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// DecodeState reads a State written by AppendBinary from the start of b
// and returns the rest of b. The names in it are checked against nothing:
// a decoder resumed at a damaged state reads names as "" and positions
// past the end as the end.
func DecodeState(b []byte) (State, []byte, error) {
	var v [12]int64
	for i := range v {
		x, n := binary.Varint(b)
		if n <= 0 {
			return State{}, nil, problem("position", 0, "bad encoded position", nil)
		}
		v[i], b = x, b[n:]
	}
	for _, x := range v[1:8] {
		if x < math.MinInt32 || x > math.MaxInt32 {
			return State{}, nil, problem("position", 0, "bad encoded position", nil)
		}
	}
	if v[0] < 0 || v[10]>>1 != 0 || v[11]>>1 != 0 {
		return State{}, nil, problem("position", 0, "bad encoded position", nil)
	}
	return State{Off: v[0], Obj: int32(v[1]), FnFile: int32(v[2]), File: int32(v[3]), Fn: int32(v[4]),
		CObj: int32(v[5]), CFile: int32(v[6]), CFn: int32(v[7]), Instr: uint64(v[8]), Line: v[9],
		NoInstr: v[10] == 1, NoLine: v[11] == 1}, b, nil
}

// StartState is the state at the first body line of f.
func (f *File) StartState() State {
	return State{Off: f.BodyOff, Obj: None, FnFile: None, File: None, Fn: None, CObj: None, CFile: None, CFn: None,
		NoInstr: !f.Header.HasInstr(), NoLine: !f.Header.HasLine()}
}

// A Record is one cost line, call or jump. Names are numbers into the
// decoder's Names. Costs has one entry per event and is valid until the
// next call of Next.
type Record struct {
	Kind Kind
	Off  int64 // byte offset of the line (of the calls=/jump= line for associations)
	Obj  int32
	File int32 // source file of the cost: fl=, or fi=/fe= inside a function
	// FnFile is the fl= file of the function; it differs from File in
	// code inlined from another file (fi=/fe=).
	FnFile int32
	Fn     int32
	Instr  uint64
	Line   int64
	Costs  []int64
	// Call: the callee; Jump, CondJump: CFn/CFile are the target function
	// and file when jfn=/jfi= gave them.
	CObj, CFile, CFn int32
	Count            uint64 // calls; executed jumps
	Followed         uint64 // CondJump: jumps taken
	// Lines is the number of cost lines summed into a Cost record: 1,
	// unless the decoder sums runs of cost lines (Summarize does).
	Lines int32
}

// setFiles sets r's File and FnFile from the state (0 for none).
func (d *Decoder) setFiles(r *Record) {
	r.File, r.FnFile = max(d.st.File, 0), max(d.st.FnFile, 0)
	if d.st.FnFile == None {
		r.FnFile = r.File
	}
}

// A Decoder reads the records of a profile body.
type Decoder struct {
	f      *File
	names  *Names
	lr     *lineReader
	st     State
	nev    int
	costs  []int64
	rec    Record
	header *Header // receives summary:/totals: lines of the body, when set

	// OnProblem receives each malformed line; nil drops them.
	OnProblem func(error)

	pend                    Kind
	pendCount, pendFollowed uint64
	pendOff                 int64
	jFile, jFn              int32
	warned                  map[string]bool
	sumRuns                 bool
	acc                     []int64
	done                    bool
	// Parts counts part headers met in the body (a file holds one part or more).
	Parts int
}

// NewDecoder returns a decoder at st (f.StartState() for the beginning)
// resolving names through names.
func (f *File) NewDecoder(names *Names, st State) *Decoder {
	d := &Decoder{f: f, names: names, st: st, nev: len(f.Header.Events), jFile: None, jFn: None}
	d.costs = make([]int64, d.nev)
	d.rec.Costs = d.costs
	d.lr = openLines(f.r, f.size, f.Gzip, st.Off, f.end)
	return d
}

// State returns the decoder's position between records.
func (d *Decoder) State() State {
	st := d.st
	st.Off = d.lr.off
	return st
}

// Offset is the stream offset of the next line.
func (d *Decoder) Offset() int64 { return d.lr.off }

func (d *Decoder) report(off int64, msg string, val any) {
	if d.OnProblem != nil {
		d.OnProblem(problem("body", off, msg, val))
	}
}

// reportOnce reports a kind of problem once per decoder.
func (d *Decoder) reportOnce(off int64, msg string, val any) {
	if d.warned == nil {
		d.warned = map[string]bool{}
	}
	if d.warned[msg] {
		return
	}
	d.warned[msg] = true
	d.report(off, msg, val)
}

// Next returns the next record, or io.EOF after the last one. Malformed
// lines are reported and skipped. A read error of a plain file is
// returned as it is; a damaged gzip stream ends the records with a
// *decode.FormatError wrapping decode.ErrTruncated.
func (d *Decoder) Next() (*Record, error) {
	if d.done {
		return nil, io.EOF
	}
	for {
		if d.pend == 0 && d.st.Fn != None {
			if r := d.fastCost(); r != nil {
				r.Lines = 1
				if d.sumRuns {
					// The following plain cost lines belong to the same
					// function: sum them into one record.
					copy(d.acc, r.Costs)
					for {
						n := d.sumLineRun(d.acc)
						if n == 0 {
							if d.fastCost() == nil {
								break
							}
							add(d.acc, d.costs)
							n = 1
						}
						r.Lines += n
					}
					copy(d.costs, d.acc)
				}
				return r, nil
			}
		}
		line, off, term, tooLong, ok := d.lr.next()
		if !ok {
			d.done = true
			d.st.Off = d.lr.off
			if d.pend != 0 {
				d.report(d.pendOff, d.pend.keyword()+" line without the cost line that must follow it", nil)
			}
			if err := d.lr.err; err != nil {
				if d.f.Gzip {
					return nil, decode.ErrAt(formatName, "gzip stream", d.lr.off, err.Error(), nil, decode.ErrTruncated)
				}
				return nil, err
			}
			return nil, io.EOF
		}
		if !term {
			d.report(off, "last line has no newline: the file may be truncated", nil)
		}
		if tooLong {
			d.report(off, "line longer than 1 MiB skipped", string(line))
			continue
		}
		if r := d.line(line, off); r != nil {
			return r, nil
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// sumLineRun adds the costs of the plain cost lines that follow, as far
// as they are buffered, to acc, for files whose positions are "line":
// the full pass's inner loop. It returns how many lines it took; it stops
// without consuming at anything fastCost would not take.
func (d *Decoder) sumLineRun(acc []int64) int32 {
	if !d.st.NoInstr || d.st.NoLine || len(acc) > 16 {
		return 0
	}
	lr := d.lr
	buf := lr.buf[lr.start:lr.end]
	ln := d.st.Line
	var tmp [16]int64
	ne := len(acc)
	i := 0
	var lines int32
	for i < len(buf) {
		j := i
		var v int64
		switch c := buf[j]; {
		case c == '*':
			v = ln
			j++
		case c == '+' || c == '-':
			n, e := decimal(buf, j+1)
			if e == j+1 {
				return d.commitRun(i, ln, lines)
			}
			v, j = signed(c, ln, n), e
		case c >= '0' && c <= '9':
			v, j = decimal(buf, j)
			if j < len(buf) && buf[j] == 'x' {
				return d.commitRun(i, ln, lines)
			}
		default:
			return d.commitRun(i, ln, lines)
		}
		k := 0
		for {
			for j < len(buf) && buf[j] == ' ' {
				j++
			}
			if j >= len(buf) {
				return d.commitRun(i, ln, lines)
			}
			if buf[j] == '\n' {
				break
			}
			if k >= ne || j > 0 && buf[j-1] != ' ' {
				return d.commitRun(i, ln, lines)
			}
			s := j
			var x int64
			if x, j = decimal(buf, j); j == s {
				return d.commitRun(i, ln, lines)
			}
			tmp[k] = x
			k++
		}
		for q := 0; q < k; q++ {
			acc[q] += tmp[q]
		}
		ln = v
		i = j + 1
		lines++
	}
	return d.commitRun(i, ln, lines)
}

// decimal reads the run of at most 18 decimal digits at buf[i:]: its
// value and where it ends (i itself when there is none).
func decimal(buf []byte, i int) (int64, int) {
	j := i
	var n int64
	for j < len(buf) && buf[j] >= '0' && buf[j] <= '9' && j-i < 18 {
		n = n*10 + int64(buf[j]-'0')
		j++
	}
	return n, j
}

// signed is the subposition "+n" or "-n" (sign c) relative to base.
func signed(c byte, base, n int64) int64 {
	if c == '-' {
		return base - n
	}
	return base + n
}

func (d *Decoder) commitRun(n int, line int64, lines int32) int32 {
	d.lr.start += n
	d.lr.off += int64(n)
	d.st.Line = line
	return lines
}

// fastCost decodes a plain cost line straight from the read buffer, in
// one pass: decimal or relative subpositions (hex instruction addresses
// too), decimal costs, a newline. Anything else, or a line not wholly
// buffered, returns nil without consuming input, and the general path
// takes the line.
func (d *Decoder) fastCost() *Record {
	lr := d.lr
	buf := lr.buf[lr.start:lr.end]
	if len(buf) == 0 {
		return nil
	}
	if c := buf[0]; !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*') {
		return nil
	}
	i := 0
	instr, ln := d.st.Instr, d.st.Line
	for p := 0; p < 2; p++ {
		if p == 0 && d.st.NoInstr || p == 1 && d.st.NoLine {
			continue
		}
		base := ln
		if p == 0 {
			base = int64(instr)
		}
		if i >= len(buf) {
			return nil
		}
		var v int64
		switch c := buf[i]; {
		case c == '*':
			v = base
			i++
		case c == '+' || c == '-':
			n, e := decimal(buf, i+1)
			if e == i+1 {
				return nil
			}
			v, i = signed(c, base, n), e
		case c == '0' && i+1 < len(buf) && buf[i+1] == 'x':
			i += 2
			j := i
			var n uint64
			for i < len(buf) && i-j < 16 {
				c := buf[i]
				switch {
				case c >= '0' && c <= '9':
					n = n<<4 | uint64(c-'0')
				case c >= 'a' && c <= 'f':
					n = n<<4 | uint64(c-'a'+10)
				default:
					goto hexDone
				}
				i++
			}
		hexDone:
			if i == j {
				return nil
			}
			v = int64(n)
		case c >= '0' && c <= '9':
			v, i = decimal(buf, i)
		default:
			return nil
		}
		if i >= len(buf) || buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' {
			return nil
		}
		if p == 0 {
			instr = uint64(v)
		} else {
			ln = v
		}
	}
	if d.st.NoInstr && d.st.NoLine {
		return nil
	}
	k := 0
	costs := d.costs
	for {
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t') {
			i++
		}
		if i >= len(buf) {
			return nil
		}
		if buf[i] == '\n' {
			break
		}
		if k >= len(costs) {
			return nil
		}
		j := i
		var v int64
		if v, i = decimal(buf, i); i == j || i >= len(buf) || buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' {
			return nil
		}
		costs[k] = v
		k++
	}
	for ; k < len(costs); k++ {
		costs[k] = 0
	}
	off := lr.off
	lr.start += i + 1
	lr.off += int64(i + 1)
	d.st.Instr, d.st.Line = instr, ln
	r := &d.rec
	r.Kind, r.Off, r.Obj, r.File, r.Fn, r.Instr, r.Line = Cost, off, d.st.Obj, d.st.File, d.st.Fn, instr, ln
	r.CObj, r.CFile, r.CFn, r.Count, r.Followed = None, None, None, 0, 0
	d.setFiles(r)
	if r.Obj == None {
		r.Obj = 0
	}
	return r
}

// line interprets one line; it returns a record when the line completes one.
func (d *Decoder) line(line []byte, off int64) *Record {
	if len(line) == 0 {
		return nil
	}
	c := line[0]
	if c >= '0' && c <= '9' || c == '+' || c == '-' || c == '*' {
		return d.costLine(line, off)
	}
	if c == '#' {
		return nil
	}
	if isSpace(c) {
		if len(bytes.TrimLeft(line, " \t")) == 0 {
			return nil
		}
	}
	if d.pend != 0 {
		d.report(d.pendOff, d.pend.keyword()+" line not followed by a cost line", nil)
		d.pend = 0
	}
	i := 0
	for i < len(line) && (line[i] >= 'a' && line[i] <= 'z' || line[i] >= 'A' && line[i] <= 'Z' || line[i] == '_' || line[i] == ' ' || line[i] >= '0' && line[i] <= '9' || line[i] == '-') {
		i++
	}
	if i == len(line) || i == 0 {
		d.report(off, "unknown line", string(line))
		return nil
	}
	key, val := line[:i], line[i+1:]
	if line[i] == ':' {
		d.headerLine(line, off)
		return nil
	}
	if line[i] != '=' {
		d.report(off, "unknown line", string(line))
		return nil
	}
	switch string(key) {
	case "fn":
		d.st.File = d.st.FnFile
		d.st.Fn = d.name(functionNames, val, off)
	case "fl":
		d.st.FnFile = d.name(fileNames, val, off)
		d.st.File = d.st.FnFile
	case "fi", "fe":
		d.st.File = d.name(fileNames, val, off)
	case "ob":
		d.st.Obj = d.name(objectNames, val, off)
	case "cob":
		d.st.CObj = d.name(objectNames, val, off)
	case "cfi", "cfl":
		d.st.CFile = d.name(fileNames, val, off)
	case "cfn":
		d.st.CFn = d.name(functionNames, val, off)
	case "jfi":
		d.jFile = d.name(fileNames, val, off)
	case "jfn":
		d.jFn = d.name(functionNames, val, off)
	case "calls":
		n, rest, ok := leadingNumber(val)
		if !ok || len(rest) == 0 || !isSpace(rest[0]) {
			d.report(off, "bad calls= line", string(line))
			return nil
		}
		d.pend, d.pendCount, d.pendOff = Call, n, off
	case "jump":
		n, _, ok := leadingNumber(val)
		if !ok {
			d.report(off, "bad jump= line", string(line))
			return nil
		}
		d.pend, d.pendCount, d.pendOff = Jump, n, off
	case "jcnd":
		a, rest, ok := leadingNumber(val)
		var b uint64
		if ok && len(rest) > 0 && rest[0] == '/' {
			// valgrind and KCachegrind: followed/executed
			b, _, ok = leadingNumber(rest[1:])
			a, b = b, a
		} else if ok {
			b, _, ok = leadingNumber(rest)
		}
		if !ok {
			d.report(off, "bad jcnd= line", string(line))
			return nil
		}
		d.pend, d.pendCount, d.pendFollowed, d.pendOff = CondJump, a, b, off
	case "rcalls":
		n, _, ok := leadingNumber(val)
		if !ok {
			d.report(off, "bad rcalls= line", string(line))
			return nil
		}
		d.pend, d.pendCount, d.pendOff = Call, n, off
	default:
		d.report(off, "unknown position specification", string(line))
	}
	return nil
}

// headerLine handles a "key: value" line in the body: summary and totals
// (which may come last), or the header of a further part.
func (d *Decoder) headerLine(line []byte, off int64) {
	key, val, _ := bytes.Cut(line, []byte(":"))
	switch string(bytes.TrimSpace(key)) {
	case "summary", "totals":
		// Each part of a file has its own: they add up.
		if d.header == nil {
			return
		}
		c, err := parseCostList(string(val))
		if err != nil {
			d.report(off, "bad "+string(bytes.TrimSpace(key))+": line", string(line))
			return
		}
		dst := &d.header.Totals
		if string(bytes.TrimSpace(key)) == "summary" {
			dst = &d.header.Summary
		}
		for i, v := range c {
			if i < len(*dst) {
				(*dst)[i] += v
			} else {
				*dst = append(*dst, v)
			}
		}
	case "part":
		d.Parts++
	case "thread", "pid":
	case "positions":
		var h Header
		h.set(line, off)
		d.st.NoInstr, d.st.NoLine = !h.HasInstr(), !h.HasLine()
	case "events":
		if !bytes.Equal(bytes.Join(bytes.Fields(val), []byte(" ")), []byte(joinFields(d.f.Header.Events))) {
			d.reportOnce(off, "a later part names other events; its costs are read in the first part's event order", string(line))
		}
	case "cmd", "desc", "creator", "version", "event":
	default:
		d.report(off, "unknown header line in the body", string(line))
	}
}

func joinFields(f []string) string {
	var b []byte
	for i, s := range f {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, s...)
	}
	return string(b)
}

// name resolves the value of a position specification: "(id) name"
// defines id, "(id)" refers to it, anything else is the name itself.
func (d *Decoder) name(kind int, val []byte, off int64) int32 {
	for len(val) > 0 && isSpace(val[0]) {
		val = val[1:]
	}
	if len(val) >= 3 && val[0] == '(' && val[1] >= '0' && val[1] <= '9' {
		// Fast path: "(id)" alone, a reference.
		var id int64
		i := 1
		for i < len(val) && i < 12 && val[i] >= '0' && val[i] <= '9' {
			id = id*10 + int64(val[i]-'0')
			i++
		}
		if i == len(val)-1 && val[i] == ')' {
			n, ok := d.names.lookup(kind, id, off)
			if !ok {
				d.report(off, "compressed name used before its definition", string(val))
				return 0
			}
			return n
		}
	}
	if len(val) >= 2 && val[0] == '(' && val[1] >= '0' && val[1] <= '9' {
		end := bytes.IndexByte(val, ')')
		id, ok := parseNumber(val[1:max(end, 1)])
		if end < 0 || !ok {
			d.report(off, "bad compressed name", string(val))
			return 0
		}
		rest := val[end+1:]
		for len(rest) > 0 && isSpace(rest[0]) {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			n := d.names.internBytes(rest)
			d.names.define(kind, id, off, n)
			return n
		}
		n, ok := d.names.lookup(kind, id, off)
		if !ok {
			d.report(off, "compressed name used before its definition", string(val))
			return 0
		}
		return n
	}
	return d.names.internBytes(val)
}

// costLine handles a line of subpositions and costs.
func (d *Decoder) costLine(line []byte, off int64) *Record {
	rest := line
	instr, ln := d.st.Instr, d.st.Line
	var ok bool
	if !d.st.NoInstr {
		var v int64
		v, rest, ok = subposition(rest, int64(d.st.Instr))
		if !ok {
			d.report(off, "bad instruction address", string(line))
			return nil
		}
		instr = uint64(v)
	}
	if !d.st.NoLine {
		ln, rest, ok = subposition(rest, d.st.Line)
		if !ok {
			d.report(off, "bad line number", string(line))
			return nil
		}
	}
	if d.st.NoInstr && d.st.NoLine {
		// "positions:" with neither: nothing precedes the costs.
		rest = line
	}
	for i := range d.costs {
		d.costs[i] = 0
	}
	k := 0
	for {
		for len(rest) > 0 && isSpace(rest[0]) {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			break
		}
		// Fast path: a plain decimal of up to 18 digits.
		j := 0
		var v int64
		for j < len(rest) && j < 18 && rest[j] >= '0' && rest[j] <= '9' {
			v = v*10 + int64(rest[j]-'0')
			j++
		}
		ok := j > 0 && (j == len(rest) || isSpace(rest[j]))
		if !ok {
			for j < len(rest) && !isSpace(rest[j]) {
				j++
			}
			v, ok = parseNumber(rest[:j])
		}
		tok := rest[:j]
		rest = rest[j:]
		if !ok {
			v, ok = annotateNumber(tok)
			if !ok {
				d.report(off, "bad cost", string(line))
				return nil
			}
			d.reportOnce(off, "cost with a sign or '*' (the spec allows plain numbers): read as callgrind_annotate reads it", string(line))
		}
		if k < d.nev {
			d.costs[k] = v
		} else if k == d.nev {
			d.reportOnce(off, "more costs than events: the extra ones are ignored", string(line))
		}
		k++
	}
	d.st.Instr, d.st.Line = instr, ln
	pend := d.pend
	d.pend = 0
	r := &d.rec
	r.Off, r.Obj, r.File, r.Fn, r.Instr, r.Line = off, d.st.Obj, d.st.File, d.st.Fn, instr, ln
	r.CObj, r.CFile, r.CFn, r.Count, r.Followed, r.Lines = None, None, None, 0, 0, 1
	if d.st.Fn == None {
		d.reportOnce(off, "cost before any fn= line: charged to an unnamed function", nil)
		r.Fn = 0
	}
	d.setFiles(r)
	if r.Obj == None {
		r.Obj = 0
	}
	switch pend {
	case 0:
		r.Kind = Cost
	case Call:
		r.Kind = Call
		r.Count = d.pendCount
		r.CObj, r.CFile, r.CFn = d.st.CObj, d.st.CFile, d.st.CFn
		if r.CObj == None {
			r.CObj = r.Obj
		}
		if r.CFile == None {
			r.CFile = r.File
		}
		d.st.CObj, d.st.CFile = None, None
		if r.CFn == None {
			d.report(d.pendOff, "calls= without a cfn= line before it: call skipped", nil)
			return nil
		}
		r.Off = d.pendOff
	case Jump, CondJump:
		r.Kind = pend
		r.Count, r.Followed = d.pendCount, d.pendFollowed
		r.CFile, r.CFn = d.jFile, d.jFn
		d.jFile, d.jFn = None, None
		r.Off = d.pendOff
	}
	return r
}

// subposition reads one subposition ("*", "+n", "-n" relative to base,
// or an absolute number) and the spaces after it.
func subposition(b []byte, base int64) (int64, []byte, bool) {
	if len(b) == 0 {
		return 0, b, false
	}
	var v int64
	switch b[0] {
	case '*':
		v, b = base, b[1:]
	case '+', '-':
		n, rest, ok := leadingNumber(b[1:])
		if !ok {
			return 0, b, false
		}
		if b[0] == '+' {
			v = base + int64(n)
		} else {
			v = base - int64(n)
		}
		b = rest
	default:
		n, rest, ok := leadingNumber(b)
		if !ok {
			return 0, b, false
		}
		v, b = int64(n), rest
	}
	if len(b) > 0 && !isSpace(b[0]) {
		return 0, b, false
	}
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return v, b, true
}

// leadingNumber reads a decimal or 0x-hex number at the start of b,
// skipping spaces before it.
func leadingNumber(b []byte) (uint64, []byte, bool) {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	if len(b) > 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		var v uint64
		i := 2
		for ; i < len(b) && i < 2+16; i++ {
			c := b[i]
			switch {
			case c >= '0' && c <= '9':
				v = v<<4 | uint64(c-'0')
			case c >= 'a' && c <= 'f':
				v = v<<4 | uint64(c-'a'+10)
			case c >= 'A' && c <= 'F':
				v = v<<4 | uint64(c-'A'+10)
			default:
				return v, b[i:], i > 2
			}
		}
		if i < len(b) && isHex(b[i]) {
			return 0, b, false
		}
		return v, b[i:], true
	}
	var v uint64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v > (1<<63-1)/10 {
			return 0, b, false
		}
		v = v*10 + uint64(b[i]-'0')
	}
	return v, b[i:], i > 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseNumber reads a whole token as a number.
func parseNumber(tok []byte) (int64, bool) {
	if len(tok) > 0 && tok[0] >= '0' && tok[0] <= '9' && len(tok) < 19 {
		var v int64
		for _, c := range tok {
			if c < '0' || c > '9' {
				goto slow
			}
			v = v*10 + int64(c-'0')
		}
		return v, true
	}
slow:
	v, rest, ok := leadingNumber(tok)
	if !ok || len(rest) > 0 || v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// annotateNumber reads a cost token the way callgrind_annotate's Perl
// does for what the spec does not allow: a sign, or "*" (zero).
func annotateNumber(tok []byte) (int64, bool) {
	if len(tok) == 1 && tok[0] == '*' {
		return 0, true
	}
	if len(tok) > 1 && (tok[0] == '+' || tok[0] == '-') {
		v, ok := parseNumber(tok[1:])
		if tok[0] == '-' {
			v = -v
		}
		return v, ok
	}
	return 0, false
}

// IsDamagedGzip reports whether err comes from a damaged gzip stream.
func IsDamagedGzip(err error) bool {
	return errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF)
}
