package formats

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/testdata"
	dcpigen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
	wggen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

// csvHeaders are the header rows the issues name exactly, by the path of
// the view (with * for data-made names); a header ending in "," continues
// with data-made columns.
var csvHeaders = map[string]string{
	// ovni
	"streams.csv":                       "loom,pid,tid,app_id,rank,nranks,path,num_events,first_time_ns,last_time_ns,lib_version,lib_commit,finished,require,loom_cpus",
	"cpus.csv":                          "loom,index,phyid",
	"loom.*/proc.*/thread.*/events.csv": "time_ns,t_ns,mcv,model,category,value,jumbo,payload_size,payload_hex,event",
	// OTF2 (gen-mpi-rma: the fields of the records it can hold, then its attributes)
	"locations/*/events.csv@otf2": "t_ns,time_ns,event,region,stop_time_ns,measurement_mode,receiver,communicator,tag,bytes,request_id,sender,operation,root,sent_bytes,received_bytes,num_requested_threads,lock_id,acquisition_order,task_id,parameter,string_value,parameter_value,rma_win,sync_level,process_group,remote,lock_type,sync_type,matching_id,atomic_type,paradigm,thread_team,creating_thread,generation_number,thread_contingent,sequence_count,program_name,arguments,exit_status,",
	// HPCToolkit database
	"metrics.csv@hpcdb":       "metric_id,table,name,column,description,scope,statistic,partner,show,show_percent,format,formula,units",
	"profiles.csv@hpcdb":      "profile_id,name,",
	"cct.csv@hpcdb":           "ctx_id,parent_id,depth,kind,name,module,file,line,address,",
	"metrics.csv@hpcdb-meta":  "metric_id,table,name,column,metric,scope,scope_type,propagation_index,formula,combine,show,units",
	"profiles.csv@hpcdb-meta": "profile_id,name,",
	"cct.csv@hpcdb-meta":      "ctx_id,parent_id,depth,kind,relation,name,module,file,line,address,",
	"procedures.csv":          "function_id,function,relation,module,file,line,",
	"unlisted.csv":            "ctx_id,",
	"contexts/*.csv":          "profile_id,name,",
	"contexts.csv":            "ctx_id,profile_id,name,",
	"profiles/*.csv":          "ctx_id,kind,name,",
	"traces/*.csv":            "time_ns,t_ns,ctx_id,function,depth,path",

	"taxonomy/*.csv@hpcdb-meta": "ctx_id,parent_id,depth,kind,name,", // then the taxonomic metrics' columns

	// hpcrun
	"profiles.csv@hpcrun": "profile,file,program_name,rank,thread,pid,host_id,version,layout,num_epochs,num_metrics,num_load_modules,num_cct_nodes",
	"*/metrics.csv":       "epoch,metric_id,name,description,type,val_type,val_fmt,partner,show,show_percent,period,formula,format,is_frequency,is_multiplexed,period_mean,num_samples",
	"*/loadmap.csv":       "epoch,module_id,name,flags",
	"*/cct.csv":           "epoch,ctx_id,parent_id,depth,is_leaf,module_id,module,offset,function,raw_name,file,line,inlined,",
	"*/trace.csv":         "time_ns,t_ns,ctx_id,module_id,module,offset,function,raw_name,file,line,inlined",
	// webgrind
	"functions.csv@webgrind":           "function_id,function,file,line,kind,call_count,cost_inc,cost_exc,cost_inc_pct,cost_exc_pct",
	"calls.csv@webgrind":               "caller_id,caller,callee_id,callee,line,call_count,call_cost,call_cost_pct",
	"functions/*/callers.csv@webgrind": "caller_id,caller,line,call_count,call_cost,call_cost_pct",
	"functions/*/callees.csv@webgrind": "callee_id,callee,line,call_count,call_cost,call_cost_pct",
	"invocations.csv":                  "function_id,function,invocation,cost_inc,cost_exc,call_cost,caller_id,caller_invocation,caller_line",
	// callgrind (issue 13), for a file with the one event "Instructions"
	"functions.csv@callgrind":           "function_id,function,file,module,call_count,instructions_inc,instructions_exc",
	"calls.csv@callgrind":               "caller_id,caller,caller_file,callee_id,callee,callee_file,line,call_count,instructions_inc",
	"functions/*/callers.csv@callgrind": "caller_id,caller,caller_file,line,call_count,instructions_inc",
	"functions/*/callees.csv@callgrind": "callee_id,callee,callee_file,line,call_count,instructions_inc",
	"lines.csv@callgrind":               "file,line,function,module,instructions",
	// DCPI
	"images.csv":    "profile,image,path,event,period,epoch,samples,pct,cum_pct",
	"*/samples.csv": "address,offset,count,pct,cum_pct,function,raw_name,file,line,inlined",
	"*/top.csv":     "address,offset,count,pct,cum_pct,function,raw_name,file,line,inlined",
	// every profile and trace (render/interchange)
	"bottom-up.csv":            "function,depth,caller,path,",
	"*/bottom-up.csv":          "function,depth,caller,path,",
	"callers/*.csv":            "caller,",
	"*/callers/*.csv":          "caller,",
	"summary/regions.csv":      "pid,tid,thread,name,category,count,duration_ns_inc,duration_ns_exc",
	"summary/time-profile.csv": "bin,t_ns,end_t_ns,name,category,duration_ns_exc",
}

func headerSources(t *testing.T) []string {
	dir := t.TempDir()
	wg4 := filepath.Join(dir, "v4.webgrind")
	f, err := os.Create(wg4)
	if err != nil {
		t.Fatal(err)
	}
	if err := wggen.Random(1, 30, 5).Write(f, 4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	dcpiDir := filepath.Join(dir, "dcpi")
	os.MkdirAll(dcpiDir, 0o755)
	p := dcpigen.New("pdb-0.07", 0x120000000)
	p.Chunks = []dcpigen.Chunk{{Offset: 16, Counts: []uint32{3, 0, 5}}}
	os.WriteFile(filepath.Join(dcpiDir, "a.prof"), p.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dcpiDir, "b.prof"), p.Bytes(), 0o644)
	return []string{
		testdata.Corpus(t, "ovni", "v1-basic-mix", "ovni"),
		testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cuda-nvidia-t"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-02.00-testvdso"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"),
		testdata.Corpus(t, "webgrind", "xdebug-app-v7", "callgrind.out.webgrind"),
		wg4, dcpiDir,
		testdata.Corpus(t, "callgrind", "speedscope-samples", "callgrind.example.log"),
		testdata.Corpus(t, "otf2", "gen-mpi-rma"),
	}
}

// TestCSVHeaders checks every CSV of a source of each format against the
// header row the issues name, and that every CSV has a header.
func TestCSVHeaders(t *testing.T) {
	seen := map[string]bool{}
	walkViews(t, func(src *vfs.Source, fsys fs.FS, p string) {
		if !strings.HasSuffix(p, ".csv") {
			return
		}
		got := firstLine(t, fsys, p)
		for pattern, want := range csvHeaders {
			pat, format, _ := strings.Cut(pattern, "@")
			if format != "" && format != src.Format {
				continue
			}
			if ok, _ := path.Match(pat, p); !ok {
				continue
			}
			seen[pattern] = true
			if strings.HasSuffix(want, ",") && !strings.HasPrefix(got, want) || !strings.HasSuffix(want, ",") && got != want {
				t.Errorf("%s %s: header %q, want %q", src.Format, p, got, want)
			}
		}
		if got == "" || strings.ContainsAny(got, " ") && !strings.Contains(got, ",") {
			t.Errorf("%s %s: no CSV header row: %q", src.Format, p, got)
		}
	})
	for pattern := range csvHeaders {
		if !seen[pattern] {
			t.Errorf("no view matched %s", pattern)
		}
	}
}

// TestREADMEWidth checks that every README.txt of a source of each format
// fits in 100 columns.
func TestREADMEWidth(t *testing.T) {
	walkViews(t, func(src *vfs.Source, fsys fs.FS, p string) {
		if path.Base(p) != "README.txt" {
			return
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			t.Fatal(err)
		}
		checkLineWidth(t, src.Format+" "+p, string(b))
	})
}

// walkViews calls fn with every generated file (raw/ left out) of a
// source of each format (headerSources).
func walkViews(t *testing.T, fn func(src *vfs.Source, fsys fs.FS, p string)) {
	t.Helper()
	for _, source := range headerSources(t) {
		src, err := Open(source)
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		fsys := src.FS()
		fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if d != nil && d.IsDir() && p == "raw" {
				return fs.SkipDir
			}
			if err == nil && !d.IsDir() {
				fn(src, fsys, p)
			}
			return nil
		})
		src.Close()
	}
}

func firstLine(t *testing.T, fsys fs.FS, p string) string {
	f, err := fsys.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	return sc.Text()
}
