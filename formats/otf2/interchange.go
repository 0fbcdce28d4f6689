package otf2

import (
	"io"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// The interchange views: flame/, profile.pb.gz from the call-path profile
// (cct.csv's tree), trace.json with one track per location.

var profileMetrics = []interchange.Metric{{Name: "time_ns", Unit: "nanoseconds"}, {Name: "visits", Unit: "count"}}

// tree is cct.csv's tree for the interchange views: per call path its
// exclusive time and its visits.
func (t *trace) tree() (*interchange.Tree, error) {
	p := t.profile()
	tr := interchange.NewTree(profileMetrics)
	src := t.regionSources()
	ids := make([]int32, len(p.nodes))
	for i := 1; i < len(p.nodes); i++ {
		n := &p.nodes[i]
		f := interchange.Frame{Name: t.names.name("regions", n.region)}
		if s, ok := src[n.region]; ok {
			if file := t.names.str(s[0]); file != nil {
				f.File = *file
				if s[1] != 1<<32-1 {
					f.Line = int64(s[1])
				}
			}
		}
		ids[i] = tr.Child(ids[n.parent], f)
		tr.Add(ids[i], 0, int64(n.exc))
		tr.Add(ids[i], 1, int64(n.visits))
	}
	return tr, p.problems.Err()
}

// chromeTrace is the trace.json adapter: a track per location (pid its
// location group, tid its id), regions as complete events, messages as
// instant events joined by flow arrows (the matched messages of
// messages.csv); times from the global offset.
type chromeTrace struct {
	t      *trace
	once   sync.Once
	tracks []interchange.Track

	flowOnce sync.Once
	flows    map[eventAt]uint64 // matched sends and receives -> flow id
}

// eventAt is an event by its location index and offset in its file.
type eventAt struct {
	loc int
	off int64
}

// flowIDs maps the send and the receive of every matched message to its
// flow id: its row in messages.csv (from 1).
func (c *chromeTrace) flowIDs() map[eventAt]uint64 {
	c.flowOnce.Do(func() {
		c.flows = map[eventAt]uint64{}
		for i, m := range c.t.profile().messages {
			if m.hasSend && m.hasRecv {
				c.flows[eventAt{m.sendLoc, m.sendOff}] = uint64(i) + 1
				c.flows[eventAt{m.recvLoc, m.recvOff}] = uint64(i) + 1
			}
		}
	})
	return c.flows
}

func (c *chromeTrace) Tracks() []interchange.Track {
	c.once.Do(func() {
		names := make([]string, len(c.t.ar.Locations))
		for i, l := range c.t.ar.Locations {
			names[i] = "location-" + strconv.FormatUint(l.ID, 10)
		}
		files := render.FileNames(names)
		groups := map[uint64]int64{}
		for i, l := range c.t.ar.Locations {
			g := l.Def.U("locationGroup")
			if _, ok := groups[g]; !ok {
				groups[g] = int64(len(groups))
			}
			proc := c.t.names.plain("location_groups", g)
			thread := c.t.names.plain("strings", l.Def.U("name")) + " (" + strconv.FormatUint(l.ID, 10) + ")"
			c.tracks = append(c.tracks, interchange.Track{Pid: groups[g], Tid: int64(i), Process: proc, Thread: thread, File: files[i]})
		}
	})
	return c.tracks
}

// maxOpen bounds the regions open at once in a track's state: deeper
// ENTERs are shown as instant events, as are their LEAVEs. With three
// numbers before them, two numbers per open region fit interchange.MaxAux.
const maxOpen = (interchange.MaxAux - 3) / 2

func (c *chromeTrace) Events(i int, pos interchange.Pos) (interchange.Events, error) {
	c.Tracks()
	f, size, err := c.t.files[i].open()
	if err != nil {
		return nil, err
	}
	e := &chromeEvents{t: c.t, r: c.t.ar.NewEventReaderAt(f, size, c.t.ar.Locations[i]), stop: 1<<63 - 1, loc: i, flows: c.flowIDs()}
	if pos.At > 0 || len(pos.Aux) > 0 {
		a := pos.Aux
		if len(a) < 3 || (len(a)-3)%2 != 0 || (len(a)-3)/2 > maxOpen {
			return nil, render.ErrBadState
		}
		e.r.Seek(otf2.Pos{Off: pos.At, Time: a[0]})
		e.last, e.over, e.ended = a[0], a[1], a[2] == 1
		for k := 3; k < len(a); k += 2 {
			e.stack = append(e.stack, openRegion{region: a[k], enter: a[k+1]})
		}
	}
	return e, nil
}

type openRegion struct{ region, enter uint64 }

// chromeEvents reads one location for trace.json. Its Pos is the offset
// of the next event and, in Aux, the last time read, the ENTERs beyond
// maxOpen still open, whether StopAt ended it and the open regions
// (region, enter time).
type chromeEvents struct {
	t     *trace
	loc   int
	flows map[eventAt]uint64
	r     *otf2.EventReader
	ev    otf2.Event
	stack []openRegion
	over  uint64
	last  uint64
	ended bool
	stop  int64
	out   interchange.Event
	args  []byte
}

func (e *chromeEvents) State() interchange.Pos {
	p := e.r.Tell()
	aux := make([]uint64, 3, 3+2*len(e.stack))
	aux[0], aux[1] = p.Time, e.over
	if e.ended {
		aux[2] = 1
	}
	for _, o := range e.stack {
		aux = append(aux, o.region, o.enter)
	}
	return interchange.Pos{At: p.Off, Aux: aux}
}

func (e *chromeEvents) StopAt(t int64) { e.stop = t }

func (e *chromeEvents) Next(emit func(*interchange.Event)) error {
	if e.ended {
		return io.EOF
	}
	if !e.r.Next(&e.ev) {
		err := e.r.Err()
		if err == nil && len(e.stack) == 0 {
			return io.EOF
		}
		note := "open at the end of the location"
		if err != nil {
			note = "open where the event file is damaged"
		}
		e.closeAll(e.t.clock.rel(e.last), note, emit)
		if err == nil {
			e.ended = true
			return nil
		}
		return err
	}
	ev := &e.ev
	if e.t.clock.rel(ev.Time) >= e.stop {
		e.ended = true
		e.closeAll(e.stop, "", emit)
		return nil
	}
	e.last = ev.Time
	switch ev.Name() {
	case "Enter":
		if len(e.stack) < maxOpen {
			e.stack = append(e.stack, openRegion{region: ev.Vals[0], enter: ev.Time})
			break
		}
		e.over++
		e.instant(ev, "ENTER beyond "+strconv.Itoa(maxOpen)+" nested regions", emit)
	case "Leave":
		switch {
		case e.over > 0:
			e.over--
			e.instant(ev, "LEAVE beyond "+strconv.Itoa(maxOpen)+" nested regions", emit)
		case len(e.stack) > 0:
			e.closeTop(e.t.clock.rel(ev.Time), "", emit)
		default:
			e.instant(ev, "LEAVE without an ENTER", emit)
		}
	case "MpiSend", "MpiIsend", "MpiRecv", "MpiIrecv":
		e.instant(ev, "", emit)
	}
	return nil
}

func (e *chromeEvents) closeAll(t int64, note string, emit func(*interchange.Event)) {
	for len(e.stack) > 0 {
		e.closeTop(t, note, emit)
	}
}

// closeTop emits the innermost open region, ending at t (ns from the
// origin).
func (e *chromeEvents) closeTop(t int64, note string, emit func(*interchange.Event)) {
	o := e.stack[len(e.stack)-1]
	e.stack = e.stack[:len(e.stack)-1]
	a := append(e.args[:0], `"region_id":`...)
	a = render.AppendUint(a, o.region)
	if note != "" {
		a = append(a, `,"note":`...)
		a = interchange.AppendJSONString(a, note)
	}
	e.args = a
	ts := e.t.clock.rel(o.enter)
	e.out = interchange.Event{Name: e.t.names.plain("regions", o.region), Cat: "region", TS: ts, Args: a}
	if t > ts {
		e.out.Dur = t - ts
	}
	emit(&e.out)
}

// instant emits ev as an instant event: a message with its peer rank,
// communicator, tag and length, or an unpaired ENTER/LEAVE with note.
func (e *chromeEvents) instant(ev *otf2.Event, note string, emit func(*interchange.Event)) {
	a := e.args[:0]
	name := ev.Name()
	switch name {
	case "Enter", "Leave":
		a = append(a, `"region":`...)
		a = interchange.AppendJSONString(a, e.t.names.plain("regions", ev.Vals[0]))
	default:
		peer := `"receiver":`
		if name == "MpiRecv" || name == "MpiIrecv" {
			peer = `"sender":`
		}
		a = append(a, peer...)
		a = render.AppendUint(a, ev.Vals[0])
		a = append(a, `,"communicator":`...)
		a = interchange.AppendJSONString(a, e.t.names.plain("comms", ev.Vals[1]))
		a = append(a, `,"tag":`...)
		a = render.AppendUint(a, ev.Vals[2])
		a = append(a, `,"bytes":`...)
		a = render.AppendUint(a, ev.Vals[3])
	}
	if note != "" {
		a = append(a, `,"note":`...)
		a = interchange.AppendJSONString(a, note)
	}
	e.args = a
	e.out = interchange.Event{Name: name, Cat: "mpi", TS: e.t.clock.rel(ev.Time), Instant: true, Args: a}
	if id := e.flows[eventAt{e.loc, ev.Off}]; id != 0 {
		if name == "MpiRecv" || name == "MpiIrecv" {
			e.out.FlowIn = id
		} else {
			e.out.FlowOut = id
		}
	}
	emit(&e.out)
}
