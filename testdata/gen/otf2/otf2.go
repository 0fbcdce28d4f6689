// Package otf2 writes small synthetic OTF2 archives (anchor, global
// definitions, one event file per location, optional clock offsets) in the
// byte layout of the OTF2 3.0 writer, so that tests need not rely on the
// corpus alone: one process per location, MPI_COMM_WORLD over all of them,
// regions entered and left, messages between neighbours.
package otf2

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Kind is what an Event records.
type Kind uint8

const (
	Enter Kind = iota // Region entered
	Leave             // Region left
	Send              // MPI_Send to rank Peer
	Recv              // MPI_Recv from rank Peer
)

// An Event is one event of a location.
type Event struct {
	Time   uint64 // ticks, as written (before clock offsets)
	Kind   Kind
	Region uint32 // Enter, Leave: index in Trace.Regions
	Peer   uint32 // Send, Recv: the other rank
	Tag    uint32
	Bytes  uint64
}

// A Location is one rank's single thread.
type Location struct {
	Events []Event
	// Offsets are its clock offsets (time, offset) in a local definition
	// file; none: no local definition file.
	Offsets [][2]int64
}

// A Trace is an archive to write.
type Trace struct {
	Resolution uint64 // ticks per second
	Offset     uint64 // global offset (a time at or before every event)
	Regions    []string
	Locations  []Location
	// EventChunk is the event chunk size (default 1 MiB, at least
	// MinChunk); small values give files of several chunks.
	EventChunk uint64
}

// MinChunk is the smallest chunk size the reference reader accepts.
const MinChunk = 256 << 10

const (
	bufEndOfChunk = 0x00
	bufEndOfFile  = 0x02
	chunkHeader   = 0x03
	little        = 0x42
	timestampRec  = 0x05
	undef32       = math.MaxUint32
)

// appendC appends v compressed: the number of significant low-order bytes,
// then those bytes (little-endian); all ones is the single byte 0xFF.
func appendC(b []byte, v uint64, width int) []byte {
	if width == 4 && v == math.MaxUint32 || v == math.MaxUint64 {
		return append(b, 0xff)
	}
	n := 0
	for x := v; x != 0; x >>= 8 {
		n++
	}
	b = append(b, byte(n))
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

func c32(b []byte, v uint32) []byte { return appendC(b, uint64(v), 4) }
func c64(b []byte, v uint64) []byte { return appendC(b, v, 8) }

// record appends a record of type t with payload p (length byte, or 0xFF
// and a u64 for long payloads).
func record(b []byte, t byte, p []byte) []byte {
	b = append(b, t)
	if len(p) < 255 {
		b = append(b, byte(len(p)))
	} else {
		b = append(b, 0xff)
		b = binary.LittleEndian.AppendUint64(b, uint64(len(p)))
	}
	return append(b, p...)
}

// chunked lays records out in chunks of size bytes: each chunk a header
// (first and last record number), then records; 0x00 and padding end a
// chunk, 0x02 0x01 the file. Event files restate the time at each chunk.
type chunked struct {
	size    int
	out     []byte
	cur     []byte
	first   uint64
	n       uint64
	events  bool
	time    uint64
	written bool // cur holds a record
}

func (c *chunked) start() {
	c.cur = c.cur[:0]
	c.cur = append(c.cur, chunkHeader, little)
	c.cur = binary.LittleEndian.AppendUint64(c.cur, c.n+1)
	c.cur = binary.LittleEndian.AppendUint64(c.cur, 0)
	c.first, c.written = c.n+1, false
	if c.events {
		c.cur = append(c.cur, timestampRec)
		c.cur = binary.LittleEndian.AppendUint64(c.cur, c.time)
	}
}

// add appends one record (with its timestamp record before it, for
// events, when time moves); it starts a new chunk when it does not fit.
func (c *chunked) add(time uint64, rec []byte) {
	if c.cur == nil {
		c.time = time
		c.start()
	}
	var ts []byte
	if c.events && time != c.time {
		ts = append([]byte{timestampRec}, binary.LittleEndian.AppendUint64(nil, time)...)
	}
	if c.written && len(c.cur)+len(ts)+len(rec)+3 > c.size {
		c.flush(false)
		c.time = time
		c.start()
		ts = nil
	}
	c.time = time
	c.cur = append(c.cur, ts...)
	c.cur = append(c.cur, rec...)
	c.n++
	c.written = true
}

func (c *chunked) flush(last bool) {
	if c.cur == nil {
		c.start()
	}
	if c.events {
		binary.LittleEndian.PutUint64(c.cur[10:], c.n)
	}
	if last {
		c.out = append(c.out, c.cur...)
		c.out = append(c.out, bufEndOfFile, 0x01)
		return
	}
	c.cur = append(c.cur, bufEndOfChunk)
	for len(c.cur) < c.size {
		c.cur = append(c.cur, 0)
	}
	c.out = append(c.out, c.cur...)
}

// Write writes the archive into dir as traces.otf2, traces.def and
// traces/<id>.evt (and <id>.def where a location has clock offsets), and
// returns the anchor's path.
func (t *Trace) Write(dir string) (string, error) {
	evChunk := t.EventChunk
	if evChunk == 0 {
		evChunk = 1 << 20
	}
	const defChunk = 4 << 20
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		return "", err
	}
	defs := &chunked{size: defChunk}
	var p []byte
	var nstr uint32
	str := func(s string) uint32 {
		p = c32(p[:0], nstr)
		p = append(p, s...)
		p = append(p, 0)
		defs.add(0, record(nil, 10, p))
		nstr++
		return nstr - 1
	}
	var last uint64
	for _, l := range t.Locations {
		for _, e := range l.Events {
			last = max(last, e.Time)
		}
	}
	p = c64(c64(c64(c64(nil, t.Resolution), t.Offset), last-min(t.Offset, last)), math.MaxUint64)
	defs.add(0, record(nil, 5, p))
	empty := str("")
	node := str("node")
	machine := str("machine")
	p = c32(c32(c32(c32(p[:0], 0), node), machine), undef32)
	defs.add(0, record(nil, 12, p))
	for i := range t.Locations {
		name := str("rank " + strconv.Itoa(i))
		p = c32(c32(p[:0], uint32(i)), name)
		p = append(p, 1) // PROCESS
		p = c32(c32(p, 0), undef32)
		defs.add(0, record(nil, 13, p))
	}
	thread := str("Master thread")
	for i, l := range t.Locations {
		p = c32(c64(p[:0], uint64(i)), thread)
		p = append(p, 1) // CPU_THREAD
		p = c32(c64(p, uint64(len(l.Events))), uint32(i))
		defs.add(0, record(nil, 14, p))
	}
	for i, r := range t.Regions {
		name := str(r)
		p = c32(c32(c32(p[:0], uint32(i)), name), empty)
		p = append(p, 0) // regionType (attic)
		p = c32(c32(c32(p, undef32), 0), 0)
		p = c32(p, name)
		p = append(p, 1, 1) // FUNCTION, USER
		p = c32(p, 0)
		defs.add(0, record(nil, 15, p))
	}
	world := str("MPI_COMM_WORLD")
	for g, typ := range []byte{4, 5} { // COMM_LOCATIONS, COMM_GROUP
		p = c32(c32(p[:0], uint32(g)), empty)
		p = append(p, 0)
		p = c32(p, uint32(len(t.Locations)))
		for i := range t.Locations {
			p = c64(p, uint64(i))
		}
		p = append(p, typ, 4) // MPI
		p = c32(p, 0)
		defs.add(0, record(nil, 18, p))
	}
	p = c32(c32(c32(c32(c32(p[:0], 0), world), 1), undef32), 0)
	defs.add(0, record(nil, 22, p))
	defs.flush(true)
	if err := os.WriteFile(filepath.Join(dir, "traces.def"), defs.out, 0o644); err != nil {
		return "", err
	}
	for i, l := range t.Locations {
		if err := t.writeLocation(dir, i, &l, evChunk); err != nil {
			return "", err
		}
	}
	anchor := filepath.Join(dir, "traces.otf2")
	return anchor, os.WriteFile(anchor, t.anchor(evChunk, defChunk, defs.n), 0o644)
}

func (t *Trace) writeLocation(dir string, i int, l *Location, chunk uint64) error {
	ev := &chunked{size: int(chunk), events: true}
	var p []byte
	for _, e := range l.Events {
		switch e.Kind {
		case Enter, Leave:
			rec := []byte{12}
			if e.Kind == Leave {
				rec[0] = 13
			}
			ev.add(e.Time, c32(rec, e.Region))
		case Send, Recv:
			p = c64(c32(c32(c32(p[:0], e.Peer), 0), e.Tag), e.Bytes)
			typ := byte(14)
			if e.Kind == Recv {
				typ = 18
			}
			ev.add(e.Time, record(nil, typ, p))
		}
	}
	ev.flush(true)
	base := filepath.Join(dir, "traces", strconv.Itoa(i))
	if err := os.WriteFile(base+".evt", ev.out, 0o644); err != nil {
		return err
	}
	if len(l.Offsets) == 0 {
		return nil
	}
	d := &chunked{size: 4 << 20}
	for _, o := range l.Offsets {
		p = binary.LittleEndian.AppendUint64(p[:0], uint64(o[0]))
		p = c64(p, uint64(o[1]))
		p = binary.LittleEndian.AppendUint64(p, math.Float64bits(0))
		d.add(0, record(nil, 6, p))
	}
	d.flush(true)
	return os.WriteFile(base+".def", d.out, 0o644)
}

func (t *Trace) anchor(evChunk, defChunk, ndefs uint64) []byte {
	b := []byte{chunkHeader, little}
	b = append(b, "OTF2\x00"...)
	b = append(b, 3, 2, 3, 0, 2) // anchor format 3, trace format 2, OTF2 3.0.2
	b = binary.LittleEndian.AppendUint64(b, evChunk)
	b = binary.LittleEndian.AppendUint64(b, defChunk)
	b = append(b, 1, 1) // POSIX, no compression
	b = binary.LittleEndian.AppendUint64(b, uint64(len(t.Locations)))
	b = binary.LittleEndian.AppendUint64(b, ndefs)
	b = append(b, "synthetic\x00hpcfs testdata/gen/otf2\x00generated trace\x00"...)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, 0x1234)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	return append(b, bufEndOfFile, 0x01, 0x00)
}

// Random returns a trace of n locations with about events events each:
// bursts of nested regions (depth at most 8), each followed by a message
// from each rank to the next and from the previous one; every location has
// the same number of bursts, so every send is received.
func Random(seed uint64, n, events int) *Trace {
	rng := rand.New(rand.NewPCG(seed, 1))
	t := &Trace{Resolution: 1e9, Offset: 1000, EventChunk: MinChunk}
	for i := range 12 {
		t.Regions = append(t.Regions, fmt.Sprintf("region_%d", i))
	}
	t.Regions = append(t.Regions, "MPI_Send", "MPI_Recv")
	mpiSend, mpiRecv := uint32(len(t.Regions)-2), uint32(len(t.Regions)-1)
	const burst = 16 // events per burst of regions, about
	rounds := max(events/(burst+6), 1)
	t.Locations = make([]Location, n)
	for li := range t.Locations {
		l := &t.Locations[li]
		now := uint64(1000 + rng.IntN(50))
		step := func() uint64 { now += uint64(1 + rng.IntN(100)); return now }
		for round := range uint32(rounds) {
			var stack []uint32
			for k := 0; k < burst || len(stack) > 0; k++ {
				if k < burst && len(stack) < 8 && (len(stack) == 0 || rng.IntN(2) == 0) {
					r := uint32(rng.IntN(12))
					stack = append(stack, r)
					l.Events = append(l.Events, Event{Time: step(), Kind: Enter, Region: r})
					continue
				}
				r := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				l.Events = append(l.Events, Event{Time: step(), Kind: Leave, Region: r})
			}
			if n < 2 {
				continue
			}
			next, prev := uint32((li+1)%n), uint32((li+n-1)%n)
			size := uint64(8 << (round % 10))
			l.Events = append(l.Events,
				Event{Time: step(), Kind: Enter, Region: mpiSend},
				Event{Time: step(), Kind: Send, Peer: next, Tag: round, Bytes: size},
				Event{Time: step(), Kind: Leave, Region: mpiSend},
				Event{Time: step(), Kind: Enter, Region: mpiRecv},
				Event{Time: step(), Kind: Recv, Peer: prev, Tag: round, Bytes: size},
				Event{Time: step(), Kind: Leave, Region: mpiRecv})
		}
	}
	return t
}
