package symbols

import (
	"strconv"

	"github.com/hpcfs/hpcfs/render"
)

// CSVColumns are the columns AppendCSV writes.
const CSVColumns = "function,raw_name,file,line,inlined"

// AppendCSV appends the CSV fields of the frames at an address
// (innermost first, as Lookup gives them): the innermost frame's
// function, raw name, file and line, and the frames it is inlined in,
// outermost first, each as "function (file:line)" of its call, joined
// by ';'. No frames give five empty fields.
func AppendCSV(dst []byte, fs []Frame) []byte {
	if len(fs) == 0 {
		return append(dst, ",,,,"...)
	}
	f := fs[0]
	dst = render.AppendCSVField(dst, f.Function)
	dst = append(dst, ',')
	dst = render.AppendCSVField(dst, f.Raw)
	dst = append(dst, ',')
	dst = render.AppendCSVField(dst, f.File)
	dst = append(dst, ',')
	if f.Line > 0 {
		dst = strconv.AppendInt(dst, int64(f.Line), 10)
	}
	dst = append(dst, ',')
	if len(fs) > 1 {
		var chain []byte
		for i := len(fs) - 1; i >= 1; i-- {
			chain = AppendFrame(chain, fs[i])
			if i > 1 {
				chain = append(chain, ';')
			}
		}
		dst = render.AppendCSVField(dst, string(chain))
	}
	return dst
}

// AppendFrame appends "function (file:line)", or the parts known.
func AppendFrame(dst []byte, f Frame) []byte {
	dst = render.AppendName(dst, f.Function)
	if f.File != "" {
		dst = append(dst, " ("...)
		dst = render.AppendName(dst, f.File)
		if f.Line > 0 {
			dst = append(dst, ':')
			dst = strconv.AppendInt(dst, int64(f.Line), 10)
		}
		dst = append(dst, ')')
	}
	return dst
}

// Columns are the columns of CSVColumns for a render.Table; Cells fills
// them.
var Columns = []render.Column{
	{Name: "function", Kind: render.String},
	{Name: "raw_name", Kind: render.String},
	{Name: "file", Kind: render.String},
	{Name: "line", Kind: render.Int},
	{Name: "inlined", Kind: render.String},
}

// Cells appends to a table row the cells AppendCSV writes as fields.
func Cells(r *render.Row, fs []Frame) {
	if len(fs) == 0 {
		r.Empty().Empty().Empty().Empty().Empty()
		return
	}
	f := fs[0]
	r.Str(f.Function).Str(f.Raw).Str(f.File)
	if f.Line > 0 {
		r.Int(int64(f.Line))
	} else {
		r.Empty()
	}
	if len(fs) == 1 {
		r.Empty()
		return
	}
	var chain []byte
	for i := len(fs) - 1; i >= 1; i-- {
		chain = AppendFrame(chain, fs[i])
		if i > 1 {
			chain = append(chain, ';')
		}
	}
	r.Str(string(chain))
}
