package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/hpcfs/hpcfs/decode"
)

// A View is the content of one generated file. Size is exact; ReadAt may
// be called concurrently and never re-renders the view from byte 0. Both
// report an error only when the underlying input fails or changes; a view
// whose input turns out malformed part-way simply ends there.
type View interface {
	Size() (int64, error)
	io.ReaderAt
}

// A Generator renders a view as a sequence of records. Start returns a
// cursor at a position previously returned by Cursor.State, or at the
// beginning when state is nil. Cursors are used by one goroutine at a time;
// a Generator is called concurrently.
type Generator interface {
	Start(state any) (Cursor, error)
}

// A Cursor renders records one after the other.
//
// Next appends one or more whole records to dst and returns the extended
// slice. At the end it returns io.EOF. Any other error ends the view after
// the bytes appended so far: malformed input (decode.ErrFormat and its
// kin) is reported once through the view's error callback; anything else is
// an I/O failure that makes reads fail with that error.
//
// State returns a value from which Generator.Start resumes at the current
// position (between two records). It must not share mutable memory with
// the cursor.
type Cursor interface {
	Next(dst []byte) ([]byte, error)
	State() any
}

// ExtraInputs is implemented by a Generator whose records depend on files
// beyond the source's own (a binary its symbol names come from): their
// identity joins the view's index key when it is first sized.
type ExtraInputs interface {
	ExtraInputs() []string
}

// A Lengther is a Cursor that can also step over its next records without
// rendering them; sizing uses it when present. NextLen returns the number
// of bytes the next call to Next would append, advancing past them.
type Lengther interface {
	NextLen() (int64, error)
}

// A Releaser is a Cursor holding buffers worth reusing: a segment's
// render calls Release when it is done with the cursor, which is not used
// after.
type Releaser interface {
	Release()
}

// GeneratorFunc adapts a function to the Generator interface.
type GeneratorFunc func(state any) (Cursor, error)

// Start calls f(state).
func (f GeneratorFunc) Start(state any) (Cursor, error) { return f(state) }

// IsDataError reports whether err describes malformed input rather than a
// failing reader.
func IsDataError(err error) bool {
	return errors.Is(err, decode.ErrFormat) || errors.Is(err, decode.ErrTruncated) ||
		errors.Is(err, decode.ErrUnsupportedVersion) || errors.Is(err, io.ErrUnexpectedEOF)
}

// ErrChanged is wrapped by the error of every read of a view whose input
// changed under the mount (vfs checks the identity of the input files; a
// view that renders differently than it was sized finds it too); servers
// answer EIO.
var ErrChanged = errors.New("input changed under the mount")

const (
	checkpointEvery   = 64 << 10 // output bytes between two checkpoints
	segmentCheckpoint = 16       // checkpoints per cached segment (~1 MiB)
	// segmentSpan ends a segment early when its records are large (an
	// ovni jumbo event is one multi-MB line), so that a segment stays
	// small enough to be cached instead of re-rendered on every read.
	segmentSpan = 2 << 20
)

type checkpoint struct {
	off   int64
	state any
}

// Stream returns a View over records from gen. The first Size or ReadAt
// renders (or, with a Lengther, measures) the whole view once, recording a
// checkpoint every 64 KiB of output; concurrent callers share that pass.
// Afterwards a read renders at most the ~1 MiB segment around it, from the
// nearest checkpoint, and segments are cached under a global byte budget.
// onDataError, when not nil, receives the malformed-input error that ended
// the view, once; when nil, the tree's Binding gives it.
//
// The view is a Binder: when gen is a StateCodec and the tree binds the
// view with an index key and directory (the key names the view by its
// format, its path and the identity of the source's inputs, joined by
// those of ExtraInputs), a view sized before (by any mount) reads its size
// and checkpoints back instead of measuring them.
// Views that ended on a data error are not indexed, so the error is
// reported again on the next mount. A gen that is a Binder is given the
// view's Binding too (to keep results of its own beside the index: Saved).
func Stream(gen Generator, onDataError func(error)) View {
	return &stream{gen: gen, onDataError: onDataError}
}

type stream struct {
	gen         Generator
	onDataError func(error)
	key         string // on-disk index key, from the Binding; "" for none
	indexDir    string // from the Binding; "" keeps no index
	indexLimit  int64  // the index folder's limit, from the Binding

	mu           sync.Mutex
	sizing       chan struct{} // closed when the sizing pass ends
	sawDataError bool
	lay          atomic.Pointer[layout] // nil until sized
}

// A layout is what sizing found: immutable, replaced as a whole when an
// index read from disk turns out to disagree with the view.
type layout struct {
	size   int64
	cps    []checkpoint
	segs   []int // index in cps of each segment's first checkpoint
	err    error
	loaded string // the on-disk index it was read from, "" when measured
	kept   *kept  // the view's bytes as measured (keep.go); nil when none
}

func newLayout(size int64, cps []checkpoint, err error) *layout {
	return &layout{size: size, cps: cps, segs: segmentStarts(cps), err: err}
}

// measured is the layout of a sizing pass, with the bytes it kept: the
// kept file is dropped with the layout.
func measured(size int64, cps []checkpoint, k *kept, err error) *layout {
	l := newLayout(size, cps, err)
	if k != nil {
		l.kept = k
		runtime.AddCleanup(l, func(k *kept) { k.drop() }, k)
	}
	return l
}

// Bind takes the index directory and key, and the error report the view
// was not given, from the tree. It has no effect once sizing started.
func (s *stream) Bind(b Binding) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lay.Load() != nil || s.sizing != nil {
		return
	}
	s.indexDir, s.indexLimit, s.key = b.Options.IndexDir, b.Options.IndexLimit, b.Key
	if s.onDataError == nil {
		s.onDataError = b.Report
	}
	if g, ok := s.gen.(Binder); ok {
		g.Bind(b)
	}
}

func (s *stream) Size() (int64, error) {
	l, err := s.ensureSized()
	if err != nil {
		return 0, err
	}
	return l.size, nil
}

func (s *stream) ensureSized() (*layout, error) {
	if l := s.lay.Load(); l != nil {
		return l, l.err
	}
	s.mu.Lock()
	if l := s.lay.Load(); l != nil {
		s.mu.Unlock()
		return l, l.err
	}
	if s.sizing != nil {
		ch := s.sizing
		s.mu.Unlock()
		<-ch
		return s.ensureSized()
	}
	ch := make(chan struct{})
	s.sizing = ch
	s.mu.Unlock()

	l := s.measureOrLoad()
	s.mu.Lock()
	s.lay.Store(l)
	s.sizing = nil
	s.mu.Unlock()
	close(ch)
	return l, l.err
}

func (s *stream) measureOrLoad() *layout {
	codec, ok := s.gen.(StateCodec)
	key := s.key
	if x, isExtra := s.gen.(ExtraInputs); isExtra && key != "" {
		if files := x.ExtraInputs(); len(files) > 0 {
			key = withFiles(key, files...)
		}
	}
	path := indexPath(s.indexDir, key)
	if !ok || path == "" {
		size, cps, _, k, err, _ := s.measure()
		return measured(size, cps, k, err)
	}
	// Only the index's own consistency is checked here, so that a second
	// mount answers sizes without decoding the source; a read that finds
	// the view rendering otherwise than the index says replaces it.
	size, cps, err := loadIndex(path, codec)
	if err == nil {
		l := newLayout(size, cps, nil)
		l.loaded = path
		return l
	}
	if !errors.Is(err, fs.ErrNotExist) {
		s.discardIndex(path, err)
	}
	return s.measureAndSave(codec, path)
}

func (s *stream) measureAndSave(codec StateCodec, path string) *layout {
	size, cps, step, k, err, clean := s.measure()
	if err == nil && clean {
		saveIndex(path, s.indexLimit, codec, size, step, cps)
	}
	return measured(size, cps, k, err)
}

// discardIndex removes the on-disk index at path, which disagrees with
// the view (why), and reports it: the view is measured again.
func (s *stream) discardIndex(path string, why error) {
	os.Remove(path)
	if s.onDataError != nil {
		s.onDataError(fmt.Errorf("%w %s: %v; removed, the view is measured again", errBadIndex, path, why))
	}
}

// measure sizes the view; step is the most bytes one call of the cursor
// gave (checkpoints are at least checkpointEvery and less than
// checkpointEvery+step apart, and so is the last one from the end); k
// holds the bytes it rendered, when it kept them; clean is false when it
// ended on a data error.
func (s *stream) measure() (size int64, cps []checkpoint, step int64, k *kept, err error, clean bool) {
	var keep *keepPass
	if _, no := s.gen.(NotKept); !no {
		keep = newKeepPass(keeps.newKept(s.indexDir))
	}
	size, cps, err = s.measureOnce(&step, keep)
	if keep != nil {
		k = keep.finish(size, cps, err)
	}
	return size, cps, step, k, err, !s.sawDataError
}

// measureOnce runs the sizing pass: it counts the records (Lengther)
// when the cursor can, else renders them; with keep, once it is past
// keepFrom, it renders them all and hands the bytes to keep.
func (s *stream) measureOnce(step *int64, keep *keepPass) (int64, []checkpoint, error) {
	c, err := s.gen.Start(nil)
	if err != nil {
		return s.endOn(err, 0, []checkpoint{{0, nil}})
	}
	cps := []checkpoint{{0, c.State()}}
	var off int64
	var buf []byte
	lengther, _ := c.(Lengther)
	if lengther == nil {
		keep.begin(nil, cps) // the pass renders anyway
	}
	for {
		if off-cps[len(cps)-1].off >= checkpointEvery {
			cps = append(cps, checkpoint{off, c.State()})
			if keep.waiting() && off >= keepFrom {
				keep.begin(s.gen, cps)
			} else {
				keep.checkpoint()
			}
		}
		var n int64
		switch {
		case keep.on():
			n, err = keep.next(c, cps)
		case lengther != nil:
			n, err = lengther.NextLen()
		default:
			buf, err = c.Next(buf[:0])
			n = int64(len(buf))
			if cap(buf) > 4<<20 {
				buf = nil
			}
		}
		off += n
		*step = max(*step, n)
		if err == io.EOF {
			return off, cps, nil
		}
		if err != nil {
			return s.endOn(err, off, cps)
		}
	}
}

func (s *stream) endOn(err error, off int64, cps []checkpoint) (int64, []checkpoint, error) {
	if err == io.EOF {
		return off, cps, nil
	}
	if IsDataError(err) {
		s.sawDataError = true
		if s.onDataError != nil {
			s.onDataError(err)
		}
		return off, cps, nil
	}
	return off, cps, err
}

func (s *stream) ReadAt(p []byte, off int64) (int, error) {
	l, err := s.ensureSized()
	if err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("render: negative offset %d", off)
	}
	n := 0
	for n < len(p) && off < l.size {
		seg := l.segmentOf(off)
		held, start, err := s.segment(l, seg)
		if errors.Is(err, errDisagrees) && l.loaded != "" {
			l = s.rebuild(l, err)
			continue
		}
		if err != nil {
			return n, err
		}
		k := copy(p[n:], held.data[off-start:])
		size := int64(len(held.data)) // held.data is not ours after done
		end, half := start+size, start+size/2
		segments.done(held)
		n += k
		off += int64(k)
		if off == end {
			segments.dropLarge(held) // read to its end: the next is what a reader wants
		}
		if off >= half {
			s.prefetch(l, seg+1)
			s.prefetch(l, seg+2)
		}
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// rebuild replaces l, read from an on-disk index that turned out to
// disagree with the view, by a fresh measurement (once, whoever asks).
func (s *stream) rebuild(l *layout, why error) *layout {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur := s.lay.Load(); cur != l {
		return cur
	}
	s.discardIndex(l.loaded, why)
	codec, _ := s.gen.(StateCodec)
	fresh := s.measureAndSave(codec, l.loaded)
	s.lay.Store(fresh)
	return fresh
}

// segmentStarts groups checkpoints into segments of segmentCheckpoint
// checkpoints, or fewer when they span more than segmentSpan bytes.
func segmentStarts(cps []checkpoint) []int {
	if len(cps) == 0 {
		return nil
	}
	starts := []int{0}
	for i := 1; i < len(cps); i++ {
		first := starts[len(starts)-1]
		if i-first >= segmentCheckpoint || cps[i].off-cps[first].off >= segmentSpan {
			starts = append(starts, i)
		}
	}
	return starts
}

func (l *layout) segmentOf(off int64) int {
	lo, hi := 0, len(l.segs)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if l.cps[l.segs[mid]].off <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// checkpoints returns the checkpoints of segment seg, with the next
// segment's first (at the end offset) when there is one, and the end
// offset.
func (l *layout) checkpoints(seg int) ([]checkpoint, int64) {
	if seg+1 < len(l.segs) {
		return l.cps[l.segs[seg] : l.segs[seg+1]+1], l.cps[l.segs[seg+1]].off
	}
	return l.cps[l.segs[seg]:], l.size
}

// verifier is the codec with which a segment of l checks its cursor's
// state at each checkpoint against the checkpoint's: only for layouts
// read from an on-disk index, whose states may be forged.
func (s *stream) verifier(l *layout) StateCodec {
	if l.loaded == "" {
		return nil
	}
	codec, _ := s.gen.(StateCodec)
	return codec
}

// segment returns segment seg of l, held: the caller calls segments.done
// with it once it has copied from it.
func (s *stream) segment(l *layout, seg int) (*lruEntry, int64, error) {
	cps, end := l.checkpoints(seg)
	start := cps[0].off
	key := segmentKey{l, seg}
	for {
		if held, ok := segments.acquire(key); ok {
			return held, start, nil
		}
		claimed, wait := segments.claim(key)
		if claimed {
			break
		}
		if wait != nil {
			<-wait // another reader or a prefetch is rendering it
		}
	}
	if segments.large(int(min(end-start, math.MaxInt32))) {
		// One large segment renders at a time: the kernel reads ahead in
		// parallel, and two ovni jumbo lines rendered at once (MBs each,
		// with their payloads and growing buffers) took a mount past its
		// memory budget.
		largeRender.Lock()
		defer largeRender.Unlock()
	}
	data, base, err := s.segmentBytes(l, seg, cps, end)
	if err != nil {
		segments.release(key)
		return nil, 0, err
	}
	return segments.putHeld(key, data, base), start, nil
}

// segmentBytes is segment seg of l (its checkpoints cps, then its end),
// in a buffer from the segment cache (base, when the bytes do not start
// it): read back from the bytes its sizing pass kept when it kept them,
// else rendered.
func (s *stream) segmentBytes(l *layout, seg int, cps []checkpoint, end int64) (data, base []byte, err error) {
	if k := l.kept; k != nil {
		own := cps
		if seg+1 < len(l.segs) {
			own = cps[:len(cps)-1] // the next segment's first
		}
		data, base, err := k.read(own, end, l.segs[seg])
		if data != nil {
			return data, base, nil
		}
		if err != nil && s.onDataError != nil {
			s.onDataError(fmt.Errorf("render: %w; dropped, the view is rendered again", err))
		}
	}
	data, err = s.renderSegment(cps, end, s.verifier(l))
	return data, nil, err
}

// largeRender is held while a large segment renders.
var largeRender sync.Mutex

// errDisagrees is a segment that renders otherwise than its checkpoints
// say: the input changed, or the checkpoints came from a bad index.
var errDisagrees = fmt.Errorf("%w: a segment renders otherwise than it was sized", ErrChanged)

// renderSegment renders from the first of cps to end, checking that each
// later checkpoint falls between two records, as it did when sized, and,
// with a codec, that the cursor's state there encodes as the
// checkpoint's does.
func (s *stream) renderSegment(cps []checkpoint, end int64, codec StateCodec) ([]byte, error) {
	// The first checkpoint's state is used as stored, also at offset 0:
	// some views keep there what would cost a whole pass over the input to
	// remake (a Parquet twin's plan and footer). Damage, and forgery by
	// one without the key, fail the index's seal at load; a state forged
	// by one with it is caught at the next checkpoint when it changes the
	// state.
	c, err := s.gen.Start(cps[0].state)
	if err != nil {
		if IsDataError(err) {
			return nil, fmt.Errorf("%w (%v)", errDisagrees, err)
		}
		return nil, err
	}
	if r, ok := c.(Releaser); ok {
		defer r.Release()
	}
	start := cps[0].off
	want := end - start
	// The buffer grows as records come: want is trusted only once the
	// bytes are there (an index may claim any size).
	buf := segments.buffer(int(min(want, segmentSpan)) + 4096)
	next := 1
	for int64(len(buf)) < want {
		buf, err = c.Next(buf)
		for next < len(cps) && cps[next].off-start <= int64(len(buf)) {
			if cps[next].off-start < int64(len(buf)) {
				return nil, fmt.Errorf("%w (checkpoint at %d inside a record)", errDisagrees, cps[next].off)
			}
			if err == nil && codec != nil && !bytes.Equal(encode(codec, c.State()), encode(codec, cps[next].state)) {
				return nil, fmt.Errorf("%w (the state at %d differs from the checkpoint's)", errDisagrees, cps[next].off)
			}
			next++
		}
		if err != nil {
			break
		}
	}
	if int64(len(buf)) != want {
		if err != nil && err != io.EOF && !IsDataError(err) {
			return nil, err
		}
		return nil, fmt.Errorf("%w (%d bytes from %d, want %d)", errDisagrees, len(buf), start, want)
	}
	return buf, nil
}

func encode(codec StateCodec, state any) []byte {
	if state == nil {
		return nil
	}
	return codec.EncodeState(state)
}

func (s *stream) prefetch(l *layout, seg int) {
	if seg >= len(l.segs) {
		return
	}
	cps, end := l.checkpoints(seg)
	if end-cps[0].off > segmentBudget/4 {
		return // would evict the segment being read
	}
	key := segmentKey{l, seg}
	if claimed, _ := segments.claim(key); !claimed {
		return
	}
	go func() {
		data, base, err := s.segmentBytes(l, seg, cps, end)
		if err != nil {
			segments.release(key)
			return
		}
		segments.putPooled(key, data, base)
	}()
}
