package otf2

import (
	"io"
	"math"
	"math/bits"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// clock converts the trace's ticks to nanoseconds.
type clock struct {
	res    uint64 // ticks per second (1e9 when the trace does not say)
	offset uint64 // the global offset: t_ns 0
}

func newClock(defs []otf2.Def) clock {
	c := clock{res: 1e9}
	for i := range defs {
		if defs[i].Name() == "ClockProperties" {
			if r := defs[i].U("timerResolution"); r != 0 {
				c.res = r
			}
			c.offset = defs[i].U("globalOffset")
		}
	}
	return c
}

// ns converts a number of ticks to nanoseconds, rounding down.
func (c clock) ns(ticks uint64) uint64 {
	if c.res == 1e9 {
		return ticks
	}
	hi, lo := bits.Mul64(ticks, 1e9)
	if hi >= c.res {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, c.res)
	return q
}

// relNs is t_ns: nanoseconds from the global offset (negative before
// it), and whether that fits an int64 (a slow clock's far timestamps do
// not: 10^12 ticks of 1 s are 10^21 ns).
func (c clock) relNs(t uint64) (int64, bool) {
	if t >= c.offset {
		ns := c.ns(t - c.offset)
		return int64(ns), ns <= math.MaxInt64
	}
	ns := c.ns(c.offset - t)
	return -int64(ns), ns <= math.MaxInt64
}

// rel is relNs held to the int64 range, for times that order slices.
func (c clock) rel(t uint64) int64 {
	ns, ok := c.relNs(t)
	switch {
	case ok:
		return ns
	case t >= c.offset:
		return math.MaxInt64
	}
	return math.MinInt64
}

// relCell adds t_ns of t, empty when it does not fit (see relNs).
func (c clock) relCell(r *render.Row, t uint64) {
	if ns, ok := c.relNs(t); ok {
		r.Int(ns)
	} else {
		r.Empty()
	}
}

// nsCell adds v nanoseconds as an Ns cell, empty when it does not fit one
// (a clock conversion that overflowed).
func nsCell(r *render.Row, v uint64) {
	if v > math.MaxInt64 {
		r.Empty()
	} else {
		r.Int(int64(v))
	}
}

// optCell adds v, or an empty cell for OTF2's undefined (all ones of
// width bits).
func optCell(r *render.Row, v uint64, width int) {
	if v == math.MaxUint64 || width == 32 && v == math.MaxUint32 {
		r.Empty()
	} else {
		r.Uint(v)
	}
}

// enumName is the name of value v of enum, "" when it has none.
func enumName(enum string, v uint64) string {
	s, _ := otf2.EnumName(enum, v)
	return s
}

// A table column of each kind, by name.
func strCol(name string) render.Column  { return render.Column{Name: name, Kind: render.String} }
func uintCol(name string) render.Column { return render.Column{Name: name, Kind: render.Uint} }
func intCol(name string) render.Column  { return render.Column{Name: name, Kind: render.Int} }
func nsCol(name string) render.Column   { return render.Column{Name: name, Kind: render.Ns} }

// rowsThen is render.Counted over n rows whose end is err (the problems
// of the profile the rows come from) when it is not nil: the table then
// ends with the error, reported once in _errors.txt, after its rows.
func rowsThen(n int64, err error, fill func(i int64, r *render.Row) error) func(pos []byte) (render.Scanner, error) {
	open := render.Counted(n, fill)
	return func(pos []byte) (render.Scanner, error) {
		s, e := open(pos)
		if e != nil || err == nil {
			return s, e
		}
		return &endsWith{s, err}, nil
	}
}

type endsWith struct {
	render.Scanner
	err error
}

func (s *endsWith) Scan(r *render.Row) error {
	err := s.Scanner.Scan(r)
	if err == io.EOF {
		return s.err
	}
	return err
}

var locationColumns = []render.Column{uintCol("location"), strCol("name"), strCol("kind"), strCol("location_group"), uintCol("num_events")}

// locationsTable is locations.csv: one row per location definition.
func (t *trace) locationsTable() *render.Table {
	return &render.Table{Columns: locationColumns, Open: render.Counted(int64(len(t.ar.Locations)), func(i int64, r *render.Row) error {
		l := t.ar.Locations[i]
		d := l.Def
		r.Uint(l.ID).Str(t.names.name("strings", d.U("name"))).Str(enumName("LocationType", d.U("locationType")))
		r.Str(t.names.name("location_groups", d.U("locationGroup"))).Uint(d.U("numberOfEvents"))
		return nil
	})}
}

var regionColumns = []render.Column{uintCol("region_id"), strCol("function"), strCol("canonical_name"), strCol("description"),
	strCol("role"), strCol("paradigm"), strCol("file"), uintCol("line"), uintCol("end_line")}

// regionsTable is regions.csv: one row per region definition.
func (t *trace) regionsTable() *render.Table {
	return &render.Table{Columns: regionColumns, Open: func(pos []byte) (render.Scanner, error) {
		var regions []*otf2.Def
		for i := range t.ar.Defs {
			if d := &t.ar.Defs[i]; d.Name() == "Region" {
				regions = append(regions, d)
			}
		}
		return render.Counted(int64(len(regions)), func(i int64, r *render.Row) error {
			d := regions[i]
			n := t.names
			r.Uint(d.U("self")).Str(n.name("strings", d.U("name"))).Str(n.name("strings", d.U("canonicalName")))
			r.Str(n.name("strings", d.U("description"))).Str(enumName("RegionRole", d.U("regionRole")))
			r.Str(enumName("Paradigm", d.U("paradigm"))).Str(n.name("strings", d.U("sourceFile")))
			optCell(r, d.U("beginLineNumber"), 32)
			optCell(r, d.U("endLineNumber"), 32)
			return nil
		})(pos)
	}}
}
