package otf2

import (
	"slices"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"strconv"
)

// The profile's views are small (one row per call path, region, message
// or collective) and made whole from the one scan.

const cctHeader = "ctx_id,parent_id,depth,function,region_id,call_count,duration_ns_inc,duration_ns_exc\n"

func (t *trace) appendCCTRow(b []byte, p *profile, i int, s *cctStat) []byte {
	n := &p.nodes[i]
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, ',')
	if n.parent >= 0 {
		b = strconv.AppendInt(b, int64(n.parent), 10)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(n.depth), 10)
	b = append(b, ',')
	if i == 0 {
		b = append(b, "<root>"...)
	} else {
		b = t.names.csvName(b, "regions", n.region)
	}
	b = append(b, ',')
	if i > 0 {
		b = appendU(b, n.region)
	}
	b = append(b, ',')
	return t.appendStat(b, s)
}

func (t *trace) appendStat(b []byte, s *cctStat) []byte {
	b = appendU(b, s.visits)
	b = append(b, ',')
	b = appendU(b, s.inc)
	b = append(b, ',')
	b = appendU(b, s.exc)
	return append(b, '\n')
}

// cctCSV is the call-path profile summed over locations; the root's
// inclusive time is the sum of its children's.
func (t *trace) cctCSV() ([]byte, error) {
	p := t.profile()
	b := []byte(cctHeader)
	for i := range p.nodes {
		s := p.nodes[i].cctStat
		if i == 0 {
			s = t.rootStat(p, func(k int) *cctStat { return &p.nodes[k].cctStat })
		}
		b = t.appendCCTRow(b, p, i, &s)
	}
	return b, p.problems.Err()
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

// locationCCTCSV is the call paths of location li (those it visited).
func (t *trace) locationCCTCSV(li int) func() ([]byte, error) {
	return func() ([]byte, error) {
		p := t.profile()
		m := p.perLoc[li]
		ids := make([]int, 0, len(m))
		for k := range m {
			ids = append(ids, int(k))
		}
		slices.Sort(ids)
		b := []byte(cctHeader)
		root := t.rootStat(p, func(k int) *cctStat { return m[int32(k)] })
		b = t.appendCCTRow(b, p, 0, &root)
		for _, i := range ids {
			b = t.appendCCTRow(b, p, i, m[int32(i)])
		}
		return b, p.problems.Err()
	}
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

// proceduresCSV is the flat profile: per region (function_id is the
// region id; relation and module are empty, OTF2 has neither), its source
// file and first line, visits, inclusive time (outermost calls only, so
// recursion is counted once) and exclusive time, summed over locations.
func (t *trace) proceduresCSV() ([]byte, error) {
	p := t.profile()
	b := []byte("function_id,function,relation,module,file,line,call_count,duration_ns_inc,duration_ns_exc\n")
	src := t.regionSources()
	for _, r := range p.regionIDs() {
		b = appendU(b, r)
		b = append(b, ',')
		b = t.names.csvName(b, "regions", r)
		b = append(b, ",,,"...)
		if s, ok := src[r]; ok {
			b = t.names.csvName(b, "strings", s[0])
			b = append(b, ',')
			b = appendOptU(b, s[1], 32)
		} else {
			b = append(b, ',')
		}
		b = append(b, ',')
		b = t.appendStat(b, p.procs[r])
	}
	return b, p.problems.Err()
}

// imbalanceCSV is the flat profile per region and location, one row for
// every location (zeros where the region was not entered), so that the
// spread of a region over locations is one group-by away.
func (t *trace) imbalanceCSV() ([]byte, error) {
	p := t.profile()
	b := []byte("region_id,function,location,call_count,duration_ns_inc,duration_ns_exc\n")
	for _, r := range p.regionIDs() {
		for li, s := range p.procLoc[r] {
			if s == nil {
				s = &cctStat{}
			}
			b = appendU(b, r)
			b = append(b, ',')
			b = t.names.csvName(b, "regions", r)
			b = append(b, ',')
			b = appendU(b, t.ar.Locations[li].ID)
			b = append(b, ',')
			b = t.appendStat(b, s)
		}
	}
	return b, p.problems.Err()
}

// messagesCSV lists every point-to-point message: kind is message, or
// unmatched_send / unmatched_recv for a send or receive without its other
// half.
func (t *trace) messagesCSV() ([]byte, error) {
	p := t.profile()
	b := []byte("kind,communicator,sender,receiver,sender_location,receiver_location,tag,bytes,send_time_ns,recv_time_ns\n")
	loc := func(b []byte, i int) []byte {
		if i >= 0 {
			b = appendU(b, t.ar.Locations[i].ID)
		}
		return append(b, ',')
	}
	for _, m := range p.messages {
		switch {
		case m.hasSend && m.hasRecv:
			b = append(b, "message,"...)
		case m.hasSend:
			b = append(b, "unmatched_send,"...)
		default:
			b = append(b, "unmatched_recv,"...)
		}
		b = t.names.csvName(b, "comms", m.comm)
		b = append(b, ',')
		if m.hasRecv {
			b = appendU(b, m.sender)
		}
		b = append(b, ',')
		if m.hasSend {
			b = appendU(b, m.receiver)
		}
		b = append(b, ',')
		b = loc(b, m.sendLoc)
		b = loc(b, m.recvLoc)
		b = appendU(b, m.tag)
		b = append(b, ',')
		b = appendU(b, m.bytes)
		b = append(b, ',')
		if m.hasSend {
			b = appendU(b, t.clock.ns(m.sendTime))
		}
		b = append(b, ',')
		if m.hasRecv {
			b = appendU(b, t.clock.ns(m.recvTime))
		}
		b = append(b, '\n')
	}
	return b, p.problems.Err()
}

// collectivesCSV lists every MPI collective operation of every location.
func (t *trace) collectivesCSV() ([]byte, error) {
	p := t.profile()
	b := []byte("location,operation,communicator,root,sent_bytes,received_bytes,time_ns,duration_ns\n")
	for _, c := range p.collectives {
		b = appendU(b, t.ar.Locations[c.loc].ID)
		b = append(b, ',')
		b = appendEnumName(b, "CollectiveOp", c.op)
		b = append(b, ',')
		b = t.names.csvName(b, "comms", c.comm)
		b = append(b, ',')
		if s, ok := otf2.EnumName("CollectiveRoot", c.root); ok {
			b = append(b, s...)
		} else {
			b = appendU(b, c.root)
		}
		b = append(b, ',')
		b = appendU(b, c.sent)
		b = append(b, ',')
		b = appendU(b, c.received)
		b = append(b, ',')
		b = appendU(b, t.clock.ns(c.begin))
		b = append(b, ',')
		b = appendU(b, t.clock.ns(c.end-min(c.begin, c.end)))
		b = append(b, '\n')
	}
	return b, p.problems.Err()
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
