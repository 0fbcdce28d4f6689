// Package ovni decodes ovni traces of trace specification version 1: the
// ovni/loom.<L>/proc.<P>/thread.<T> directory tree, each process's
// metadata.json, and the thread streams of binary events. It also reads the
// streams of the 1.0.x releases, which start with an 8-byte header ("ovni"
// and a u32 version) and whose metadata carries model_version.
//
// Event fields are little-endian (traces written on x86_64 and other
// little-endian hosts).
//
// Decoding never panics on malformed input and never allocates more than
// the input holds; FuzzStream enforces this.
package ovni

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/hpcfs/hpcfs/decode"
)

const (
	// HeaderSize is the size of an event header: flags, MCV, clock.
	HeaderSize = 12
	// StreamHeaderSize is the size of the 1.0.x stream header.
	StreamHeaderSize = 8
	// FlagJumbo marks a jumbo event: a u32 data length follows the header.
	FlagJumbo = 0x10
)

// StreamMagic opens every stream of the 1.0.x releases.
var StreamMagic = []byte("ovni")

// A Variant is one of the stream layouts that call themselves version 1.
type Variant uint8

const (
	// Headerless streams are exactly as the v1 specification says.
	Headerless Variant = iota
	// WithHeader streams start with "ovni" and a u32 version (1.0.x releases).
	WithHeader
)

func (v Variant) String() string {
	if v == WithHeader {
		return "1.0.x (8-byte stream header)"
	}
	return "spec v1 (headerless streams)"
}

// An Event is one decoded event. Payload aliases the reader's buffer and
// is valid until the next call to Next; for jumbo events it holds the
// 4-byte size followed by the data, as ovnidump prints it.
type Event struct {
	Off     int64 // offset of the event in its stream
	Flags   byte
	MCV     [3]byte
	Clock   uint64
	Payload []byte
}

// Jumbo reports whether the event is a jumbo event.
func (e *Event) Jumbo() bool { return e.Flags&FlagJumbo != 0 }

// Size is the number of bytes the event takes in its stream.
func (e *Event) Size() int64 { return HeaderSize + int64(len(e.Payload)) }

// A Stream is one thread stream.
type Stream struct {
	Name    string // for error messages, e.g. loom.nodeA/proc.1/thread.2
	Variant Variant
	Version uint32 // header version (WithHeader only)
	r       io.ReaderAt
	size    int64
	start   int64 // offset of the first event
}

// NewStream reads the stream's header, if any.
func NewStream(r io.ReaderAt, size int64, name string) (*Stream, error) {
	s := &Stream{Name: name, r: r, size: size}
	if size >= 4 {
		var head [StreamHeaderSize]byte
		n, err := r.ReadAt(head[:min(size, StreamHeaderSize)], 0)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if string(head[:4]) == string(StreamMagic) {
			if n < StreamHeaderSize {
				return nil, s.errorf(0, decode.ErrTruncated, "stream header cut after %d bytes", n)
			}
			s.Variant, s.Version, s.start = WithHeader, binary.LittleEndian.Uint32(head[4:]), StreamHeaderSize
			if s.Version != 1 {
				return s, s.errorf(4, decode.ErrUnsupportedVersion, "stream header version %d", s.Version)
			}
		}
	}
	return s, nil
}

// Size is the stream's size in bytes.
func (s *Stream) Size() int64 { return s.size }

// Following returns up to n bytes of the stream that follow ev: fewer at
// the stream's end, none for a nil stream or when they cannot be read.
func (s *Stream) Following(ev *Event, n int) []byte {
	if s == nil {
		return nil
	}
	off := ev.Off + ev.Size()
	if n <= 0 || off < 0 || off >= s.size {
		return nil
	}
	b := make([]byte, min(int64(n), s.size-off))
	k, _ := s.r.ReadAt(b, off)
	return b[:k]
}

// Start is the offset of the first event.
func (s *Stream) Start() int64 { return s.start }

func (s *Stream) errorf(off int64, kind error, format string, args ...any) error {
	return decode.ErrAt("ovni", s.Name, off, fmt.Sprintf(format, args...), nil, kind)
}

// A Reader reads the events of a stream forward from an offset.
type Reader struct {
	s      *Stream
	off    int64  // offset of the next event
	buf    []byte // input from bufOff
	bufOff int64
	bufCap int
}

// NewReader returns a reader positioned at off (an event boundary, or 0 /
// Start() for the first event) that reads ahead bufSize bytes at a time.
func (s *Stream) NewReader(off int64, bufSize int) *Reader {
	if off < s.start {
		off = s.start
	}
	if bufSize < 4096 {
		bufSize = 4096
	}
	return &Reader{s: s, off: off, bufOff: off, bufCap: bufSize}
}

// Offset returns the offset of the next event.
func (r *Reader) Offset() int64 { return r.off }

// fill makes at least n bytes from r.off available in r.buf, or fewer at
// the end of the stream.
func (r *Reader) fill(n int) ([]byte, error) {
	rel := r.off - r.bufOff
	if rel >= 0 && rel+int64(n) <= int64(len(r.buf)) {
		return r.buf[rel:], nil
	}
	want := max(n, r.bufCap)
	avail := r.s.size - r.off
	if int64(want) > avail {
		want = int(max(avail, 0))
	}
	if cap(r.buf) < want {
		r.buf = make([]byte, want)
	}
	r.buf = r.buf[:want]
	k, err := r.s.r.ReadAt(r.buf, r.off)
	if err != nil && err != io.EOF {
		return nil, err
	}
	r.buf = r.buf[:k]
	r.bufOff = r.off
	return r.buf, nil
}

// Next decodes the next event into ev. It returns io.EOF at the end of the
// stream, and a *decode.FormatError when the stream ends inside an event or
// holds an impossible header; the reader then stays at that event.
func (r *Reader) Next(ev *Event) error {
	if r.off >= r.s.size {
		return io.EOF
	}
	var b []byte
	if rel := r.off - r.bufOff; rel >= 0 && rel+HeaderSize+16 <= int64(len(r.buf)) {
		b = r.buf[rel:] // fill's fast path, here so that it is inlined
	} else {
		var err error
		if b, err = r.fill(HeaderSize + 16); err != nil {
			return err
		}
	}
	if len(b) < HeaderSize {
		return r.s.errorf(r.off, decode.ErrTruncated, "event header cut after %d of %d bytes", len(b), HeaderSize)
	}
	ev.Off = r.off
	ev.Flags = b[0]
	copy(ev.MCV[:], b[1:4])
	ev.Clock = binary.LittleEndian.Uint64(b[4:12])
	if ev.Flags&FlagJumbo != 0 {
		if len(b) < HeaderSize+4 {
			return r.s.errorf(r.off, decode.ErrTruncated, "jumbo event %q cut inside its size field", ev.MCV[:])
		}
		n := int64(binary.LittleEndian.Uint32(b[12:16]))
		total := HeaderSize + 4 + n
		if total > r.s.size-r.off {
			return r.s.errorf(r.off, decode.ErrTruncated, "jumbo event %q of %d data bytes cut after %d", ev.MCV[:], n, r.s.size-r.off-HeaderSize-4)
		}
		if total <= int64(r.bufCap) {
			var err error
			if b, err = r.fill(int(total)); err != nil {
				return err
			}
			ev.Payload = b[HeaderSize:total]
		} else {
			big, err := decode.ReadAt(r.s.r, r.s.size, r.off+HeaderSize, 4+n)
			if err != nil {
				return r.s.errorf(r.off, decode.ErrTruncated, "jumbo data: %v", err)
			}
			ev.Payload = big // not kept here: the caller's until its next event
		}
		r.off += total
		return nil
	}
	size := 0
	if code := int(ev.Flags & 0x0f); code > 0 {
		size = code + 1
	}
	if len(b) < HeaderSize+size {
		return r.s.errorf(r.off, decode.ErrTruncated, "event %q with %d payload bytes cut after %d", ev.MCV[:], size, len(b)-HeaderSize)
	}
	ev.Payload = b[HeaderSize : HeaderSize+size]
	r.off += int64(HeaderSize + size)
	return nil
}

// Skip steps over the next event, reading only its header, and returns its
// clock, its flags and its payload size. Errors are those of Next.
func (r *Reader) Skip() (clock uint64, flags byte, payload int64, err error) {
	if r.off >= r.s.size {
		return 0, 0, 0, io.EOF
	}
	b, err := r.fill(HeaderSize + 4)
	if err != nil {
		return 0, 0, 0, err
	}
	if len(b) < HeaderSize {
		return 0, 0, 0, r.s.errorf(r.off, decode.ErrTruncated, "event header cut after %d of %d bytes", len(b), HeaderSize)
	}
	flags = b[0]
	clock = binary.LittleEndian.Uint64(b[4:12])
	if flags&FlagJumbo != 0 {
		if len(b) < HeaderSize+4 {
			return 0, 0, 0, r.s.errorf(r.off, decode.ErrTruncated, "jumbo event %q cut inside its size field", b[1:4])
		}
		payload = 4 + int64(binary.LittleEndian.Uint32(b[12:16]))
	} else if code := int64(flags & 0x0f); code > 0 {
		payload = code + 1
	}
	if HeaderSize+payload > r.s.size-r.off {
		return 0, 0, 0, r.s.errorf(r.off, decode.ErrTruncated, "event %q with %d payload bytes cut after %d", b[1:4], payload, r.s.size-r.off-HeaderSize)
	}
	r.off += HeaderSize + payload
	return clock, flags, payload, nil
}
