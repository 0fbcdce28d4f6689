package otf2

import (
	"math"
	"slices"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/otf2"
)

// profile is what one pass over every location's events gives: the
// call-path profile (from ENTER/LEAVE nesting), the flat profile per
// region, matched messages and collective operations. Profile times are
// nanoseconds (each timestamp converted, so sums are exact); message and
// collective times are ticks.
type profile struct {
	nodes  []cctNode            // node 0 is the root above every call path
	index  map[[2]uint64]int32  // (parent node, region) -> node
	perLoc []map[int32]*cctStat // per location: its nodes' values
	procs  map[uint64]*cctStat  // region -> flat values, all locations
	// procLoc is region -> per location flat values (nil where never entered).
	procLoc     map[uint64][]*cctStat
	messages    []message
	collectives []collective
	problems    decode.Problems
}

type cctNode struct {
	parent int32
	region uint64
	depth  int32
	cctStat
}

// cctStat is a call path's (or region's) visits and inclusive and
// exclusive time in nanoseconds.
type cctStat struct {
	visits   uint64
	inc, exc uint64
}

// A message is a point-to-point message: its send and receive (either may
// be missing: unmatched).
type message struct {
	comm, tag, bytes   uint64
	sender, receiver   uint64 // ranks in comm
	sendLoc, recvLoc   int    // location indexes, -1 when unknown
	sendTime, recvTime uint64
	sendOff, recvOff   int64 // the events' offsets in their location's file
	hasSend, hasRecv   bool
}

// A collective is one MPI collective operation of one location: from its
// MpiCollectiveBegin to its MpiCollectiveEnd.
type collective struct {
	loc            int
	begin, end     uint64
	op, comm, root uint64
	sent, received uint64
}

// profile scans the events once, on first use.
func (t *trace) profile() *profile {
	t.profOnce.Do(func() { t.prof = t.scan() })
	return t.prof
}

type openFrame struct {
	node         int32
	region       uint64
	enter, child uint64
}

func (t *trace) scan() *profile {
	p := &profile{nodes: []cctNode{{parent: -1, depth: 0}}, index: map[[2]uint64]int32{},
		procs: map[uint64]*cctStat{}, procLoc: map[uint64][]*cctStat{}}
	nloc := len(t.ar.Locations)
	p.perLoc = make([]map[int32]*cctStat, nloc)
	var sends []message
	var recvs []message
	for li, l := range t.ar.Locations {
		p.perLoc[li] = map[int32]*cctStat{}
		f, size, err := t.files[li].open()
		if err != nil {
			p.problems.Add(err)
			continue
		}
		r := t.ar.NewEventReaderAt(f, size, l)
		var ev otf2.Event
		var stack []openFrame
		depth := map[uint64]int{} // region -> times on the stack
		var last uint64
		var collBegin uint64
		inColl := false
		leave := func(now uint64) {
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			dur := now - min(fr.enter, now)
			n := &p.nodes[fr.node]
			n.visits++
			n.inc += dur
			n.exc += dur - min(fr.child, dur)
			s := p.perLoc[li][fr.node]
			if s == nil {
				s = &cctStat{}
				p.perLoc[li][fr.node] = s
			}
			s.visits++
			s.inc += dur
			s.exc += dur - min(fr.child, dur)
			if len(stack) > 0 {
				stack[len(stack)-1].child += dur
			}
			ps := p.proc(fr.region, li, nloc)
			pa := p.procs[fr.region]
			depth[fr.region]--
			for _, x := range []*cctStat{ps, pa} {
				x.visits++
				x.exc += dur - min(fr.child, dur)
				if depth[fr.region] == 0 {
					x.inc += dur
				}
			}
		}
		for r.Next(&ev) {
			now := t.clock.ns(ev.Time)
			last = now
			switch ev.Name() {
			case "Enter":
				parent := int32(0)
				if len(stack) > 0 {
					parent = stack[len(stack)-1].node
				}
				stack = append(stack, openFrame{node: p.child(parent, ev.Vals[0]), region: ev.Vals[0], enter: now})
				depth[ev.Vals[0]]++
			case "Leave":
				if len(stack) > 0 {
					leave(now)
				}
			case "MpiSend", "MpiIsend":
				sends = append(sends, message{comm: ev.Vals[1], receiver: ev.Vals[0], tag: ev.Vals[2], bytes: ev.Vals[3],
					sendLoc: li, recvLoc: t.rankLocation(ev.Vals[1], ev.Vals[0], li), sendTime: ev.Time, sendOff: ev.Off, hasSend: true})
			case "MpiRecv", "MpiIrecv":
				recvs = append(recvs, message{comm: ev.Vals[1], sender: ev.Vals[0], tag: ev.Vals[2], bytes: ev.Vals[3],
					recvLoc: li, sendLoc: t.rankLocation(ev.Vals[1], ev.Vals[0], li), recvTime: ev.Time, recvOff: ev.Off, hasRecv: true})
			case "MpiCollectiveBegin":
				collBegin, inColl = ev.Time, true
			case "MpiCollectiveEnd":
				c := collective{loc: li, begin: ev.Time, end: ev.Time, op: ev.Vals[0], comm: ev.Vals[1], root: ev.Vals[2],
					sent: ev.Vals[3], received: ev.Vals[4]}
				if inColl {
					c.begin = collBegin
				}
				inColl = false
				p.collectives = append(p.collectives, c)
			}
		}
		if err := r.Err(); err != nil {
			p.problems.Add(err)
		}
		for len(stack) > 0 {
			leave(last)
		}
	}
	p.messages = matchMessages(sends, recvs)
	for i := range p.nodes {
		if i > 0 {
			p.nodes[i].depth = p.nodes[p.nodes[i].parent].depth + 1
		}
	}
	return p
}

func (p *profile) child(parent int32, region uint64) int32 {
	k := [2]uint64{uint64(parent), region}
	if n, ok := p.index[k]; ok {
		return n
	}
	n := int32(len(p.nodes))
	p.nodes = append(p.nodes, cctNode{parent: parent, region: region})
	p.index[k] = n
	return n
}

// proc returns region's flat values at location li (creating them).
func (p *profile) proc(region uint64, li, nloc int) *cctStat {
	if p.procs[region] == nil {
		p.procs[region] = &cctStat{}
		p.procLoc[region] = make([]*cctStat, nloc)
	}
	s := p.procLoc[region][li]
	if s == nil {
		s = &cctStat{}
		p.procLoc[region][li] = s
	}
	return s
}

// matchMessages pairs each receive with the first unmatched send of the
// same communicator, sender, receiver and tag (MPI's non-overtaking
// order), and lists what stays unmatched; messages are sorted by the time
// of their send (else receive).
func matchMessages(sends, recvs []message) []message {
	type key struct {
		comm, tag uint64
		from, to  int
	}
	queue := map[key][]int{}
	for i, s := range sends {
		k := key{s.comm, s.tag, s.sendLoc, s.recvLoc}
		queue[k] = append(queue[k], i)
	}
	matched := make([]bool, len(sends))
	var out []message
	for _, r := range recvs {
		k := key{r.comm, r.tag, r.sendLoc, r.recvLoc}
		if q := queue[k]; len(q) > 0 {
			s := sends[q[0]]
			queue[k] = q[1:]
			matched[q[0]] = true
			s.sender, s.recvTime, s.recvOff, s.hasRecv = r.sender, r.recvTime, r.recvOff, true
			out = append(out, s)
			continue
		}
		out = append(out, r)
	}
	for i, s := range sends {
		if !matched[i] {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b message) int {
		ta, tb := a.sendTime, b.sendTime
		if !a.hasSend {
			ta = a.recvTime
		}
		if !b.hasSend {
			tb = b.recvTime
		}
		switch {
		case ta < tb:
			return -1
		case ta > tb:
			return 1
		}
		return 0
	})
	return out
}

// rankLocation is the location index of rank in communicator comm seen
// from location self, or -1.
func (t *trace) rankLocation(comm, rank uint64, self int) int {
	c := t.names.comms[comm]
	if c == nil || c.a == nil || rank == math.MaxUint32 {
		return -1
	}
	g := c.a
	var loc uint64
	switch {
	case g.typ == groupCommSelf:
		return self
	case g.locations == nil:
		return -1
	case g.flags&flagGlobalMembers != 0:
		if rank >= uint64(len(g.locations.members)) {
			return -1
		}
		loc = g.locations.members[rank]
	default:
		if rank >= uint64(len(g.members)) || g.members[rank] >= uint64(len(g.locations.members)) {
			return -1
		}
		loc = g.locations.members[g.members[rank]]
	}
	return t.locIndex(loc)
}

// locIndex is the index in ar.Locations of location id, or -1.
func (t *trace) locIndex(id uint64) int {
	i, ok := slices.BinarySearchFunc(t.ar.Locations, id, func(l *otf2.Location, id uint64) int {
		switch {
		case l.ID < id:
			return -1
		case l.ID > id:
			return 1
		}
		return 0
	})
	if !ok {
		return -1
	}
	return i
}
