package interchange

import (
	"io"
	"math"
	"strconv"

	"github.com/hpcfs/hpcfs/render"
)

// DefaultWindowLimit is the size above which trace.json is also offered in
// time windows: chrome://tracing fails near 256 MB and Perfetto's UI slows
// down well before its ~2 GB limit.
const DefaultWindowLimit = 256 << 20

// windowLimit is the size above which trace.json is split into time
// windows, and that each window aims to stay below: the mount's
// Options.WindowLimit (hpcfs --trace-window-limit), or the default.
func windowLimit(o render.Options) int64 {
	if o.WindowLimit > 0 {
		return o.WindowLimit
	}
	return DefaultWindowLimit
}

// windowBuckets is the resolution of the sizing histogram: windows are
// made of whole buckets, 1/windowBuckets of the trace's span each.
const windowBuckets = 4096

// A window is trace/window-<k>.json: every track's events that overlap
// [from, to), X events clipped to it. The first window reaches back and
// the last forward without bound (times before the origin, events that
// end late); span is the nominal one, for otherData.
type window struct {
	k, n      int
	from, to  int64
	span      [2]int64
	starts    []Pos // per track: where its reader starts
	otherData string
}

// clip fits e into the window; false when it lies outside.
func (w *window) clip(e *Event) bool {
	if e.Instant {
		return e.TS >= w.from && e.TS < w.to
	}
	end := e.TS + e.Dur
	if e.TS >= w.to || end < w.from || end == w.from && e.TS < w.from {
		return false
	}
	if e.TS < w.from {
		e.TS = w.from
	}
	e.Dur = min(end, w.to) - e.TS
	return true
}

// atEdge reports whether e, clipped, is a slice open at the window's
// start (not an instant nor an empty slice there): those start together.
func (w *window) atEdge(e *Event) bool {
	return w != nil && w.from != math.MinInt64 && !e.Instant && e.TS == w.from && e.Dur > 0
}

func (w *window) head() string {
	return "{\"displayTimeUnit\":\"ns\",\"otherData\":{" + w.otherData + "},\"traceEvents\":[\n"
}

// A histogram holds the bytes of the events starting and ending in each
// of windowBuckets buckets of width ns from 0; it doubles the width (adds
// pairs of buckets) when a later time comes, so one pass needs no end.
type histogram struct {
	width      int64
	start, end [windowBuckets]int64
	used       int // buckets 0..used-1 hold events
}

func (h *histogram) bucket(t int64) int {
	t = max(t, 0)
	for t/h.width >= windowBuckets && h.width <= math.MaxInt64/4 {
		for b := range windowBuckets / 2 {
			h.start[b] = h.start[2*b] + h.start[2*b+1]
			h.end[b] = h.end[2*b] + h.end[2*b+1]
		}
		clear(h.start[windowBuckets/2:])
		clear(h.end[windowBuckets/2:])
		h.used = (h.used + 1) / 2
		h.width *= 2
	}
	b := int(min(t/h.width, windowBuckets-1))
	h.used = max(h.used, b+1)
	return b
}

func (h *histogram) add(e *Event, size int64) {
	last := e.TS
	if !e.Instant && e.Dur > 0 {
		last = e.TS + e.Dur - 1
	}
	eb := h.bucket(last) // first: it may widen the buckets
	h.start[h.bucket(e.TS)] += size
	h.end[eb] += size
}

// snapEvery is how many records the position pass reads between two
// saved positions: the position before a record is found again by
// reading at most that many records from the last one.
const snapEvery = 1024

// planWindows splits tr into windows of one span, the longest for which
// each window's estimated size (every event it overlaps, whole, plus the
// metadata) stays within limit less 1/64 (a clipped event's times can
// take a few more digits), or 1/windowBuckets of the trace's span
// when none does. It reads the trace twice: for the histogram of event
// bytes over time, and for each track's position at each window's start.
// Memory: the histogram and windows x tracks positions. nil when the
// trace cannot be read, or when its metadata alone (thread names) exceed
// the limit.
func planWindows(tr Trace, limit int64) []*window {
	tracks := tr.Tracks()
	c := &traceCursor{g: &traceGen{tr: tr, one: -1}, all: tracks, tracks: make([]int, len(tracks))}
	for i := range c.tracks {
		c.tracks[i] = i
	}
	fixed := int64(len(c.appendMetadata(nil))) + 200 // metadata, head with otherData
	if fixed >= limit {
		return nil // windows cannot help
	}
	h := &histogram{width: 1}
	var scratch []byte
	for i := range tracks {
		ev, err := tr.Events(i, Pos{})
		if err != nil {
			if render.IsDataError(err) {
				continue
			}
			return nil
		}
		t := &tracks[i]
		emit := func(e *Event) {
			scratch = appendEvent(scratch[:0], t, e)
			h.add(e, int64(len(scratch)))
		}
		for {
			err := ev.Next(emit)
			if err == io.EOF || err != nil && render.IsDataError(err) {
				break
			}
			if err != nil {
				return nil
			}
		}
	}
	var into [windowBuckets]int64 // bytes of the events running into a bucket from before
	for b, started, ended := 1, int64(0), int64(0); b < windowBuckets; b++ {
		started += h.start[b-1]
		ended += h.end[b-1]
		into[b] = started - ended
	}
	per := 1 // buckets per window
	for k := max(h.used, 1); k >= 1; k-- {
		fits := true
		for first := 0; first < h.used && fits; first += k {
			size := fixed + into[first]
			for b := first; b < min(first+k, windowBuckets); b++ {
				size += h.start[b]
			}
			fits = size <= limit-limit/64 // room for clipped events' other lengths
		}
		if fits {
			per = k
			break
		}
	}
	n := max((h.used+per-1)/per, 1)
	span := int64(per) * h.width
	wins := make([]*window, n)
	for k := range wins {
		w := &window{k: k, n: n, from: int64(k) * span, to: int64(k+1) * span, span: [2]int64{int64(k) * span, int64(k+1) * span}, starts: make([]Pos, len(tracks))}
		if k == 0 {
			w.from = math.MinInt64
		}
		if k == n-1 {
			w.to = math.MaxInt64
		}
		o := strconv.AppendInt([]byte(`"window":`), int64(k), 10)
		o = strconv.AppendInt(append(o, `,"windows":`...), int64(n), 10)
		o = AppendMicros(append(o, `,"start_us":`...), w.span[0])
		o = AppendMicros(append(o, `,"end_us":`...), w.span[1])
		w.otherData = string(o)
		wins[k] = w
	}
	// Each track's position at the record that first ends at or after a
	// window's start (records end in time order): what it emits from there
	// on is what that window and the later ones hold.
	for i := range tracks {
		if n > 1 && !seekWindows(tr, i, wins) {
			return nil
		}
	}
	return wins
}

// seekWindows finds track i's start in each window but the first. The
// position before a record is read again from the last saved one (State
// of every record would copy an ovni reader's open bursts each time).
func seekWindows(tr Trace, i int, wins []*window) bool {
	ev, err := tr.Events(i, Pos{})
	if err != nil {
		return render.IsDataError(err) // no events: the windows start it at its beginning
	}
	next := 1
	var snap Pos
	since := 0 // records read after snap
	before := func(records int) Pos {
		r, err := tr.Events(i, snap)
		for k := 0; k < records && err == nil; k++ {
			err = r.Next(func(*Event) {})
		}
		if err != nil {
			return snap
		}
		return r.State()
	}
	var maxEnd int64
	noteEnd := func(e *Event) { maxEnd = max(maxEnd, e.End()) }
	for next < len(wins) {
		if since == snapEvery {
			snap, since = ev.State(), 0
		}
		maxEnd = math.MinInt64
		err := ev.Next(noteEnd)
		if err != nil {
			if err != io.EOF && !render.IsDataError(err) {
				return false
			}
			at := before(since)
			if err == io.EOF {
				at = ev.State()
			}
			for ; next < len(wins); next++ {
				wins[next].starts[i] = at
			}
			return true
		}
		since++
		if maxEnd >= wins[next].from {
			at := before(since - 1)
			for ; next < len(wins) && maxEnd >= wins[next].from; next++ {
				wins[next].starts[i] = at
			}
			snap, since = at, 1
		}
	}
	return true
}

// windowName is window k's file name of n without its extension,
// numbered with equal widths so that they sort.
func windowName(k, n int) string {
	s := strconv.Itoa(k)
	for len(s) < len(strconv.Itoa(n-1)) {
		s = "0" + s
	}
	return "window-" + s
}
