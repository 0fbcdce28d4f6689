// Package ovni builds the mounted tree of an ovni trace of any layout (spec
// v1 and 1.0.x, releases 1.1 to 1.4, spec v2, spec v3): the merged event
// dump (the text of the ovnidump of the trace's release, byte for byte),
// per-thread text and CSV event lists, stream and CPU tables, and the
// original and decoded metadata.
package ovni

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// Format is the ovni entry of the format registry.
var Format = vfs.Format{
	Name:     "ovni",
	Supports: "ovni traces: spec v1, 1.0.x, 1.1-1.4, spec v2 (1.5-1.10), spec v3 (1.11+) (a directory of loom.*/proc.*/thread.*)",
	Detect:   detect,
	Open:     Open,
	Unsupported: func(path string, head []byte) string {
		if strings.HasSuffix(path, ".obs") {
			return "ovni stream file: mount the trace directory (the one holding loom.*)"
		}
		return ""
	},
}

func detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	tr, err := ovni.OpenTrace(path)
	if err != nil {
		return "", false
	}
	procs, streams := 0, 0
	for _, l := range tr.Looms {
		procs += len(l.Procs)
		for _, p := range l.Procs {
			streams += len(p.Threads)
		}
	}
	if procs == 0 {
		return "", false
	}
	return "ovni trace: " + vfs.Count(len(tr.Looms), "loom") + ", " + vfs.Count(procs, "process") + ", " +
		vfs.Count(streams, "thread stream"), true
}

// A thread is one stream of the trace, opened on first use.
type thread struct {
	*ovni.Thread
	trace *trace
	form  dumpForm
	key   string           // the stream's name in ovnidump's lines, with its separator
	meta  *ovni.StreamMeta // spec v2 and v3: the decoded JSON; nil when unreadable

	once   sync.Once
	stream *ovni.Stream
	err    error
}

// open opens the stream once. A stream file that cannot be opened or
// read at its start (an OS error: no permission, a directory in its
// place) stays so for the mount: it is the stream's data error, which
// every view that reads the stream reports through its binding, as it
// does a stream cut short (the merged views go on without it), instead of
// an EIO that no line of _errors.txt explains.
func (t *thread) open() (*ovni.Stream, error) {
	t.once.Do(func() {
		unreadable := func(err error) error {
			return decode.ErrAt("ovni", t.Name(), 0, "stream unreadable: "+err.Error(), nil, nil)
		}
		f, err := os.Open(t.Path)
		if err != nil {
			t.err = unreadable(err)
			return
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			t.err = unreadable(err)
			return
		}
		t.stream, t.err = ovni.NewStream(f, fi.Size(), t.Name())
		if t.err != nil && !render.IsDataError(t.err) {
			f.Close()
			t.stream, t.err = nil, unreadable(t.err)
		}
		if t.err == nil && t.Layout != ovni.LayoutV1 && t.stream.Variant != ovni.WithHeader {
			// ovni 1.1 and later always write the header; without it
			// the bytes are no events
			msg := "stream header missing (streams of ovni 1.1 and later start with \"ovni\" and a version)"
			if fi.Size() == 0 {
				msg = "empty stream: not even the stream header"
			} else {
				t.stream = nil
			}
			t.err = decode.ErrAt("ovni", t.Name(), 0, msg, nil, nil)
		}
	})
	return t.stream, t.err
}

// streamErr names the stream in err when err does not, so that a view
// reporting it under its own path still says which stream and where.
func (t *thread) streamErr(err error) error { return naming(t.Name(), err) }

// naming names the input file or stream in err when err does not.
func naming(name string, err error) error {
	if strings.Contains(err.Error(), name) {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

type trace struct {
	tr      *ovni.Trace
	form    dumpForm
	threads []*thread

	statsOnce     sync.Once
	stats         []streamStats
	statsProblems decode.Problems

	metaOnce     sync.Once
	metas        map[*ovni.Proc]*ovni.Metadata
	metaProblems decode.Problems

	baseOnce sync.Once
	base     uint64

	tasks taskTable // task type labels, for trace.json
}

// baseClock is the smallest first clock of the streams: the origin of
// t_ns in events.csv. Unreadable streams are left out (their errors
// show on their own views).
func (t *trace) baseClock() uint64 {
	t.baseOnce.Do(func() {
		found := false
		for _, th := range t.threads {
			s, _ := th.open()
			if s == nil {
				continue
			}
			clock, _, _, err := s.NewReader(s.Start(), 4096).Skip()
			if err != nil {
				continue
			}
			if !found || clock < t.base {
				t.base, found = clock, true
			}
		}
	})
	return t.base
}

// Open builds the tree of the trace in dir (or dir/ovni).
func Open(dir string) (*vfs.Source, error) {
	tr, err := ovni.OpenTrace(dir)
	if err != nil {
		return nil, err
	}
	t := &trace{tr: tr}
	for _, th := range tr.Streams() {
		t.threads = append(t.threads, &thread{Thread: th, trace: t})
	}
	var metaProblems []problem
	if tr.Layout >= ovni.LayoutV2 {
		metaProblems = t.readStreamMetas()
	}
	t.form = t.dumpForm()
	for _, th := range t.threads {
		th.form = t.form
		switch t.form {
		case formV1:
			th.key = render.EscapeName(th.Proc.Loom.Name) + "." + strconv.FormatInt(th.Proc.PID, 10) + "." + strconv.FormatInt(th.TID, 10) + "  "
		default:
			th.key = render.EscapeName(th.RelPath()) + "  "
		}
	}
	variant := t.variant()
	src := vfs.NewSource("ovni", variant, dir)
	src.Errors.ReportAll("trace", tr.Problems)
	for _, p := range metaProblems {
		src.Errors.Report(p.where, p.err)
	}
	root := src.Root
	root.AddFile("README.txt", render.Bytes(t.readme, nil))
	root.AddFile("streams.csv", t.streamsTable().CSV())
	root.AddFile("cpus.csv", t.cpusTable().CSV())
	root.AddFile("events.txt", render.Stream(&mergeGen{t: t}, nil))
	if d := t.describer(); d != nil {
		root.AddFile("events-described.txt", render.Stream(&mergeGen{t: t, desc: d}, nil))
	}
	interchange.AddTraceViews(root, &chromeTrace{t: t})
	i := 0
	for _, l := range tr.Looms {
		ldir := root.AddDir("loom." + l.Name)
		var canon, disk []string
		for _, p := range l.Procs {
			canon = append(canon, "proc."+strconv.FormatInt(p.PID, 10))
			disk = append(disk, filepath.Base(p.Dir))
		}
		procNames := idNames("loom."+l.Name, canon, disk, src.Errors)
		for k, p := range l.Procs {
			pdir := ldir.AddDir(procNames[k])
			canon, disk = canon[:0], disk[:0]
			for j := range p.Threads {
				canon = append(canon, "thread."+strconv.FormatInt(t.threads[i+j].TID, 10))
				disk = append(disk, filepath.Base(t.threads[i+j].Path))
			}
			threadNames := idNames("loom."+l.Name+"/"+procNames[k], canon, disk, src.Errors)
			if p.MetadataPath != "" {
				pdir.AddFile("metadata.json", render.Passthrough(p.MetadataPath))
			}
			for j := range p.Threads {
				th := t.threads[i]
				i++
				tdir := pdir.AddDir(threadNames[j])
				tdir.AddFile("events.txt", render.Stream(&streamGen{th: th, csv: false}, nil))
				tdir.AddFile("events.csv", render.Stream(&streamGen{th: th, csv: true}, nil))
				if th.Layout >= ovni.LayoutV2 {
					tdir.AddFile("header.txt", render.Bytes(th.header, nil))
					if th.JSONPath != "" {
						tdir.AddFile(filepath.Base(th.JSONPath), render.Passthrough(th.JSONPath))
					}
				}
			}
		}
	}
	procs := 0
	for _, l := range tr.Looms {
		procs += len(l.Procs)
	}
	src.AddInfo("looms", len(tr.Looms))
	src.AddInfo("processes", procs)
	src.AddInfo("thread streams", len(t.threads))
	var bytes int64
	for _, th := range t.threads {
		bytes += th.Size
	}
	src.AddInfo("stream bytes", bytes)
	return src, nil
}

// variant names the layout and, where known, the release that wrote the
// trace.
func (t *trace) variant() string {
	if t.tr.Layout == ovni.LayoutV1 {
		for _, th := range t.threads {
			if th.Size == 0 {
				continue
			}
			s, err := th.open()
			if s == nil {
				return "v1 (first stream unreadable: " + err.Error() + ")"
			}
			return "v1, " + s.Variant.String()
		}
		return "v1 (no events)"
	}
	v := t.tr.Layout.String()
	if lib := t.libVersion(); lib != "" {
		v += ", written by libovni " + lib
	}
	return v
}

// libVersion is the library version of the first stream that names one.
func (t *trace) libVersion() string {
	for _, th := range t.threads {
		if th.meta != nil && th.meta.Ovni.Lib.Version != "" {
			return th.meta.Ovni.Lib.Version
		}
	}
	return ""
}

// describer describes the events as plain ovnidump of the trace's release
// does; nil for releases before 1.6 and traces that do not name theirs.
func (t *trace) describer() *ovni.Describer {
	if t.form != formHex {
		return nil
	}
	return ovni.NewDescriber(ovni.ReleaseMinor(t.libVersion()))
}

// dumpForm picks the ovnidump line layout of the trace's release: 1.6 and
// later print -x lines; 1.2 to 1.5 the lines with per-stream deltas.
func (t *trace) dumpForm() dumpForm {
	switch t.tr.Layout {
	case ovni.LayoutV1:
		return formV1
	case ovni.LayoutObs:
		return formDelta
	case ovni.LayoutV2:
		if lib := t.libVersion(); strings.HasPrefix(lib, "1.5.") {
			return formDelta
		}
	}
	return formHex
}

// A problem is an _errors.txt line found before the tree exists.
type problem struct {
	where string
	err   error
}

// readStreamMetas reads every thread's JSON metadata (spec v2 and v3) and
// returns what it says went wrong: a thread that did not finish, a stream
// whose JSON disagrees with its place in the tree.
func (t *trace) readStreamMetas() []problem {
	var out []problem
	for _, th := range t.threads {
		m, err := th.ReadStreamMeta()
		if err != nil {
			out = append(out, problem{th.Name(), err})
			if m == nil || len(m.Fields) == 0 {
				continue
			}
		}
		th.meta = m
		o := &m.Ovni
		switch {
		case o.Finished == nil:
			out = append(out, problem{th.Name(), errors.New("ovni.finished missing from the stream metadata: the thread may not have finished, its last events may be missing")})
		case *o.Finished == 0:
			out = append(out, problem{th.Name(), errors.New("thread did not finish (ovni.finished 0): its last events may be missing")})
		}
		if th.Layout != ovni.LayoutV3 {
			continue
		}
		if o.TID != nil && *o.TID != th.TID || o.PID != nil && *o.PID != th.Proc.PID || o.Loom != nil && *o.Loom != th.Proc.Loom.Name {
			out = append(out, problem{th.Name(), fmt.Errorf("stream.json names loom %s, pid %s, tid %s, not its directory", optStr(o.Loom), optInt(o.PID), optInt(o.TID))})
		}
	}
	return out
}

func optStr(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// metadata parses every process's metadata.json once. A file that cannot
// be read leaves the process's fields empty and is one of the problems,
// which each view that reads the processes reports through its binding.
func (t *trace) metadata() (map[*ovni.Proc]*ovni.Metadata, decode.Problems) {
	t.metaOnce.Do(func() {
		t.metas = map[*ovni.Proc]*ovni.Metadata{}
		for _, l := range t.tr.Looms {
			for _, p := range l.Procs {
				m, err := p.ReadMetadata()
				if err != nil {
					t.metaProblems.Add(naming(fmt.Sprintf("loom.%s/proc.%d/metadata.json", l.Name, p.PID), err))
					continue
				}
				t.metas[p] = m
			}
		}
	})
	return t.metas, t.metaProblems
}

type streamStats struct {
	events      int64
	first, last uint64
}

// streamStats counts each stream's events and takes its first and last
// clock, once; what it finds wrong (a stream cut, a clock going back) are
// its problems, which each view that reads the counts reports through its
// binding.
func (t *trace) streamStats() ([]streamStats, decode.Problems) {
	t.statsOnce.Do(func() {
		t.stats = make([]streamStats, len(t.threads))
		for i, th := range t.threads {
			st := &t.stats[i]
			s, err := th.open()
			if err != nil {
				t.statsProblems.Add(th.streamErr(err))
				if s == nil {
					continue
				}
			}
			r := s.NewReader(0, 256<<10)
			back := false
			for {
				off := r.Offset()
				clock, _, _, err := r.Skip()
				if err != nil {
					if !isEOF(err) {
						t.statsProblems.Add(th.streamErr(err))
					}
					break
				}
				if st.events == 0 {
					st.first = clock
				} else if clock < st.last && !back {
					// libovni's clock is monotonic: a clock that goes back
					// is damage (ovnidump warns, ovniemu refuses the
					// trace). The views show the events as they are.
					back = true
					t.statsProblems.Add(decode.ErrAt("ovni", s.Name, off,
						fmt.Sprintf("the clock goes back from %d to %d (ovnidump: backwards jump in time)", st.last, clock), nil, nil))
				}
				st.last = clock
				st.events++
			}
		}
	})
	return t.stats, t.statsProblems
}

func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

// procInfo is what the trace says about a process: from metadata.json up
// to spec v2, from the stream.json files of its threads in spec v3.
type procInfo struct {
	appID, rank, nranks *int64
	cpus                []ovni.CPU
}

func (t *trace) procInfos() (map[*ovni.Proc]*procInfo, decode.Problems) {
	out := map[*ovni.Proc]*procInfo{}
	if t.tr.Layout < ovni.LayoutV3 {
		metas, problems := t.metadata()
		for p, m := range metas {
			out[p] = &procInfo{m.AppID, m.Rank, m.NRanks, m.CPUs}
		}
		return out, problems
	}
	for _, th := range t.threads {
		if th.meta == nil {
			continue
		}
		pi := out[th.Proc]
		if pi == nil {
			pi = &procInfo{}
			out[th.Proc] = pi
		}
		o := &th.meta.Ovni
		pi.appID = cmp.Or(pi.appID, o.AppID)
		pi.rank = cmp.Or(pi.rank, o.Rank)
		pi.nranks = cmp.Or(pi.nranks, o.NRanks)
		pi.cpus = append(pi.cpus, o.LoomCPUs...)
	}
	return out, nil
}

// streamColumns are the columns of streams.csv.
var streamColumns = []render.Column{
	{Name: "loom", Kind: render.String}, {Name: "pid", Kind: render.Int}, {Name: "tid", Kind: render.Int},
	{Name: "app_id", Kind: render.Int}, {Name: "rank", Kind: render.Int}, {Name: "nranks", Kind: render.Int},
	{Name: "path", Kind: render.String}, {Name: "num_events", Kind: render.Int},
	{Name: "first_time_ns", Kind: render.Uint}, {Name: "last_time_ns", Kind: render.Uint},
	{Name: "lib_version", Kind: render.String}, {Name: "lib_commit", Kind: render.String},
	{Name: "finished", Kind: render.Int}, {Name: "require", Kind: render.String},
	{Name: "loom_cpus", Kind: render.Int},
}

// streamsTable is streams.csv: one row per thread stream.
func (t *trace) streamsTable() *render.Table {
	var report render.Reporter
	return &render.Table{Columns: streamColumns, Bind: report.Bind, Open: func(pos []byte) (render.Scanner, error) {
		infos, metaProblems := t.procInfos()
		stats, statsProblems := t.streamStats()
		report.All(metaProblems, statsProblems)
		return render.Counted(int64(len(t.threads)), func(i int64, r *render.Row) error {
			th := t.threads[i]
			r.Str(th.Proc.Loom.Name).Int(th.Proc.PID).Int(th.TID)
			pi := infos[th.Proc]
			if pi == nil {
				pi = &procInfo{}
			}
			intCell(r, pi.appID)
			intCell(r, pi.rank)
			intCell(r, pi.nranks)
			r.Str(th.Name())
			st := stats[i]
			r.Int(st.events)
			if st.events > 0 {
				r.Uint(st.first).Uint(st.last)
			} else {
				r.Empty().Empty()
			}
			if m := th.meta; m != nil {
				r.Str(m.Ovni.Lib.Version).Str(m.Ovni.Lib.Commit)
				intCell(r, m.Ovni.Finished)
				r.Str(strings.Join(m.Require(), ";"))
			} else {
				r.Empty().Empty().Empty().Empty()
			}
			if n := len(pi.cpus); n > 0 {
				r.Int(int64(n))
			} else {
				r.Empty()
			}
			return nil
		})(pos)
	}}
}

// intCell adds the optional value *p, empty when absent.
func intCell(r *render.Row, p *int64) {
	if p == nil {
		r.Empty()
	} else {
		r.Int(*p)
	}
}

// cpuColumns are the columns of cpus.csv.
var cpuColumns = []render.Column{{Name: "loom", Kind: render.String}, {Name: "index", Kind: render.Int}, {Name: "phyid", Kind: render.Int}}

// cpusTable is cpus.csv: each loom's CPUs once, in the order the trace
// first names them.
func (t *trace) cpusTable() *render.Table {
	var report render.Reporter
	return &render.Table{Columns: cpuColumns, Bind: report.Bind, Open: func(pos []byte) (render.Scanner, error) {
		type loomCPU struct {
			loom string
			cpu  ovni.CPU
		}
		var rows []loomCPU
		infos, problems := t.procInfos()
		report.All(problems)
		for _, l := range t.tr.Looms {
			seen := map[ovni.CPU]bool{}
			for _, p := range l.Procs {
				if pi := infos[p]; pi != nil {
					for _, c := range pi.cpus {
						if !seen[c] {
							seen[c] = true
							rows = append(rows, loomCPU{l.Name, c})
						}
					}
				}
			}
		}
		return render.Counted(int64(len(rows)), func(i int64, r *render.Row) error {
			r.Str(rows[i].loom).Int(rows[i].cpu.Index).Int(rows[i].cpu.PhyID)
			return nil
		})(pos)
	}}
}

// header is a thread's header.txt: the stream's files and its decoded
// JSON metadata.
func (th *thread) header() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "stream        %s\nlayout        %s\n", th.Name(), th.Layout)
	fmt.Fprintf(&b, "events file   %s, %d bytes", filepath.Base(th.Path), th.Size)
	if s, _ := th.open(); s != nil && s.Variant == ovni.WithHeader {
		fmt.Fprintf(&b, ", stream header \"ovni\" version %d", s.Version)
	}
	b.WriteString("\n")
	m := th.meta
	if th.JSONPath == "" || m == nil {
		b.WriteString("metadata      missing or unreadable (see _errors.txt)\n")
		return []byte(b.String()), nil
	}
	fmt.Fprintf(&b, "metadata      %s, version %d\n", filepath.Base(th.JSONPath), m.Version)
	fmt.Fprintf(&b, "library       %s %s\n", m.Ovni.Lib.Version, m.Ovni.Lib.Commit)
	fmt.Fprintf(&b, "finished      %s\n", optInt(m.Ovni.Finished))
	fmt.Fprintf(&b, "require       %s\n", strings.Join(m.Require(), ", "))
	fmt.Fprintf(&b, "\nEvery value of %s, in order (key = value):\n", filepath.Base(th.JSONPath))
	for _, f := range m.Fields {
		fmt.Fprintf(&b, "%s = %s\n", f.Key, f.Value)
	}
	return []byte(b.String()), nil
}

// dumpFormText is the README's description of events.txt for each form.
var dumpFormText = [...]string{
	formV1: `in the line format of ovnidump of the v1 specification and 1.0.x:
                   <loom>.<pid>.<tid>  <clock>  <MCV>[ :xx:xx...]
                   (one :xx per payload byte; a jumbo event prints its 4 size bytes,
                   then its data).`,
	formDelta: `in the line format of plain ovnidump of releases 1.2 to 1.5
                   (which have no -x): <stream path>  <clock>  <delta>  <MCV>[ :xx:xx...]
                   The clock is right-aligned in 10 columns, the delta (from the previous
                   event of the same stream, signed) in 10 columns; one :xx per payload
                   byte (a jumbo event prints its 4 size bytes, then its data).
                   ovnidump 1.1.0 printed the delta from the previous line instead;
                   traces do not say which 1.1-1.4 release wrote them.`,
	formHex: "in the line format of `ovnidump -x` of release 1.6 and later:" + `
                   <clock>  <MCV>  <stream path>  [:xx:xx...]
                   The clock is right-aligned in 10 columns; one :xx per payload byte (a
                   jumbo event prints its 4 size bytes, then its data); a line without
                   payload ends with two spaces. (Plain ovnidump prints a description
                   instead of the bytes; the events.csv files name the events.)`,
}

func (t *trace) readme() ([]byte, error) {
	var b strings.Builder
	variant := t.variant()
	fmt.Fprintf(&b, "hpcfs: ovni trace %s\n\nFormat: ovni trace, %s.\n", t.tr.Dir, variant)
	fmt.Fprintf(&b, "%s, %s. Clocks are nanoseconds as recorded by libovni\n",
		vfs.Count(len(t.tr.Looms), "loom"), vfs.Count(len(t.threads), "thread stream"))
	b.WriteString(`(CLOCK_MONOTONIC unless built otherwise); stream fields are read little-endian.

Files
  README.txt       this text
  _errors.txt      decode problems found so far, one per line; empty when none (threads
                   that did not finish and missing streams are listed from the start)
  raw/             the original trace files, byte for byte
  streams.csv      one row per thread stream: loom,pid,tid,app_id,rank,nranks,path,
                   num_events,first_time_ns,last_time_ns,lib_version,lib_commit,finished,
                   require,loom_cpus (app_id, rank, nranks and loom_cpus, the number of
                   CPUs the process lists for its loom, come from metadata.json, or from
                   the stream.json files in spec v3; lib_version, lib_commit, finished
                   (ovni.finished) and require (ovni.require as "model version" items
                   separated by ;) from the thread's JSON, spec v2 and v3 only)
  cpus.csv         the CPU list of each loom, each CPU once: loom,index,phyid
  events.txt       every event of every stream, merged in clock order,
                   `)
	b.WriteString(dumpFormText[t.form])
	b.WriteString(`
                   Events with equal clocks are ordered by loom name, then pid, then
                   tid (numerically), so the output is deterministic.
  events-described.txt  (traces of release 1.6 and later) the same events in the line format
                   of plain ovnidump of the trace's release, which describes each event:
                   <clock>  <MCV>  <stream path>  <description>, e.g. "creates task type
                   1 with label \"testtype1\"" (UNKNOWN for events the release does not
                   declare, as ovnidump prints; arguments past a short payload read on
                   into the stream's next bytes, as ovnidump's do)
  loom.<L>/proc.<P>/metadata.json             the original process metadata (up to spec v2)
  loom.<L>/proc.<P>/thread.<T>/header.txt     spec v2 and v3: the stream's files, library,
                   ovni.finished and ovni.require, then every value of its JSON metadata
                   as key = value lines (keys are the JSON path joined by dots)
  loom.<L>/proc.<P>/thread.<T>/stream.json    (spec v3) or thread.<T>.json (spec v2): the
                   original JSON metadata
  loom.<L>/proc.<P>/thread.<T>/events.txt     this stream only, same line format
  loom.<L>/proc.<P>/thread.<T>/events.csv     time_ns,t_ns,mcv,model,category,value,
                   jumbo,payload_size,payload_hex,event: one row per event. time_ns is the
                   event's clock, exact; t_ns is the same instant less the trace's
                   first clock (the smallest first clock of all streams): small
                   numbers that spreadsheets keep exactly (they round 19-digit
                   time_ns values). model, category and
                   value are the three letters of the MCV; jumbo is 1 for jumbo events;
                   payload_size counts the payload bytes as stored (for a jumbo event,
                   4 size bytes plus the data); payload_hex is those bytes in hex after
                   0x (so that spreadsheets keep it as text), empty when there are none.
                   Bytes of an MCV that are not printable ASCII are written as \xNN in the
                   CSV (events.txt keeps them as stored).
                   event names the events of the models ovni 1.14 documents (ovni,
                   nOS-V, Nanos6, NODES, TAMPI, MPI, kernel, OpenMP), e.g. "ovni thread
                   execute", "MPI_Send begin"; empty for other events (mcv says which).

A stream that ends inside an event keeps every complete event before the cut;
_errors.txt names the file, the offset and the reason. An empty (0-byte) stream
is an empty stream (and, from ovni 1.1 on, where every stream starts with the
8-byte header "ovni" + version, an _errors.txt line; a stream without that
header shows no events).

Examples: events of one kind, then events per mcv and per model over all threads
  grep -c ' VTx ' events.txt
  awk -F, 'FNR>1 {n[$3]++} END {for (m in n) print m, n[m]}' loom.*/proc.*/thread.*/events.csv
  awk -F, 'FNR>1 {n[$4]++} END {for (m in n) print m, n[m]}' loom.*/proc.*/thread.*/events.csv

`)
	b.WriteString(interchange.TraceReadme())
	b.WriteString(`  trace/<loom>.<pid>.<tid>.json. Paired events are bursts: an event whose value is '['
  opens one and the next ']' of the same model and category closes it; so do the
  begin/end pairs named in events.csv (nosv_submit begin .. end, ...), task execution
  (VTx/VTr .. VTe/VTp, 6Tx/6Tr .. 6Te/6Tp, PPx .. PPe), OpenMP worksharing (PQx .. PQe)
  and marks (OM[ .. OM]). A burst is an X event named by its region (args: begin and end
  MCV, their payloads in hex), nested as in the thread; a task's burst is named by the
  label of its task type when the trace creates both (VTc/VTC, 6Tc, PPc create tasks; VYc,
  6Yc, POc types; the first 1048576 tasks), else "nosv task", "nanos6 task", "openmp task";
  an OpenMP worksharing's by the label of the type it names (POc), else "openmp
  worksharing". An end also ends the bursts
  opened inside its own that are still open (note "ended with an enclosing burst").
  Bursts open at a thread's last event end there (note "open at the end of the
  thread"); an end without a begin is an instant event. At most 64 bursts are open at
  once per thread: a begin beyond that, and its end, are instant events (with a note).
  Every other event (thread states OHx/OHp/..., task creation, ...) is an instant event
  named as in events.csv (args: mcv, payload); the thread state events stay there too.
  Each thread also has a states track in the same process, after it: tid 2^30+tid
  (above any real tid, so threads come first), thread name "thread <tid> states", file
  trace/<loom>.<pid>.<tid>.states.json, with X events Running (from OHx execute or OHr
  resume), Paused (OHp), Cooling (OHc) and Warming (OHw), each lasting until the
  thread's next state event; OHe (end) ends the state, and the last state ends at the
  thread's last event. OHC (create) is emitted by the creating thread and is no state.
  Category: the model letter. ts counts from the earliest event of all streams (the raw
  clocks are in events.txt).
`)
	return []byte(b.String()), nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }

// idNames names the processes (or threads) of one directory by their id,
// "proc.<pid>". Ids are numbers, so two entries can have the same one
// (proc.010856 and proc.10856): then an entry whose name on disk is not
// the plain spelling of its id keeps its name on disk, and an _errors.txt
// line says so; any other clash gets "~2".
func idNames(where string, canon, disk []string, errs *vfs.Errors) []string {
	count := map[string]int{}
	for _, c := range canon {
		count[c]++
	}
	out := make([]string, len(canon))
	for i, c := range canon {
		out[i] = c
		if count[c] > 1 && disk[i] != c {
			out[i] = disk[i]
		}
	}
	out = render.FileNames(out)
	for i := range out {
		if out[i] != canon[i] {
			errs.Report(where+"/"+out[i], fmt.Errorf("%s on disk has the id of %s; mounted as %s", disk[i], canon[i], out[i]))
		}
	}
	return out
}
