package interchange

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// trace.pftrace is the Perfetto protobuf form of trace.json: a Trace
// message (perfetto_trace.proto) written field by field from the
// published field numbers, without an SDK. It holds, in this order:
//
//   - one TrackDescriptor packet per process (ProcessDescriptor pid and
//     name) and per track (ThreadDescriptor pid, tid and name, ranked in
//     trace.json's order);
//   - per track, in trace.json's order, a TYPE_SLICE_BEGIN and a
//     TYPE_SLICE_END TrackEvent per X event and a TYPE_INSTANT per
//     instant event, with its name, category and arguments (a debug
//     annotation "args" holding the JSON object), and the flows it starts
//     (flow_ids) or ends (terminating_flow_ids) on the begin or instant
//     event. In a time window, the slices open at its start, clipped to
//     begin there together, have their begin packets first, outermost
//     first (Perfetto sorts packets by time, stably, and nests a begin in
//     the slice last begun), their end packets where trace.json has them.
//
// Names are inline strings (no interning), so that any packet can be
// written from a checkpoint without the state of the ones before it, and
// every packet is on one sequence with the default clock (boot time, in
// ns from the trace's origin). A process whose pid does not fit Perfetto's
// int32 gets a named track instead of a ProcessDescriptor, its threads
// named tracks under it.

// Field numbers of perfetto_trace.proto.
const (
	pfTracePacket = 1 // Trace.packet

	pfTimestamp   = 8  // TracePacket.timestamp
	pfSequenceID  = 10 // TracePacket.trusted_packet_sequence_id
	pfTrackEvent  = 11 // TracePacket.track_event
	pfDescriptor  = 60 // TracePacket.track_descriptor
	pfEvType      = 9  // TrackEvent.type
	pfEvTrack     = 11 // TrackEvent.track_uuid
	pfEvCategory  = 22 // TrackEvent.categories
	pfEvName      = 23 // TrackEvent.name
	pfEvDebug     = 4  // TrackEvent.debug_annotations
	pfEvFlows     = 47 // TrackEvent.flow_ids (repeated fixed64)
	pfEvFlowsEnd  = 48 // TrackEvent.terminating_flow_ids (repeated fixed64)
	pfDebugName   = 10 // DebugAnnotation.name
	pfDebugJSON   = 9  // DebugAnnotation.legacy_json_value
	pfTrackUUID   = 1  // TrackDescriptor.uuid
	pfTrackName   = 2  // TrackDescriptor.name
	pfTrackProc   = 3  // TrackDescriptor.process
	pfTrackThread = 4  // TrackDescriptor.thread
	pfTrackParent = 5  // TrackDescriptor.parent_uuid
	pfTrackOrder  = 11 // TrackDescriptor.child_ordering
	pfTrackRank   = 12 // TrackDescriptor.sibling_order_rank
	pfProcPid     = 1  // ProcessDescriptor.pid
	pfProcName    = 6  // ProcessDescriptor.process_name
	pfThreadPid   = 1  // ThreadDescriptor.pid
	pfThreadTid   = 2  // ThreadDescriptor.tid
	pfThreadName  = 5  // ThreadDescriptor.thread_name

	pfSliceBegin = 1 // TrackEvent.Type TYPE_SLICE_BEGIN
	pfSliceEnd   = 2 // TYPE_SLICE_END
	pfInstant    = 3 // TYPE_INSTANT
	pfExplicit   = 3 // TrackDescriptor.ChildTracksOrdering EXPLICIT

	pfSequence = 1 // the one packet sequence of the file
)

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
)

func pbTag(dst []byte, field, wire int) []byte {
	return pbVarint(dst, uint64(field)<<3|uint64(wire))
}

func pbVarint(dst []byte, v uint64) []byte {
	for v >= 0x80 {
		dst = append(dst, byte(v)|0x80)
		v >>= 7
	}
	return append(dst, byte(v))
}

func pbUint(dst []byte, field int, v uint64) []byte {
	return pbVarint(pbTag(dst, field, wireVarint), v)
}

// pbInt writes an int32/int64 field: two's complement, ten bytes when
// negative.
func pbInt(dst []byte, field int, v int64) []byte { return pbUint(dst, field, uint64(v)) }

func pbFixed64(dst []byte, field int, v uint64) []byte {
	return binary.LittleEndian.AppendUint64(pbTag(dst, field, wireFixed64), v)
}

func pbString(dst []byte, field int, s string) []byte {
	return append(pbVarint(pbTag(dst, field, wireBytes), uint64(len(s))), s...)
}

func pbBytes(dst []byte, field int, b []byte) []byte {
	return append(pbVarint(pbTag(dst, field, wireBytes), uint64(len(b))), b...)
}

// varintLen is the length of v as a varint.
func varintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// pfWriter holds the scratch buffers of one cursor's packets.
type pfWriter struct {
	event, packet []byte
}

// pfProcessUUID is the uuid of the process track of pid p, the track
// uuids being 1 + their index in Tracks.
func pfProcessUUID(first int) uint64 { return 1<<40 + uint64(first) }

func pfFitsInt32(v int64) bool { return v >= math.MinInt32 && v <= math.MaxInt32 }

// appendHead writes the descriptors of the tracks (indices into all) and
// of their processes.
func (w *pfWriter) appendHead(dst []byte, all []Track, tracks []int) []byte {
	procs := map[int64]uint64{}
	for rank, i := range tracks {
		t := &all[i]
		proc, seen := procs[t.Pid]
		if !seen {
			proc = pfProcessUUID(i)
			procs[t.Pid] = proc
			dst = w.appendDescriptor(dst, func(d []byte) []byte {
				d = pbUint(d, pfTrackUUID, proc)
				if !pfFitsInt32(t.Pid) {
					d = pbString(d, pfTrackName, t.Process)
				} else {
					var p []byte
					p = pbInt(p, pfProcPid, t.Pid)
					p = pbString(p, pfProcName, t.Process)
					d = pbBytes(d, pfTrackProc, p)
				}
				return pbUint(d, pfTrackOrder, pfExplicit)
			})
		}
		dst = w.appendDescriptor(dst, func(d []byte) []byte {
			d = pbUint(d, pfTrackUUID, uint64(i)+1)
			if !pfFitsInt32(t.Pid) {
				d = pbUint(d, pfTrackParent, proc)
				d = pbString(d, pfTrackName, t.Thread)
			} else {
				var th []byte
				th = pbInt(th, pfThreadPid, t.Pid)
				th = pbInt(th, pfThreadTid, t.Tid)
				th = pbString(th, pfThreadName, t.Thread)
				d = pbBytes(d, pfTrackThread, th)
			}
			return pbInt(d, pfTrackRank, int64(rank))
		})
	}
	return dst
}

func (w *pfWriter) appendDescriptor(dst []byte, body func([]byte) []byte) []byte {
	w.packet = pbUint(w.packet[:0], pfSequenceID, pfSequence)
	w.event = body(w.event[:0])
	w.packet = pbBytes(w.packet, pfDescriptor, w.event)
	return pbBytes(dst, pfTracePacket, w.packet)
}

// appendEvent writes e of track i (an index into Tracks): a begin and an
// end packet, or one instant packet.
func (w *pfWriter) appendEvent(dst []byte, i int, e *Event) []byte {
	if e.Instant {
		return w.appendPacket(dst, i, e, pfInstant, e.TS)
	}
	dst = w.appendPacket(dst, i, e, pfSliceBegin, e.TS)
	return w.appendPacket(dst, i, nil, pfSliceEnd, e.TS+e.Dur)
}

// appendPacket writes one TrackEvent packet; e is nil for a slice's end,
// which carries no name.
func (w *pfWriter) appendPacket(dst []byte, i int, e *Event, typ uint64, ts int64) []byte {
	ev := pbUint(w.event[:0], pfEvType, typ)
	ev = pbUint(ev, pfEvTrack, uint64(i)+1)
	if e != nil {
		ev = pbString(ev, pfEvName, e.Name)
		if e.Cat != "" {
			ev = pbString(ev, pfEvCategory, e.Cat)
		}
		if len(e.Args) > 0 {
			n := len(e.Args) + 2
			ev = pbTag(ev, pfEvDebug, wireBytes)
			ev = pbVarint(ev, uint64(1+varintLen(4)+len("args")+1+varintLen(uint64(n))+n))
			ev = pbString(ev, pfDebugName, "args")
			ev = pbTag(ev, pfDebugJSON, wireBytes)
			ev = pbVarint(ev, uint64(n))
			ev = append(append(append(ev, '{'), e.Args...), '}')
		}
		if e.FlowOut != 0 {
			ev = pbFixed64(ev, pfEvFlows, e.FlowOut)
		}
		if e.FlowIn != 0 {
			ev = pbFixed64(ev, pfEvFlowsEnd, e.FlowIn)
		}
	}
	// The packet is written into dst around ev, not built apart and
	// copied: an ovni jumbo payload (3.7 MB of hex in its args) was held
	// four times, twice more in scratch buffers kept by the cursor.
	w.event = ev
	if cap(ev) > 1<<20 {
		w.event = nil
	}
	head := pbUint(w.packet[:0], pfTimestamp, uint64(max(ts, 0)))
	head = pbUint(head, pfSequenceID, pfSequence)
	head = pbVarint(pbTag(head, pfTrackEvent, wireBytes), uint64(len(ev)))
	w.packet = head
	dst = pbVarint(pbTag(dst, pfTracePacket, wireBytes), uint64(len(head)+len(ev)))
	return append(append(dst, head...), ev...)
}
