package ovni

import (
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// chromeTrace is the trace for trace.json: one track per thread stream,
// pid the process id (a process number when two looms share one), paired
// events as X bursts (chromeEvents), the others as instant events; times
// from the earliest event of all streams.
type chromeTrace struct {
	t *trace

	once   sync.Once
	tracks []interchange.Track
	thread []int  // per track: its thread
	states []bool // per track: the thread's states track
	origin uint64
}

func (c *chromeTrace) Tracks() []interchange.Track {
	c.once.Do(func() {
		pids := map[int64]*ovni.Proc{}
		procNr := map[*ovni.Proc]int64{}
		clash := false
		for _, th := range c.t.threads {
			if p, ok := pids[th.Proc.PID]; ok && p != th.Proc {
				clash = true
			}
			pids[th.Proc.PID] = th.Proc
			if _, ok := procNr[th.Proc]; !ok {
				procNr[th.Proc] = int64(len(procNr))
			}
		}
		names := make([]string, 0, 2*len(c.t.threads))
		for _, th := range c.t.threads {
			n := th.Proc.Loom.Name + "." + strconv.FormatInt(th.Proc.PID, 10) + "." + strconv.FormatInt(th.TID, 10)
			names = append(names, n, n+".states")
		}
		names = render.FileNames(names)
		c.origin = math.MaxUint64
		for i, th := range c.t.threads {
			pid := th.Proc.PID
			if clash {
				pid = procNr[th.Proc]
			}
			proc := "loom " + th.Proc.Loom.Name + " proc " + strconv.FormatInt(th.Proc.PID, 10)
			thread := "thread " + strconv.FormatInt(th.TID, 10)
			c.tracks = append(c.tracks,
				interchange.Track{Pid: pid, Tid: th.TID, Process: proc, Thread: thread, File: names[2*i]},
				interchange.Track{Pid: pid, Tid: statesTid(th.TID), Process: proc, Thread: thread + " states", File: names[2*i+1]})
			c.thread = append(c.thread, i, i)
			c.states = append(c.states, false, true)
			// a stream that cannot be opened is reported by each view
			// that reads it (Events)
			if s, _ := th.open(); s != nil {
				var ev ovni.Event
				if s.NewReader(s.Start(), 4096).Next(&ev) == nil {
					c.origin = min(c.origin, ev.Clock)
				}
			}
		}
		if c.origin == math.MaxUint64 {
			c.origin = 0
		}
	})
	return c.tracks
}

// Events reads thread i from pos (the zero Pos: its first event). A
// stream that could not be opened, or holds no header (an empty one: no
// events), gives its error, naming the stream: the views report it
// through their binding and skip the track.
func (c *chromeTrace) Events(i int, pos interchange.Pos) (interchange.Events, error) {
	c.Tracks()
	th := c.t.threads[c.thread[i]]
	s, err := th.open()
	if err != nil {
		return nil, th.streamErr(err)
	}
	if c.states[i] {
		e := &stateEvents{origin: c.origin, r: s.NewReader(pos.At, 64<<10), stop: math.MaxInt64}
		if len(pos.Aux) > 0 {
			if err := e.resume(pos.Aux); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
	e := &chromeEvents{t: c.t, origin: c.origin, s: s, r: s.NewReader(pos.At, 64<<10), stop: math.MaxInt64}
	if len(pos.Aux) > 0 {
		if err := e.resume(pos.Aux); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// maxOpen bounds the bursts open at once in a thread (its stack): an
// opening event beyond it is shown as an instant event, and so is the
// end that matches it.
// (README.txt says 64). With the three numbers before them, the offsets
// of the open bursts fit in interchange.MaxAux.
const maxOpen = 64

var _ = [interchange.MaxAux - 3 - maxOpen]struct{}{}

// A burstRole says that an event opens or closes bursts of one kind.
type burstRole struct {
	kind int32
	open bool
	name string // of the burst
}

// burstRoles are the events that open and close bursts: the begin/end
// pairs of events.csv's names, the task execution of nOS-V, Nanos6 and
// OpenMP (execute or resume .. end or pause), OpenMP worksharing and
// ovni's marks. Other events whose value is '[' or ']' open and close a
// burst of their model and category (infoOf).
var burstRoles = func() map[[3]byte]burstRole {
	m := map[[3]byte]burstRole{}
	add := func(mcvs []string, kind int, open bool, name string) {
		for _, s := range mcvs {
			m[[3]byte{s[0], s[1], s[2]}] = burstRole{kind: int32(kind), open: open, name: name}
		}
	}
	kind := 0
	for _, p := range eventPairs {
		add([]string{p[0]}, kind, true, p[2])
		add([]string{p[1]}, kind, false, p[2])
		kind++
	}
	for _, k := range [...]struct {
		open, close []string
		name        string
	}{
		{[]string{"VTx", "VTr"}, []string{"VTe", "VTp"}, "nosv task"},
		{[]string{"6Tx", "6Tr"}, []string{"6Te", "6Tp"}, "nanos6 task"},
		{[]string{"PPx"}, []string{"PPe"}, "openmp task"},
		{[]string{"PQx"}, []string{"PQe"}, "openmp worksharing"},
		{[]string{"OM["}, []string{"OM]"}, "ovni mark"},
	} {
		add(k.open, kind, true, k.name)
		add(k.close, kind, false, k.name)
		kind++
	}
	return m
}()

// An mcvInfo is what trace.json needs of an MCV: its burst role, if any,
// and its name as an instant event.
type mcvInfo struct {
	role   burstRole
	paired bool
	name   string
}

// mcvInfos holds the MCVs of burstRoles and eventNames, keyed by mcvKey
// (a uint32 hashes faster than a [3]byte: one lookup per event).
var mcvInfos = func() map[uint32]mcvInfo {
	m := map[uint32]mcvInfo{}
	for mcv, name := range eventNames {
		m[mcvKey(mcv)] = mcvInfo{name: name}
	}
	for mcv, r := range burstRoles {
		i := m[mcvKey(mcv)]
		i.role, i.paired = r, true
		m[mcvKey(mcv)] = i
	}
	return m
}()

func mcvKey(mcv [3]byte) uint32 { return uint32(mcv[0])<<16 | uint32(mcv[1])<<8 | uint32(mcv[2]) }

// infoOf finds what trace.json shows of an event: an MCV in neither table
// is named by itself, and opens or closes a burst of its model and
// category when its value is '[' or ']'.
func infoOf(mcv [3]byte) mcvInfo {
	if i, ok := mcvInfos[mcvKey(mcv)]; ok {
		return i
	}
	i := mcvInfo{name: string(mcv[:])}
	if mcv[2] == '[' || mcv[2] == ']' {
		i.role, i.paired = burstRole{kind: -1 - int32(mcv[0])<<8 - int32(mcv[1]), open: mcv[2] == '[', name: string(mcv[:2]) + " region"}, true
	}
	return i
}

// maxBurstPayload is the longest opening payload a burst's args show;
// longer ones (jumbo events) give only their length.
const maxBurstPayload = 64

// A burst is an open burst: its opening event.
type burst struct {
	role    burstRole
	mcv     [3]byte
	off     int64
	clock   uint64
	payload []byte // nil when longer than maxBurstPayload
	plen    int
}

// chromeEvents pairs a thread's events into bursts on a stack. Its
// position (Pos) is the offset of the next event and, in Aux, the clock of
// the last event, the opening events dropped beyond maxOpen, whether
// StopAt ended it, and the offsets of the open bursts' opening events
// (read again to resume).
type chromeEvents struct {
	t      *trace
	origin uint64
	s      *ovni.Stream
	r      *ovni.Reader
	stack  []burst
	over   uint64 // opening events beyond maxOpen whose end is to come
	last   uint64 // clock of the last event read
	ended  bool   // StopAt ended the track
	stop   int64
	ev     ovni.Event
	out    interchange.Event
	args   []byte
}

func (e *chromeEvents) State() interchange.Pos {
	aux := make([]uint64, 3, 3+len(e.stack))
	aux[0], aux[1] = e.last, e.over
	if e.ended {
		aux[2] = 1
	}
	for _, b := range e.stack {
		aux = append(aux, uint64(b.off))
	}
	return interchange.Pos{At: e.r.Offset(), Aux: aux}
}

func (e *chromeEvents) resume(aux []uint64) error {
	if len(aux) < 3 || len(aux)-3 > maxOpen {
		return render.ErrBadState
	}
	e.last, e.over, e.ended = aux[0], aux[1], aux[2] == 1
	for _, off := range aux[3:] {
		var ev ovni.Event
		if off > math.MaxInt64 {
			return render.ErrBadState
		}
		if err := e.s.NewReader(int64(off), 4096).Next(&ev); err != nil {
			return err
		}
		i := infoOf(ev.MCV)
		if !i.paired || !i.role.open {
			return render.ErrBadState
		}
		e.push(i.role, &ev)
	}
	return nil
}

func (e *chromeEvents) StopAt(t int64) { e.stop = t }

func (e *chromeEvents) push(r burstRole, ev *ovni.Event) {
	b := burst{role: r, mcv: ev.MCV, off: ev.Off, clock: ev.Clock, plen: len(ev.Payload)}
	if len(ev.Payload) <= maxBurstPayload {
		b.payload = append([]byte(nil), ev.Payload...)
	}
	e.stack = append(e.stack, b)
}

func (e *chromeEvents) rel(clock uint64) int64 { return int64(clock - e.origin) }

// Next reads one event: a single event is an instant event; an end emits
// its burst (and the bursts opened inside it that are still open); at the
// end of the thread the open bursts end at its last event.
func (e *chromeEvents) Next(emit func(*interchange.Event)) error {
	if e.ended {
		return io.EOF
	}
	err := e.r.Next(&e.ev)
	if err == nil && e.rel(e.ev.Clock) >= e.stop {
		e.ended = true
		e.closeAll(e.stop, nil, "", emit)
		return nil
	}
	if err != nil {
		if err == io.EOF && len(e.stack) == 0 {
			return io.EOF
		}
		note := "open at the end of the thread"
		if err != io.EOF {
			note = "open where the stream is damaged"
		}
		e.closeAll(e.rel(e.last), nil, note, emit)
		if err == io.EOF {
			return nil
		}
		return err
	}
	ev := &e.ev
	e.last = ev.Clock
	info := infoOf(ev.MCV)
	r := info.role
	switch {
	case !info.paired:
		e.instant(ev, info.name, "", emit)
	case r.open && len(e.stack) < maxOpen:
		e.push(r, ev)
	case r.open:
		e.over++
		e.instant(ev, info.name, "begin beyond "+strconv.Itoa(maxOpen)+" nested bursts", emit)
	case e.over > 0:
		e.over--
		e.instant(ev, info.name, "end beyond "+strconv.Itoa(maxOpen)+" nested bursts", emit)
	default:
		k := len(e.stack) - 1
		for k >= 0 && e.stack[k].role.kind != r.kind {
			k--
		}
		if k < 0 {
			e.instant(ev, info.name, "end without a begin", emit)
			break
		}
		for len(e.stack) > k+1 {
			e.closeTop(ev.Clock, ev, "ended with an enclosing burst", emit)
		}
		e.closeTop(ev.Clock, ev, "", emit)
	}
	return nil
}

// closeAll ends every open burst at t (relative).
func (e *chromeEvents) closeAll(t int64, end *ovni.Event, note string, emit func(*interchange.Event)) {
	for len(e.stack) > 0 {
		e.closeTop(uint64(t)+e.origin, end, note, emit)
	}
}

// closeTop emits the innermost open burst ending at clock, closed by end
// (nil: by no event); note says why when it is not its own end.
func (e *chromeEvents) closeTop(clock uint64, end *ovni.Event, note string, emit func(*interchange.Event)) {
	b := &e.stack[len(e.stack)-1]
	a := append(e.args[:0], `"begin":`...)
	a = appendMCV(a, b.mcv)
	a = appendPayload(a, "begin_payload", b.payload, b.plen)
	if end != nil {
		a = append(a, `,"end":`...)
		a = appendMCV(a, end.MCV)
		if note == "" {
			a = appendPayload(a, "end_payload", end.Payload, len(end.Payload))
		}
	}
	if note != "" {
		a = append(a, `,"note":`...)
		a = interchange.AppendJSONString(a, note)
	}
	e.args = a
	e.out = interchange.Event{Name: e.burstName(b), Cat: string(b.mcv[:1]), TS: e.rel(b.clock), Args: a}
	if clock > b.clock {
		e.out.Dur = int64(clock - b.clock)
	}
	e.stack = e.stack[:len(e.stack)-1]
	emit(&e.out)
}

// burstName is a burst's name: its region, or for a task (or an OpenMP
// worksharing) the label of its task type when the trace creates both.
func (e *chromeEvents) burstName(b *burst) string {
	for _, m := range taskModels {
		id, ok := ovni.PayloadU32(b.payload, 0)
		if !ok {
			break
		}
		switch b.role.name {
		case m.burst:
			e.t.tasks.load(e.t)
			if l, ok := e.t.tasks.label(b.mcv[0], id); ok {
				return l
			}
		case m.typed:
			e.t.tasks.load(e.t)
			if l, ok := e.t.tasks.typeLabel(b.mcv[0], id); ok {
				return l
			}
		}
	}
	return b.role.name
}

func (e *chromeEvents) instant(ev *ovni.Event, name, note string, emit func(*interchange.Event)) {
	a := append(e.args[:0], `"mcv":`...)
	a = appendMCV(a, ev.MCV)
	a = appendPayload(a, "payload", ev.Payload, len(ev.Payload))
	if note != "" {
		a = append(a, `,"note":`...)
		a = interchange.AppendJSONString(a, note)
	}
	e.args = a
	e.out = interchange.Event{Name: name, Cat: string(ev.MCV[:1]), TS: e.rel(ev.Clock), Instant: true, Args: a}
	emit(&e.out)
}

func appendMCV(dst []byte, mcv [3]byte) []byte {
	return interchange.AppendJSONString(dst, string(mcv[:]))
}

// appendPayload adds member name: the payload in hex, or its length n
// when p is nil and n > 0 (too long to show); nothing without a payload.
func appendPayload(dst []byte, name string, p []byte, n int) []byte {
	if n == 0 {
		return dst
	}
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	if p == nil {
		dst = append(dst, `_bytes":`...)
		return strconv.AppendInt(dst, int64(n), 10)
	}
	dst = append(dst, `":"0x`...)
	dst = render.AppendHexBytes(dst, p)
	return append(dst, '"')
}
