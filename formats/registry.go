// Package formats is the registry of input formats: it recognises a source
// by its content and opens it as a virtual tree. Each format lives in
// formats/<name> and adds one line to All.
package formats

import (
	"errors"
	"os"
	"strings"
	"syscall"

	"github.com/hpcfs/hpcfs/formats/callgrind"
	"github.com/hpcfs/hpcfs/formats/dcpi"
	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/formats/hpcrun"
	"github.com/hpcfs/hpcfs/formats/otf2"
	"github.com/hpcfs/hpcfs/formats/ovni"
	"github.com/hpcfs/hpcfs/formats/webgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
)

// All lists the formats in detection order.
var All = []vfs.Format{
	ovni.Format,
	otf2.Format,
	hpcdb.MetaFormat,
	hpcdb.Format,
	hpcrun.Format,
	webgrind.Format,
	dcpi.Format,
	callgrind.Format,
}

// ErrUnknown is returned when no format recognises a source.
var ErrUnknown = errors.New("no supported format")

// Detect returns the format of the source at path and a one-line summary
// of what it found. Every format is asked first; only a source none of
// them reads is described by what it looks like.
func Detect(path string) (vfs.Format, string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return vfs.Format{}, "", err
	}
	if what := special(info); what != "" {
		return vfs.Format{}, "", &unknownError{path, what}
	}
	if err := readable(path, info); err != nil {
		return vfs.Format{}, "", err
	}
	for _, f := range All {
		if summary, ok := f.Detect(path); ok {
			return f, summary, nil
		}
	}
	return vfs.Format{}, "", &unknownError{path, describe(path)}
}

// special describes a file that is neither a regular file nor a folder
// (a named pipe, socket or device), "" for the others. Such a file is
// never opened: opening a FIFO blocks until someone writes to it.
func special(info os.FileInfo) string {
	m := info.Mode()
	switch {
	case m.IsDir() || m.IsRegular():
		return ""
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO), not read: hpcfs reads regular files and folders"
	case m&os.ModeSocket != 0:
		return "a socket, not read: hpcfs reads regular files and folders"
	case m&os.ModeDevice != 0:
		return "a device, not read: hpcfs reads regular files and folders"
	}
	return "not a regular file or folder, not read"
}

// readable reports a source that cannot be read as an error that is
// fs.ErrPermission, before the formats would each decline it and hide
// the reason behind "no supported format".
func readable(path string, info os.FileInfo) error {
	if info.IsDir() {
		// A folder needs listing (r) and entering (x): access(2) modes.
		const rOK, xOK = 4, 1
		if err := syscall.Access(path, rOK|xOK); err != nil {
			return &os.PathError{Op: "open", Path: path, Err: err}
		}
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// unknownError is ErrUnknown with what the source looks like, in one
// short line.
type unknownError struct{ path, what string }

func (e *unknownError) Error() string {
	return e.path + ": " + e.what + " (`hpcfs formats` lists what hpcfs reads)"
}

func (e *unknownError) Unwrap() error { return ErrUnknown }

// Supported lists, in one line, what hpcfs reads.
func Supported() string {
	var parts []string
	for _, f := range All {
		parts = append(parts, f.Supports)
	}
	return strings.Join(parts, "; ")
}

// Open detects and opens the source at path. A directory that is no
// source itself but holds sources (a results folder, subfolders included),
// or that a format reads but that also holds a source of another format,
// opens with each source at its relative path.
func Open(path string) (*vfs.Source, error) {
	f, summary, err := Detect(path)
	if err == nil && mixedFolder(path, f) {
		err = ErrUnknown // scanned as a folder below
	}
	if err == nil {
		inputs := vfs.NewInputs(path)
		src, err := f.Open(path)
		if err != nil {
			return nil, err
		}
		if src.Summary == "" {
			src.Summary = summary
		}
		src.Watch(inputs)
		return src, nil
	}
	if !errors.Is(err, ErrUnknown) {
		return nil, err
	}
	if src := openFolder(path); src != nil {
		return src, nil
	}
	return nil, err
}
