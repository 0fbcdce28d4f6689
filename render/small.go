package render

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Bytes returns a View of a small file rendered whole by fn on first use.
// The rendered bytes are kept in the shared cache under its byte budget and
// rendered again by fn if evicted, so fn must be deterministic. A data error
// from fn is reported through onDataError (when nil, the tree's Binding
// gives it: the view's path) and the view holds the bytes fn returned with
// it.
func Bytes(fn func() ([]byte, error), onDataError func(error)) View {
	return &small{fn: fn, onDataError: onDataError}
}

// Static returns a View of fixed bytes.
func Static(b []byte) View { return &static{b} }

type static struct{ b []byte }

func (v *static) Size() (int64, error) { return int64(len(v.b)), nil }

// IsFixed reports whether v was made with Static or is Volatile: its bytes
// come from no input file (they were made when the source was opened, or
// are hpcfs's own log), so a changed input does not affect them.
func IsFixed(v View) bool {
	if _, ok := v.(*static); ok {
		return true
	}
	vol, ok := v.(Volatile)
	return ok && vol.Volatile()
}
func (v *static) ReadAt(p []byte, off int64) (int, error) {
	return readAtBytes(v.b, p, off)
}

type small struct {
	fn          func() ([]byte, error)
	onDataError func(error)

	mu    sync.Mutex
	sized bool
	size  int64
	err   error
}

// Bind takes the error report the view was not given from the tree.
func (v *small) Bind(b Binding) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.onDataError == nil {
		v.onDataError = b.Report
	}
}

func (v *small) data() ([]byte, error) {
	key := segmentKey{v, 0}
	if b, ok := segments.get(key); ok {
		return b, nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.sized && v.err != nil {
		return nil, v.err
	}
	if b, ok := segments.get(key); ok {
		return b, nil
	}
	b, err := v.fn()
	if err != nil && IsDataError(err) {
		if !v.sized && v.onDataError != nil {
			v.onDataError(err)
		}
		err = nil
	}
	if err != nil {
		v.sized, v.err = true, err
		return nil, err
	}
	if v.sized && int64(len(b)) != v.size {
		return nil, ErrChanged
	}
	v.sized, v.size = true, int64(len(b))
	segments.put(key, b)
	return b, nil
}

func (v *small) Size() (int64, error) {
	v.mu.Lock()
	if v.sized {
		defer v.mu.Unlock()
		return v.size, v.err
	}
	v.mu.Unlock()
	b, err := v.data()
	return int64(len(b)), err
}

func (v *small) ReadAt(p []byte, off int64) (int, error) {
	b, err := v.data()
	if err != nil {
		return 0, err
	}
	return readAtBytes(b, p, off)
}

func readAtBytes(b, p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("render: negative offset %d", off)
	}
	if off >= int64(len(b)) {
		return 0, io.EOF
	}
	n := copy(p, b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// A Volatile view changes as the mount runs (a log, a status file). Its
// Size is the current length; servers must not cache its pages.
type Volatile interface {
	View
	Volatile() bool
}

// Log returns a Volatile view of text that only grows; append with Add.
type Log struct {
	mu sync.Mutex
	b  []byte
}

func (l *Log) Add(line string) {
	l.mu.Lock()
	l.b = append(l.b, line...)
	l.b = append(l.b, '\n')
	l.mu.Unlock()
}

func (l *Log) Size() (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return int64(len(l.b)), nil
}

func (l *Log) ReadAt(p []byte, off int64) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return readAtBytes(l.b, p, off)
}

func (l *Log) Volatile() bool { return true }

// Passthrough returns a View of a file on disk, byte for byte, opened on
// first use and as large as it was then. Whether the file changed since is
// the source's one input check (vfs's Inputs, on every open and read of a
// view of the source), not the view's: raw/ files are among the source's
// inputs. A read that comes up short of that size (the file shrank) fails
// with ErrChanged rather than return fewer bytes than the size promised.
func Passthrough(path string) View { return &passthrough{path: path} }

type passthrough struct {
	path string

	once sync.Once
	f    *os.File
	size int64
	err  error
}

func (v *passthrough) open() error {
	v.once.Do(func() {
		f, err := os.Open(v.path)
		if err != nil {
			v.err = err
			return
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			v.err = err
			return
		}
		v.f, v.size = f, fi.Size()
	})
	return v.err
}

func (v *passthrough) Size() (int64, error) {
	if err := v.open(); err != nil {
		return 0, err
	}
	return v.size, nil
}

func (v *passthrough) ReadAt(p []byte, off int64) (int, error) {
	if err := v.open(); err != nil {
		return 0, err
	}
	if off >= v.size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), v.size-off)
	n, err := v.f.ReadAt(p[:want], off)
	if int64(n) < want {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("%s: %w (it ends before its size %d)", v.path, ErrChanged, v.size)
		}
		return n, err
	}
	if want < int64(len(p)) {
		return n, io.EOF
	}
	return n, nil
}
