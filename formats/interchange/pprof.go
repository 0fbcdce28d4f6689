package interchange

import (
	"bytes"
	"compress/gzip"
)

// pprofBytes encodes t as a gzipped pprof profile (profile.proto of
// github.com/google/pprof): one sample type per metric, one sample per
// node with a non-zero exclusive value (its stack leaf first), one
// location per frame, one function per (name, file) and one mapping per
// load module. It writes the protobuf fields straight from the tree into
// the gzip stream, so that building the profile never holds a second copy
// of the tree: what it keeps besides the compressed output is the string
// table and one id per function. (The profile package's Profile would
// hold every sample's stack again, 490 MB for a 1M-node hpcrun CCT; the
// tests read the result back with it and with go tool pprof.)
func pprofBytes(t *Tree, comments []string) ([]byte, error) {
	var out bytes.Buffer
	w := &pbWriter{strings: map[string]int64{"": 0}, list: []string{""}}
	w.gz, _ = gzip.NewWriterLevel(&out, gzip.BestSpeed)
	nm := len(t.Metrics)
	for _, m := range t.Metrics {
		w.msg.reset()
		w.msg.int(1, w.str(m.Name))
		w.msg.int(2, w.str(m.Unit))
		w.field(1, &w.msg)
	}
	if nm > 0 {
		w.top.reset()
		w.top.int(14, w.str(t.Metrics[0].Name))
		w.flush(&w.top)
	}
	for _, c := range comments {
		w.top.reset()
		w.top.int(13, w.str(c))
		w.flush(&w.top)
	}
	rootLoc := uint64(len(t.frames) + 1) // the location of values at the root
	usedRoot := false
	for _, x := range t.order {
		vals := t.vals[int(x)*nm : int(x)*nm+nm]
		nonzero := false
		for _, v := range vals {
			nonzero = nonzero || v != 0
		}
		if !nonzero {
			continue
		}
		w.sub.reset()
		if x == Root {
			w.sub.uvarint(rootLoc)
			usedRoot = true
		} else {
			for y := x; y != Root; y = t.parent[y] {
				w.sub.uvarint(uint64(t.frame[y]) + 1)
			}
		}
		w.msg.reset()
		w.msg.bytes(1, w.sub.b)
		w.sub.reset()
		for _, v := range vals {
			w.sub.uvarint(uint64(v))
		}
		w.msg.bytes(2, w.sub.b)
		w.field(2, &w.msg)
	}
	type fnKey struct{ name, file string }
	functions := map[fnKey]uint64{}
	mappings := map[string]uint64{}
	var mapFiles []string
	var mapFlags [][2]bool // has file names, has line numbers
	for i, f := range t.frames {
		label := FrameLabel(f)
		k := fnKey{label, f.File}
		fn := functions[k]
		if fn == 0 {
			fn = uint64(len(functions) + 1)
			functions[k] = fn
			w.msg.reset()
			w.msg.uint(1, fn)
			w.msg.int(2, w.str(label))
			w.msg.int(3, w.str(f.Name))
			w.msg.int(4, w.str(f.File))
			w.field(5, &w.msg)
		}
		var mp uint64
		if f.Module != "" {
			mp = mappings[f.Module]
			if mp == 0 {
				mapFiles = append(mapFiles, f.Module)
				mapFlags = append(mapFlags, [2]bool{})
				mp = uint64(len(mapFiles))
				mappings[f.Module] = mp
			}
			mapFlags[mp-1][0] = mapFlags[mp-1][0] || f.File != ""
			mapFlags[mp-1][1] = mapFlags[mp-1][1] || f.Line != 0
		}
		w.sub.reset()
		w.sub.uint(1, fn)
		w.sub.int(2, f.Line)
		w.msg.reset()
		w.msg.uint(1, uint64(i)+1)
		w.msg.uint(2, mp)
		w.msg.uint(3, f.Addr)
		w.msg.bytes(4, w.sub.b)
		w.field(4, &w.msg)
	}
	if usedRoot {
		fn := uint64(len(functions) + 1)
		w.msg.reset()
		w.msg.uint(1, fn)
		w.msg.int(2, w.str(t.label(Root)))
		w.field(5, &w.msg)
		w.sub.reset()
		w.sub.uint(1, fn)
		w.msg.reset()
		w.msg.uint(1, rootLoc)
		w.msg.bytes(4, w.sub.b)
		w.field(4, &w.msg)
	}
	for i, file := range mapFiles {
		w.msg.reset()
		w.msg.uint(1, uint64(i)+1)
		w.msg.int(5, w.str(file))
		w.msg.uint(7, 1) // has_functions: nothing to symbolize
		w.msg.uint(8, boolInt(mapFlags[i][0]))
		w.msg.uint(9, boolInt(mapFlags[i][1]))
		w.field(3, &w.msg)
	}
	for _, s := range w.list {
		w.top.reset()
		w.top.bytes(6, []byte(s))
		w.flush(&w.top)
	}
	if w.err != nil {
		return nil, w.err
	}
	if err := w.gz.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func boolInt(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// pbWriter writes the top-level fields of a profile into a gzip stream.
type pbWriter struct {
	gz            *gzip.Writer
	err           error
	top, msg, sub pbuf
	strings       map[string]int64
	list          []string
}

// str is the string table index of s.
func (w *pbWriter) str(s string) int64 {
	if i, ok := w.strings[s]; ok {
		return i
	}
	i := int64(len(w.list))
	w.strings[s] = i
	w.list = append(w.list, s)
	return i
}

// field writes the message in m as top-level field f.
func (w *pbWriter) field(f int, m *pbuf) {
	w.top.reset()
	w.top.bytes(f, m.b)
	w.flush(&w.top)
}

func (w *pbWriter) flush(p *pbuf) {
	if w.err == nil {
		_, w.err = w.gz.Write(p.b)
	}
}

// pbuf encodes protobuf fields into a reused buffer.
type pbuf struct{ b []byte }

func (p *pbuf) reset()             { p.b = p.b[:0] }
func (p *pbuf) tag(f, wire int)    { p.uvarint(uint64(f)<<3 | uint64(wire)) }
func (p *pbuf) int(f int, v int64) { p.uint(f, uint64(v)) }

// uvarint appends v in base-128, low groups first.
func (p *pbuf) uvarint(v uint64) {
	for v >= 0x80 {
		p.b = append(p.b, byte(v)|0x80)
		v >>= 7
	}
	p.b = append(p.b, byte(v))
}

// uint writes a varint field; zero, the proto3 default, is left out.
func (p *pbuf) uint(f int, v uint64) {
	if v != 0 {
		p.tag(f, 0)
		p.uvarint(v)
	}
}

// bytes writes a length-delimited field (a message, packed values or a
// string).
func (p *pbuf) bytes(f int, b []byte) {
	p.tag(f, 2)
	p.uvarint(uint64(len(b)))
	p.b = append(p.b, b...)
}
