package hpcrun

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

func (m *mount) readme() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "hpcfs mount of %s\n\nFormat: HPCToolkit hpcrun measurement profiles\n(HPCRUN-profile____ 02.00, layouts A/B/C, 03.00 and 04.00), ", m.src.Path)
	fmt.Fprintf(&b, "%s.\nBig-endian binary decoded on demand; raw/ holds the original files.\n\n", vfs.Count(len(m.profiles), "profile"))
	b.WriteString(`Tree
  README.txt       this file
  _errors.txt      decode problems found so far (empty when none)
  raw/             the original files, byte for byte
  profiles.csv     one row per .hpcrun file: profile,file,program_name,rank,thread,pid,
                   host_id,version,layout,num_epochs,num_metrics,num_load_modules,
                   num_cct_nodes (host_id as 0x hex; metrics and load modules of the last
                   epoch; cct nodes over all epochs; version as the header writes it, with its
                   endian letter, e.g. 02.00b, so that spreadsheets keep it text)
  imbalance.csv    load imbalance over the profiles: their calling contexts merged by path
                   (module+0xoffset of each frame, root;...;leaf), per inclusive metric: count
                   of the profiles with a value there, min, mean, max, stddev (population),
                   cv = stddev / mean, max_over_mean and max_profile, the profile of the max;
                   worst first (max_over_mean, then max - mean); kind is always "context";
                   the contexts beyond its ` + strconv.Itoa(imbalanceBudget>>20) + ` MB budget are left out (said in _errors.txt)
  <profile>/       one per .hpcrun file, named after the file without .hpcrun
    hpcproftt.txt  the text of HPCToolkit's ` + "`hpcproftt --dump`" + ` (2016.12 layout; layout C adds its
                   frequency/multiplexed/period-mean/num-samples line)
    header.txt     name: value per line: file header and nv-pairs, then each epoch header
    metrics.csv    epoch,metric_id,name,description,type,val_type,val_fmt,partner,show,
                   show_percent,period,formula,format,is_frequency,is_multiplexed,period_mean,
                   num_samples (last four: layout C only)
    loadmap.csv    epoch,module_id,name,flags
    cct.csv        epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset,function,
                   raw_name,file,line,inlined[,lush_assoc,lush_lip], then <metric>_inc (sum
                   over the subtree) and <metric>_exc (stored value) per metric; offset is the
                   node's ip within its module; function..inlined name it from the binary
                   (see Symbols below; empty when it is not found)
    cct.txt        the CCT per epoch, indented by depth: inclusive %, inclusive, exclusive
                   of the first metric (Real values rounded to 6 significant digits, as
                   hpcviewer shows them; cct.csv has the exact values), module+0xip and
                   the function (file:line) when known; children by descending inclusive value
    trace.txt      (with a .hpctrace beside the profile) time  ctx_id  module+0xip [function
                   (file:line)] per sample, time in the file's unit
    trace.csv      time_ns,t_ns,ctx_id,module_id,module,offset,function,raw_name,file,line,
                   inlined[,metric_id]: time_ns is exact
                   (converted from microseconds for 02.00 profiles); t_ns is time_ns less the
                   first sample's, small numbers that spreadsheets keep exactly

Conventions
  ctx_id is the stored node id without its sign; is_leaf (1/0) says whether it was negated (a leaf).
  Int metric values are unsigned integers; Real values are shortest round-trip decimals.
  Metric columns are snake_case of the metric name (CPUTIME (usec) -> cputime_usec).
  The module in cct.txt and trace.txt is the file name of the load module; 0 is the synthetic root.
  Trace files store microseconds for 02.00 profiles, nanoseconds for 03.00 and later;
  trace.txt shows them as stored, trace.csv in nanoseconds.
  Layouts: A (2010, bit-field flags), B (2010-2017.06), C (2017.10+, with aux fields); all say
  "02.00".

Version 04.00 (sparse, HPCToolkit 2022.10+)
  Lacks: epochs (shown as one epoch 0, without flags, granularity or nv-pairs), LUSH fields, the
  leaf sign (is_leaf is 1 for nodes without children), values stored per node, and hpcproftt.txt (no
  --dump text of the 02.00 kind to match). Metric values absent from the sparse section are 0.
  Adds: header.txt lists the sections, the id tuple (kind(interpretation): physical logical) and the
  id-tuple dictionary; module_id 0 nodes are placeholders whose 8-character name is stored in
  the ip (module in cct.csv, the location in cct.txt and trace.txt).

`)
	b.WriteString(interchange.ProfileReadme(nil))
	b.WriteString(`  in every <profile>/. Frames are functions with their inlined calls when the binary's
  symbols are found, else module+0xip as in cct.txt (merged when equal), the synthetic
  root left out. Integer metrics keep their unit; Real metrics in seconds
  become integer nanoseconds (<metric>_ns; other Real metrics are scaled by 1e9, _e9).

`)
	b.WriteString(interchange.TraceReadme())
	b.WriteString(`  (with .hpctrace files) trace/<profile>.json; pid is the MPI rank, tid the thread id.
  A run of samples in one CCT node is one X event (until the next sample), named by its
  location (its function when known); a thread's last run of one sample is an instant
  event. ts counts from the earliest sample of all traces.
`)
	b.WriteString(`
Names of addresses: function is the demangled name of the innermost function at the
  ip (a node with children holds a return address, looked up at ip-1), raw_name the
  name as the binary has it, file and line the source line, inlined the functions it
  is inlined in, outermost first, as "function (file:line)" of each call joined by ';'
  (addr2line -f -i -C order reversed).
`)
	b.WriteString(m.resolver().Readme(m.moduleNames()))
	b.WriteString("\nProfiles\n")
	for i, p := range m.profiles {
		if i == 20 {
			fmt.Fprintf(&b, "  ... %d more: see profiles.csv\n", len(m.profiles)-20)
			break
		}
		trace := ""
		if p.tracePath != "" {
			trace = "  (with trace)"
		}
		fmt.Fprintf(&b, "  %s/%s\n", p.name, trace)
	}
	return []byte(b.String()), nil
}

// profilesTable is profiles.csv: a row per profile, from headers decoded
// several at a time.
func (m *mount) profilesTable() *render.Table {
	return &render.Table{Columns: profilesColumns, Open: func(pos []byte) (render.Scanner, error) {
		rows := m.summaries()
		return render.Counted(int64(len(rows)), func(i int64, r *render.Row) error {
			s, p := &rows[i], m.profiles[i]
			r.Str(p.name).Str(p.file).Str(s.program).Str(s.rank).Str(s.thread).Str(s.pid).Str(s.host).Str(s.version).Str(s.layout).
				Uint(uint64(s.epochs)).Uint(uint64(s.metrics)).Uint(uint64(s.lms)).Uint(s.nodes)
			return nil
		})(pos)
	}}
}

var profilesColumns = []render.Column{
	{Name: "profile"}, {Name: "file"}, {Name: "program_name"}, {Name: "rank"}, {Name: "thread"}, {Name: "pid"},
	{Name: "host_id"}, {Name: "version"}, {Name: "layout"},
	{Name: "num_epochs", Kind: render.Uint}, {Name: "num_metrics", Kind: render.Uint},
	{Name: "num_load_modules", Kind: render.Uint}, {Name: "num_cct_nodes", Kind: render.Uint},
}

// summaries decodes the headers of every profile, several at a time.
func (m *mount) summaries() []summary {
	rows := make([]summary, len(m.profiles))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rows[i] = m.profiles[i].summary()
			}
		}()
	}
	for i := range m.profiles {
		next <- i
	}
	close(next)
	wg.Wait()
	return rows
}

func (p *profile) headerText() ([]byte, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "file: %s\nmagic: %s\nversion: %s\nendian: %s\nlayout: %s\nnum_epochs: %d\n",
		render.EscapeName(p.file), hpcrun.ProfileMagic, render.EscapeName(f.Version), render.EscapeName(string(f.Endian)), f.Layout, len(f.Epochs))
	for _, nv := range f.NV {
		fmt.Fprintf(&b, "%s: %s\n", render.EscapeName(nv.Name), render.EscapeName(nv.Value))
	}
	if f.Sparse != nil {
		sparseHeader(&b, f)
		return []byte(b.String()), f.Problems.Err()
	}
	for _, e := range f.Epochs {
		i := e.Index
		fmt.Fprintf(&b, "\nepoch %d offset: %d\nepoch %d flags: %#x\nepoch %d logical_unwinding: %t\n", i, e.Off, i, e.Flags, i, e.LogicalUnwind())
		fmt.Fprintf(&b, "epoch %d measurement-granularity: %d\nepoch %d ra-to-callsite-offset: %d\n", i, e.Granularity, i, e.RAOffset)
		for _, nv := range e.NV {
			fmt.Fprintf(&b, "epoch %d %s: %s\n", i, render.EscapeName(nv.Name), render.EscapeName(nv.Value))
		}
		fmt.Fprintf(&b, "epoch %d num_metrics: %d\nepoch %d num_load_modules: %d\n", i, len(e.Metrics), i, len(e.LoadModules))
		fmt.Fprintf(&b, "epoch %d num_cct_nodes: %d\nepoch %d node_size: %d\n", i, e.Announced, i, e.NodeSize)
	}
	return []byte(b.String()), f.Problems.Err()
}

// bit is 1 for true, 0 for false.
func bit(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

var metricsColumns = []render.Column{
	{Name: "epoch", Kind: render.Uint}, {Name: "metric_id", Kind: render.Uint}, {Name: "name"}, {Name: "description"},
	{Name: "type"}, {Name: "val_type"}, {Name: "val_fmt"}, {Name: "partner", Kind: render.Uint}, {Name: "show", Kind: render.Uint},
	{Name: "show_percent", Kind: render.Uint}, {Name: "period", Kind: render.Uint}, {Name: "formula"}, {Name: "format"},
	{Name: "is_frequency", Kind: render.Uint}, {Name: "is_multiplexed", Kind: render.Uint}, {Name: "period_mean", Kind: render.Float},
	{Name: "num_samples", Kind: render.Uint},
}

// epochTable is the Open of a table of a group of rows per epoch
// (metrics.csv, loadmap.csv), ending with the file's decode problems.
func (p *profile) epochTable(group func(e *hpcrun.Epoch) (int64, func(j int64, r *render.Row) error)) func(pos []byte) (render.Scanner, error) {
	return func(pos []byte) (render.Scanner, error) {
		f, err := p.open()
		if err != nil {
			return nil, err
		}
		n := int64(len(f.Epochs))
		return render.Groups(n+1, func(i int64) (int64, func(int64, *render.Row) error, error) {
			if i == n {
				return 0, nil, f.Problems.Err()
			}
			k, fill := group(f.Epochs[i])
			return k, fill, nil
		})(pos)
	}
}

func (p *profile) metricsTable() *render.Table {
	return &render.Table{Columns: metricsColumns, Open: p.epochTable(func(e *hpcrun.Epoch) (int64, func(int64, *render.Row) error) {
		return int64(len(e.Metrics)), func(j int64, r *render.Row) error {
			m := &e.Metrics[j]
			r.Uint(uint64(e.Index)).Uint(uint64(j)).Str(m.Name).Str(m.Description).Str(m.Type.String()).Str(m.ValType.String()).Str(m.ValFmt.String()).
				Uint(uint64(m.Partner)).Uint(uint64(m.Show)).Uint(bit(m.ShowPercent)).Uint(m.Period).Str(m.Formula).Str(m.FormatStr)
			if m.HasAux {
				r.Uint(uint64(m.IsFrequency)).Uint(uint64(m.IsMultiplexed)).Float(m.PeriodMean).Uint(m.NumSamples)
			} else {
				r.Empty().Empty().Empty().Empty()
			}
			return nil
		}
	})}
}

var loadmapColumns = []render.Column{
	{Name: "epoch", Kind: render.Uint}, {Name: "module_id", Kind: render.Uint}, {Name: "name"}, {Name: "flags", Kind: render.Hex},
}

func (p *profile) loadmapTable() *render.Table {
	return &render.Table{Columns: loadmapColumns, Open: p.epochTable(func(e *hpcrun.Epoch) (int64, func(int64, *render.Row) error) {
		return int64(len(e.LoadModules)), func(j int64, r *render.Row) error {
			lm := &e.LoadModules[j]
			r.Uint(uint64(e.Index)).Uint(uint64(lm.ID)).Str(lm.Name).Uint(lm.Flags)
			return nil
		}
	})}
}

// sparseHeader ends header.txt for a 04.00 file: its sections, id tuple
// and dictionary instead of epoch headers (04.00 has none).
func sparseHeader(b *strings.Builder, f *hpcrun.File) {
	s, e := f.Sparse, f.Epochs[0]
	b.WriteString("\n")
	for _, sec := range s.Sections {
		fmt.Fprintf(b, "section %s: %d-%d\n", render.EscapeName(sec.Name), sec.Start, sec.End)
	}
	b.WriteString("\nid_tuple: ")
	for i, el := range s.IDTuple {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%s(%d): %d %d", render.EscapeName(s.KindName(el.Kind)), el.Interp, el.Physical, el.Logical)
	}
	b.WriteString("\nid_tuple_dictionary: ")
	for i, d := range s.Dictionary {
		if i > 0 {
			b.WriteString(" ")
		}
		fmt.Fprintf(b, "%d=%s", d.Kind, render.EscapeName(d.Name))
	}
	fmt.Fprintf(b, "\nnum_metrics: %d\nnum_load_modules: %d\nnum_cct_nodes: %d\n", len(e.Metrics), len(e.LoadModules), e.Announced)
	fmt.Fprintf(b, "num_nonzero_values: %d\nnum_nonzero_cct_nodes: %d\n", s.NumValues, s.NumNonZero)
}
