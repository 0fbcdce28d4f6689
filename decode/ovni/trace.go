package ovni

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// Metadata is a process's metadata.json: version 1 (spec v1 and the
// releases up to 1.4) or version 2 (spec v2, releases 1.5 to 1.10).
type Metadata struct {
	Version      int    `json:"version"`
	AppID        *int64 `json:"app_id"`
	Rank         *int64 `json:"rank"`
	NRanks       *int64 `json:"nranks"`
	ModelVersion string `json:"model_version"`
	CPUs         []CPU  `json:"cpus"`
}

// A CPU is one entry of a loom's CPU list.
type CPU struct {
	Index int64 `json:"index"`
	PhyID int64 `json:"phyid"`
}

// maxMetadata bounds the size of a metadata.json we parse.
const maxMetadata = 64 << 20

// ParseMetadata decodes a metadata.json. name is used in errors.
func ParseMetadata(data []byte, name string) (*Metadata, error) {
	var m Metadata
	if err := json.Unmarshal(data, &m); err != nil {
		off := int64(0)
		if se, ok := err.(*json.SyntaxError); ok {
			off = se.Offset
		}
		return nil, decode.ErrAt("ovni", name, off, "malformed JSON: "+err.Error(), nil, nil)
	}
	if m.Version == 0 {
		return &m, decode.ErrAt("ovni", name, 0, `missing attribute "version"`, nil, nil)
	}
	if m.Version != 1 && m.Version != 2 {
		return &m, decode.ErrAt("ovni", name, 0, "metadata version", m.Version, decode.ErrUnsupportedVersion)
	}
	return &m, nil
}

// A Layout is how a trace stores its thread streams on disk.
type Layout uint8

const (
	// LayoutV1 is spec v1 and the 1.0.x releases: proc.<P>/thread.<T>.
	LayoutV1 Layout = iota
	// LayoutObs is releases 1.1 to 1.4: proc.<P>/thread.<T>.obs, with the
	// process's metadata.json of version 1.
	LayoutObs
	// LayoutV2 is spec v2, releases 1.5 to 1.10: thread.<T>.obs next to
	// thread.<T>.json, and a metadata.json of version 2.
	LayoutV2
	// LayoutV3 is spec v3, releases 1.11 and later: a directory
	// thread.<T>/ holding stream.json and stream.obs; no metadata.json.
	LayoutV3
)

func (l Layout) String() string {
	switch l {
	case LayoutObs:
		return "ovni 1.1-1.4 (spec v1, thread.T.obs)"
	case LayoutV2:
		return "ovni 1.5-1.10 (spec v2)"
	case LayoutV3:
		return "ovni 1.11+ (spec v3)"
	}
	return "spec v1"
}

// A Trace is the directory structure of an ovni trace: looms sorted by
// name, processes by pid, threads by tid. Layout is the newest layout of
// its streams; streams of another layout are listed as problems.
type Trace struct {
	Dir    string
	Layout Layout
	Looms  []*Loom
	// Problems are entries whose names do not parse and streams of
	// another layout: the rest of the trace is still usable.
	Problems decode.Problems
}

// A Loom is one loom.<name> directory.
type Loom struct {
	Name  string
	Procs []*Proc
}

// A Proc is one proc.<pid> directory.
type Proc struct {
	Loom         *Loom
	PID          int64
	Dir          string
	MetadataPath string // "" when the file is missing
	Threads      []*Thread
}

// A Thread is one thread stream: its binary events (Path, Size) and, from
// spec v2 on, its JSON metadata (JSONPath; "" when missing).
type Thread struct {
	Proc     *Proc
	TID      int64
	Layout   Layout
	Path     string
	Size     int64
	JSONPath string
}

// Name is the stream's path in the trace, e.g. loom.nodeA/proc.1/thread.2.
func (t *Thread) Name() string {
	return "loom." + t.Proc.Loom.Name + "/proc." + strconv.FormatInt(t.Proc.PID, 10) + "/thread." + strconv.FormatInt(t.TID, 10)
}

// RelPath is the stream's path as ovnidump of its release prints it: the
// .obs file for releases 1.1 to 1.10, the thread directory from 1.11 on.
func (t *Thread) RelPath() string {
	if t.Layout == LayoutObs || t.Layout == LayoutV2 {
		return t.Name() + ".obs"
	}
	return t.Name()
}

// Streams returns every thread in (loom name, pid, tid) order.
func (tr *Trace) Streams() []*Thread {
	var out []*Thread
	for _, l := range tr.Looms {
		for _, p := range l.Procs {
			out = append(out, p.Threads...)
		}
	}
	return out
}

// TraceDir returns the directory holding the loom.* directories: dir
// itself, or dir/ovni.
func TraceDir(dir string) (string, bool) {
	for _, d := range []string{dir, filepath.Join(dir, "ovni")} {
		des, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, de := range des {
			if de.IsDir() && strings.HasPrefix(de.Name(), "loom.") {
				return d, true
			}
		}
	}
	return "", false
}

// OpenTrace lists the looms, processes and threads of the trace in dir (or
// dir/ovni). Entries whose names do not parse are Trace.Problems, not
// errors: the rest of the trace is still usable.
func OpenTrace(dir string) (*Trace, error) {
	root, ok := TraceDir(dir)
	if !ok {
		return nil, fmt.Errorf("%s: no loom.* directories", dir)
	}
	tr := &Trace{Dir: root}
	problems := &tr.Problems
	des, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, de := range des {
		name, ok := strings.CutPrefix(de.Name(), "loom.")
		if !ok || !de.IsDir() {
			continue
		}
		loom := &Loom{Name: name}
		ldir := filepath.Join(root, de.Name())
		pdes, err := os.ReadDir(ldir)
		if err != nil {
			problems.Add(err)
			continue
		}
		for _, pde := range pdes {
			ps, ok := strings.CutPrefix(pde.Name(), "proc.")
			if !ok || !pde.IsDir() {
				continue
			}
			pid, err := strconv.ParseInt(ps, 10, 64)
			if err != nil {
				problems.Add(fmt.Errorf("%s/%s: process directory name is not proc.<pid>", de.Name(), pde.Name()))
				continue
			}
			proc := &Proc{Loom: loom, PID: pid, Dir: filepath.Join(ldir, pde.Name())}
			*problems = append(*problems, proc.scan()...)
			loom.Procs = append(loom.Procs, proc)
		}
		slices.SortFunc(loom.Procs, func(a, b *Proc) int { return cmpInt(a.PID, b.PID) })
		tr.Looms = append(tr.Looms, loom)
	}
	slices.SortFunc(tr.Looms, func(a, b *Loom) int { return strings.Compare(a.Name, b.Name) })
	all := tr.Streams()
	for _, th := range all {
		tr.Layout = max(tr.Layout, th.Layout)
	}
	for _, th := range all {
		switch {
		case th.Layout == tr.Layout:
		case th.Layout == LayoutObs && tr.Layout == LayoutV2:
			th.Layout = LayoutV2
			problems.Add(fmt.Errorf("%s.json missing", th.Name()))
		default:
			problems.Add(fmt.Errorf("%s: stream of layout %s in a trace of %s", th.Name(), th.Layout, tr.Layout))
		}
	}
	return tr, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// scan lists the process's streams in any of the layouts. Files that
// belong to a stream that is not there (a JSON without its events, a
// thread directory without stream.obs) are problems.
func (p *Proc) scan() decode.Problems {
	des, err := os.ReadDir(p.Dir)
	if err != nil {
		return decode.Problems{err}
	}
	where := fmt.Sprintf("loom.%s/proc.%d", p.Loom.Name, p.PID)
	var problems decode.Problems
	jsons := map[int64]string{}
	for _, de := range des {
		if de.Name() == "metadata.json" && de.Type().IsRegular() {
			p.MetadataPath = filepath.Join(p.Dir, de.Name())
			continue
		}
		rest, ok := strings.CutPrefix(de.Name(), "thread.")
		if !ok {
			continue
		}
		layout := LayoutV1
		switch {
		case de.IsDir():
			layout = LayoutV3
		case !de.Type().IsRegular():
			continue
		case strings.HasSuffix(rest, ".obs"):
			layout, rest = LayoutObs, strings.TrimSuffix(rest, ".obs")
		case strings.HasSuffix(rest, ".json"):
			layout, rest = LayoutV2, strings.TrimSuffix(rest, ".json")
		}
		tid, err := strconv.ParseInt(rest, 10, 64)
		if err != nil {
			problems = append(problems, fmt.Errorf("%s/%s: stream name is not thread.<tid>", where, de.Name()))
			continue
		}
		th := &Thread{Proc: p, TID: tid, Layout: layout, Path: filepath.Join(p.Dir, de.Name())}
		switch layout {
		case LayoutV2:
			jsons[tid] = th.Path
			continue
		case LayoutV3:
			th.JSONPath = filepath.Join(th.Path, "stream.json")
			th.Path = filepath.Join(th.Path, "stream.obs")
			if _, err := os.Stat(th.JSONPath); err != nil {
				th.JSONPath = ""
				problems = append(problems, fmt.Errorf("%s/%s: stream.json missing", where, de.Name()))
			}
		}
		info, err := os.Stat(th.Path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				err = fmt.Errorf("%s/%s: stream missing: %s absent", where, de.Name(), filepath.Base(th.Path))
			}
			problems.Add(err)
			continue
		}
		th.Size = info.Size()
		p.Threads = append(p.Threads, th)
	}
	for _, th := range p.Threads {
		if js, ok := jsons[th.TID]; ok && th.Layout == LayoutObs {
			th.Layout, th.JSONPath = LayoutV2, js
			delete(jsons, th.TID)
		}
	}
	for tid := range jsons {
		problems = append(problems, fmt.Errorf("%s/thread.%d.json: stream missing: thread.%d.obs absent", where, tid, tid))
	}
	slices.SortFunc(p.Threads, func(a, b *Thread) int { return cmpInt(a.TID, b.TID) })
	slices.SortFunc(problems, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return problems
}

// ReadMetadata reads and parses the process's metadata.json.
func (p *Proc) ReadMetadata() (*Metadata, error) {
	name := fmt.Sprintf("loom.%s/proc.%d/metadata.json", p.Loom.Name, p.PID)
	if p.MetadataPath == "" {
		return nil, decode.ErrAt("ovni", name, 0, "file missing", nil, nil)
	}
	data, err := readJSON(p.MetadataPath, name)
	if err != nil {
		return nil, err
	}
	return ParseMetadata(data, name)
}
