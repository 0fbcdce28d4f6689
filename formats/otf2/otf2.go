// Package otf2 mounts OTF2 traces (Score-P, Scalasca, Vampir, TAU): the
// merged event dump and the global definitions in otf2-print's layout, the
// anchor file's properties, and per-location tables.
package otf2

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// Format is the OTF2 entry of the format registry.
var Format = vfs.Format{
	Name:     "otf2",
	Supports: "OTF2 traces 1.x-3.0 (an archive's .otf2 anchor file, or the directory holding it)",
	Detect:   detect,
	Open:     Open,
}

func detect(path string) (string, bool) {
	anchor, ok := otf2.AnchorPath(path)
	if !ok {
		return "", false
	}
	f, err := os.Open(anchor)
	if err != nil {
		return "", false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", false
	}
	a, err := otf2.ReadAnchor(f, fi.Size(), filepath.Base(anchor))
	if err != nil {
		return "", false
	}
	return fmt.Sprintf("OTF2 %d.%d.%d archive %s, %d locations", a.Major, a.Minor, a.Fix, filepath.Base(anchor), a.NumLocations), true
}

// trace is one opened archive.
type trace struct {
	ar          *otf2.Archive
	names       *defNames
	printer     *eventPrinter
	snapPrinter *eventPrinter
	errors      *vfs.Errors
	clock       clock
	profOnce    sync.Once
	prof        *profile
	schemaOnce  sync.Once
	evSchema    *eventSchema
	eventsCSV   []render.View // per location, its events.csv
	sizings     atomic.Int64  // sizing passes of events.csv started: 2 starts sizeEventsCSV
	files       []evtFile     // per location, in ar.Locations order
	locCols     []string      // per location, its column in events.txt
	snaps       []evtFile     // the same for .snap files
}

// evtFile is a location's event file, opened on first use and kept open
// until the source is closed; opening it after that fails.
type evtFile struct {
	path   string
	mu     sync.Mutex
	opened bool
	f      *os.File
	size   int64
	err    error
}

func (e *evtFile) open() (*os.File, int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.opened {
		e.opened = true
		e.f, e.err = os.Open(e.path)
		if e.err == nil {
			var fi os.FileInfo
			if fi, e.err = e.f.Stat(); e.err == nil {
				e.size = fi.Size()
			}
		}
	}
	return e.f, e.size, e.err
}

func (e *evtFile) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.opened {
		e.opened, e.err = true, os.ErrClosed
	}
	if e.f != nil {
		return e.f.Close()
	}
	return nil
}

// Open mounts the archive at path (its anchor file or the directory that
// holds it).
func Open(path string) (*vfs.Source, error) {
	src, _, err := openTrace(path)
	return src, err
}

// openTrace is Open, with the trace behind the source's views.
func openTrace(path string) (*vfs.Source, *trace, error) {
	anchor, ok := otf2.AnchorPath(path)
	if !ok {
		return nil, nil, fmt.Errorf("%s: no OTF2 anchor file", path)
	}
	ar, err := otf2.Open(anchor)
	if err != nil {
		return nil, nil, err
	}
	an := ar.Anchor
	src := vfs.NewSource("otf2", fmt.Sprintf("%d.%d.%d", an.Major, an.Minor, an.Fix), path, ar.Files()...)
	t := &trace{ar: ar, errors: src.Errors, names: newDefNames(ar.Defs)}
	t.clock = newClock(ar.Defs)
	t.printer = newEventPrinter(t.names, otf2.EventRecords(), false)
	t.snapPrinter = newEventPrinter(t.names, otf2.SnapRecords(), true)
	src.Errors.ReportAll("otf2", ar.Problems)
	t.files = make([]evtFile, len(ar.Locations))
	for i, l := range ar.Locations {
		t.files[i].path = ar.LocationFile(l.ID, "evt")
		t.locCols = append(t.locCols, locationColumn(l.ID))
		src.OnClose(&t.files[i])
	}
	if an.NumSnapshots > 0 {
		t.snaps = make([]evtFile, len(ar.Locations))
		for i, l := range ar.Locations {
			t.snaps[i].path = ar.LocationFile(l.ID, "snap")
			src.OnClose(&t.snaps[i])
		}
	}
	src.AddInfo("locations", len(ar.Locations))
	src.AddInfo("definitions", len(ar.Defs))
	root := src.Root
	root.AddFile("README.txt", render.Bytes(t.readme, nil))
	root.AddFile("header.txt", render.Bytes(t.header, nil))
	root.AddFile("events.txt", render.Stream(&mergeGen{t: t}, nil))
	// The small tables (a row per definition, call path, region or
	// message) are rendered whole; the big ones stream, with Parquet twins.
	for _, v := range []struct {
		name  string
		table *render.Table
	}{{"locations.csv", t.locationsTable()}, {"regions.csv", t.regionsTable()}, {"cct.csv", t.cctTable()},
		{"procedures.csv", t.proceduresTable()}, {"imbalance.csv", t.imbalanceTable()}, {"messages.csv", t.messagesTable()},
		{"collectives.csv", t.collectivesTable()}} {
		root.AddFile(v.name, v.table.SmallCSV(nil))
	}
	root.AddFile("comm-matrix.csv", t.commMatrixTable().CSV())
	root.AddFile("metrics.csv", t.metricsTable().CSV())
	locDir := root.AddDir("locations")
	locNames := make([]string, len(ar.Locations))
	for i, l := range ar.Locations {
		locNames[i] = strconv.FormatUint(l.ID, 10)
	}
	t.eventsCSV = make([]render.View, len(ar.Locations))
	for i, name := range render.FileNames(locNames) {
		d := locDir.AddDir(name)
		t.eventsCSV[i] = t.eventsTable(i).CSV()
		d.AddFile("events.csv", t.eventsCSV[i])
		d.AddFile("cct.csv", t.locationCCT(i).SmallCSV(nil))
	}
	interchange.NewProfile(t.tree, "OTF2 trace "+ar.Name, []string{"hpcfs: OTF2 trace " + anchor}).AddViews(root)
	interchange.AddTraceViews(root, &chromeTrace{t: t})
	root.AddFile("definitions.txt", render.Stream(render.HeaderRows(definitionsHeader, int64(len(ar.Defs)), 256,
		func(dst []byte, i int64) ([]byte, error) {
			return t.names.atLine(int(i)).appendDefinition(dst, &ar.Defs[i]), nil
		}), nil))
	return src, t, nil
}

func (t *trace) readme() ([]byte, error) {
	var b strings.Builder
	a := t.ar.Anchor
	fmt.Fprintf(&b, "hpcfs: OTF2 trace %s\n\n", filepath.Join(t.ar.Dir, t.ar.Name+".otf2"))
	fmt.Fprintf(&b, "Format: OTF2 archive written by OTF2 %d.%d.%d (%s), %s.\n", a.Major, a.Minor, a.Fix,
		a.Creator, vfs.Count(len(t.ar.Locations), "location"))
	b.WriteString(`Timestamps are the trace's clock ticks (header.txt gives the resolution), corrected by
each location's clock offsets as otf2-print does.

Files
  README.txt       this text
  _errors.txt      decode problems found so far, one per line; empty when none
  raw/             the original trace files, byte for byte
  header.txt       the anchor file: versions, chunk sizes, counts, properties, clock
  events.txt       every event of every location merged by time, then location id:
                   byte for byte what otf2-print 3.0.2 prints
  definitions.txt  the global definitions in file order: what otf2-print -G prints
  locations.csv    one row per location: location,name,kind,location_group,num_events
  regions.csv      one row per region definition: region_id,function,canonical_name,
                   description,role,paradigm,file,line,end_line
  cct.csv          the call-path profile from ENTER/LEAVE nesting, summed over locations:
                   ctx_id,parent_id,depth,function,region_id,call_count,duration_ns_inc,
                   duration_ns_exc (ctx 0 is the root; call_count counts visits)
  procedures.csv   the flat profile per region: function_id (the region id),function,
                   relation,module (both empty),file,line,call_count,duration_ns_inc
                   (outermost calls only, so recursion counts once),duration_ns_exc
  imbalance.csv    the flat profile per region and location, a row for every location
                   (zeros where the region was not entered): region_id,function,location,
                   call_count,duration_ns_inc,duration_ns_exc
  messages.csv     every MPI point-to-point message, a receive matched to the first
                   unmatched send of the same communicator, sender, receiver and tag:
                   kind (message, unmatched_send, unmatched_recv),communicator,sender,
                   receiver (ranks),sender_location,receiver_location,tag,bytes,
                   send_time_ns,recv_time_ns
  comm-matrix.csv  the communication matrix: per communicator, sender and receiver rank,
                   the matched messages of messages.csv and their bytes:
                   communicator,sender,receiver,messages,bytes
  collectives.csv  every MPI collective of every location: location,operation,communicator,
                   root,sent_bytes,received_bytes,time_ns (its begin),duration_ns
  metrics.csv      every METRIC value, one row per member, location after location:
                   location,t_ns,time_ns,metric_id,name (the member),value (as its type:
                   int64, uint64 or double; nan and inf as C prints them)
  locations/<id>/events.csv  the location's events in file order: t_ns (from the global
                   offset),time_ns,event (the record),region, then a column per field of
                   the event records the trace can hold (those whose definitions it has;
                   the same columns for every location: tag,bytes,communicator,...) and
                   one per attribute definition, named after it; a definition by its
                   name (its id when it has none), an enum by otf2-print's name, numbers
                   as their type, times in ns; empty where the record has no such field
  locations/<id>/cct.csv     the call paths the location visited, with its own values
`)
	b.WriteString("\n" + interchange.ProfileReadme(profileMetrics))
	b.WriteString("  (the tree is cct.csv's: time_ns is exclusive time, visits the visits)\n\n")
	b.WriteString(interchange.TraceReadme())
	b.WriteString(`  In trace.json a location is a thread (pid: its location group): its regions are
  complete events from ENTER to LEAVE, MPI sends and receives are instant events with
  the peer rank, communicator, tag and bytes. Each matched message of messages.csv is a
  flow arrow (id: its row in messages.csv) from the slice around its send to the slice
  around its receive; in trace.pftrace the send's instant has the flow id (flow_ids)
  and the receive's ends it (terminating_flow_ids).
`)
	return []byte(b.String()), nil
}

func (t *trace) header() ([]byte, error) {
	a := t.ar.Anchor
	var b []byte
	kv := func(k string, v string) {
		b = append(b, k...)
		b = append(b, ": "...)
		b = append(b, v...)
		b = append(b, '\n')
	}
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	kv("otf2_version", fmt.Sprintf("%d.%d.%d", a.Major, a.Minor, a.Fix))
	kv("anchor_format", u(uint64(a.AnchorFormat)))
	kv("trace_format", u(uint64(a.TraceFormat)))
	endian := "little"
	if a.BigEndian {
		endian = "big"
	}
	kv("byte_order", endian)
	kv("event_chunk_size", u(a.EventChunkSize))
	kv("definition_chunk_size", u(a.DefChunkSize))
	kv("locations", u(a.NumLocations))
	kv("global_definitions", u(a.NumGlobalDefs))
	kv("machine", a.Machine)
	kv("creator", a.Creator)
	kv("description", a.Description)
	if a.HasTraceID {
		kv("trace_id", fmt.Sprintf("0x%016x", a.TraceID))
	}
	if a.HasSnapshotCounts {
		kv("snapshots", u(uint64(a.NumSnapshots)))
		kv("thumbnails", u(uint64(a.NumThumbnails)))
	}
	for _, d := range t.ar.Defs {
		if d.Name() == "ClockProperties" {
			kv("timer_resolution", u(d.U("timerResolution")))
			kv("global_offset", u(d.U("globalOffset")))
			kv("trace_length", u(d.U("traceLength")))
			if rt := d.U("realtimeTimestamp"); rt != 1<<64-1 {
				kv("realtime_timestamp_ns", u(rt))
			}
		}
	}
	for _, p := range a.Properties {
		kv("property "+p[0], p[1])
	}
	return b, nil
}
