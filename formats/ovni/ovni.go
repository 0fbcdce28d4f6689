// Package ovni builds the mounted tree of an ovni v1 trace: the merged
// event dump (ovnidump's text, byte for byte), per-thread text and CSV
// event lists, stream and CPU tables, and the original metadata.
package ovni

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/formats/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// Format is the ovni entry of the format registry.
var Format = vfs.Format{
	Name:     "ovni",
	Supports: "ovni traces v1 and 1.0.x (a directory of loom.*/proc.*/thread.*)",
	Detect:   detect,
	Open:     Open,
}

func detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return "", false
	}
	tr, _, err := ovni.OpenTrace(path)
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
	trace  *trace
	prefix string // "<loom>.<pid>.<tid>  ", ovnidump's line key

	once   sync.Once
	stream *ovni.Stream
	err    error
}

func (t *thread) open() (*ovni.Stream, error) {
	t.once.Do(func() {
		f, err := os.Open(t.Path)
		if err != nil {
			t.err = err
			return
		}
		fi, err := f.Stat()
		if err != nil {
			t.err = err
			return
		}
		t.stream, t.err = ovni.NewStream(f, fi.Size(), t.Name())
	})
	return t.stream, t.err
}

type trace struct {
	tr      *ovni.Trace
	threads []*thread
	errors  *vfs.Errors

	statsOnce sync.Once
	stats     []streamStats

	metaOnce sync.Once
	metas    map[*ovni.Proc]*ovni.Metadata

	baseOnce sync.Once
	base     uint64
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
	tr, problems, err := ovni.OpenTrace(dir)
	if err != nil {
		return nil, err
	}
	t := &trace{tr: tr}
	for _, th := range tr.Streams() {
		prefix := th.Proc.Loom.Name + "." + strconv.FormatInt(th.Proc.PID, 10) + "." + strconv.FormatInt(th.TID, 10) + "  "
		t.threads = append(t.threads, &thread{Thread: th, trace: t, prefix: prefix})
	}
	variant := t.variant()
	src := vfs.NewSource("ovni", variant, dir)
	t.errors = src.Errors
	for _, p := range problems {
		src.Errors.Report("trace", p)
	}
	root := src.Root
	root.AddFile("README.txt", render.Bytes(t.readme, nil))
	root.AddFile("streams.csv", render.Bytes(t.streamsCSV, nil))
	root.AddFile("cpus.csv", render.Bytes(t.cpusCSV, nil))
	var files []string
	for _, th := range t.threads {
		files = append(files, th.Path)
	}
	root.AddFile("events.txt", render.IndexedStream(&mergeGen{t: t}, render.IndexKey("ovni", "events.txt", files...), nil))
	i := 0
	for _, l := range tr.Looms {
		ldir := root.AddDir("loom." + l.Name)
		for _, p := range l.Procs {
			pdir := ldir.AddDir("proc." + strconv.FormatInt(p.PID, 10))
			if p.MetadataPath != "" {
				pdir.AddFile("metadata.json", render.Passthrough(p.MetadataPath))
			}
			for range p.Threads {
				th := t.threads[i]
				i++
				tdir := pdir.AddDir("thread." + strconv.FormatInt(th.TID, 10))
				where := th.Name()
				tdir.AddFile("events.txt", render.IndexedStream(&streamGen{th: th, csv: false}, render.IndexKey("ovni", "events.txt", th.Path), src.Errors.Reporter(where)))
				tdir.AddFile("events.csv", render.IndexedStream(&streamGen{th: th, csv: true}, render.IndexKey("ovni", "events.csv", append([]string{th.Path}, files...)...), src.Errors.Reporter(where)))
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

// variant reads the first bytes of the first non-empty stream.
func (t *trace) variant() string {
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

// metadata parses every process's metadata.json once; problems go to
// _errors.txt and leave the process's fields empty.
func (t *trace) metadata() map[*ovni.Proc]*ovni.Metadata {
	t.metaOnce.Do(func() {
		t.metas = map[*ovni.Proc]*ovni.Metadata{}
		for _, l := range t.tr.Looms {
			for _, p := range l.Procs {
				m, err := p.ReadMetadata()
				if err != nil {
					t.errors.Report(fmt.Sprintf("loom.%s/proc.%d/metadata.json", l.Name, p.PID), err)
					continue
				}
				t.metas[p] = m
			}
		}
	})
	return t.metas
}

type streamStats struct {
	events      int64
	first, last uint64
}

func (t *trace) streamStats() []streamStats {
	t.statsOnce.Do(func() {
		t.stats = make([]streamStats, len(t.threads))
		for i, th := range t.threads {
			st := &t.stats[i]
			s, err := th.open()
			if err != nil {
				t.errors.Report(th.Name(), err)
				if s == nil {
					continue
				}
			}
			r := s.NewReader(0, 256<<10)
			for {
				clock, _, _, err := r.Skip()
				if err != nil {
					if !isEOF(err) {
						t.errors.Report(th.Name(), err)
					}
					break
				}
				if st.events == 0 {
					st.first = clock
				}
				st.last = clock
				st.events++
			}
		}
	})
	return t.stats
}

func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func (t *trace) streamsCSV() ([]byte, error) {
	metas := t.metadata()
	stats := t.streamStats()
	b := []byte("loom,pid,tid,app_id,rank,nranks,path,num_events,first_time_ns,last_time_ns\n")
	for i, th := range t.threads {
		m := metas[th.Proc]
		var appID, rank, nranks string
		if m != nil {
			appID, rank, nranks = optInt(m.AppID), optInt(m.Rank), optInt(m.NRanks)
		}
		st := stats[i]
		first, last := "", ""
		if st.events > 0 {
			first, last = strconv.FormatUint(st.first, 10), strconv.FormatUint(st.last, 10)
		}
		b = render.AppendCSVRow(b, th.Proc.Loom.Name, strconv.FormatInt(th.Proc.PID, 10), strconv.FormatInt(th.TID, 10),
			appID, rank, nranks, th.Name(), strconv.FormatInt(st.events, 10), first, last)
	}
	return b, nil
}

func (t *trace) cpusCSV() ([]byte, error) {
	metas := t.metadata()
	b := []byte("loom,index,phyid\n")
	for _, l := range t.tr.Looms {
		for _, p := range l.Procs {
			if m := metas[p]; m != nil {
				for _, c := range m.CPUs {
					b = render.AppendCSVRow(b, l.Name, strconv.FormatInt(c.Index, 10), strconv.FormatInt(c.PhyID, 10))
				}
			}
		}
	}
	return b, nil
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
  _errors.txt      decode problems found so far, one per line; empty when none
  raw/             the original trace files, byte for byte
  streams.csv      one row per thread stream: loom,pid,tid,app_id,rank,nranks,path,
                   num_events,first_time_ns,last_time_ns (app_id/rank/nranks from metadata.json)
  cpus.csv         the CPU list of each loom: loom,index,phyid
  events.txt       every event of every stream, merged in clock order, in ovnidump's
                   line format: <loom>.<pid>.<tid>  <clock>  <MCV>[ :xx:xx...]
                   (one :xx per payload byte; a jumbo event prints its 4 size bytes,
                   then its data). Events with equal clocks are ordered by loom name,
                   then pid, then tid (numerically), so the output is deterministic.
  loom.<L>/proc.<P>/metadata.json             the original process metadata
  loom.<L>/proc.<P>/thread.<T>/events.txt     this stream only, same line format
  loom.<L>/proc.<P>/thread.<T>/events.csv     time_ns,t_ns,mcv,model,category,value,
                   jumbo,payload_size,payload_hex: one row per event. time_ns is the
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

A stream that ends inside an event keeps every complete event before the cut;
_errors.txt names the file, the offset and the reason. An empty (0-byte) stream
is an empty stream.

Example
  grep -c ' VTx' events.txt
  awk -F, 'NR>1 {n[$3]++} END {for (m in n) print m, n[m]}' loom.*/proc.*/thread.*/events.csv
`)
	return []byte(b.String()), nil
}

func isEOF(err error) bool { return errors.Is(err, io.EOF) }
