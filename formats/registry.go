// Package formats is the registry of input formats: it recognises a source
// by its content and opens it as a virtual tree. Each format lives in
// formats/<name> and adds one line to All.
package formats

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcfs/hpcfs/formats/callgrind"
	"github.com/hpcfs/hpcfs/formats/dcpi"
	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/formats/hpcrun"
	"github.com/hpcfs/hpcfs/formats/ovni"
	"github.com/hpcfs/hpcfs/formats/vfs"
	"github.com/hpcfs/hpcfs/formats/webgrind"
)

// All lists the formats in detection order.
var All = []vfs.Format{
	ovni.Format,
	hpcdb.Format,
	hpcrun.Format,
	webgrind.Format,
	dcpi.Format,
	callgrind.Format,
}

// ErrUnknown is returned when no format recognises a source.
var ErrUnknown = errors.New("no supported format")

// Detect returns the format of the source at path and a one-line summary
// of what it found.
func Detect(path string) (vfs.Format, string, error) {
	if _, err := os.Stat(path); err != nil {
		return vfs.Format{}, "", err
	}
	for _, f := range All {
		if summary, ok := f.Detect(path); ok {
			return f, summary, nil
		}
	}
	return vfs.Format{}, "", fmt.Errorf("%s: %w found; hpcfs reads %s", path, ErrUnknown, Supported())
}

// Supported lists, in one line, what hpcfs reads.
func Supported() string {
	var parts []string
	for _, f := range All {
		parts = append(parts, f.Supports)
	}
	return strings.Join(parts, "; ")
}

// Open detects and opens the source at path. A directory that is no
// source itself but holds sources (a results folder) opens as one
// subdirectory per detected source.
func Open(path string) (*vfs.Source, error) {
	f, summary, err := Detect(path)
	if err == nil {
		src, err := f.Open(path)
		if err == nil && src.Summary == "" {
			src.Summary = summary
		}
		return src, err
	}
	if !errors.Is(err, ErrUnknown) {
		return nil, err
	}
	if src := openFolder(path); src != nil {
		return src, nil
	}
	return nil, err
}

func openFolder(path string) *vfs.Source {
	des, err := os.ReadDir(path)
	if err != nil {
		return nil
	}
	var subs []*vfs.Source
	var names []string
	for _, de := range des {
		p := filepath.Join(path, de.Name())
		for _, f := range All {
			if _, ok := f.Detect(p); ok {
				if s, err := f.Open(p); err == nil {
					subs = append(subs, s)
					names = append(names, de.Name())
				}
				break
			}
		}
	}
	if len(subs) == 0 {
		return nil
	}
	src := vfs.NewSource("folder", vfs.Count(len(subs), "source"), path)
	src.Summary = "a folder of " + vfs.Count(len(subs), "source")
	var readme strings.Builder
	fmt.Fprintf(&readme, "hpcfs mount of %s\n\nA folder of %s, one subdirectory each:\n\n", path, vfs.Count(len(subs), "source"))
	for i, s := range subs {
		name := vfs.SafeName(names[i])
		src.Root.Add(name, s.Root)
		src.OnClose(s)
		src.AddInfo(name, s.Format+" "+s.Version)
		fmt.Fprintf(&readme, "  %s/  %s %s\n", name, s.Format, s.Version)
	}
	readme.WriteString("\nEach subdirectory has its own README.txt and _errors.txt.\n")
	src.Root.AddFile("README.txt", renderStatic(readme.String()))
	return src
}
