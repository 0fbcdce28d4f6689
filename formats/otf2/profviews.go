package otf2

import (
	"slices"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
)

// The profile's views are small (one row per call path, region, message
// or collective) and made from the one scan; each ends with the scan's
// problems, if any.

var statColumns = []render.Column{uintCol("call_count"), nsCol("duration_ns_inc"), nsCol("duration_ns_exc")}

var cctColumns = append([]render.Column{intCol("ctx_id"), intCol("parent_id"), intCol("depth"), strCol("function"),
	uintCol("region_id")}, statColumns...)

// statCells adds a cctStat's call_count, duration_ns_inc and duration_ns_exc.
func statCells(r *render.Row, s *cctStat) {
	r.Uint(s.visits)
	nsCell(r, s.inc)
	nsCell(r, s.exc)
}

// pathsTable is a cct.csv of the call paths ids (node indices in order),
// with the values stat gives; the root's inclusive time is the sum of its
// children's.
func (t *trace) pathsTable(paths func(p *profile) []int, stat func(p *profile, i int) *cctStat) *render.Table {
	return &render.Table{Columns: cctColumns, Open: func(pos []byte) (render.Scanner, error) {
		p := t.profile()
		ids := paths(p)
		root := t.rootStat(p, func(k int) *cctStat { return stat(p, k) })
		return rowsThen(int64(len(ids)), p.problems.Err(), func(k int64, r *render.Row) error {
			i := ids[k]
			n := &p.nodes[i]
			r.Int(int64(i))
			if n.parent >= 0 {
				r.Int(int64(n.parent))
			} else {
				r.Empty()
			}
			r.Int(int64(n.depth))
			s := stat(p, i)
			if i == 0 {
				r.Str("<root>").Empty()
				s = &root
			} else {
				r.Str(t.names.name("regions", n.region)).Uint(n.region)
			}
			statCells(r, s)
			return nil
		})(pos)
	}}
}

// cctTable is cct.csv, the call-path profile summed over locations.
func (t *trace) cctTable() *render.Table {
	return t.pathsTable(func(p *profile) []int {
		ids := make([]int, len(p.nodes))
		for i := range ids {
			ids[i] = i
		}
		return ids
	}, func(p *profile, i int) *cctStat { return &p.nodes[i].cctStat })
}

// locationCCT is the call paths of location li (those it visited).
func (t *trace) locationCCT(li int) *render.Table {
	return t.pathsTable(func(p *profile) []int {
		ids := []int{0}
		for k := range p.perLoc[li] {
			ids = append(ids, int(k))
		}
		slices.Sort(ids[1:])
		return ids
	}, func(p *profile, i int) *cctStat { return p.perLoc[li][int32(i)] })
}

// rootStat is the root's values: the inclusive sum of the top call paths.
func (t *trace) rootStat(p *profile, stat func(int) *cctStat) cctStat {
	var s cctStat
	for k := 1; k < len(p.nodes); k++ {
		if p.nodes[k].parent == 0 {
			if x := stat(k); x != nil {
				s.inc += x.inc
			}
		}
	}
	return s
}

// regionIDs are the regions entered anywhere, in id order.
func (p *profile) regionIDs() []uint64 {
	ids := make([]uint64, 0, len(p.procs))
	for r := range p.procs {
		ids = append(ids, r)
	}
	slices.Sort(ids)
	return ids
}

var procedureColumns = append([]render.Column{uintCol("function_id"), strCol("function"), strCol("relation"), strCol("module"),
	strCol("file"), uintCol("line")}, statColumns...)

// proceduresTable is the flat profile: per region (function_id is the
// region id; relation and module are empty, OTF2 has neither), its source
// file and first line, visits, inclusive time (outermost calls only, so
// recursion is counted once) and exclusive time, summed over locations.
func (t *trace) proceduresTable() *render.Table {
	return &render.Table{Columns: procedureColumns, Open: func(pos []byte) (render.Scanner, error) {
		p := t.profile()
		src := t.regionSources()
		ids := p.regionIDs()
		return rowsThen(int64(len(ids)), p.problems.Err(), func(i int64, r *render.Row) error {
			id := ids[i]
			r.Uint(id).Str(t.names.name("regions", id)).Empty().Empty()
			if s, ok := src[id]; ok {
				r.Str(t.names.name("strings", s[0]))
				optCell(r, s[1], 32)
			} else {
				r.Empty().Empty()
			}
			statCells(r, p.procs[id])
			return nil
		})(pos)
	}}
}

var imbalanceColumns = append([]render.Column{uintCol("region_id"), strCol("function"), uintCol("location")}, statColumns...)

// imbalanceTable is the flat profile per region and location, one row for
// every location (zeros where the region was not entered), so that the
// spread of a region over locations is one group-by away.
func (t *trace) imbalanceTable() *render.Table {
	return &render.Table{Columns: imbalanceColumns, Open: func(pos []byte) (render.Scanner, error) {
		p := t.profile()
		ids := p.regionIDs()
		nl := int64(len(t.ar.Locations))
		return rowsThen(int64(len(ids))*nl, p.problems.Err(), func(i int64, r *render.Row) error {
			id, li := ids[i/nl], i%nl
			s := p.procLoc[id][li]
			if s == nil {
				s = &cctStat{}
			}
			r.Uint(id).Str(t.names.name("regions", id)).Uint(t.ar.Locations[li].ID)
			statCells(r, s)
			return nil
		})(pos)
	}}
}

var messageColumns = []render.Column{strCol("kind"), strCol("communicator"), uintCol("sender"), uintCol("receiver"),
	uintCol("sender_location"), uintCol("receiver_location"), uintCol("tag"), uintCol("bytes"),
	nsCol("send_time_ns"), nsCol("recv_time_ns")}

// messagesTable lists every point-to-point message: kind is message, or
// unmatched_send / unmatched_recv for a send or receive without its other
// half.
func (t *trace) messagesTable() *render.Table {
	return &render.Table{Columns: messageColumns, Open: func(pos []byte) (render.Scanner, error) {
		p := t.profile()
		loc := func(r *render.Row, i int) {
			if i >= 0 {
				r.Uint(t.ar.Locations[i].ID)
			} else {
				r.Empty()
			}
		}
		return rowsThen(int64(len(p.messages)), p.problems.Err(), func(i int64, r *render.Row) error {
			m := &p.messages[i]
			switch {
			case m.hasSend && m.hasRecv:
				r.Str("message")
			case m.hasSend:
				r.Str("unmatched_send")
			default:
				r.Str("unmatched_recv")
			}
			r.Str(t.names.name("comms", m.comm))
			ifCell(r, m.hasRecv, func() { r.Uint(m.sender) })
			ifCell(r, m.hasSend, func() { r.Uint(m.receiver) })
			loc(r, m.sendLoc)
			loc(r, m.recvLoc)
			r.Uint(m.tag).Uint(m.bytes)
			ifCell(r, m.hasSend, func() { nsCell(r, t.clock.ns(m.sendTime)) })
			ifCell(r, m.hasRecv, func() { nsCell(r, t.clock.ns(m.recvTime)) })
			return nil
		})(pos)
	}}
}

// ifCell adds a cell with add when ok, else an empty one.
func ifCell(r *render.Row, ok bool, add func()) {
	if ok {
		add()
	} else {
		r.Empty()
	}
}

var collectiveColumns = []render.Column{uintCol("location"), strCol("operation"), strCol("communicator"), strCol("root"),
	uintCol("sent_bytes"), uintCol("received_bytes"), nsCol("time_ns"), nsCol("duration_ns")}

// collectivesTable lists every MPI collective operation of every location.
func (t *trace) collectivesTable() *render.Table {
	return &render.Table{Columns: collectiveColumns, Open: func(pos []byte) (render.Scanner, error) {
		p := t.profile()
		return rowsThen(int64(len(p.collectives)), p.problems.Err(), func(i int64, r *render.Row) error {
			c := &p.collectives[i]
			r.Uint(t.ar.Locations[c.loc].ID).Str(enumName("CollectiveOp", c.op)).Str(t.names.name("comms", c.comm))
			if s, ok := otf2.EnumName("CollectiveRoot", c.root); ok {
				r.Str(s)
			} else {
				r.Str(string(render.AppendUint(nil, c.root)))
			}
			r.Uint(c.sent).Uint(c.received)
			nsCell(r, t.clock.ns(c.begin))
			nsCell(r, t.clock.ns(c.end-min(c.begin, c.end)))
			return nil
		})(pos)
	}}
}

// regionSources maps each region to its source file string and first line.
func (t *trace) regionSources() map[uint64][2]uint64 {
	m := map[uint64][2]uint64{}
	for i := range t.ar.Defs {
		if d := &t.ar.Defs[i]; d.Name() == "Region" {
			m[d.U("self")] = [2]uint64{d.U("sourceFile"), d.U("beginLineNumber")}
		}
	}
	return m
}
