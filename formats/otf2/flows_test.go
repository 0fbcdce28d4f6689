package otf2

import (
	"encoding/json"
	"math/bits"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestMessageFlows pairs every flow start ("s") of trace.json with its end
// ("f", bound to the enclosing slice) and both with messages.csv on every
// corpus case: one flow per matched message, its id the message's row,
// its start on the sender's track at the send (ns from the global
// offset), its end on the receiver's at the receive, each inside a region
// slice of its track and at the instant event of the send or receive.
func TestMessageFlows(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			fsys, _ := openCase(t, name)
			var doc struct {
				TraceEvents []struct {
					Ph, Name, Bp string
					Tid          int64
					TS, Dur      json.Number
					ID           uint64
				}
			}
			if err := json.Unmarshal(testdata.ReadFS(t, fsys, "trace.json"), &doc); err != nil {
				t.Fatal(err)
			}
			type end struct {
				tid, ts int64
				n       int
			}
			flows := map[string]map[uint64]*end{"s": {}, "f": {}}
			type span struct{ from, to int64 }
			slices := map[int64][]span{}
			instants := map[[2]int64]string{} // (tid, ts) -> names
			for _, e := range doc.TraceEvents {
				switch e.Ph {
				case "X":
					ts := testdata.TraceNanos(t, e.TS)
					slices[e.Tid] = append(slices[e.Tid], span{ts, ts + testdata.TraceNanos(t, e.Dur)})
				case "i":
					instants[[2]int64{e.Tid, testdata.TraceNanos(t, e.TS)}] += e.Name + " "
				case "s", "f":
					if e.Ph == "f" && e.Bp != "e" || e.Name != "message" {
						t.Fatalf("flow event %+v", e)
					}
					f := flows[e.Ph][e.ID]
					if f == nil {
						f = &end{tid: e.Tid, ts: testdata.TraceNanos(t, e.TS)}
						flows[e.Ph][e.ID] = f
					}
					f.n++
				}
			}
			index := map[string]int64{} // location id -> track (its tid)
			for i, l := range locationsOf(t, fsys) {
				index[l[0]] = int64(i)
			}
			var res, off uint64
			for _, line := range strings.Split(string(testdata.ReadFS(t, fsys, "header.txt")), "\n") {
				k, v, _ := strings.Cut(line, ": ")
				n, _ := strconv.ParseUint(v, 10, 64)
				switch k {
				case "timer_resolution":
					res = n
				case "global_offset":
					off = n
				}
			}
			hi, lo := bits.Mul64(off, 1e9)
			origin, _ := bits.Div64(hi, lo, res)
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "messages.csv"))
			col := map[string]int{}
			for i, c := range rows[0] {
				col[c] = i
			}
			matched := 0
			for r, m := range rows[1:] {
				id := uint64(r + 1)
				s, f := flows["s"][id], flows["f"][id]
				if m[col["kind"]] != "message" {
					if s != nil || f != nil {
						t.Errorf("message %d (%s) has a flow", id, m[col["kind"]])
					}
					continue
				}
				matched++
				if s == nil || f == nil || s.n != 1 || f.n != 1 {
					t.Errorf("message %d: flow start %+v, end %+v", id, s, f)
					continue
				}
				for _, c := range []struct {
					e          *end
					loc, time  string
					instantsOf string
				}{{s, "sender_location", "send_time_ns", "MpiSend MpiIsend"}, {f, "receiver_location", "recv_time_ns", "MpiRecv MpiIrecv"}} {
					ns, _ := strconv.ParseInt(m[col[c.time]], 10, 64)
					if d := c.e.ts - (ns - int64(origin)); c.e.tid != index[m[col[c.loc]]] || d < -1 || d > 1 {
						t.Errorf("message %d: flow end on track %d at %d ns, messages.csv %s %s at %d ns (origin %d)", id, c.e.tid, c.e.ts, c.loc, m[col[c.loc]], ns-int64(origin), origin)
					}
					inside := false
					for _, sp := range slices[c.e.tid] {
						inside = inside || sp.from <= c.e.ts && c.e.ts <= sp.to
					}
					if !inside {
						t.Errorf("message %d: flow end at %d ns on track %d in no slice", id, c.e.ts, c.e.tid)
					}
					names := instants[[2]int64{c.e.tid, c.e.ts}]
					if names == "" || !strings.Contains(c.instantsOf, strings.Fields(names)[0]) {
						t.Errorf("message %d: flow end at %d ns on track %d beside instants %q", id, c.e.ts, c.e.tid, names)
					}
				}
			}
			if n := len(flows["s"]); n != matched || len(flows["f"]) != matched {
				t.Errorf("%d flow starts, %d ends, messages.csv %d matched messages", n, len(flows["f"]), matched)
			}
			t.Logf("%d flows", matched)
		})
	}
}
