package vfs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hpcfs/hpcfs/render"
)

// maxInputs bounds the files of one source whose identity is kept.
const maxInputs = 20000

// Inputs are the files a source's views are made from, with the identity
// (device, inode, size, modification and change time) each had when the source was
// opened. Check compares them with the files now at those paths; the
// first difference is reported once in _errors.txt, and from then on every
// check fails without asking the file system again.
type Inputs struct {
	files []inputFile
	errs  *Errors
	root  string

	mu      sync.Mutex
	changed error
	checked time.Time // start of the last check that found no change
}

// Costs of checking: a check stats every input (about 1-4 µs each), so
// that on every read of a 1 MiB block (about 1 ms of rendering) a source
// of at most manyInputs files pays a few per cent at most. For larger
// sources, and for stat (which serves no bytes), a check that found
// nothing less than this long ago stands. (An OTF2 trace of 16 locations
// is 34 files: stating them all on each 1 MiB read of its events.txt was
// 5-6% of the server's CPU.)
const (
	manyInputs    = 16
	readRecheck   = 50 * time.Millisecond
	statRecheck   = time.Second
	strictRecheck = 0
)

// checkRead is the check after a read.
func (in *Inputs) checkRead() error {
	if len(in.files) > manyInputs {
		return in.check(readRecheck)
	}
	return in.check(strictRecheck)
}

type inputFile struct {
	path     string
	dev, ino uint64
	size     int64
	mtime    syscall.Timespec
	// ctime moves on every write and cannot be set back, so a file
	// rewritten in place with its size and modification time restored
	// is seen too.
	ctime syscall.Timespec
}

// identify stats path with stat(2) directly: Check runs on every read, and
// os.Stat's allocations double its cost.
func identify(path string) (inputFile, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return inputFile{}, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return inputFile{path: path, dev: uint64(st.Dev), ino: st.Ino, size: st.Size, mtime: st.Mtim, ctime: st.Ctim}, nil
}

// NewInputs records the identity of the regular files at path and at each
// of more (a file itself, or every file below a directory, symbolic links
// not followed); a file is recorded once. Call it before the source is
// opened, so that a change made while it opens is seen too, and give the
// result to Source.Watch.
func NewInputs(path string, more ...string) *Inputs {
	in := &Inputs{root: path}
	in.add(append([]string{path}, more...)...)
	return in
}

// add records the regular files at each path that are not recorded yet.
func (in *Inputs) add(paths ...string) {
	seen := make(map[string]bool, len(in.files))
	for _, f := range in.files {
		seen[f.path] = true
	}
	for _, path := range paths {
		filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(in.files) >= maxInputs {
				return nil
			}
			if (d.Type().IsRegular() || p == path && !d.IsDir()) && !seen[p] {
				if f, err := identify(p); err == nil {
					in.files = append(in.files, f)
					seen[p] = true
				}
			}
			return nil
		})
	}
}

// digest is a digest of the recorded identities ("" when none).
func (in *Inputs) digest() string {
	if len(in.files) == 0 {
		return ""
	}
	h := sha256.New()
	for _, f := range in.files {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00%d\x00%d\x00", f.path, f.dev, f.ino, f.size, f.mtime.Nano(), f.ctime.Nano())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Watch makes in the inputs of every view of s: a view whose input
// changed fails to open and to read, and the change is reported in s's
// _errors.txt. The files the source declared beyond its path (NewSource)
// join in, identified now.
func (s *Source) Watch(in *Inputs) {
	in.add(s.inputs...)
	in.errs = s.Errors
	s.Root.inputs = in
}

// Check reports render.ErrChanged, naming the file, once any input differs
// from what was recorded: truncated or grown, rewritten (modification or
// change time), replaced (device or inode) or deleted.
func (in *Inputs) Check() error { return in.check(strictRecheck) }

// check is Check, trusting a check that found nothing less than maxAge ago.
func (in *Inputs) check(maxAge time.Duration) error {
	in.mu.Lock()
	err, last := in.changed, in.checked
	in.mu.Unlock()
	if err != nil {
		return err
	}
	if maxAge > 0 && time.Since(last) < maxAge {
		return nil
	}
	start := time.Now()
	for _, f := range in.files {
		now, err := identify(f.path)
		var what string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			what = "deleted"
		case err != nil:
			what = "unreadable: " + err.Error()
		case now.dev != f.dev || now.ino != f.ino:
			what = "replaced by another file"
		case now.size != f.size:
			what = fmt.Sprintf("size %d became %d", f.size, now.size)
		case now.mtime != f.mtime:
			mt := time.Unix(now.mtime.Unix()).UTC().Format(time.RFC3339Nano)
			what = "rewritten (modification time " + mt + ")"
		case now.ctime != f.ctime:
			ct := time.Unix(now.ctime.Unix()).UTC().Format(time.RFC3339Nano)
			what = "rewritten or its attributes changed (change time " + ct + ")"
		default:
			continue
		}
		return in.fail(f.path, what)
	}
	in.mu.Lock()
	in.checked = start
	in.mu.Unlock()
	return nil
}

func (in *Inputs) fail(path, what string) error {
	// Named from the source's folder: the folder itself, or the one
	// holding the source's file (and the files beside it that it declared).
	dir := in.root
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		rel = filepath.Base(path)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.changed != nil {
		return in.changed
	}
	in.changed = fmt.Errorf("%s: %w (%s)", path, render.ErrChanged, what)
	in.errs.Report(rel, fmt.Errorf("changed under the mount: %s; the views of this source now fail with EIO; remount to read the new version", what))
	return in.changed
}
