// Package fsnode serves any io/fs.FS tree as a read-only FUSE mount. It is
// the only package that imports go-fuse.
//
// Files must implement io.ReaderAt and report their exact size in Stat.
// A file whose FileInfo.Sys() has a Volatile() method returning true is
// served with direct I/O and no attribute caching (logs, status files);
// every other file is immutable and served with long timeouts, from the
// page cache (FOPEN_KEEP_CACHE) or, when large, with direct I/O.
package fsnode

import (
	"bytes"
	"cmp"
	"container/list"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	iofs "io/fs"
	"os"
	"path"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	log "github.com/sirupsen/logrus"
)

// Options configure a mount.
type Options struct {
	FsName     string   // first column of mount(8) and df: usually the source path
	AllowOther bool     // let other users read the mount
	Debug      bool     // log the FUSE protocol
	Extra      []string // further -o options
	// DirectMount calls mount(2) itself (works as root) before falling
	// back to fusermount3.
	DirectMount bool
	// DirectFrom is the size from which an immutable file is served with
	// direct I/O instead of the page cache; 0 means DefaultDirectFrom,
	// a negative value never.
	DirectFrom int64
}

// DefaultDirectFrom is the size from which immutable files bypass the page
// cache. Such a file is read once from end to end (cat, grep, a script)
// more often than again, and filling the page cache with it cost more
// than rendering it: a fresh mount, stat and cat of a 4 GB ovni
// events.txt took 4.8 s of the server's system time with the page cache,
// 1.7 s without, and the reader's 1.04 s, 0.66 s (load ~25, 2 cores).
// Direct I/O is used only when the kernel keeps mmap working for it
// (DIRECT_IO_ALLOW_MMAP, Linux 6.6).
const DefaultDirectFrom = 64 << 20

// directBlksize is the st_blksize of files served with direct I/O: tools
// that size their reads by it (gawk, Python, cp) then ask for 1 MiB, one
// request, instead of 4 KiB.
const directBlksize = 1 << 20

// cacheTimeout is how long the kernel may cache names and attributes:
// the data never changes under a mount.
const cacheTimeout = time.Hour

// Mount serves fsys at dir and returns the running server.
func Mount(dir string, fsys iofs.FS, opts Options) (*fuse.Server, error) {
	timeout := cacheTimeout
	policy := &cachePolicy{}
	policy.directFrom.Store(cmp.Or(opts.DirectFrom, DefaultDirectFrom))
	root := &node{fsys: fsys, path: ".", policy: policy, known: newKnown()}
	fsopts := &fs.Options{
		// AttrTimeout stays nil: go-fuse would put it in place of the zero
		// timeout of volatile files; Lookup and Getattr set it themselves.
		EntryTimeout:    &timeout,
		NegativeTimeout: &timeout,
		RootStableAttr:  &fs.StableAttr{Mode: syscall.S_IFDIR, Ino: 1},
		MountOptions: fuse.MountOptions{
			FsName:        opts.FsName,
			Name:          "hpcfs",
			AllowOther:    opts.AllowOther,
			Debug:         opts.Debug,
			Options:       append([]string{"ro"}, opts.Extra...),
			MaxWrite:      1 << 20,
			DisableXAttrs: true,
			DisableSplice: true,
			DirectMount:   opts.DirectMount,
			// READDIRPLUS would look up, and so size, every entry of a
			// listing; sizing a generated file can cost a full render, and
			// a plain ls must not pay for it.
			DisableReadDirPlus: true,
			ExtraCapabilities:  fuse.CAP_DIRECT_IO_ALLOW_MMAP,
			PanicHandler: func(v any) fuse.Status {
				log.WithField("panic", v).Error("fuse handler panicked; answering EIO")
				return fuse.EIO
			},
		},
	}
	if opts.FsName == "" {
		fsopts.MountOptions.FsName = "hpcfs"
	}
	var srv *fuse.Server
	err := withHelperReason(opts.DirectMount, func() (err error) {
		srv, err = fs.Mount(dir, root, fsopts)
		return err
	})
	if err != nil {
		close(root.known.done)
		return nil, err
	}
	go func() {
		srv.Wait()
		close(root.known.done)
	}()
	if srv.KernelSettings().Flags64()&fuse.CAP_DIRECT_IO_ALLOW_MMAP == 0 {
		policy.directFrom.Store(-1) // mmap of a direct I/O file would fail (ENODEV)
	}
	raiseReadAhead(dir)
	return srv, nil
}

// A cachePolicy says which immutable files bypass the page cache.
type cachePolicy struct {
	directFrom atomic.Int64 // size from which files get direct I/O; negative: none
}

func (p *cachePolicy) direct(size int64) bool {
	from := p.directFrom.Load()
	return from >= 0 && size >= from
}

// withHelperReason runs mount, which may call fusermount3. go-fuse hands
// that helper the process's standard error and reports only its exit
// code ("fusermount exited with code 256"); the helper's own words are
// captured here (and still shown) so that the error says why. With
// direct mounts (root) fusermount3 is only a fallback and nothing is
// captured.
func withHelperReason(direct bool, mount func() error) error {
	if direct {
		return mount()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return mount()
	}
	orig := os.Stderr
	os.Stderr = w
	var said bytes.Buffer
	copied := make(chan struct{})
	go func() {
		io.Copy(io.MultiWriter(&said, orig), r)
		close(copied)
	}()
	err = mount()
	os.Stderr = orig
	w.Close()
	<-copied
	r.Close()
	if err == nil {
		return nil
	}
	lines := strings.Split(strings.TrimSpace(said.String()), "\n")
	if why := strings.TrimSpace(lines[len(lines)-1]); why != "" {
		return fmt.Errorf("%s (%v)", why, strings.TrimSpace(err.Error()))
	}
	return err
}

// readAheadKB is the kernel read-ahead hpcfs asks for: generated files are
// read sequentially, and 1 MiB read-ahead lets the kernel ask for more at
// once (measured: 1.1 → 1.8 GB/s for cold sequential reads).
const readAheadKB = "1024"

// raiseReadAhead sets the mount's backing-device read-ahead, when
// permitted (root); otherwise the kernel default stays.
func raiseReadAhead(dir string) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return
	}
	major, minor := (st.Dev>>8)&0xfff, (st.Dev&0xff)|((st.Dev>>12)&0xfff00)
	p := fmt.Sprintf("/sys/class/bdi/%d:%d/read_ahead_kb", major, minor)
	if err := os.WriteFile(p, []byte(readAheadKB), 0o644); err != nil {
		log.WithField("err", err).Debug("read-ahead left at the kernel default")
	}
}

type node struct {
	fs.Inode
	fsys   iofs.FS
	path   string
	policy *cachePolicy
	known  *known

	// Where the kernel looked the node up, for known (under its lock).
	elem   *list.Element
	parent *fs.Inode
	name   string
}

var (
	_ = (fs.NodeLookuper)((*node)(nil))
	_ = (fs.NodeReaddirer)((*node)(nil))
	_ = (fs.NodeGetattrer)((*node)(nil))
	_ = (fs.NodeOpener)((*node)(nil))
	_ = (fs.NodeReader)((*node)(nil))
	_ = (fs.NodeStatfser)((*node)(nil))
	_ = (fs.NodeOnForgetter)((*node)(nil))
)

func inode(p string) uint64 {
	if p == "." {
		return 1
	}
	h := fnv.New64a()
	io.WriteString(h, p)
	ino := h.Sum64()
	if ino <= 1 {
		ino += 2
	}
	return ino
}

func volatile(info iofs.FileInfo) bool {
	v, ok := info.Sys().(interface{ Volatile() bool })
	return ok && v.Volatile()
}

func (n *node) fillAttr(info iofs.FileInfo, p string, a *fuse.Attr) {
	a.Ino = inode(p)
	a.Size = uint64(info.Size())
	a.Blocks = (a.Size + 511) / 512
	a.Blksize = 4096
	if !info.IsDir() && !volatile(info) && n.policy.direct(info.Size()) {
		a.Blksize = directBlksize
	}
	mt := info.ModTime()
	a.SetTimes(&mt, &mt, &mt)
	if info.IsDir() {
		a.Mode = syscall.S_IFDIR | 0o555
		a.Nlink = 2
	} else {
		a.Mode = syscall.S_IFREG | 0o444
		a.Nlink = 1
	}
}

func (n *node) child(name string) string {
	if n.path == "." {
		return name
	}
	return path.Join(n.path, name)
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	p := n.child(name)
	info, err := iofs.Stat(n.fsys, p)
	if err != nil {
		return nil, errno(p, err)
	}
	n.fillAttr(info, p, &out.Attr)
	if !volatile(info) {
		out.SetAttrTimeout(cacheTimeout)
	}
	mode := uint32(syscall.S_IFREG)
	if info.IsDir() {
		mode = syscall.S_IFDIR
	}
	child := &node{fsys: n.fsys, path: p, policy: n.policy, known: n.known}
	in := n.NewInode(ctx, child, fs.StableAttr{Mode: mode, Ino: inode(p)})
	if kept, ok := in.Operations().(*node); ok {
		n.known.add(kept, &n.Inode, name)
	}
	return in, 0
}

// OnForget: the kernel forgot the node.
func (n *node) OnForget() { n.known.forget(n) }

// Readdir streams the directory: its entries are read from the tree a
// batch at a time as the kernel asks for them, never all at once (a
// profile's callers/ folder holds a file per procedure: building the
// million entries of one took about 50 MB).
func (n *node) Readdir(ctx context.Context) (fs.DirStream, syscall.Errno) {
	s := &dirStream{n: n}
	if errno := s.open(); errno != 0 {
		return nil, errno
	}
	return s, 0
}

// dirBatch is how many entries a dirStream reads from the tree at once:
// about what one READDIR reply of the kernel's 4 KiB holds.
const dirBatch = 128

// A dirStream gives a directory's entries in the order the tree's
// fs.ReadDirFile lists them, holding one batch. An entry's offset is its
// place in the listing plus one, so that the kernel's seekdir (a rewind,
// or a telldir offset) moves to it: backwards by listing again from the
// start, forwards by skipping.
type dirStream struct {
	n     *node
	f     iofs.ReadDirFile
	batch []iofs.DirEntry
	next  uint64 // place of batch[0] in the listing, once the batch is given: of the next entry
	done  bool   // the listing has ended
	errno syscall.Errno
}

var _ = (fs.FileSeekdirer)((*dirStream)(nil))

func (s *dirStream) open() syscall.Errno {
	f, err := s.n.fsys.Open(s.n.path)
	if err != nil {
		return errno(s.n.path, err)
	}
	rf, ok := f.(iofs.ReadDirFile)
	if !ok {
		f.Close()
		return syscall.ENOTDIR
	}
	s.f, s.batch, s.next, s.done, s.errno = rf, nil, 0, false, 0
	return 0
}

// fill reads the next batch when the last one is given.
func (s *dirStream) fill() {
	if len(s.batch) > 0 || s.done || s.errno != 0 || s.f == nil {
		return
	}
	des, err := s.f.ReadDir(dirBatch)
	s.batch = des
	switch {
	case err == io.EOF || err == nil && len(des) == 0:
		s.done = true
	case err != nil:
		s.errno = errno(s.n.path, err)
	}
}

func (s *dirStream) HasNext() bool {
	s.fill()
	return len(s.batch) > 0 || s.errno != 0
}

func (s *dirStream) Next() (fuse.DirEntry, syscall.Errno) {
	if len(s.batch) == 0 {
		return fuse.DirEntry{}, cmp.Or(s.errno, syscall.EIO)
	}
	de := s.batch[0]
	s.batch = s.batch[1:]
	s.next++
	mode := uint32(syscall.S_IFREG)
	if de.IsDir() {
		mode = syscall.S_IFDIR
	}
	return fuse.DirEntry{Name: de.Name(), Mode: mode, Ino: inode(s.n.child(de.Name())), Off: s.next}, 0
}

// Seekdir moves to the entry after the one whose offset is off (0: the
// first).
func (s *dirStream) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if off < s.next {
		s.Close()
		if errno := s.open(); errno != 0 {
			return errno
		}
	}
	for s.next < off {
		if !s.HasNext() {
			return syscall.EINVAL
		}
		if _, errno := s.Next(); errno != 0 {
			return errno
		}
	}
	return 0
}

func (s *dirStream) Close() {
	if s.f != nil {
		s.f.Close()
		s.f, s.batch = nil, nil
	}
}

func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	info, err := iofs.Stat(n.fsys, n.path)
	if err != nil {
		return errno(n.path, err)
	}
	n.fillAttr(info, n.path, &out.Attr)
	if !volatile(info) {
		out.SetTimeout(cacheTimeout)
	}
	return 0
}

// Statfs reports block and name sizes for df and statvfs callers (some
// tools divide by f_bsize); a read-only tree has no free space, and its
// size is not known without rendering every file, so the counts stay 0.
func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	*out = fuse.StatfsOut{Bsize: 4096, Frsize: 4096, NameLen: 255}
	return 0
}

type handle struct {
	r io.ReaderAt
	c io.Closer
}

var _ = (fs.FileReleaser)((*handle)(nil))

func (h *handle) Release(ctx context.Context) syscall.Errno {
	h.c.Close()
	return 0
}

func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if flags&(syscall.O_WRONLY|syscall.O_RDWR|syscall.O_TRUNC|syscall.O_APPEND) != 0 {
		return nil, 0, syscall.EROFS
	}
	f, err := n.fsys.Open(n.path)
	if err != nil {
		return nil, 0, errno(n.path, err)
	}
	r, ok := f.(io.ReaderAt)
	if !ok {
		f.Close()
		return nil, 0, syscall.EIO
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, errno(n.path, err)
	}
	if volatile(info) || n.policy.direct(info.Size()) {
		return &handle{r, f}, fuse.FOPEN_DIRECT_IO, 0
	}
	return &handle{r, f}, fuse.FOPEN_KEEP_CACHE, 0
}

func (n *node) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h, ok := fh.(*handle)
	if !ok {
		return nil, syscall.EBADF
	}
	k, err := h.r.ReadAt(dest, off)
	if err != nil && err != io.EOF {
		return nil, errno(n.path, err)
	}
	return fuse.ReadResultData(dest[:k]), 0
}

// errno maps an error to the answer the kernel gets, logging the ones
// that are not a plain "no such file".
func errno(p string, err error) syscall.Errno {
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, iofs.ErrInvalid):
		return syscall.EINVAL
	case errors.Is(err, iofs.ErrPermission):
		return syscall.EACCES
	case errors.Is(err, context.Canceled):
		return syscall.EINTR
	}
	log.WithFields(log.Fields{"path": p, "err": err}).Warn("read failed")
	return syscall.EIO
}
