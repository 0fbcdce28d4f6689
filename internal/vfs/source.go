package vfs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	log "github.com/sirupsen/logrus"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/render"
)

// A Format recognises one kind of input and builds its tree.
type Format struct {
	Name     string // short name, e.g. "ovni"
	Supports string // one line: which inputs and versions it reads
	// Detect looks at the content of path (a file or a directory) and
	// reports whether it holds this format, with a one-line summary.
	Detect func(path string) (summary string, ok bool)
	// Open builds the tree of the source at path. Mount-time work only:
	// headers and directory structure.
	Open func(path string) (*Source, error)
	// Unsupported names, in a few words, a file of this format's family
	// that it recognises by its first bytes (head, at most 512) or its
	// name but does not read, and says what to do instead ("hpcrun file
	// of a version this build does not read"); "" when it does not know
	// it. It is asked only after every format declined the file. nil for
	// a format that knows no such file.
	Unsupported func(path string, head []byte) string
}

// A Field is one key/value line of `hpcfs info`.
type Field struct{ Key, Value string }

// A Source is one opened input: its tree and what describes it.
type Source struct {
	Format  string // Format.Name
	Version string // detected version and variant
	Summary string // the detection line: what was found
	Path    string
	Root    *Dir
	Errors  *Errors
	Info    []Field   // counts and facts for `hpcfs info`
	ModTime time.Time // reported by every entry of the tree
	// Run lists the profile.pb.gz files of the tree whose sum is the
	// run's profile, which a diff of two runs compares (a measurement
	// directory's per-thread profiles, the summed parts of a callgrind
	// run); nil means the profile.pb.gz at the root.
	Run []string
	// Options are the mount's settings; set them before FS, which binds
	// them to every view.
	Options render.Options
	closers []io.Closer

	bindOnce sync.Once
	inputs   []string // files and folders beyond Path that views read (NewSource)
	found    *Inputs  // the input files when the source was made
	idOnce   sync.Once
	id       string // identity of the input files (see identity)
}

// NewSource returns a Source whose root already holds _errors.txt and
// raw/ (the original files of path, byte for byte). inputs are the files
// (or folders) beyond path that the decoder opened or will open for the
// views: an hpcrun profile's .hpctrace beside it, an OTF2 anchor's
// definition and event files. With path, they are the source's inputs:
// their identity makes the index key of every view (Binding) and a change
// to any of them fails the views (Watch).
func NewSource(format, version, path string, inputs ...string) *Source {
	s := &Source{Format: format, Version: version, Path: path, Root: NewDir(), Errors: NewErrors(), inputs: inputs}
	s.Root.src = s
	s.found = NewInputs(path, inputs...)
	s.ModTime = time.Now()
	if fi, err := os.Stat(path); err == nil {
		s.ModTime = fi.ModTime()
	}
	s.Root.AddFile("_errors.txt", s.Errors.View())
	s.Root.Add("raw", Raw(path))
	return s
}

// AddInfo appends a line to the source's `hpcfs info`.
func (s *Source) AddInfo(key string, value any) {
	s.Info = append(s.Info, Field{key, fmt.Sprint(value)})
}

// OnClose registers c to be closed with the source.
func (s *Source) OnClose(c io.Closer) { s.closers = append(s.closers, c) }

// Close releases the source's files.
func (s *Source) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// FS returns the source's tree as an io/fs.FS, bound to the source's
// Options (see bind).
func (s *Source) FS() *FS { return NewFS(s.Root, s.ModTime) }

// Errors collects the decode problems found so far, one line each, as the
// volatile _errors.txt view; each new problem is also logged once.
type Errors struct {
	mu   sync.Mutex
	seen map[string]bool
	log  render.Log
}

// NewErrors returns an empty error list.
func NewErrors() *Errors { return &Errors{seen: map[string]bool{}} }

// Report records err against the view or file called where.
func (e *Errors) Report(where string, err error) {
	line := strings.ReplaceAll(err.Error(), "\n", " ")
	if !strings.Contains(line, where) {
		line = where + ": " + line
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.seen[line] {
		return
	}
	e.seen[line] = true
	e.log.Add(line)
	log.WithField("path", where).Warn(err)
}

// ReportAll records each of the problems against where: the one path of
// a decoder's partial failures into _errors.txt.
func (e *Errors) ReportAll(where string, problems decode.Problems) {
	for _, err := range problems {
		e.Report(where, err)
	}
}

// Reporter returns a callback that reports errors against where.
func (e *Errors) Reporter(where string) func(error) {
	return func(err error) { e.Report(where, err) }
}

// Lines returns the problems reported so far.
func (e *Errors) Lines() []string {
	n, _ := e.log.Size()
	b := make([]byte, n)
	e.log.ReadAt(b, 0)
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// View returns the volatile _errors.txt view.
func (e *Errors) View() render.View { return &e.log }

// Raw returns the raw/ directory for path: the file itself when path is a
// file, or the directory's regular files and subdirectories, mirrored
// lazily.
func Raw(path string) *Dir {
	fi, err := os.Stat(path)
	if err == nil && !fi.IsDir() {
		d := NewDir()
		d.AddFile(filepath.Base(path), render.Passthrough(path))
		return d
	}
	return mirror(path)
}

func mirror(dir string) *Dir {
	return Lazy(func() []Entry {
		des, err := os.ReadDir(dir)
		if err != nil {
			return nil
		}
		var out []Entry
		for _, de := range des {
			p := filepath.Join(dir, de.Name())
			switch {
			case de.Type().IsRegular():
				out = append(out, Entry{de.Name(), NewFile(render.Passthrough(p))})
			case de.IsDir():
				out = append(out, Entry{de.Name(), mirror(p)})
			}
		}
		return out
	})
}

// Reserved are the names every source's root holds itself.
var Reserved = []string{"README.txt", "_errors.txt", "raw"}

// ReportRenames adds an _errors.txt line for each entry whose name from
// the data (names[i]) had to change to out[i] (from render.FileNames) because
// it was taken; where is the directory ("" for the root).
func (e *Errors) ReportRenames(where string, names, out []string) {
	for i, n := range names {
		if render.SafeName(n) == out[i] {
			continue
		}
		at := out[i]
		if where != "" {
			at = where + "/" + at
		}
		e.Report(at, fmt.Errorf("named %q in the data; renamed, since %q is taken by hpcfs's own file or another entry", n, render.SafeName(n)))
	}
}

// FileOrDir opens path with dir when it is a directory and with file
// otherwise: the Open of a format that reads a file or a folder of them.
func FileOrDir(path string, file, dir func(string) (*Source, error)) (*Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return dir(path)
	}
	return file(path)
}
