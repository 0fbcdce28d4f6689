package interchange

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/render"
)

// A Track is one timeline of a trace: a thread of a process or rank.
type Track struct {
	Pid, Tid        int64  // trace.json pid and tid
	Process, Thread string // names shown by the viewers
	File            string // name of its trace/<File>.json, unique and file-safe
}

// An Event is one complete ("X") or, when Instant, instant ("i") event.
// Times are nanoseconds from the trace's origin (the adapter chooses it,
// usually the earliest time, so viewers keep their precision).
type Event struct {
	Name, Cat string
	TS, Dur   int64
	Instant   bool
	Args      []byte // a JSON object's members without braces, empty for none (may be the adapter's buffer: valid during emit)
	// FlowOut and FlowIn, when not 0, make the event an end of a flow
	// arrow (a message from one track to another): FlowOut starts flow
	// FlowOut at TS, FlowIn ends flow FlowIn there; the two ends of a
	// flow carry the same id, unique in the trace. trace.json adds a flow
	// event (ph "s", or "f" with bp "e") bound to the slice enclosing TS
	// on the event's track; trace.pftrace gives the event's TrackEvent
	// flow_ids or terminating_flow_ids.
	FlowOut, FlowIn uint64
}

// End is when the event ends: TS+Dur, TS for an instant event.
func (e *Event) End() int64 {
	if e.Instant {
		return e.TS
	}
	return e.TS + e.Dur
}

// A Trace is what an adapter provides for trace.json: tracks, and a
// resumable reader of each track's events.
type Trace interface {
	Tracks() []Track
	// Events reads track i from pos, a position State returned (the zero
	// Pos: its beginning).
	Events(i int, pos Pos) (Events, error)
}

// Events reads the events of one track. Next reads the track's next record
// and passes the events it completes (none, one or more) to emit; io.EOF
// ends the track; other errors end the view (data errors after what was
// emitted). The events' ends never decrease from one record to the next.
type Events interface {
	Next(emit func(*Event)) error
	// State is where Next continues, for Trace.Events.
	State() Pos
	// StopAt makes Next end the track at its first record at or after t
	// (ns from the origin): events still open there are emitted ending at
	// t, then io.EOF. The time windows read a track this way.
	StopAt(t int64)
}

// A Pos is a position in a track: the record At (an offset or index) and
// what the adapter needs besides to resume there (ovni: its open bursts),
// at most MaxAux numbers. It goes to trace.json's on-disk index.
type Pos struct {
	At  int64
	Aux []uint64
}

// MaxAux bounds Pos.Aux.
const MaxAux = 80

// traceGen renders a Chrome Trace Event file of some tracks (all, or one
// for trace/<thread>.json): the events of each track in turn (viewers sort
// by time), then the metadata events naming processes and threads.
type traceGen struct {
	tr  Trace
	one int     // the track of trace/<thread>.json; -1 for all
	win *window // of trace/window-<k>.json; nil for all time
	pf  bool    // trace.pftrace (Perfetto protobuf) rather than JSON
	// report is the tree's Binding.Report: a track whose events cannot
	// be read at all (Trace.Events' data error) is skipped and reported
	// there, naming the view. nil drops.
	report func(error)
}

// Bind takes the view's error report from the tree (render.Stream passes
// the view's Binding on).
func (g *traceGen) Bind(b render.Binding) { g.report = b.Report }

// tracePos is a position in trace.json: which track (len(tracks) for the
// metadata at the end) and where in it.
type tracePos struct {
	track int
	pos   Pos
	begun bool // the opening line is written
	edge  bool // in a window: the track's slices open at its start are begun
}

// EncodeState writes a tracePos for the on-disk index.
func (g *traceGen) EncodeState(state any) []byte {
	p := state.(tracePos)
	var w render.StateWriter
	w.Uint(uint64(p.track)).Int(p.pos.At).Bool(p.begun).Bool(p.edge).Uint(uint64(len(p.pos.Aux)))
	for _, a := range p.pos.Aux {
		w.Uint(a)
	}
	return w.Bytes()
}

// DecodeState reads what EncodeState wrote.
func (g *traceGen) DecodeState(b []byte) (any, error) {
	r := render.NewStateReader(b)
	p := tracePos{track: int(r.Uint(uint64(len(g.tr.Tracks())) + 1)), pos: Pos{At: r.Int(0, math.MaxInt64)}, begun: r.Bool(), edge: r.Bool()}
	if n := r.Uint(MaxAux); n > 0 {
		p.pos.Aux = make([]uint64, n)
		for i := range p.pos.Aux {
			p.pos.Aux[i] = r.Uint(math.MaxUint64)
		}
	}
	return p, r.Err()
}

type traceCursor struct {
	g      *traceGen
	all    []Track
	tracks []int // indices into all
	pos    tracePos
	ev     Events
	err    error
	emit   func(*Event) // appends to out
	out    []byte
	t      *Track // of the events emitted
	pfw    pfWriter
}

func (g *traceGen) Start(state any) (render.Cursor, error) {
	c := &traceCursor{g: g, all: g.tr.Tracks()}
	if g.one >= 0 {
		c.tracks = []int{g.one}
	} else {
		c.tracks = make([]int, len(c.all))
		for i := range c.tracks {
			c.tracks[i] = i
		}
	}
	if p, ok := state.(tracePos); ok {
		c.pos = p
	} else {
		c.pos.pos = c.startOf(0)
	}
	return c, nil
}

// startOf is where track k (of c.tracks) starts: its beginning, or where
// the window's events begin.
func (c *traceCursor) startOf(k int) Pos {
	if w := c.g.win; w != nil && k < len(c.tracks) {
		return w.starts[c.tracks[k]]
	}
	return Pos{}
}

// State asks the track's reader where it is only now: an ovni reader's
// position holds its open bursts, copied.
func (c *traceCursor) State() any {
	p := c.pos
	if c.ev != nil {
		p.pos = c.ev.State()
	}
	return p
}

const traceHead = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"

func (c *traceCursor) Next(dst []byte) ([]byte, error) {
	if c.err != nil {
		return dst, c.err
	}
	if !c.pos.begun {
		c.pos.begun = true
		if c.g.pf {
			return c.pfw.appendHead(dst, c.all, c.tracks), nil
		}
		if c.g.win != nil {
			return append(dst, c.g.win.head()...), nil
		}
		return append(dst, traceHead...), nil
	}
	switch {
	case c.pos.track > len(c.tracks):
		return dst, io.EOF
	case c.pos.track == len(c.tracks) && c.g.pf:
		return dst, io.EOF
	case c.pos.track == len(c.tracks):
		c.pos.track++
		return c.appendMetadata(dst), nil
	}
	if c.ev == nil {
		ev, err := c.g.tr.Events(c.tracks[c.pos.track], c.pos.pos)
		if err != nil {
			if render.IsDataError(err) {
				if c.g.report != nil {
					c.g.report(err)
				}
				c.nextTrack()
				return dst, nil
			}
			return dst, err
		}
		if w := c.g.win; w != nil && w.to != math.MaxInt64 {
			ev.StopAt(w.to)
		}
		if w := c.g.win; w != nil && w.from != math.MinInt64 && !c.pos.edge {
			c.pos.edge = true
			dst, err := c.appendEdge(dst, ev)
			if err != nil && render.IsDataError(err) {
				return c.damaged(dst, err), nil
			}
			return dst, err
		}
		c.ev = ev
	}
	c.out, c.t = dst, &c.all[c.tracks[c.pos.track]]
	if c.emit == nil {
		c.emit = func(e *Event) {
			if w := c.g.win; w != nil && !w.clip(e) {
				return
			}
			if c.g.win.atEdge(e) { // begun by appendEdge
				if c.g.pf {
					c.out = c.pfw.appendPacket(c.out, c.tracks[c.pos.track], nil, pfSliceEnd, e.TS+e.Dur)
				}
				return
			}
			if c.g.pf {
				c.out = c.pfw.appendEvent(c.out, c.tracks[c.pos.track], e)
			} else {
				c.out = appendEvent(c.out, c.t, e)
			}
		}
	}
	start := len(dst)
	for len(c.out)-start < batchBytes {
		err := c.ev.Next(c.emit)
		if err == io.EOF {
			c.nextTrack()
			break
		}
		if err != nil {
			dst, c.out = c.out, nil
			if !render.IsDataError(err) {
				return dst, err
			}
			return c.damaged(dst, err), nil
		}
	}
	dst, c.out = c.out, nil
	return dst, nil
}

// damaged ends the view at a data error: the events before the damage
// stay; trace.json ends with the metadata so that it remains valid JSON.
func (c *traceCursor) damaged(dst []byte, err error) []byte {
	c.pos.track = len(c.tracks) + 1
	c.ev = nil
	c.err = err
	if c.g.pf {
		return dst
	}
	return c.appendMetadata(dst)
}

func (c *traceCursor) nextTrack() {
	c.pos.track++
	c.pos.pos = c.startOf(c.pos.track)
	c.pos.edge = false
	c.ev = nil
}

// maxEdge bounds the slices open together at a window's start: as many
// as a track's nesting depth.
const maxEdge = 1 << 14

// appendEdge begins the window's slices of the track that ev reads (from
// the window's start) which were open at the window's start: clipped to
// it, they start together, and a viewer that sorts by time stably must
// meet the outer ones first, while the track delivers them by their ends,
// inner ones first. One pass over the track's part of the window gathers
// them; trace.json gets them whole, trace.pftrace their begin packets
// (their ends come in order in the main pass, which leaves them out of
// trace.json).
func (c *traceCursor) appendEdge(dst []byte, ev Events) ([]byte, error) {
	var edge []Event
	var err error
	for err == nil {
		err = ev.Next(func(e *Event) {
			if !c.g.win.clip(e) || !c.g.win.atEdge(e) || len(edge) > maxEdge {
				return
			}
			k := *e
			k.Args = append([]byte(nil), e.Args...)
			edge = append(edge, k)
		})
	}
	if err != io.EOF && !render.IsDataError(err) {
		return dst, err
	}
	if len(edge) > maxEdge {
		// The main pass ends the view at the same damage.
		return dst, fmt.Errorf("%w: more than %d slices open at %d ns", decode.ErrFormat, maxEdge, c.g.win.from)
	}
	i := c.tracks[c.pos.track]
	for k := len(edge) - 1; k >= 0; k-- {
		e := &edge[k]
		if c.g.pf {
			dst = c.pfw.appendPacket(dst, i, e, pfSliceBegin, e.TS)
		} else {
			dst = appendEvent(dst, &c.all[i], e)
		}
	}
	return dst, nil
}

// appendMetadata names the processes and threads and closes the file.
func (c *traceCursor) appendMetadata(dst []byte) []byte {
	seen := map[int64]bool{}
	for k, i := range c.tracks {
		t := &c.all[i]
		if !seen[t.Pid] {
			seen[t.Pid] = true
			dst = appendMeta(dst, t.Pid, t.Pid, "process_name", t.Process, false)
			dst = append(dst, ",\n"...)
		}
		dst = appendMeta(dst, t.Pid, t.Tid, "thread_name", t.Thread, false)
		dst = append(dst, ",\n"...)
		dst = appendMeta(dst, t.Pid, t.Tid, "thread_sort_index", strconv.Itoa(k), true)
		if k < len(c.tracks)-1 {
			dst = append(dst, ',')
		}
		dst = append(dst, '\n')
	}
	if len(c.tracks) == 0 {
		dst = append(dst, `{"ph":"M","pid":0,"tid":0,"name":"process_name","args":{"name":"empty trace"}}`+"\n"...)
	}
	return append(dst, "]}\n"...)
}

func appendMeta(dst []byte, pid, tid int64, name, value string, number bool) []byte {
	dst = append(dst, `{"ph":"M","pid":`...)
	dst = strconv.AppendInt(dst, pid, 10)
	dst = append(dst, `,"tid":`...)
	dst = strconv.AppendInt(dst, tid, 10)
	dst = append(dst, `,"name":"`...)
	dst = append(dst, name...)
	if number {
		dst = append(dst, `","args":{"sort_index":`...)
		dst = append(dst, value...)
		return append(dst, "}}"...)
	}
	dst = append(dst, `","args":{"name":`...)
	dst = AppendJSONString(dst, value)
	return append(dst, "}}"...)
}

func appendEvent(dst []byte, t *Track, e *Event) []byte {
	if e.Instant {
		dst = append(dst, `{"ph":"i","s":"t","pid":`...)
	} else {
		dst = append(dst, `{"ph":"X","pid":`...)
	}
	dst = strconv.AppendInt(dst, t.Pid, 10)
	dst = append(dst, `,"tid":`...)
	dst = strconv.AppendInt(dst, t.Tid, 10)
	dst = append(dst, `,"ts":`...)
	dst = AppendMicros(dst, e.TS)
	if !e.Instant {
		dst = append(dst, `,"dur":`...)
		dst = AppendMicros(dst, e.Dur)
	}
	dst = append(dst, `,"name":`...)
	dst = AppendJSONString(dst, e.Name)
	if e.Cat != "" {
		dst = append(dst, `,"cat":`...)
		dst = AppendJSONString(dst, e.Cat)
	}
	if len(e.Args) > 0 {
		dst = append(dst, `,"args":{`...)
		dst = append(dst, e.Args...)
		dst = append(dst, '}')
	}
	dst = append(dst, "},\n"...)
	if e.FlowOut != 0 {
		dst = appendFlow(dst, t, `{"ph":"s","id":`, e.FlowOut, e.TS)
	}
	if e.FlowIn != 0 {
		dst = appendFlow(dst, t, `{"ph":"f","bp":"e","id":`, e.FlowIn, e.TS)
	}
	return dst
}

// appendFlow writes one end of flow id at ts on track t: its start (head
// ph "s") or its end (ph "f"), each bound to the slice enclosing ts.
// Both ends are named "message", category "flow" (a flow is known by its
// category, name and id).
func appendFlow(dst []byte, t *Track, head string, id uint64, ts int64) []byte {
	dst = append(dst, head...)
	dst = strconv.AppendUint(dst, id, 10)
	dst = append(dst, `,"pid":`...)
	dst = strconv.AppendInt(dst, t.Pid, 10)
	dst = append(dst, `,"tid":`...)
	dst = strconv.AppendInt(dst, t.Tid, 10)
	dst = append(dst, `,"ts":`...)
	dst = AppendMicros(dst, ts)
	return append(dst, `,"name":"message","cat":"flow"},`+"\n"...)
}

// AppendMicros writes ns nanoseconds as microseconds with the three
// nanosecond digits kept: 1234567 is 1234.567. Never an exponent.
func AppendMicros(dst []byte, ns int64) []byte {
	if ns < 0 {
		dst = append(dst, '-')
		ns = -ns
	}
	dst = strconv.AppendInt(dst, ns/1000, 10)
	f := ns % 1000
	return append(dst, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// AppendJSONString appends s as a JSON string; invalid UTF-8 becomes
// U+FFFD.
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, `\ufffd`...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return append(dst, '"')
}

// SampleRun finds the run of samples from start on that stay in the
// first one's context (firstCtx, taken at firstTime): the index after the
// run, and when it ends (the next sample's time, or firstTime when no
// sample follows). at returns sample i's context and time, io.EOF past
// the last one.
func SampleRun(start int64, firstCtx, firstTime uint64, at func(i int64) (ctx, time uint64, err error)) (end int64, until uint64, err error) {
	end, until = start+1, firstTime
	for {
		ctx, t, err := at(end)
		if err == io.EOF {
			return end, until, nil
		}
		if err != nil {
			return 0, 0, err
		}
		until = t
		if ctx != firstCtx {
			return end, until, nil
		}
		end++
	}
}
