// Package ovni writes synthetic ovni traces in every on-disk layout (spec
// v1, 1.0.x, 1.1-1.4, spec v2, spec v3): exact event encodings for decoder
// tests, small traces (the built-in demo), and large traces for
// benchmarks, written streaming.
package ovni

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// An Event is one event to encode.
type Event struct {
	MCV     string // three characters
	Clock   uint64
	Payload []byte // normal events: 0 or 2..16 bytes
	Jumbo   bool   // Payload is the jumbo data (any length)
}

// AppendEvent appends the little-endian encoding of ev.
func AppendEvent(dst []byte, ev Event) []byte {
	flags := byte(0)
	switch {
	case ev.Jumbo:
		flags = 0x13
	case len(ev.Payload) > 0:
		flags = byte(len(ev.Payload) - 1)
	}
	dst = append(dst, flags, ev.MCV[0], ev.MCV[1], ev.MCV[2])
	dst = binary.LittleEndian.AppendUint64(dst, ev.Clock)
	if ev.Jumbo {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(ev.Payload)))
	}
	return append(dst, ev.Payload...)
}

// DumpLine is ovnidump's line for ev in stream loom.pid.tid (the layout
// of ovnidump at the v1 specification commit), without the newline.
func DumpLine(loom string, pid, tid int64, ev Event) string {
	s := fmt.Sprintf("%s.%d.%d  %d  %s", loom, pid, tid, int64(ev.Clock), ev.MCV)
	p := ev.Payload
	if ev.Jumbo {
		p = binary.LittleEndian.AppendUint32(nil, uint32(len(ev.Payload)))
		p = append(p, ev.Payload...)
	}
	if len(p) > 0 {
		s += " "
		for _, b := range p {
			s += fmt.Sprintf(":%02x", b)
		}
	}
	return s
}

// DeltaLine is plain ovnidump's line of releases 1.2 to 1.5 for ev in the
// stream at relpath, whose previous event has clock last.
func DeltaLine(relpath string, ev Event, last int64) string {
	return fmt.Sprintf("%s  %10d  %+10d  %s", relpath, int64(ev.Clock), int64(ev.Clock)-last, ev.MCV) + spaceHex(ev)
}

// HexLine is ovnidump -x's line (1.6 and later) for ev in the stream at
// relpath.
func HexLine(relpath string, ev Event) string {
	return fmt.Sprintf("%10d  %s  %s  ", int64(ev.Clock), ev.MCV, relpath) + strings.TrimPrefix(spaceHex(ev), " ")
}

// spaceHex is " :xx:xx..." of the payload as stored, or "".
func spaceHex(ev Event) string {
	p := ev.Payload
	if ev.Jumbo {
		p = binary.LittleEndian.AppendUint32(nil, uint32(len(ev.Payload)))
		p = append(p, ev.Payload...)
	}
	if len(p) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte(' ')
	for _, c := range p {
		fmt.Fprintf(&b, ":%02x", c)
	}
	return b.String()
}

// A Layout is how Write stores a process's streams.
type Layout int

const (
	LayoutV1  Layout = iota // thread.<T> (with Proc.Header: 1.0.x)
	LayoutObs               // thread.<T>.obs with the stream header (1.1-1.4)
	LayoutV2                // thread.<T>.obs + thread.<T>.json (spec v2)
	LayoutV3                // thread.<T>/stream.obs + stream.json (spec v3)
)

// A Stream is one thread's events and, for spec v2 and v3, its JSON
// metadata (written as is; "" for none).
type Stream struct {
	TID    int64
	Events []Event
	JSON   string
}

// A Proc is one process: its metadata.json text (written as is; "" for
// none) and its streams.
type Proc struct {
	Loom     string
	PID      int64
	Metadata string
	Streams  []Stream
	Header   bool // LayoutV1: write the 1.0.x stream header
	Layout   Layout
}

// StreamJSON returns a thread's JSON metadata as libovni writes it:
// version 2 or 3, the library version, ovni.require of ovni 1.1.0 and
// ovni.finished; extra is inserted into the ovni object (e.g. `"rank": 1`
// or loom_cpus for spec v3).
func StreamJSON(version int, lib string, finished int, extra ...string) string {
	s := fmt.Sprintf("{\n    \"version\": %d,\n    \"ovni\": {\n        \"lib\": {\n            \"version\": %q,\n            \"commit\": \"0123456789abcdef0123456789abcdef01234567\"\n        },\n        \"require\": {\n            \"ovni\": \"1.1.0\"\n        },", version, lib)
	for _, e := range extra {
		s += "\n        " + e + ","
	}
	return s + fmt.Sprintf("\n        \"finished\": %d\n    }\n}", finished)
}

// V3Proc returns the stream.json fields spec v3 keeps for the thread that
// initialized its process: part, tid, pid, loom, app_id, rank/nranks
// (when nranks > 0) and loom_cpus (cpus of them).
func V3Proc(loom string, pid, tid int64, appID, rank, nranks, cpus int) []string {
	out := []string{`"part": "thread"`, fmt.Sprintf(`"tid": %d`, tid), fmt.Sprintf(`"pid": %d`, pid), fmt.Sprintf(`"loom": %q`, loom), fmt.Sprintf(`"app_id": %d`, appID)}
	if nranks > 0 {
		out = append(out, fmt.Sprintf(`"rank": %d`, rank), fmt.Sprintf(`"nranks": %d`, nranks))
	}
	if cpus > 0 {
		var c []string
		for i := 0; i < cpus; i++ {
			c = append(c, fmt.Sprintf(`{"index": %d, "phyid": %d}`, i, 2*i+1))
		}
		out = append(out, `"loom_cpus": [`+strings.Join(c, ", ")+`]`)
	}
	return out
}

// Write writes procs as an ovni trace under dir/ovni and returns that path.
func Write(dir string, procs []Proc) (string, error) {
	root := filepath.Join(dir, "ovni")
	for _, p := range procs {
		pdir := filepath.Join(root, "loom."+p.Loom, "proc."+strconv.FormatInt(p.PID, 10))
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			return "", err
		}
		if p.Metadata != "" {
			if err := os.WriteFile(filepath.Join(pdir, "metadata.json"), []byte(p.Metadata), 0o644); err != nil {
				return "", err
			}
		}
		for _, s := range p.Streams {
			var b []byte
			if p.Header || p.Layout != LayoutV1 {
				b = append([]byte("ovni"), 1, 0, 0, 0)
			}
			for _, ev := range s.Events {
				b = AppendEvent(b, ev)
			}
			base := filepath.Join(pdir, "thread."+strconv.FormatInt(s.TID, 10))
			obs, js := base, ""
			switch p.Layout {
			case LayoutObs:
				obs = base + ".obs"
			case LayoutV2:
				obs, js = base+".obs", base+".json"
			case LayoutV3:
				if err := os.MkdirAll(base, 0o755); err != nil {
					return "", err
				}
				obs, js = filepath.Join(base, "stream.obs"), filepath.Join(base, "stream.json")
			}
			if err := os.WriteFile(obs, b, 0o644); err != nil {
				return "", err
			}
			if js != "" && s.JSON != "" {
				if err := os.WriteFile(js, []byte(s.JSON), 0o644); err != nil {
					return "", err
				}
			}
		}
	}
	return root, nil
}

// Metadata returns a metadata.json text as libovni writes it.
func Metadata(appID int, rank, nranks int, cpus int) string {
	s := fmt.Sprintf("{\n    \"version\": 1,\n    \"app_id\": %d", appID)
	if nranks > 0 {
		s += fmt.Sprintf(",\n    \"rank\": %d,\n    \"nranks\": %d", rank, nranks)
	}
	if cpus > 0 {
		s += ",\n    \"cpus\": ["
		for i := 0; i < cpus; i++ {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf("\n        {\n            \"index\": %d,\n            \"phyid\": %d\n        }", i, 2*i+1)
		}
		s += "\n    ]"
	}
	return s + "\n}"
}

var plainMCVs = []string{"VTx", "VTe", "VTp", "VTr", "VSr", "VSs", "VS@", "VSh", "VSf", "OHp", "OHc", "KCO", "KCI", "OB."}

// RandomEvents returns n events from seed with clocks increasing from
// start: about 70 % without payload, 29 % with 2..16 bytes, 1 % jumbo.
func RandomEvents(seed int64, n int, start uint64) []Event {
	rng := rand.New(rand.NewSource(seed))
	out := make([]Event, n)
	clock := start
	for i := range out {
		clock += uint64(1 + rng.Intn(2000))
		out[i] = randomEvent(rng, clock)
	}
	return out
}

func randomEvent(rng *rand.Rand, clock uint64) Event {
	switch r := rng.Intn(100); {
	case r < 70:
		return Event{MCV: plainMCVs[rng.Intn(len(plainMCVs))], Clock: clock}
	case r < 99:
		p := make([]byte, 2+rng.Intn(15))
		rng.Read(p)
		return Event{MCV: "ZS" + string("23456789abcdefg"[len(p)-2]), Clock: clock, Payload: p}
	default:
		p := make([]byte, rng.Intn(64))
		rng.Read(p)
		return Event{MCV: "ZJj", Clock: clock, Payload: p, Jumbo: true}
	}
}

// WriteDemo writes the small demo trace (one loom, two processes, four
// threads) under dir and returns the trace directory.
func WriteDemo(dir string) (string, error) {
	procs := []Proc{
		{Loom: "demo", PID: 4100, Metadata: Metadata(1, 0, 2, 4), Streams: []Stream{
			{TID: 4100, Events: RandomEvents(1, 400, 1_000_000)},
			{TID: 4101, Events: RandomEvents(2, 600, 1_000_500)},
		}},
		{Loom: "demo", PID: 4200, Metadata: Metadata(1, 1, 2, 0), Streams: []Stream{
			{TID: 4200, Events: RandomEvents(3, 400, 1_000_250)},
			{TID: 4201, Events: RandomEvents(4, 600, 1_000_750)},
		}},
	}
	return Write(dir, procs)
}

// WriteLarge writes a spec v1 trace of threads streams with n random
// events each (one loom "bignode", one process), streaming, and returns
// the trace directory and the total number of events.
func WriteLarge(dir string, threads, n int) (string, int, error) {
	return WriteLargeAs(dir, LayoutV1, threads, n)
}

// WriteLargeAs is WriteLarge in the given layout.
func WriteLargeAs(dir string, layout Layout, threads, n int) (string, int, error) {
	root := filepath.Join(dir, "ovni")
	pdir := filepath.Join(root, "loom.bignode", "proc.1000")
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return "", 0, err
	}
	if layout != LayoutV3 {
		if err := os.WriteFile(filepath.Join(pdir, "metadata.json"), []byte(Metadata(1, 0, 0, threads)), 0o644); err != nil {
			return "", 0, err
		}
	}
	for t := 0; t < threads; t++ {
		tid := int64(1000 + t)
		base := filepath.Join(pdir, "thread."+strconv.FormatInt(tid, 10))
		obs, js := base, ""
		cpus := 0
		if t == 0 {
			cpus = threads // the thread that initialized the process lists the loom's CPUs
		}
		extra := V3Proc("bignode", 1000, tid, 1, 0, 0, cpus)
		switch layout {
		case LayoutObs:
			obs = base + ".obs"
		case LayoutV2:
			obs, js = base+".obs", StreamJSON(2, "1.10.0", 1)
			if err := os.WriteFile(base+".json", []byte(js), 0o644); err != nil {
				return "", 0, err
			}
		case LayoutV3:
			if err := os.MkdirAll(base, 0o755); err != nil {
				return "", 0, err
			}
			obs = filepath.Join(base, "stream.obs")
			if err := os.WriteFile(filepath.Join(base, "stream.json"), []byte(StreamJSON(3, "1.14.0", 1, extra...)), 0o644); err != nil {
				return "", 0, err
			}
		}
		f, err := os.Create(obs)
		if err != nil {
			return "", 0, err
		}
		w := bufio.NewWriterSize(f, 1<<20)
		if layout != LayoutV1 {
			w.Write([]byte{'o', 'v', 'n', 'i', 1, 0, 0, 0})
		}
		rng := rand.New(rand.NewSource(int64(t)))
		clock := uint64(1_000_000_000)
		var buf []byte
		for i := 0; i < n; i++ {
			clock += uint64(1 + rng.Intn(2000))
			c := clock
			if layout != LayoutV1 {
				// no two threads share a clock, so that every merge
				// order (ovnidump's too) is the same
				c = clock*uint64(threads) + uint64(t)
			}
			buf = AppendEvent(buf[:0], randomEvent(rng, c))
			w.Write(buf)
		}
		if err := w.Flush(); err != nil {
			f.Close()
			return "", 0, err
		}
		if err := f.Close(); err != nil {
			return "", 0, err
		}
	}
	return root, threads * n, nil
}

// TypeCreate is the jumbo event (VYc, 6Yc, POc) that creates task type
// typ with label.
func TypeCreate(mcv string, clock uint64, typ uint32, label string) Event {
	p := binary.LittleEndian.AppendUint32(nil, typ)
	return Event{MCV: mcv, Clock: clock, Payload: append(append(p, label...), 0), Jumbo: true}
}

// U32Event is an event whose payload is the u32 values (VTc task, type;
// VTx task, body; ...).
func U32Event(mcv string, clock uint64, vals ...uint32) Event {
	var p []byte
	for _, v := range vals {
		p = binary.LittleEndian.AppendUint32(p, v)
	}
	return Event{MCV: mcv, Clock: clock, Payload: p}
}

// EveryEvent returns, for each signature of ovnidump's event tables
// ("MCV", "+" for a jumbo event, then "(type name, ...)"; see
// decode/ovni.Signatures), one event per round with clocks from start in
// steps of step. Round 0 holds zeros and empty strings; round 1 the
// extremes of each type (most negative, largest unsigned) and a label
// with spaces and quotes; round 2 values that differ per event; round 3,
// for the events with arguments, round 2's payload cut short (4 bytes
// less, at least 2; a label without its NUL), whose arguments ovnidump
// reads from the bytes that follow in the stream.
func EveryEvent(sigs []string, start, step uint64) []Event {
	var out []Event
	clock := start
	for r := 0; r < 4; r++ {
		for k, sig := range sigs {
			ev := Event{MCV: sig[:3], Clock: clock, Jumbo: len(sig) > 3 && sig[3] == '+'}
			i := strings.IndexByte(sig, '(')
			if i < 0 && r == 3 {
				continue
			}
			if i >= 0 {
				for j, arg := range strings.Split(strings.TrimSuffix(sig[i+1:], ")"), ",") {
					typ, name, _ := strings.Cut(strings.TrimSpace(arg), " ")
					ev.Payload = appendArg(ev.Payload, typ, name, min(r, 2), k*4+j)
				}
			}
			if n := len(ev.Payload); r == 3 && ev.Jumbo && strings.Contains(sig, "str ") {
				ev.Payload = ev.Payload[:n-1]
			} else if r == 3 && n > 2 {
				ev.Payload = ev.Payload[:max(2, n-4)]
			}
			out = append(out, ev)
			clock += step
		}
	}
	return out
}

// appendArg appends an argument of type typ (u8 ... i64, str) for round r;
// n varies it between events.
func appendArg(p []byte, typ, name string, r, n int) []byte {
	v := uint64(0)
	switch r {
	case 1:
		v = map[string]uint64{"u8": 0xff, "u16": 0xffff, "u32": 0xffffffff, "u64": 0xffffffffffffffff,
			"i8": 0x80, "i16": 0x8000, "i32": 0x80000000, "i64": 1 << 63}[typ]
	case 2:
		v = uint64(n)*0x9e3779b97f4a7c15 + 12345
	}
	switch typ {
	case "u8", "i8":
		return append(p, byte(v))
	case "u16", "i16":
		return binary.LittleEndian.AppendUint16(p, uint16(v))
	case "u32", "i32":
		return binary.LittleEndian.AppendUint32(p, uint32(v))
	case "u64", "i64":
		return binary.LittleEndian.AppendUint64(p, v)
	}
	label := [...]string{"", `a "quoted" label with spaces`, fmt.Sprintf("%s-%d", name, n)}[r]
	return append(append(p, label...), 0)
}

// WriteEveryEvent writes a trace of libovni 1.<minor> (spec v2 up to 1.10,
// v3 after) under dir and returns the trace directory. Its two thread
// streams hold, alternating, the events of EveryEvent of sigs, of the
// signatures of others whose MCV sigs lacks (a newer release's events,
// which 1.<minor> does not describe), and of an MCV of no model and one of
// a model that declares no such event.
func WriteEveryEvent(dir string, minor int, sigs, others []string) (string, error) {
	all := append([]string(nil), sigs...)
	known := map[string]bool{}
	for _, s := range sigs {
		known[s[:3]] = true
	}
	for _, s := range append(others, "XYZ(u32 x)", "OZZ") {
		if !known[s[:3]] {
			all = append(all, s)
			known[s[:3]] = true
		}
	}
	lib := fmt.Sprintf("1.%d.0", minor)
	proc := Proc{Loom: "every", PID: 1, Layout: LayoutV3}
	if minor <= 10 {
		proc.Layout, proc.Metadata = LayoutV2, Metadata(1, 0, 0, 2)
	}
	for i, ev := range EveryEvent(all, 1_000_000, 10) {
		if i < 2 {
			meta := StreamJSON(2, lib, 1)
			if proc.Layout == LayoutV3 {
				cpus := 2 * (1 - i) // the first thread lists the loom's CPUs
				meta = StreamJSON(3, lib, 1, V3Proc("every", 1, int64(10+i), 1, 0, 0, cpus)...)
			}
			proc.Streams = append(proc.Streams, Stream{TID: int64(10 + i), JSON: meta})
		}
		s := &proc.Streams[i%2]
		s.Events = append(s.Events, ev)
	}
	return Write(dir, []Proc{proc})
}
