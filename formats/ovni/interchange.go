package ovni

import (
	"io"
	"math"
	"strconv"
	"sync"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/formats/interchange"
	"github.com/hpcfs/hpcfs/formats/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// chromeTrace is the trace for trace.json: one track per thread stream,
// pid the process id (a process number when two looms share one), each
// event an X slice lasting until the thread's next event, the last one
// an instant event; times from the earliest event of all streams.
type chromeTrace struct {
	t *trace

	once   sync.Once
	tracks []interchange.Track
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
		names := make([]string, len(c.t.threads))
		for i, th := range c.t.threads {
			names[i] = th.Proc.Loom.Name + "." + strconv.FormatInt(th.Proc.PID, 10) + "." + strconv.FormatInt(th.TID, 10)
		}
		names = vfs.UniqueNames(names)
		c.origin = math.MaxUint64
		for i, th := range c.t.threads {
			pid := th.Proc.PID
			if clash {
				pid = procNr[th.Proc]
			}
			c.tracks = append(c.tracks, interchange.Track{Pid: pid, Tid: th.TID,
				Process: "loom " + th.Proc.Loom.Name + " proc " + strconv.FormatInt(th.Proc.PID, 10),
				Thread:  "thread " + strconv.FormatInt(th.TID, 10), File: names[i]})
			if s, err := th.open(); s != nil {
				var ev ovni.Event
				if s.NewReader(s.Start(), 4096).Next(&ev) == nil {
					c.origin = min(c.origin, ev.Clock)
				}
			} else if err != nil {
				c.t.errors.Report(th.Name(), err)
			}
		}
		if c.origin == math.MaxUint64 {
			c.origin = 0
		}
	})
	return c.tracks
}

// Events reads thread i from pos, the offset of its next event (0 for
// the first).
func (c *chromeTrace) Events(i int, pos int64) (interchange.Events, error) {
	c.Tracks()
	s, err := c.t.threads[i].open()
	if s == nil {
		return nil, err
	}
	e := &chromeEvents{origin: c.origin, r: s.NewReader(pos, 64<<10)}
	e.err = e.r.Next(&e.pending)
	return e, nil
}

// chromeEvents holds one event read ahead: the end of the event before.
type chromeEvents struct {
	origin  uint64
	r       *ovni.Reader
	pending ovni.Event
	err     error // of reading pending
	args    []byte
}

func (e *chromeEvents) State() int64 { return e.pending.Off }

func (e *chromeEvents) Next(ev *interchange.Event) error {
	if e.err != nil {
		return e.err
	}
	cur := e.pending
	e.args = e.args[:0]
	if len(cur.Payload) > 0 {
		e.args = append(e.args, `"payload":"0x`...)
		e.args = render.AppendHexBytes(e.args, cur.Payload)
		e.args = append(e.args, '"')
	}
	*ev = interchange.Event{Name: string(cur.MCV[:]), Cat: string(cur.MCV[:1]), TS: int64(cur.Clock - e.origin), Args: string(e.args)}
	e.err = e.r.Next(&e.pending)
	switch {
	case e.err == io.EOF:
		ev.Instant = true
		e.pending.Off = e.r.Offset() // the end: Events from here reads nothing
	case e.err != nil:
		ev.Instant = true
	default:
		ev.Dur = int64(e.pending.Clock - cur.Clock)
		if e.pending.Clock < cur.Clock {
			ev.Dur = 0
		}
	}
	return nil
}
