package webgrind

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/hpcfs/hpcfs/decode"
)

// A Reader decodes function records. It keeps a window of the input so
// that records read in address order cost one read per window. A Reader
// is used by one goroutine at a time; make one per cursor.
type Reader struct {
	f     *File
	chunk int64
	buf   []byte
	start int64
}

// NewReader returns a Reader for sequential reading (large window).
func (f *File) NewReader() *Reader { return &Reader{f: f, chunk: 256 << 10} }

// NewReaderSmall returns a Reader for a few scattered records (small window).
func (f *File) NewReaderSmall() *Reader { return &Reader{f: f, chunk: 4 << 10} }

// at returns n bytes at off, from the window when it covers them.
func (rd *Reader) at(off, n int64) ([]byte, error) {
	size := rd.f.size
	if off < 0 || n < 0 || off > size || n > size-off {
		return nil, io.ErrUnexpectedEOF
	}
	if off >= rd.start && off+n <= rd.start+int64(len(rd.buf)) {
		return rd.buf[off-rd.start : off-rd.start+n], nil
	}
	want := max(n, rd.chunk)
	want = min(want, size-off)
	if want > 4<<20 {
		return decode.ReadAt(rd.f.r, size, off, n)
	}
	if int64(cap(rd.buf)) < want {
		rd.buf = make([]byte, want)
	}
	rd.buf = rd.buf[:want]
	k, err := rd.f.r.ReadAt(rd.buf, off)
	if int64(k) < want && err == nil {
		err = io.ErrUnexpectedEOF
	}
	if err != nil && !(err == io.EOF && int64(k) == want) {
		rd.buf = rd.buf[:0]
		return nil, err
	}
	rd.start = off
	return rd.buf[:n], nil
}

// line reads one '\n'-terminated string at off and returns it trimmed as
// webgrind's Reader does, and the offset after the newline.
func (rd *Reader) line(section string, off int64) (string, int64, error) {
	for n := int64(256); ; n *= 4 {
		n = min(n, rd.f.size-off)
		b, err := rd.at(off, n)
		if err != nil {
			return "", 0, errAt(section, off, "string runs past the end of the file", nil, decode.ErrTruncated)
		}
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return string(bytes.Trim(b[:i], " \t\r\x00\x0b")), off + int64(i) + 1, nil
		}
		if off+n >= rd.f.size {
			return "", 0, errAt(section, off, "string not terminated by a newline", nil, decode.ErrTruncated)
		}
		if n >= maxLine {
			return "", 0, errAt(section, off, "string longer than 1 MiB", nil, decode.ErrFormat)
		}
	}
}

func (rd *Reader) words(section string, off int64, n int) ([]byte, error) {
	b, err := rd.at(off, int64(n)*wordSize)
	if err != nil {
		return nil, errAt(section, off, fmt.Sprintf("%d-byte record runs past the end of the file", n*wordSize), nil, decode.ErrTruncated)
	}
	return b, nil
}

func u32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[4*i:]) }

func (rd *Reader) addr(i int) (int64, string, error) {
	section := fmt.Sprintf("function %d", i)
	if i < 0 || i >= len(rd.f.Addrs) {
		return 0, section, errAt(section, 12, "no such function", i, decode.ErrFormat)
	}
	a := int64(rd.f.Addrs[i])
	if a >= rd.f.size {
		return 0, section, errAt(section, 12+4*int64(i), "record address past the end of the file", a, decode.ErrFormat)
	}
	return a, section, nil
}

// layout is where the parts of a version 5–7 record start.
type layout struct {
	fixed      int // words before the call lists
	cf, sc     uint32
	calls      int64 // offset of the first call entry
	names      int64 // offset of the file name
	self, incl uint32
	inv, line  uint32
}

func (rd *Reader) layout(i int) (layout, string, error) {
	a, section, err := rd.addr(i)
	if err != nil {
		return layout{}, section, err
	}
	var l layout
	switch rd.f.Version {
	case V7:
		l.fixed = 6
	case V6:
		l.fixed = 5
	case V5:
		l.fixed = 4
	}
	b, err := rd.words(section, a, l.fixed)
	if err != nil {
		return l, section, err
	}
	w := b
	if rd.f.Version == V7 {
		l.line = u32(w, 0)
		w = w[4:]
	}
	l.self, l.incl, l.inv, l.cf = u32(w, 0), u32(w, 1), u32(w, 2), u32(w, 3)
	if rd.f.Version != V5 {
		l.sc = u32(w, 4)
	}
	l.calls = a + int64(l.fixed)*wordSize
	entries := int64(l.cf) + int64(l.sc)
	if entries > (rd.f.size-l.calls)/callSize {
		return l, section, errAt(section, a, fmt.Sprintf("%d called-from and %d sub-call entries cannot fit in the file", l.cf, l.sc), nil, decode.ErrFormat)
	}
	l.names = l.calls + entries*callSize
	return l, section, nil
}

// Function decodes the summary of function i.
func (f *File) Function(i int) (Function, error) { return f.NewReaderSmall().Function(i) }

// Function decodes the summary of function i.
func (rd *Reader) Function(i int) (Function, error) {
	if rd.f.Version == V4 {
		fn, _, err := rd.function4(i, false)
		return fn, err
	}
	l, section, err := rd.layout(i)
	fn := Function{Nr: i}
	if err != nil {
		return fn, err
	}
	fn.Addr = int64(rd.f.Addrs[i])
	fn.Line, fn.Self, fn.Inclusive, fn.Invocations = l.line, uint64(l.self), uint64(l.incl), uint64(l.inv)
	fn.CalledFromCount, fn.SubCallCount = l.cf, l.sc
	off := l.names
	if fn.File, off, err = rd.line(section+" file name", off); err != nil {
		return fn, err
	}
	if fn.Name, _, err = rd.line(section+" function name", off); err != nil {
		return fn, err
	}
	return fn, nil
}

func (rd *Reader) callList(section string, off int64, n uint32) ([]Call, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := rd.at(off, int64(n)*callSize)
	if err != nil {
		return nil, errAt(section, off, "call list runs past the end of the file", n, decode.ErrTruncated)
	}
	out := make([]Call, n)
	for j := range out {
		e := b[callSize*j:]
		out[j] = Call{Function: u32(e, 0), Line: u32(e, 1), Count: uint64(u32(e, 2)), Cost: uint64(u32(e, 3))}
	}
	return out, nil
}

// Calls decodes the called-from and sub-call lists of function i. Version
// 5 has no sub-call list (nil). Version 4 lists are aggregated from the
// invocation and sub-call records by (function, line) in first-seen order,
// each record counting one call, as later versions count them.
func (f *File) Calls(i int) (calledFrom, subCalls []Call, err error) {
	return f.NewReaderSmall().Calls(i)
}

// Calls is File.Calls through the reader's window.
func (rd *Reader) Calls(i int) (calledFrom, subCalls []Call, err error) {
	if rd.f.Version == V4 {
		return rd.calls4(i)
	}
	l, section, err := rd.layout(i)
	if err != nil {
		return nil, nil, err
	}
	if calledFrom, err = rd.callList(section+" called-from list", l.calls, l.cf); err != nil {
		return nil, nil, err
	}
	subCalls, err = rd.callList(section+" sub-call list", l.calls+int64(l.cf)*callSize, l.sc)
	return calledFrom, subCalls, err
}

// CalledFrom decodes only the called-from list of function i.
func (rd *Reader) CalledFrom(i int) ([]Call, error) {
	if rd.f.Version == V4 {
		cf, _, err := rd.calls4(i)
		return cf, err
	}
	l, section, err := rd.layout(i)
	if err != nil {
		return nil, err
	}
	return rd.callList(section+" called-from list", l.calls, l.cf)
}

// function4 decodes a version 4 record; with invs it also returns the
// invocation records.
func (rd *Reader) function4(i int, withInvs bool) (Function, []Invocation, error) {
	fn := Function{Nr: i}
	a, section, err := rd.addr(i)
	if err != nil {
		return fn, nil, err
	}
	fn.Addr = a
	b, err := rd.words(section, a, 4)
	if err != nil {
		return fn, nil, err
	}
	fn.TotalCallCost = uint64(u32(b, 2))
	n := u32(b, 3)
	off := a + 16
	if int64(n) > (rd.f.size-off)/invSize {
		return fn, nil, errAt(section, a+12, fmt.Sprintf("invocation count %d cannot fit in the file", n), nil, decode.ErrFormat)
	}
	fn.Invocations = uint64(n)
	var invs []Invocation
	if withInvs {
		invs = make([]Invocation, 0, n)
	}
	for j := uint32(0); j < n; j++ {
		w, err := rd.words(section+" invocations", off, 8)
		if err != nil {
			return fn, invs, err
		}
		inv := Invocation{u32(w, 0), u32(w, 1), u32(w, 2), u32(w, 3), u32(w, 4), u32(w, 5), u32(w, 6), u32(w, 7)}
		fn.Self += uint64(inv.Self)
		fn.Inclusive += uint64(inv.Inclusive)
		if withInvs {
			invs = append(invs, inv)
		}
		off += invSize
	}
	if fn.File, off, err = rd.line(section+" file name", off); err != nil {
		return fn, invs, err
	}
	if fn.Name, _, err = rd.line(section+" function name", off); err != nil {
		return fn, invs, err
	}
	return fn, invs, nil
}

// Invocations decodes the invocation records of version 4 function i.
func (rd *Reader) Invocations(i int) (Function, []Invocation, error) {
	if rd.f.Version != V4 {
		return Function{Nr: i}, nil, errAt("", 0, "invocation records exist in version 4 only", rd.f.Version, decode.ErrFormat)
	}
	return rd.function4(i, true)
}

// SubCallRecords decodes the sub-call records of one version 4 invocation.
func (rd *Reader) SubCallRecords(fnNr int, inv Invocation) ([]SubCall, error) {
	if inv.SubCallN == 0 {
		return nil, nil
	}
	section := fmt.Sprintf("function %d sub-calls", fnNr)
	off := int64(inv.SubCallAddr)
	if off > rd.f.size || int64(inv.SubCallN) > (rd.f.size-off)/callSize {
		return nil, errAt(section, off, fmt.Sprintf("%d sub-call records at %d cannot fit in the file", inv.SubCallN, off), nil, decode.ErrFormat)
	}
	b, err := rd.at(off, int64(inv.SubCallN)*callSize)
	if err != nil {
		return nil, errAt(section, off, "sub-call records run past the end of the file", nil, decode.ErrTruncated)
	}
	out := make([]SubCall, inv.SubCallN)
	for j := range out {
		e := b[callSize*j:]
		out[j] = SubCall{u32(e, 0), u32(e, 1), u32(e, 2), u32(e, 3)}
	}
	return out, nil
}

type callKey struct{ fn, line uint32 }

type aggregator struct {
	index map[callKey]int
	calls []Call
}

func (g *aggregator) add(fn, line uint32, cost uint64) {
	if g.index == nil {
		g.index = map[callKey]int{}
	}
	k := callKey{fn, line}
	j, ok := g.index[k]
	if !ok {
		j = len(g.calls)
		g.index[k] = j
		g.calls = append(g.calls, Call{Function: fn, Line: line})
	}
	g.calls[j].Count++
	g.calls[j].Cost += cost
}

func (rd *Reader) calls4(i int) (calledFrom, subCalls []Call, err error) {
	_, invs, err := rd.function4(i, true)
	var cf, sc aggregator
	for _, inv := range invs {
		if inv.Caller != NoCaller {
			cf.add(inv.Caller, inv.CallerLine, uint64(inv.CallCost))
		}
	}
	if err != nil {
		return cf.calls, nil, err
	}
	// Each sub-call record belongs to one invocation, so a function's
	// invocations cannot reference more records than the file holds.
	var total int64
	for _, inv := range invs {
		total += int64(inv.SubCallN)
	}
	if total > rd.f.size/callSize {
		return cf.calls, nil, errAt(fmt.Sprintf("function %d sub-calls", i), int64(rd.f.Addrs[i]),
			fmt.Sprintf("%d sub-call records cannot fit in the file", total), nil, decode.ErrFormat)
	}
	for _, inv := range invs {
		subs, err := rd.SubCallRecords(i, inv)
		if err != nil {
			return cf.calls, sc.calls, err
		}
		for _, s := range subs {
			sc.add(s.Function, s.Line, uint64(s.Cost))
		}
	}
	return cf.calls, sc.calls, nil
}
