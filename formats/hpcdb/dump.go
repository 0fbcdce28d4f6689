package hpcdb

import (
	"sort"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/render"
)

// The dump/*.txt views reproduce hpcproftt's text rendering of the binary
// files (HPCToolkit Analysis::Raw::writeAsText_sparseDB{thread,cct} and
// writeAsText_tracedb at the 2022.05 develop state): headers and index
// sections from their pointers, then the data blocks read one after the
// other from the end of the last index section, as the tool reads them.

func align8(v uint64) uint64 { return (v + 7) &^ 7 }

// A dumpField is a "(name: value)" line of a dump's [hdr: ...] block.
type dumpField struct {
	name string
	v    int64 // as C's %d prints it (i32 for 32-bit fields)
}

// i32 is v as C's %d of an unsigned 32-bit value prints it.
func i32(v uint32) int64 { return int64(int32(v)) }

// dumpHeader is the [hdr: ...] block that starts hpcproftt's text of
// every file: the magic, the version, then one line per field.
func dumpHeader(magic string, major, minor uint8, fields ...dumpField) []byte {
	b := append([]byte(magic), "\n[hdr:\n  (version: "...)
	b = strconv.AppendInt(b, int64(major), 10)
	b = append(b, '.')
	b = strconv.AppendInt(b, int64(minor), 10)
	b = append(b, ")\n  "...)
	b = appendFields(b, "\n  ", fields...)
	return append(b, "\n]\n"...)
}

// appendFields appends "(name: v)" for each field, sep between them.
func appendFields(b []byte, sep string, fields ...dumpField) []byte {
	for i, f := range fields {
		if i > 0 {
			b = append(b, sep...)
		}
		b = append(b, '(')
		b = append(b, f.name...)
		b = append(b, ": "...)
		b = strconv.AppendInt(b, f.v, 10)
		b = append(b, ')')
	}
	return b
}

func profileDumpParts(p *hpcdb.ProfileDB) []render.Part {
	h := p.Header
	b := dumpHeader(hpcdb.ProfileMagic, h.Major, h.Minor, dumpField{"num_prof", i32(h.NumProf)}, dumpField{"num_sec", int64(h.NumSec)},
		dumpField{"prof_info_sec_size", int64(h.InfoSize)}, dumpField{"prof_info_sec_ptr", int64(h.InfoPtr)},
		dumpField{"id_tuples_sec_size", int64(h.TupleSize)}, dumpField{"id_tuples_sec_ptr", int64(h.TuplePtr)})
	parts := []render.Part{render.TextPart(string(b))}
	if err := p.Problems.Err(); err != nil {
		return append(parts, render.ErrPart(err))
	}
	b = append(b[:0], "[Profile informations for "...)
	b = appendI32(b, h.NumProf)
	b = append(b, " profiles\n"...)
	parts = append(parts, render.TextPart(string(b)), render.Part{N: int64(len(p.Profiles)), Render: func(dst []byte, from, count int64) ([]byte, error) {
		for i := from; i < from+count; i++ {
			pi := p.Profiles[i]
			dst = append(dst, "  "...)
			dst = strconv.AppendInt(dst, i, 10)
			dst = append(dst, '[')
			dst = appendFields(dst, " ", dumpField{"id_tuple_ptr", int64(pi.TuplePtr)}, dumpField{"metadata_ptr", int64(pi.MetadataPtr)},
				dumpField{"spare_one", int64(pi.SpareOne)}, dumpField{"spare_two", int64(pi.SpareTwo)}, dumpField{"num_vals", int64(pi.NumVals)},
				dumpField{"num_nzctxs", i32(pi.NumCtxs)}, dumpField{"starting location", int64(pi.Offset)})
			dst = append(dst, "]\n"...)
		}
		return dst, nil
	}}, render.TextPart("]\n"))

	// Identifier tuples, read one after the other from the section start.
	b = append(b[:0], "[Id tuples for "...)
	b = appendI32(b, h.NumProf)
	b = append(b, " profiles, total size "...)
	b = appendI64(b, h.TupleSize)
	b = append(b, '\n')
	off := h.TuplePtr
	for i := 0; i < len(p.Profiles); i++ {
		t, n, err := p.TupleAt(off)
		if err != nil {
			return append(parts, render.TextPart(string(b)), render.ErrPart(err))
		}
		off += uint64(n)
		b = append(b, "  "...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = appendTuple(b, t)
	}
	b = append(b, "]\n"...)
	parts = append(parts, render.TextPart(string(b)))

	order := make([]int, len(p.Profiles))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p.Profiles[order[a]].Offset < p.Profiles[order[b]].Offset })
	pos := h.TuplePtr + align8(h.TupleSize)
	for _, i := range order {
		pi := p.Profiles[i]
		valPos, ctxPos := pos, pos+pi.NumVals*hpcdb.ProfileValueSize
		head := "[profile " + strconv.Itoa(i) + "\n  [metrics:\n  (NOTES: printed in file order, help checking if the file is correct)\n"
		parts = append(parts, render.TextPart(head), render.Part{N: int64(pi.NumVals), Render: func(dst []byte, from, count int64) ([]byte, error) {
			vals, err := readProfileValues(p, valPos+uint64(from)*hpcdb.ProfileValueSize, uint64(count))
			for _, v := range vals {
				dst = append(dst, "    (value: "...)
				dst = render.AppendC(dst, v.Value, 'g')
				dst = append(dst, ", metric id: "...)
				dst = strconv.AppendInt(dst, int64(v.Metric), 10)
				dst = append(dst, ")\n"...)
			}
			return dst, err
		}}, render.TextPart("  ]\n  [ctx indices:\n"), render.Part{N: int64(pi.NumCtxs) + 1, Render: func(dst []byte, from, count int64) ([]byte, error) {
			pairs, err := readProfileCtxs(p, ctxPos+uint64(from)*hpcdb.ProfileCtxSize, uint64(count))
			for k, c := range pairs {
				if from+int64(k) == int64(pi.NumCtxs) && c.Ctx == hpcdb.ProfileEndMarker {
					dst = append(dst, "    (ctx id: END, index: "...)
					dst = appendI64(dst, c.Index)
					dst = append(dst, ")\n  ]\n"...)
					continue
				}
				dst = append(dst, "    (ctx id: "...)
				dst = appendI32(dst, c.Ctx)
				dst = append(dst, ", index: "...)
				dst = appendI64(dst, c.Index)
				dst = append(dst, ")\n"...)
			}
			return dst, err
		}}, render.TextPart("]\n"))
		pos = ctxPos + (uint64(pi.NumCtxs)+1)*hpcdb.ProfileCtxSize
	}
	footerPos := pos
	parts = append(parts, render.Part{N: 1, Render: func(dst []byte, _, _ int64) ([]byte, error) {
		if err := p.FooterAt(footerPos); err != nil {
			return dst, err
		}
		return append(dst, "PROFILEDB FOOTER CORRECT, FILE COMPLETE\n"...), nil
	}})
	return parts
}

func appendTuple(b []byte, t []hpcdb.IDElem) []byte {
	b = append(b, '[')
	for _, e := range t {
		b = append(b, '(')
		k := e.Kind()
		switch {
		case k == hpcdb.KindSummary:
			b = append(b, "SUMMARY"...)
			if e.RawKind != 0 {
				b = append(b, '[')
				b = append(b, e.Interp().String()...)
				b = append(b, ']')
			}
		case k <= hpcdb.KindCore:
			b = append(b, k.String()...)
			b = append(b, '(')
			b = append(b, e.Interp().String()...)
			b = append(b, ')')
		default:
			b = append(b, '[')
			b = strconv.AppendUint(b, uint64(k), 10)
			b = append(b, "]("...)
			b = append(b, e.Interp().String()...)
			b = append(b, ')')
		}
		if e.RawKind != 0 {
			b = append(b, ": "...)
			if e.Interp() != hpcdb.InterpLogicalOnly {
				b = strconv.AppendUint(b, e.Physical, 10)
				b = append(b, ", "...)
			}
			b = strconv.AppendUint(b, e.Logical, 10)
			b = append(b, ") "...)
		} else {
			b = append(b, ')')
		}
	}
	return append(b, "]\n"...)
}

func cctDumpParts(c *hpcdb.CCTDB) []render.Part {
	h := c.Header
	b := dumpHeader(hpcdb.CCTMagic, h.Major, h.Minor, dumpField{"num_ctx", i32(h.NumCtx)}, dumpField{"num_sec", int64(h.NumSec)},
		dumpField{"ctx_info_sec_size", int64(h.InfoSize)}, dumpField{"ctx_info_sec_ptr", int64(h.InfoPtr)})
	b = append(b, "[Context informations for "...)
	b = appendI32(b, h.NumCtx)
	b = append(b, " Contexts\n"...)
	parts := []render.Part{render.TextPart(string(b)), render.Part{N: int64(h.NumCtx), Render: func(dst []byte, from, count int64) ([]byte, error) {
		infos, err := c.Infos(uint64(from), uint64(count), nil)
		for _, x := range infos {
			dst = append(dst, "  [(context id: "...)
			dst = appendI32(dst, x.Ctx)
			dst = append(dst, ") (num_vals: "...)
			dst = appendI64(dst, x.NumVals)
			dst = append(dst, ") (num_nzmids: "...)
			dst = strconv.AppendInt(dst, int64(x.NumMetric), 10)
			dst = append(dst, ") (starting location: "...)
			dst = appendI64(dst, x.Offset)
			dst = append(dst, ")]\n"...)
		}
		return dst, err
	}}, render.TextPart("]\n")}

	// Blocks of the non-empty contexts, one after the other.
	type block struct {
		info hpcdb.CtxInfo
		pos  uint64
	}
	var blocks []block
	pos := h.InfoPtr + align8(h.InfoSize)
	var planErr error
	const batch = 4096
	for k := uint64(0); k < uint64(h.NumCtx); k += batch {
		infos, err := c.Infos(k, batch, nil)
		if err != nil {
			planErr = err
			break
		}
		for _, x := range infos {
			if x.NumVals == 0 {
				continue
			}
			if x.NumVals > uint64(c.Size()) {
				planErr = dataErr("cct.db", int64(pos), "context value count larger than the file")
				break
			}
			blocks = append(blocks, block{x, pos})
			pos += x.NumVals*hpcdb.CCTValueSize + (uint64(x.NumMetric)+1)*hpcdb.CCTMetricSize
		}
		if planErr != nil {
			break
		}
	}
	parts = append(parts, render.Part{N: int64(len(blocks)), Render: func(dst []byte, from, count int64) ([]byte, error) {
		for _, bl := range blocks[from : from+count] {
			vals, mets, err := c.BlockAt(int64(bl.pos), bl.info.NumVals, bl.info.NumMetric)
			if err != nil {
				return dst, err
			}
			dst = append(dst, "[context "...)
			dst = appendI32(dst, bl.info.Ctx)
			dst = append(dst, "\n  [metrics:\n  (NOTES: printed in file order, help checking if the file is correct)\n"...)
			for _, v := range vals {
				dst = append(dst, "    (value: "...)
				dst = render.AppendC(dst, v.Value, 'g')
				dst = append(dst, ", profile idx: "...)
				dst = appendI32(dst, v.Prof)
				dst = append(dst, ")\n"...)
			}
			dst = append(dst, "  ]\n  [metric indices:\n"...)
			for k, m := range mets {
				if k == len(mets)-1 && m.Metric == hpcdb.CCTEndMarker {
					dst = append(dst, "    (metric id: END, index: "...)
					dst = appendI64(dst, m.Index)
					dst = append(dst, ")\n  ]\n"...)
					continue
				}
				dst = append(dst, "    (metric id: "...)
				dst = strconv.AppendInt(dst, int64(m.Metric), 10)
				dst = append(dst, ", index: "...)
				dst = appendI64(dst, m.Index)
				dst = append(dst, ")\n"...)
			}
			dst = append(dst, "]\n"...)
		}
		return dst, nil
	}})
	if planErr != nil {
		return append(parts, render.ErrPart(planErr))
	}
	footerPos := pos
	return append(parts, render.Part{N: 1, Render: func(dst []byte, _, _ int64) ([]byte, error) {
		if err := c.FooterAt(footerPos); err != nil {
			return dst, err
		}
		return append(dst, "CCTDB FOOTER CORRECT, FILE COMPLETE\n"...), nil
	}})
}

func traceDumpParts(t *hpcdb.TraceDB) []render.Part {
	h := t.Header
	b := dumpHeader(hpcdb.TraceMagic, h.Major, h.Minor, dumpField{"num_trace", i32(h.NumTraces)}, dumpField{"num_sec", int64(h.NumSec)},
		dumpField{"trace_hdr_sec_size", int64(h.HdrSize)}, dumpField{"trace_hdr_sec_ptr", int64(h.HdrPtr)})
	b = append(b, "[Trace hdrs for "...)
	b = appendI32(b, h.NumTraces)
	b = append(b, " traces\n"...)
	for i, l := range t.Lines {
		b = append(b, "  "...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, "[(prof_info_idx: "...)
		b = appendI32(b, l.Prof)
		b = append(b, ") (trace_idx: "...)
		b = strconv.AppendInt(b, int64(l.Index), 10)
		b = append(b, ") (start: "...)
		b = appendI64(b, l.Start)
		b = append(b, ") (end: "...)
		b = appendI64(b, l.End)
		b = append(b, ")]\n"...)
	}
	if err := t.Problems.Err(); err != nil {
		return []render.Part{render.TextPart(string(b)), render.ErrPart(err)}
	}
	b = append(b, "]\n"...)
	parts := []render.Part{render.TextPart(string(b))}
	lines := append([]hpcdb.TraceLine(nil), t.Lines...)
	sort.SliceStable(lines, func(a, b int) bool { return lines[a].Start < lines[b].Start })
	pos := h.HdrPtr + align8(h.HdrSize)
	for _, l := range lines {
		n := l.NumSamples()
		start := pos
		parts = append(parts, render.TextPart("[Trace "+strconv.FormatInt(int64(int32(l.Prof)), 10)+":\n"), render.Part{N: int64(n), Render: func(dst []byte, from, count int64) ([]byte, error) {
			s, err := t.SamplesAt(int64(start+uint64(from)*hpcdb.TraceSampleSize), uint64(count), nil)
			for _, x := range s {
				dst = append(dst, "  ("...)
				dst = strconv.AppendUint(dst, x.Time, 10)
				dst = append(dst, ", "...)
				dst = strconv.AppendUint(dst, uint64(x.Ctx), 10)
				dst = append(dst, ")\n"...)
			}
			return dst, err
		}}, render.TextPart("]\n"))
		pos += n * hpcdb.TraceSampleSize
	}
	if pos >= uint64(t.Size()) {
		parts = append(parts, render.TextPart("END OF FILE\n"))
	} else {
		parts = append(parts, render.TextPart("SHOULD BE EOF, BUT NOT, SOME ERRORS HAPPENED\n"))
	}
	return parts
}
