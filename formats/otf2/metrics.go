package otf2

import (
	"io"
	"math"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

var metricColumns = []render.Column{uintCol("location"), nsCol("t_ns"), nsCol("time_ns"), uintCol("metric_id"), strCol("name"),
	{Name: "value", Kind: render.Number}}

// metricsTable is metrics.csv: every value of every METRIC event, one row
// per member, location after location (each in file order).
func (t *trace) metricsTable() *render.Table {
	return &render.Table{Columns: metricColumns, Open: func(pos []byte) (render.Scanner, error) {
		s := &metricsScanner{t: t}
		if len(pos) > 0 {
			r := render.NewStateReader(pos)
			s.loc = int(r.Uint(uint64(len(t.ar.Locations))))
			s.at = otf2.Pos{Off: r.Int(0, math.MaxInt64), Time: r.Uint(math.MaxUint64)}
			s.member = int(r.Uint(math.MaxUint32))
			if err := r.Err(); err != nil {
				return nil, err
			}
		}
		return s, s.open()
	}}
}

// metricsScanner reads the locations one after the other. Its position is
// the location, the reader's position before the current METRIC event and
// the member of it that comes next.
type metricsScanner struct {
	t      *trace
	loc    int
	at     otf2.Pos // before ev
	member int      // the next member of ev
	r      *otf2.EventReader
	ev     otf2.Event
	has    bool // ev is a METRIC event with members left
}

// open starts the reader of the current location at its position (and,
// within a METRIC event, at its member); a location whose file does not
// open is named in _errors.txt and skipped.
func (s *metricsScanner) open() error {
	s.r, s.has = nil, false
	for ; s.loc < len(s.t.ar.Locations); s.next() {
		f, size, err := s.t.files[s.loc].open()
		if err != nil {
			s.t.errors.Report(s.t.ar.EventFileName(s.t.ar.Locations[s.loc]), err)
			continue
		}
		s.r = s.t.ar.NewEventReaderAt(f, size, s.t.ar.Locations[s.loc])
		s.r.Seek(s.at)
		if s.member > 0 {
			if !s.r.Next(&s.ev) || s.ev.Name() != "Metric" || s.member >= len(s.ev.Arr[0]) {
				return render.ErrBadState
			}
			s.has = true
		}
		return nil
	}
	return nil
}

// next moves to the start of the next location.
func (s *metricsScanner) next() { s.loc, s.at, s.member = s.loc+1, otf2.Pos{}, 0 }

func (s *metricsScanner) Pos() []byte {
	var w render.StateWriter
	at, member := s.at, s.member
	if !s.has && s.r != nil {
		at, member = s.r.Tell(), 0
	}
	return w.Uint(uint64(s.loc)).Int(at.Off).Uint(at.Time).Uint(uint64(member)).Bytes()
}

func (s *metricsScanner) Scan(row *render.Row) error {
	for !s.has {
		if s.r == nil {
			return io.EOF
		}
		s.at = s.r.Tell()
		if !s.r.Next(&s.ev) {
			if err := s.r.Err(); err != nil {
				return err
			}
			s.next()
			if err := s.open(); err != nil {
				return err
			}
			continue
		}
		s.member = 0
		s.has = s.ev.Name() == "Metric" && len(s.ev.Arr[0]) > 0
	}
	ev, i := &s.ev, s.member
	t := s.t
	members := t.names.metrics[ev.Vals[0]]
	row.Uint(t.ar.Locations[s.loc].ID)
	t.clock.relCell(row, ev.Time)
	nsCell(row, t.clock.ns(ev.Time))
	row.Uint(ev.Vals[0])
	if i < len(members) {
		row.Str(t.names.name("metric_members", members[i]))
	} else {
		row.Empty()
	}
	v := ev.Arr[1][i]
	switch ev.Arr[0][i] {
	case typeInt64:
		row.Int(int64(v))
	case typeDouble:
		row.Float(math.Float64frombits(v))
	default:
		row.Uint(v)
	}
	if s.member++; s.member >= len(ev.Arr[0]) {
		s.has, s.member = false, 0
	}
	return nil
}
