package ovni

import (
	"io"
	"math"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// statesBase is added to a thread's tid to give its states track's tid:
// Linux tids stay below 2^22, so the sum collides with no real tid and
// stays a positive 32-bit number. Viewers that order tracks by tid
// (speedscope opens the first) show every thread before the states
// tracks, which follow in the threads' order; the others follow
// thread_sort_index, which puts each right after its thread.
const statesBase = 1 << 30

// statesTid is the trace.json tid of a thread's states track.
func statesTid(tid int64) int64 { return statesBase + tid }

// threadStates are the names of ovni's thread states, indexed by state
// (0: none, before the first state event and after OHe).
var threadStates = [...]string{"", "Running", "Paused", "Cooling", "Warming"}

// stateOf gives the state an ovni thread event starts (OHx execute and
// OHr resume: Running, OHp pause: Paused, OHc cool: Cooling, OHw warm:
// Warming, OHe end: none); ok is false for other events (OHC, the
// creation of another thread, is emitted by the creating thread).
func stateOf(mcv [3]byte) (state int, ok bool) {
	if mcv[0] != 'O' || mcv[1] != 'H' {
		return 0, false
	}
	switch mcv[2] {
	case 'x', 'r':
		return 1, true
	case 'p':
		return 2, true
	case 'c':
		return 3, true
	case 'w':
		return 4, true
	case 'e':
		return 0, true
	}
	return 0, false
}

// stateEvents reads a thread's stream as its states track: an X event
// per state, from its state event to the next one (the last state ends
// at the thread's last event). Its position is the offset of the next
// event and, in Aux, the clock of the last event, the current state, its
// start and whether StopAt ended it.
type stateEvents struct {
	origin uint64
	r      *ovni.Reader
	last   uint64
	state  int
	start  uint64
	ended  bool
	stop   int64
	ev     ovni.Event
	out    interchange.Event
}

func (e *stateEvents) State() interchange.Pos {
	ended := uint64(0)
	if e.ended {
		ended = 1
	}
	return interchange.Pos{At: e.r.Offset(), Aux: []uint64{e.last, uint64(e.state), e.start, ended}}
}

func (e *stateEvents) resume(aux []uint64) error {
	if len(aux) != 4 || aux[1] >= uint64(len(threadStates)) || aux[3] > 1 {
		return render.ErrBadState
	}
	e.last, e.state, e.start, e.ended = aux[0], int(aux[1]), aux[2], aux[3] == 1
	return nil
}

func (e *stateEvents) StopAt(t int64) { e.stop = t }

func (e *stateEvents) rel(clock uint64) int64 { return int64(clock - e.origin) }

// Next reads one event; a state event ends the current state's slice.
func (e *stateEvents) Next(emit func(*interchange.Event)) error {
	if e.ended {
		return io.EOF
	}
	err := e.r.Next(&e.ev)
	if err == nil && e.rel(e.ev.Clock) >= e.stop {
		e.ended = true
		e.slice(uint64(e.stop)+e.origin, emit)
		return nil
	}
	if err != nil {
		if err == io.EOF && e.state == 0 {
			return io.EOF
		}
		e.slice(e.last, emit)
		if err == io.EOF {
			return nil
		}
		return err
	}
	e.last = e.ev.Clock
	if s, ok := stateOf(e.ev.MCV); ok {
		e.slice(e.ev.Clock, emit)
		e.state, e.start = s, e.ev.Clock
	}
	return nil
}

// slice emits the current state ending at clock, and leaves no state.
func (e *stateEvents) slice(clock uint64, emit func(*interchange.Event)) {
	if e.state == 0 {
		return
	}
	e.out = interchange.Event{Name: threadStates[e.state], Cat: "O", TS: e.rel(e.start)}
	if clock > e.start && clock-e.start <= math.MaxInt64 {
		e.out.Dur = int64(clock - e.start)
	}
	e.state = 0
	emit(&e.out)
}
