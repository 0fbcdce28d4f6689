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
                   worst first (max_over_mean, then max - mean); kind is always "context"
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

// profilesCSV decodes the headers of every profile, several at a time.
func (m *mount) profilesCSV() ([]byte, error) {
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
	b := []byte("profile,file,program_name,rank,thread,pid,host_id,version,layout,num_epochs,num_metrics,num_load_modules,num_cct_nodes\n")
	for i, s := range rows {
		p := m.profiles[i]
		b = render.AppendCSVRow(b, p.name, p.file, s.program, s.rank, s.thread, s.pid, s.host, s.version, s.layout,
			itoa(s.epochs), itoa(s.metrics), itoa(s.lms), strconv.FormatUint(s.nodes, 10))
	}
	return b, nil
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

func boolDigit(v bool) string {
	if v {
		return "1"
	}
	return "0"
}

func (p *profile) metricsCSV() ([]byte, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	b := []byte("epoch,metric_id,name,description,type,val_type,val_fmt,partner,show,show_percent,period,formula,format,is_frequency,is_multiplexed,period_mean,num_samples\n")
	u := func(v uint64) string { return strconv.FormatUint(v, 10) }
	for _, e := range f.Epochs {
		for i, m := range e.Metrics {
			row := []string{itoa(e.Index), itoa(i), m.Name, m.Description, m.Type.String(), m.ValType.String(), m.ValFmt.String(),
				u(uint64(m.Partner)), u(uint64(m.Show)), boolDigit(m.ShowPercent), u(m.Period), m.Formula, m.FormatStr, "", "", "", ""}
			if m.HasAux {
				row[13], row[14], row[15], row[16] = u(uint64(m.IsFrequency)), u(uint64(m.IsMultiplexed)), render.FormatFloat(m.PeriodMean), u(m.NumSamples)
			}
			b = render.AppendCSVRow(b, row...)
		}
	}
	return b, f.Problems.Err()
}

func (p *profile) loadmapCSV() ([]byte, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	b := []byte("epoch,module_id,name,flags\n")
	for _, e := range f.Epochs {
		for _, lm := range e.LoadModules {
			b = render.AppendCSVRow(b, itoa(e.Index), itoa(int(lm.ID)), lm.Name, string(render.AppendHex(nil, lm.Flags)))
		}
	}
	return b, f.Problems.Err()
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
