package hpcrun

import (
	"strconv"
	"strings"
	"sync"

	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/formats/interchange"
	"github.com/hpcfs/hpcfs/formats/vfs"
	"github.com/hpcfs/hpcfs/render"
)

func (m *mount) readme() ([]byte, error) {
	var b strings.Builder
	b.WriteString("hpcfs mount of " + m.src.Path + "\n\n")
	b.WriteString("Format: HPCToolkit hpcrun measurement profiles\n(HPCRUN-profile____ 02.00, layouts A/B/C, 03.00 and 04.00), ")
	b.WriteString(vfs.Count(len(m.profiles), "profile") + ".\nBig-endian binary decoded on demand; raw/ holds the original files.\n\n")
	b.WriteString(`Tree
  README.txt       this file
  _errors.txt      decode problems found so far (empty when none)
  raw/             the original files, byte for byte
  profiles.csv     one row per .hpcrun file: profile,file,program_name,rank,thread,pid,
                   host_id,version,layout,num_epochs,num_metrics,num_load_modules,
                   num_cct_nodes (host_id as 0x hex; metrics and load modules of the last
                   epoch; cct nodes over all epochs; version as the header writes it, with its
                   endian letter, e.g. 02.00b, so that spreadsheets keep it text)
  <profile>/       one per .hpcrun file, named after the file without .hpcrun
    hpcproftt.txt  the text of HPCToolkit's ` + "`hpcproftt --dump`" + ` (2016.12 layout; layout C adds its
                   frequency/multiplexed/period-mean/num-samples line)
    header.txt     name: value per line: file header and nv-pairs, then each epoch header
    metrics.csv    epoch,metric_id,name,description,type,val_type,val_fmt,partner,show,
                   show_percent,period,formula,format,is_frequency,is_multiplexed,period_mean,
                   num_samples (last four: layout C only)
    loadmap.csv    epoch,module_id,name,flags
    cct.csv        epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset[,lush_assoc,
                   lush_lip], then <metric>_inc (sum over the subtree) and <metric>_exc
                   (stored value) per metric; offset is the node's ip within its module
    cct.txt        the CCT per epoch, indented by depth: inclusive %, inclusive, exclusive
                   of the first metric (Real values rounded to 6 significant digits, as
                   hpcviewer shows them; cct.csv has the exact values), module+0xip;
                   children by descending inclusive value
    trace.txt      (with a .hpctrace beside the profile) time  ctx_id  module+0xip per sample,
                   time in the file's unit
    trace.csv      time_ns,t_ns,ctx_id,module_id,module,offset[,metric_id]: time_ns is exact
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
	b.WriteString(`  in every <profile>/. Frames are module+0xip as in cct.txt (merged when equal),
  the synthetic root left out. Integer metrics keep their unit; Real metrics in seconds
  become integer nanoseconds (<metric>_ns; other Real metrics are scaled by 1e9, _e9).

`)
	b.WriteString(interchange.TraceReadme())
	b.WriteString(`  (with .hpctrace files) trace/<profile>.json; pid is the MPI rank, tid the thread id.
  A run of samples in one CCT node is one X event (until the next sample), named by its
  location; a thread's last run of one sample is an instant event. ts counts from the
  earliest sample of all traces.
`)
	b.WriteString("\nProfiles\n")
	for i, p := range m.profiles {
		if i == 20 {
			b.WriteString("  ... " + itoa(len(m.profiles)-20) + " more: see profiles.csv\n")
			break
		}
		b.WriteString("  " + p.name + "/")
		if p.tracePath != "" {
			b.WriteString("  (with trace)")
		}
		b.WriteString("\n")
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

func kv(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, ": "...)
	value = strings.ReplaceAll(value, "\\", "\\\\")
	value = strings.ReplaceAll(value, "\n", "\\n")
	b = append(b, value...)
	return append(b, '\n')
}

func (p *profile) headerText() ([]byte, error) {
	f, err := p.open()
	if err != nil {
		return nil, err
	}
	var b []byte
	b = kv(b, "file", p.file)
	b = kv(b, "magic", hpcrun.ProfileMagic)
	b = kv(b, "version", f.Version)
	b = kv(b, "endian", string(f.Endian))
	b = kv(b, "layout", f.Layout.String())
	b = kv(b, "num_epochs", itoa(len(f.Epochs)))
	for _, nv := range f.NV {
		b = kv(b, nv.Name, nv.Value)
	}
	if f.Sparse != nil {
		return sparseHeader(b, f), f.Problems.Err()
	}
	for _, e := range f.Epochs {
		pre := "epoch " + itoa(e.Index) + " "
		b = append(b, '\n')
		b = kv(b, pre+"offset", strconv.FormatInt(e.Off, 10))
		b = kv(b, pre+"flags", "0x"+strconv.FormatUint(e.Flags, 16))
		b = kv(b, pre+"logical_unwinding", strconv.FormatBool(e.LogicalUnwind()))
		b = kv(b, pre+"measurement-granularity", strconv.FormatUint(e.Granularity, 10))
		b = kv(b, pre+"ra-to-callsite-offset", strconv.FormatUint(uint64(e.RAOffset), 10))
		for _, nv := range e.NV {
			b = kv(b, pre+nv.Name, nv.Value)
		}
		b = kv(b, pre+"num_metrics", itoa(len(e.Metrics)))
		b = kv(b, pre+"num_load_modules", itoa(len(e.LoadModules)))
		b = kv(b, pre+"num_cct_nodes", strconv.FormatUint(e.Announced, 10))
		b = kv(b, pre+"node_size", strconv.FormatInt(e.NodeSize, 10))
	}
	return b, f.Problems.Err()
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
func sparseHeader(b []byte, f *hpcrun.File) []byte {
	s, e := f.Sparse, f.Epochs[0]
	b = append(b, '\n')
	for _, sec := range s.Sections {
		b = kv(b, "section "+sec.Name, strconv.FormatInt(sec.Start, 10)+"-"+strconv.FormatInt(sec.End, 10))
	}
	b = append(b, '\n')
	var tuple []string
	for _, el := range s.IDTuple {
		tuple = append(tuple, s.KindName(el.Kind)+"("+itoa(int(el.Interp))+"): "+
			strconv.FormatUint(el.Physical, 10)+" "+strconv.FormatUint(el.Logical, 10))
	}
	b = kv(b, "id_tuple", strings.Join(tuple, ", "))
	var dict []string
	for _, d := range s.Dictionary {
		dict = append(dict, itoa(int(d.Kind))+"="+d.Name)
	}
	b = kv(b, "id_tuple_dictionary", strings.Join(dict, " "))
	b = kv(b, "num_metrics", itoa(len(e.Metrics)))
	b = kv(b, "num_load_modules", itoa(len(e.LoadModules)))
	b = kv(b, "num_cct_nodes", strconv.FormatUint(e.Announced, 10))
	b = kv(b, "num_nonzero_values", strconv.FormatUint(s.NumValues, 10))
	b = kv(b, "num_nonzero_cct_nodes", strconv.FormatUint(uint64(s.NumNonZero), 10))
	return b
}
