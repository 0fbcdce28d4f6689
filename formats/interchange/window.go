package interchange

import (
	"io"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/hpcfs/hpcfs/render"
)

// DefaultWindowLimit is the size above which trace.json is also offered in
// time windows: chrome://tracing fails near 256 MB and Perfetto's UI slows
// down well before its ~2 GB limit.
const DefaultWindowLimit = 256 << 20

var windowLimit atomic.Int64

func init() { windowLimit.Store(DefaultWindowLimit) }

// SetWindowLimit sets the size above which trace.json is split into time
// windows, and that each window aims to stay below (hpcfs
// --trace-window-limit; tests set small ones).
func SetWindowLimit(n int64) { windowLimit.Store(max(n, 1)) }

// WindowLimit is the limit SetWindowLimit set.
func WindowLimit() int64 { return windowLimit.Load() }

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

func (w *window) head() string {
	return "{\"displayTimeUnit\":\"ns\",\"otherData\":{" + w.otherData + "},\"traceEvents\":[\n"
}

// planWindows splits tr into windows of one span, the longest for which
// each window's estimated size (every event it overlaps, whole, plus the
// metadata) stays within limit, or 1/windowBuckets of the trace's span
// when none does. It reads the trace three times: for its end, for the
// histogram of event bytes over time, and for each track's position at
// each window's start. Memory: the histogram and windows x tracks
// positions. nil when the trace cannot be read, or when its metadata
// alone (thread names) exceed the limit.
func planWindows(tr Trace, limit int64) []*window {
	tracks := tr.Tracks()
	var end int64
	var scratch []byte
	each := func(fn func(i int, ev Events, size int64, e *Event)) bool {
		for i := range tracks {
			ev, err := tr.Events(i, Pos{})
			if err != nil {
				if render.IsDataError(err) {
					continue
				}
				return false
			}
			t := &tracks[i]
			emit := func(e *Event) {
				scratch = appendEvent(scratch[:0], t, e)
				fn(i, ev, int64(len(scratch)), e)
			}
			for {
				err := ev.Next(emit)
				if err == io.EOF || err != nil && render.IsDataError(err) {
					break
				}
				if err != nil {
					return false
				}
			}
		}
		return true
	}
	if !each(func(_ int, _ Events, _ int64, e *Event) { end = max(end, e.End()) }) {
		return nil
	}
	width := end/windowBuckets + 1 // windowBuckets*width > end
	bucket := func(t int64) int { return int(min(max(t, 0)/width, windowBuckets-1)) }
	var starting [windowBuckets]int64     // bytes of the events starting in a bucket
	var crossing [windowBuckets + 1]int64 // differences of the bytes of events running into a bucket
	if !each(func(_ int, _ Events, size int64, e *Event) {
		sb, eb := bucket(e.TS), bucket(e.TS)
		if !e.Instant && e.Dur > 0 {
			eb = bucket(e.TS + e.Dur - 1)
		}
		starting[sb] += size
		if eb > sb {
			crossing[sb+1] += size
			crossing[eb+1] -= size
		}
	}) {
		return nil
	}
	var into [windowBuckets]int64 // bytes of the events running into a bucket from before
	for b, run := 0, int64(0); b < windowBuckets; b++ {
		run += crossing[b]
		into[b] = run
	}
	c := &traceCursor{g: &traceGen{tr: tr, one: -1}, all: tracks, tracks: make([]int, len(tracks))}
	for i := range c.tracks {
		c.tracks[i] = i
	}
	fixed := int64(len(c.appendMetadata(nil))) + 200 // metadata, head with otherData
	if fixed >= limit {
		return nil // windows cannot help
	}
	per := 1 // buckets per window
	for k := windowBuckets; k >= 1; k-- {
		fits := true
		for first := 0; first < windowBuckets && fits; first += k {
			size := fixed + into[first]
			for b := first; b < min(first+k, windowBuckets); b++ {
				size += starting[b]
			}
			fits = size <= limit
		}
		if fits {
			per = k
			break
		}
	}
	n := (windowBuckets + per - 1) / per
	span := int64(per) * width
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
	next := make([]int, len(tracks))
	var before Pos
	var maxEnd int64
	for i := range tracks {
		next[i] = 1
		ev, err := tr.Events(i, Pos{})
		if err != nil {
			continue
		}
		for next[i] < n {
			before, maxEnd = ev.State(), math.MinInt64
			err := ev.Next(func(e *Event) { maxEnd = max(maxEnd, e.End()) })
			if err != nil {
				if err == io.EOF {
					before = ev.State()
				}
				for ; next[i] < n; next[i]++ {
					wins[next[i]].starts[i] = before
				}
				break
			}
			for ; next[i] < n && maxEnd >= wins[next[i]].from; next[i]++ {
				wins[next[i]].starts[i] = before
			}
		}
	}
	return wins
}

// windowName is window k's file name of n, numbered with equal widths so
// that they sort.
func windowName(k, n int) string {
	s := strconv.Itoa(k)
	for len(s) < len(strconv.Itoa(n-1)) {
		s = "0" + s
	}
	return "window-" + s + ".json"
}
