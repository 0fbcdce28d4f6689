package ovni

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
)

// Metadata is a process's metadata.json.
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
		return nil, &decode.FormatError{Format: "ovni", Section: name, Off: off, Msg: "malformed JSON: " + err.Error()}
	}
	if m.Version == 0 {
		return &m, &decode.FormatError{Format: "ovni", Section: name, Msg: `missing attribute "version"`}
	}
	if m.Version != 1 {
		return &m, &decode.FormatError{Format: "ovni", Section: name, Msg: "metadata version", Val: m.Version, Err: decode.ErrUnsupportedVersion}
	}
	return &m, nil
}

// A Trace is the directory structure of an ovni trace: looms sorted by
// name, processes by pid, threads by tid.
type Trace struct {
	Dir   string
	Looms []*Loom
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

// A Thread is one thread.<tid> stream file.
type Thread struct {
	Proc *Proc
	TID  int64
	Path string
	Size int64
}

// Name is the stream's path in the trace, e.g. loom.nodeA/proc.1/thread.2.
func (t *Thread) Name() string {
	return "loom." + t.Proc.Loom.Name + "/proc." + strconv.FormatInt(t.Proc.PID, 10) + "/thread." + strconv.FormatInt(t.TID, 10)
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
// dir/ovni). Entries whose names do not parse are returned as problems,
// not as errors: the rest of the trace is still usable.
func OpenTrace(dir string) (*Trace, []error, error) {
	root, ok := TraceDir(dir)
	if !ok {
		return nil, nil, fmt.Errorf("%s: no loom.* directories", dir)
	}
	tr := &Trace{Dir: root}
	var problems []error
	des, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, err
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
			problems = append(problems, err)
			continue
		}
		for _, pde := range pdes {
			ps, ok := strings.CutPrefix(pde.Name(), "proc.")
			if !ok || !pde.IsDir() {
				continue
			}
			pid, err := strconv.ParseInt(ps, 10, 64)
			if err != nil {
				problems = append(problems, fmt.Errorf("%s/%s: process directory name is not proc.<pid>", de.Name(), pde.Name()))
				continue
			}
			proc := &Proc{Loom: loom, PID: pid, Dir: filepath.Join(ldir, pde.Name())}
			if err := proc.scan(); err != nil {
				problems = append(problems, err)
			}
			loom.Procs = append(loom.Procs, proc)
		}
		slices.SortFunc(loom.Procs, func(a, b *Proc) int { return cmpInt(a.PID, b.PID) })
		tr.Looms = append(tr.Looms, loom)
	}
	slices.SortFunc(tr.Looms, func(a, b *Loom) int { return strings.Compare(a.Name, b.Name) })
	return tr, problems, nil
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

func (p *Proc) scan() error {
	des, err := os.ReadDir(p.Dir)
	if err != nil {
		return err
	}
	var problem error
	for _, de := range des {
		if de.Name() == "metadata.json" && de.Type().IsRegular() {
			p.MetadataPath = filepath.Join(p.Dir, de.Name())
			continue
		}
		ts, ok := strings.CutPrefix(de.Name(), "thread.")
		if !ok || !de.Type().IsRegular() {
			continue
		}
		tid, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			problem = fmt.Errorf("proc.%d/%s: stream file name is not thread.<tid>", p.PID, de.Name())
			continue
		}
		info, err := de.Info()
		if err != nil {
			problem = err
			continue
		}
		p.Threads = append(p.Threads, &Thread{Proc: p, TID: tid, Path: filepath.Join(p.Dir, de.Name()), Size: info.Size()})
	}
	slices.SortFunc(p.Threads, func(a, b *Thread) int { return cmpInt(a.TID, b.TID) })
	return problem
}

// ReadMetadata reads and parses the process's metadata.json.
func (p *Proc) ReadMetadata() (*Metadata, error) {
	name := fmt.Sprintf("loom.%s/proc.%d/metadata.json", p.Loom.Name, p.PID)
	if p.MetadataPath == "" {
		return nil, &decode.FormatError{Format: "ovni", Section: name, Msg: "file missing"}
	}
	f, err := os.Open(p.MetadataPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxMetadata {
		return nil, &decode.FormatError{Format: "ovni", Section: name, Msg: "file too large", Val: fi.Size()}
	}
	data, err := decode.ReadAt(f, fi.Size(), 0, fi.Size())
	if err != nil {
		return nil, err
	}
	return ParseMetadata(data, name)
}
