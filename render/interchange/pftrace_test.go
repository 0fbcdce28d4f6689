package interchange_test

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// traceCases are the corpus traces of every trace format.
func traceCases(t *testing.T) []string {
	return []string{
		testdata.Corpus(t, "ovni", "v1-basic-mix"), testdata.Corpus(t, "ovni", "v1-two-procs"),
		filepath.Join(testdata.Corpus(t, "ovni-1x", "v3-1.14.0-shapes-ranks"), "ovni"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"),
		testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"),
		testdata.Corpus(t, "otf2", "pipit-ping-pong"), testdata.Corpus(t, "otf2", "gen-mpi-rma"),
	}
}

// TestPftraceReplay replays trace.pftrace of every corpus trace as
// Perfetto's trace processor does (packets sorted by time, stably; a
// slice begin pushes on its track's stack, an end pops) and checks that
// it has the tracks, slices (name, category, start and duration in ns),
// instants, arguments and flow ends of trace.json; then that its time windows hold
// the same per track, clipped at the windows' edges.
func TestPftraceReplay(t *testing.T) {
	for _, path := range traceCases(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			fsys := open(t, path).FS()
			full := testdata.ReadFS(t, fsys, "trace.json")
			want := jsonSlices(t, full)
			got := pfSlices(t, testdata.ReadFS(t, fsys, "trace.pftrace"))
			if len(want) == 0 {
				t.Fatal("no tracks in trace.json")
			}
			compareSlices(t, got, want)
			checkNesting(t, "trace.json", full)

			meta := int64(len(full) - bytes.Index(full, []byte(`{"ph":"M"`)))
			src := open(t, path)
			src.Options.WindowLimit = meta + 300 + (int64(len(full))-meta)/4
			fsys = src.FS()
			jsons, _ := fs.Glob(fsys, "trace/window-*.json")
			pfs, _ := fs.Glob(fsys, "trace/window-*.pftrace")
			if len(pfs) < 4 || len(pfs) != len(jsons) {
				t.Fatalf("%d windows as JSON, %d as pftrace", len(jsons), len(pfs))
			}
			for k := range pfs {
				if strings.TrimSuffix(pfs[k], ".pftrace") != strings.TrimSuffix(jsons[k], ".json") {
					t.Fatalf("%s beside %s", pfs[k], jsons[k])
				}
				win := testdata.ReadFS(t, fsys, jsons[k])
				checkNesting(t, jsons[k], win)
				compareSlices(t, pfSlices(t, testdata.ReadFS(t, fsys, pfs[k])), jsonSlices(t, win))
			}
		})
	}
}

// TestPftraceProtoc decodes trace.pftrace of every corpus trace with
// protoc and the official perfetto_trace.proto, named by
// $HPCFS_PERFETTO_PROTO (it is not packaged: fetch
// protos/perfetto/trace/perfetto_trace.proto from google/perfetto), and
// checks the packet and flow counts against the replay's.
func TestPftraceProtoc(t *testing.T) {
	proto := os.Getenv("HPCFS_PERFETTO_PROTO")
	if proto == "" {
		t.Skip("HPCFS_PERFETTO_PROTO names no perfetto_trace.proto")
	}
	for _, path := range traceCases(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b := testdata.ReadFS(t, open(t, path).FS(), "trace.pftrace")
			cmd := exec.Command("protoc", "--proto_path="+filepath.Dir(proto), "--decode=perfetto.protos.Trace", filepath.Base(proto))
			cmd.Stdin = bytes.NewReader(b)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil || stderr.Len() > 0 {
				t.Fatalf("protoc: %v %s", err, stderr.Bytes())
			}
			packets, events, descs, flowsOut, flowsIn := 0, 0, 0, 0, 0
			for _, ev := range pfPackets(t, b) {
				packets++
				if ev.desc != nil {
					descs++
				} else {
					events++
				}
				if ev.flowOut != 0 {
					flowsOut++
				}
				if ev.flowIn != 0 {
					flowsIn++
				}
			}
			text := string(out)
			if n := strings.Count(text, "\npacket {") + strings.Count(text[:min(len(text), 9)], "packet {"); n != packets {
				t.Errorf("protoc shows %d packets, the replay %d", n, packets)
			}
			if n := strings.Count(text, "track_event {"); n != events {
				t.Errorf("protoc shows %d track events, the replay %d", n, events)
			}
			if n := strings.Count(text, "track_descriptor {"); n != descs {
				t.Errorf("protoc shows %d track descriptors, the replay %d", n, descs)
			}
			if n, m := strings.Count(text, " flow_ids: "), strings.Count(text, " terminating_flow_ids: "); n != flowsOut || m != flowsIn {
				t.Errorf("protoc shows %d flow_ids and %d terminating_flow_ids, the replay %d and %d", n, m, flowsOut, flowsIn)
			}
		})
	}
}

// A traceSlice is one slice or instant of a track, times in ns, or one
// end of a flow (Name "flow out" or "flow in", Flow its id).
type traceSlice struct {
	Name, Cat, Args string
	TS, Dur         int64
	Instant         bool
	Flow            uint64
}

// trackKey is a track's pid and tid.
type trackKey struct{ pid, tid int64 }

func sortSlices(m map[trackKey][]traceSlice) {
	for _, s := range m {
		slices.SortFunc(s, func(a, b traceSlice) int {
			return cmp.Or(cmp.Compare(a.TS, b.TS), cmp.Compare(a.Dur, b.Dur), strings.Compare(a.Name, b.Name), strings.Compare(a.Args, b.Args))
		})
	}
}

func compareSlices(t *testing.T, got, want map[trackKey][]traceSlice) {
	t.Helper()
	sortSlices(got)
	sortSlices(want)
	for k, w := range want {
		g := got[k]
		if len(g) != len(w) {
			t.Errorf("track %v: %d slices and instants, trace.json %d", k, len(g), len(w))
			continue
		}
		for i := range w {
			if g[i] != w[i] {
				t.Errorf("track %v: slice %d is %+v, in trace.json %+v", k, i, g[i], w[i])
				break
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && len(got[k]) > 0 {
			t.Errorf("track %v not in trace.json", k)
		}
	}
}

func jsonSlices(t *testing.T, b []byte) map[trackKey][]traceSlice {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph, Name, Cat, Bp string
			Pid, Tid          int64
			TS, Dur           json.Number
			Args              json.RawMessage
			ID                uint64
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[trackKey][]traceSlice{}
	for _, e := range doc.TraceEvents {
		k := trackKey{e.Pid, e.Tid}
		switch e.Ph {
		case "M":
			if _, ok := out[k]; !ok && e.Name == "thread_name" {
				out[k] = nil
			}
			continue
		case "X":
			out[k] = append(out[k], traceSlice{Name: e.Name, Cat: e.Cat, Args: string(e.Args), TS: testdata.TraceNanos(t, e.TS), Dur: testdata.TraceNanos(t, e.Dur)})
		case "i":
			out[k] = append(out[k], traceSlice{Name: e.Name, Cat: e.Cat, Args: string(e.Args), TS: testdata.TraceNanos(t, e.TS), Instant: true})
		case "s", "f":
			if e.ID == 0 || e.Ph == "f" && e.Bp != "e" {
				t.Fatalf("flow event %+v", e)
			}
			name := map[string]string{"s": "flow out", "f": "flow in"}[e.Ph]
			out[k] = append(out[k], traceSlice{Name: name, TS: testdata.TraceNanos(t, e.TS), Instant: true, Flow: e.ID})
		default:
			t.Fatalf("event %q", e.Ph)
		}
	}
	return out
}

// checkNesting replays the X events of a trace.json as a viewer that
// sorts them by start time, stably, does: on each track, an event nests
// in the last one still running at its start, and must end within it
// (events that start together come outermost first).
func checkNesting(t *testing.T, name string, b []byte) {
	t.Helper()
	var doc struct {
		TraceEvents []struct {
			Ph       string
			Pid, Tid int64
			TS, Dur  json.Number
		}
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	type span struct{ ts, end int64 }
	tracks := map[trackKey][]span{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" {
			ts := testdata.TraceNanos(t, e.TS)
			k := trackKey{e.Pid, e.Tid}
			tracks[k] = append(tracks[k], span{ts, ts + testdata.TraceNanos(t, e.Dur)})
		}
	}
	for k, spans := range tracks {
		slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.ts, b.ts) })
		var open []span
		for _, s := range spans {
			for len(open) > 0 && open[len(open)-1].end <= s.ts && open[len(open)-1].end > open[len(open)-1].ts {
				open = open[:len(open)-1]
			}
			if n := len(open); n > 0 && s.end > open[n-1].end {
				t.Errorf("%s: track %v: the event at %d ns ending at %d comes after one at %d ending at %d, which it does not fit in", name, k, s.ts, s.end, open[n-1].ts, open[n-1].end)
				return
			}
			open = append(open, s)
		}
	}
}

// pfPacket is what the replay reads of a TracePacket.
type pfPacket struct {
	ts               uint64
	typ, track       uint64
	name, cat, args  string
	flowOut, flowIn  uint64 // flow_ids, terminating_flow_ids (one each here)
	desc             *pfDescriptor
	sequence, fields int
}

type pfDescriptor struct {
	uuid, parent uint64
	name         string
	pid, tid     int64
	thread       bool
}

// pbFields splits a protobuf message into fields: number, wire type,
// varint value or bytes.
func pbFields(t *testing.T, b []byte, each func(field int, v uint64, data []byte)) {
	t.Helper()
	varint := func() uint64 {
		var v uint64
		for shift := 0; ; shift += 7 {
			if len(b) == 0 || shift > 63 {
				t.Fatal("truncated varint")
			}
			c := b[0]
			b = b[1:]
			v |= uint64(c&0x7f) << shift
			if c < 0x80 {
				return v
			}
		}
	}
	for len(b) > 0 {
		tag := varint()
		switch tag & 7 {
		case 0:
			each(int(tag>>3), varint(), nil)
		case 1:
			if len(b) < 8 {
				t.Fatalf("field %d: truncated fixed64", tag>>3)
			}
			each(int(tag>>3), binary.LittleEndian.Uint64(b), nil)
			b = b[8:]
		case 2:
			n := varint()
			if n > uint64(len(b)) {
				t.Fatalf("field %d: length %d, %d bytes left", tag>>3, n, len(b))
			}
			each(int(tag>>3), 0, b[:n])
			b = b[n:]
		default:
			t.Fatalf("field %d: wire type %d", tag>>3, tag&7)
		}
	}
}

func pfPackets(t *testing.T, b []byte) []pfPacket {
	t.Helper()
	var out []pfPacket
	pbFields(t, b, func(f int, _ uint64, pkt []byte) {
		if f != 1 || pkt == nil {
			t.Fatalf("Trace field %d", f)
		}
		var p pfPacket
		pbFields(t, pkt, func(f int, v uint64, data []byte) {
			p.fields++
			switch f {
			case 8:
				p.ts = v
			case 10:
				p.sequence = int(v)
			case 11:
				pbFields(t, data, func(f int, v uint64, data []byte) {
					switch f {
					case 9:
						p.typ = v
					case 11:
						p.track = v
					case 23:
						p.name = string(data)
					case 22:
						p.cat = string(data)
					case 47:
						p.flowOut = v
					case 48:
						p.flowIn = v
					case 4:
						pbFields(t, data, func(f int, _ uint64, data []byte) {
							if f == 9 {
								p.args = string(data)
							}
						})
					}
				})
			case 60:
				d := &pfDescriptor{}
				pbFields(t, data, func(f int, v uint64, data []byte) {
					switch f {
					case 1:
						d.uuid = v
					case 2:
						d.name = string(data)
					case 5:
						d.parent = v
					case 3, 4:
						d.thread = f == 4
						pbFields(t, data, func(g int, v uint64, data []byte) {
							switch {
							case g == 1:
								d.pid = int64(int32(v))
							case g == 2 && f == 4:
								d.tid = int64(v)
							case g == 5 && f == 4, g == 6 && f == 3:
								d.name = string(data)
							}
						})
					}
				})
				p.desc = d
			}
		})
		if p.sequence != 1 {
			t.Fatalf("packet on sequence %d", p.sequence)
		}
		out = append(out, p)
	})
	return out
}

// pfSlices replays a pftrace: per thread track (by pid and tid), its
// slices and instants.
func pfSlices(t *testing.T, b []byte) map[trackKey][]traceSlice {
	t.Helper()
	packets := pfPackets(t, b)
	tracks := map[uint64]trackKey{}
	procs := map[uint64]int64{}
	for _, p := range packets {
		if d := p.desc; d != nil && !d.thread && d.parent == 0 {
			procs[d.uuid] = d.pid
		}
	}
	for _, p := range packets {
		if d := p.desc; d != nil && (d.thread || d.parent != 0) {
			if _, dup := tracks[d.uuid]; dup {
				t.Fatalf("track %d described twice", d.uuid)
			}
			if !d.thread {
				t.Fatalf("named track %+v: no corpus pid exceeds int32", d)
			}
			tracks[d.uuid] = trackKey{d.pid, d.tid}
		}
	}
	var events []pfPacket
	for _, p := range packets {
		if p.desc == nil {
			events = append(events, p)
		}
	}
	slices.SortStableFunc(events, func(a, b pfPacket) int { return cmp.Compare(a.ts, b.ts) })
	out := map[trackKey][]traceSlice{}
	for _, k := range tracks {
		out[k] = nil
	}
	open := map[uint64][]pfPacket{}
	for _, p := range events {
		k, ok := tracks[p.track]
		if !ok {
			t.Fatalf("event on undescribed track %d", p.track)
		}
		if p.flowOut != 0 {
			out[k] = append(out[k], traceSlice{Name: "flow out", TS: int64(p.ts), Instant: true, Flow: p.flowOut})
		}
		if p.flowIn != 0 {
			out[k] = append(out[k], traceSlice{Name: "flow in", TS: int64(p.ts), Instant: true, Flow: p.flowIn})
		}
		switch p.typ {
		case 1:
			open[p.track] = append(open[p.track], p)
		case 2:
			st := open[p.track]
			if len(st) == 0 {
				t.Fatalf("track %v: slice end at %d with none open", k, p.ts)
			}
			b := st[len(st)-1]
			open[p.track] = st[:len(st)-1]
			if p.name != "" {
				t.Fatalf("named slice end %q", p.name)
			}
			out[k] = append(out[k], traceSlice{Name: b.name, Cat: b.cat, Args: b.args, TS: int64(b.ts), Dur: int64(p.ts - b.ts)})
		case 3:
			out[k] = append(out[k], traceSlice{Name: p.name, Cat: p.cat, Args: p.args, TS: int64(p.ts), Instant: true})
		default:
			t.Fatalf("event type %d", p.typ)
		}
	}
	for uuid, st := range open {
		if len(st) > 0 {
			t.Errorf("track %v: %d slices never end", tracks[uuid], len(st))
		}
	}
	return out
}
