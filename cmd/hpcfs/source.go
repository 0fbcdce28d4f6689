package main

import (
	"errors"
	"io/fs"
	"os"

	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/internal/demo"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// openSource detects and opens path; an empty path opens the demo trace,
// written to a temporary directory that cleanup removes.
func openSource(path string) (src *vfs.Source, cleanup func(), err error) {
	cleanup = func() {}
	if path == "" {
		dir, err := os.MkdirTemp("", "hpcfs-demo-")
		if err != nil {
			return nil, cleanup, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		if path, err = demo.Write(dir); err != nil {
			cleanup()
			return nil, func() {}, err
		}
	}
	src, err = formats.Open(path)
	if err == nil {
		src.Options = viewOptions
	}
	if err != nil {
		cleanup()
		if errors.Is(err, fs.ErrPermission) {
			denied := path
			var pe *fs.PathError
			if errors.As(err, &pe) {
				denied = pe.Path
			}
			return nil, func() {}, exitErr(exitPermission, "permission denied: %s", denied)
		}
		code := exitSource
		if !errors.Is(err, formats.ErrUnknown) && !errors.Is(err, fs.ErrNotExist) {
			code = exitFailure
		}
		return nil, func() {}, &exitError{code, err}
	}
	removeDemo := cleanup
	return src, func() { src.Close(); removeDemo() }, nil
}

// openSources opens source, or with other the diff of the two (hpcfs
// mount A B MOUNTPOINT).
func openSources(source, other string) (*vfs.Source, func(), error) {
	if other == "" {
		return openSource(source)
	}
	a, closeA, err := openSource(source)
	if err != nil {
		return nil, nil, err
	}
	b, closeB, err := openSource(other)
	if err != nil {
		closeA()
		return nil, nil, err
	}
	src, err := interchange.DiffSource(a, b)
	if err != nil {
		closeA()
		closeB()
		return nil, nil, exitErr(exitSource, "%v", err)
	}
	return src, func() { src.Close() }, nil
}
