package vfs

import (
	"io"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/hpcfs/hpcfs/render"
)

// FS serves a tree as an io/fs.FS (with ReadDirFS and StatFS). Opened
// files implement io.ReaderAt and io.Seeker; FileInfo.Sys returns the Node.
type FS struct {
	root    *Dir
	modTime time.Time
}

// NewFS returns an FS rooted at root whose entries all report modTime.
// When root is a source's root, the source is bound first (Source.FS).
func NewFS(root *Dir, modTime time.Time) *FS {
	if root.src != nil {
		root.src.bind()
	}
	return &FS{root, modTime}
}

// Root returns the root directory.
func (f *FS) Root() *Dir { return f.root }

func (f *FS) lookup(op, name string) (Node, error) {
	n, _, err := f.lookupInputs(op, name)
	return n, err
}

// lookupInputs also returns the inputs of the source the node belongs to
// (the innermost directory on the path that has them), or nil for a file
// that depends on no input.
func (f *FS) lookupInputs(op, name string) (Node, *Inputs, error) {
	if !fs.ValidPath(name) {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	var n Node = f.root
	var inputs *Inputs
	if name != "." {
		for _, part := range strings.Split(name, "/") {
			dir, ok := n.(*Dir)
			if !ok {
				n = nil
				break
			}
			if dir.inputs != nil {
				inputs = dir.inputs
			}
			if n = dir.Lookup(part); n == nil {
				break
			}
		}
	}
	if n == nil {
		return nil, nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if file, ok := n.(*File); !ok || render.IsFixed(file.View) {
		inputs = nil
	}
	return n, inputs, nil
}

// Lookup returns the node at name (a *File or a *Dir) without sizing it
// or checking its inputs.
func (f *FS) Lookup(name string) (Node, error) { return f.lookup("lookup", name) }

// Open opens the named file or directory. A file whose source changed
// since it was opened fails with render.ErrChanged, here and on every read.
func (f *FS) Open(name string) (fs.File, error) {
	n, inputs, err := f.lookupInputs("open", name)
	if err != nil {
		return nil, err
	}
	info := &fileInfo{name: path.Base(name), node: n, modTime: f.modTime}
	if d, ok := n.(*Dir); ok {
		return &openDir{fsys: f, dir: d, info: info}, nil
	}
	if inputs != nil {
		if err := inputs.Check(); err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
	}
	if _, err := info.sizeErr(); err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &openFile{view: n.(*File).View, info: info, inputs: inputs}, nil
}

// Stat returns the FileInfo of the named file.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	n, inputs, err := f.lookupInputs("stat", name)
	if err != nil {
		return nil, err
	}
	if inputs != nil {
		if err := inputs.check(statRecheck); err != nil {
			return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
		}
	}
	info := &fileInfo{name: path.Base(name), node: n, modTime: f.modTime}
	if _, err := info.sizeErr(); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	return info, nil
}

// ReadDir lists the named directory in name order.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	n, err := f.lookup("readdir", name)
	if err != nil {
		return nil, err
	}
	d, ok := n.(*Dir)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	out := make([]fs.DirEntry, d.Len())
	for i := range out {
		out[i] = &dirEntry{dir: d, i: i, modTime: f.modTime}
	}
	return out, nil
}

// dirEntry is a directory entry that builds its node only when Info is
// asked for, so that listing a huge Indexed directory stays cheap.
type dirEntry struct {
	dir     *Dir
	i       int
	modTime time.Time
}

func (e *dirEntry) Name() string { return e.dir.nameAt(e.i) }
func (e *dirEntry) IsDir() bool  { return e.dir.isDirAt(e.i) }
func (e *dirEntry) Type() fs.FileMode {
	if e.IsDir() {
		return fs.ModeDir
	}
	return 0
}
func (e *dirEntry) Info() (fs.FileInfo, error) {
	ent := e.dir.At(e.i)
	return &fileInfo{name: ent.Name, node: ent.Node, modTime: e.modTime}, nil
}
func (e *dirEntry) String() string { return fs.FormatDirEntry(e) }

type fileInfo struct {
	name    string
	node    Node
	modTime time.Time
}

func (i *fileInfo) sizeErr() (int64, error) {
	if f, ok := i.node.(*File); ok {
		return f.View.Size()
	}
	return 0, nil
}

func (i *fileInfo) Name() string { return i.name }
func (i *fileInfo) Size() int64  { n, _ := i.sizeErr(); return n }
func (i *fileInfo) Mode() fs.FileMode {
	if _, ok := i.node.(*Dir); ok {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i *fileInfo) ModTime() time.Time         { return i.modTime }
func (i *fileInfo) IsDir() bool                { _, ok := i.node.(*Dir); return ok }
func (i *fileInfo) Sys() any                   { return i.node }
func (i *fileInfo) Type() fs.FileMode          { return i.Mode().Type() }
func (i *fileInfo) Info() (fs.FileInfo, error) { return i, nil }
func (i *fileInfo) String() string             { return fs.FormatFileInfo(i) }

type openFile struct {
	view   render.View
	info   *fileInfo
	off    int64
	inputs *Inputs // checked after every read; nil for none
}

func (f *openFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *openFile) Close() error               { return nil }

func (f *openFile) Read(p []byte) (int, error) {
	n, err := f.ReadAt(p, f.off)
	f.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// ReadAt reads the view, then checks its inputs: bytes rendered while an
// input changed (spliced from two versions, or zeros past a truncation)
// are never returned.
func (f *openFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.view.ReadAt(p, off)
	if f.inputs != nil {
		if cerr := f.inputs.checkRead(); cerr != nil {
			return 0, cerr
		}
	}
	return n, err
}

func (f *openFile) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += f.off
	case io.SeekEnd:
		size, err := f.view.Size()
		if err != nil {
			return 0, err
		}
		offset += size
	}
	if offset < 0 {
		return 0, &fs.PathError{Op: "seek", Path: f.info.name, Err: fs.ErrInvalid}
	}
	f.off = offset
	return offset, nil
}

type openDir struct {
	fsys *FS
	dir  *Dir
	info *fileInfo
	next int
}

func (d *openDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *openDir) Close() error               { return nil }
func (d *openDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}

func (d *openDir) ReadDir(n int) ([]fs.DirEntry, error) {
	total := d.dir.Len()
	if n <= 0 {
		n = total - d.next
	} else if d.next >= total {
		return nil, io.EOF
	}
	var out []fs.DirEntry
	for ; n > 0 && d.next < total; n-- {
		out = append(out, &dirEntry{dir: d.dir, i: d.next, modTime: d.fsys.modTime})
		d.next++
	}
	return out, nil
}
