package dcpi

import (
	"encoding/binary"
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// FooterSize is the length of the footer that ends a major-version-0 body.
const FooterSize = 8

// InstructionSize is the distance in bytes between the addresses of two
// consecutive counts of a chunk: one Alpha instruction.
const InstructionSize = 4

// A File is an opened profile. Its methods may be called concurrently.
type File struct {
	Header *Header
	Size   int64 // bytes in the file

	r      io.ReaderAt
	closer io.Closer
}

// NewFile decodes the header of the profile in r (size bytes long). It
// fails only when r holds no DCPI header or fails; grammar problems are
// listed in Header.Problems. The body is read on demand.
func NewFile(r io.ReaderAt, size int64) (*File, error) {
	h, err := ParseHeader(r, size)
	if err != nil {
		return nil, err
	}
	return &File{Header: h, Size: size, r: r}, nil
}

// Open opens the profile file at path.
func Open(path string) (*File, error) {
	var df *File
	closer, err := decode.OpenFile(path, func(r io.ReaderAt, size int64) (err error) {
		df, err = NewFile(r, size)
		return err
	})
	if err != nil {
		return nil, err
	}
	df.closer = closer
	return df, nil
}

// Close closes the file if Open opened it.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer.Close()
	}
	return nil
}

// A Footer is the last 8 bytes of a major-version-0 body.
type Footer struct {
	TotalOffsets uint32 // addresses with at least one sample
	TotalSamples uint32 // sum of all counts
}

// Footer reads the footer. It fails when the body cannot be decoded or is
// shorter than a footer.
func (f *File) Footer() (Footer, error) {
	if err := f.Header.BodyErr(); err != nil {
		return Footer{}, err
	}
	if f.Size-f.Header.Size() < FooterSize {
		return Footer{}, decode.ErrAt("dcpi", "footer", f.Header.Size(), "body shorter than the 8-byte footer", f.Size-f.Header.Size(), decode.ErrTruncated)
	}
	b, err := decode.ReadAt(f.r, f.Size, f.Size-FooterSize, FooterSize)
	if err != nil {
		return Footer{}, err
	}
	return Footer{binary.LittleEndian.Uint32(b), binary.LittleEndian.Uint32(b[4:])}, nil
}

// A Sample is one count of a chunk.
type Sample struct {
	Offset uint64 // address - tstart, in bytes: chunk offset + 4·i
	Count  uint32
}

// Address returns the instruction address of s in a file whose header is h.
func (s Sample) Address(h *Header) uint64 { return h.Tstart + s.Offset }

// A Pos is a position in the body between two samples, from which a
// SampleReader resumes. The zero Pos is not valid; use File.Start.
type Pos struct {
	Off     int64  // file offset of the next count, or of the next chunk when Left is 0
	Left    uint32 // counts left in the current chunk
	Next    uint64 // Sample.Offset of the next count
	PrevOff uint64 // offset field of the previous chunk
	PrevEnd uint64 // first address offset after the previous chunk
	Chunks  int64  // chunks started so far
	started bool
}

// Start is the position of the first sample.
func (f *File) Start() Pos { return Pos{Off: f.Header.Size()} }

// A SampleReader reads the samples of a body in file order. It is used by
// one goroutine at a time; any number of readers may read one File.
type SampleReader struct {
	f   *File
	pos Pos
	end int64 // offset of the footer
	err error

	buf    []byte
	bufOff int64
}

const readBlock = 64 << 10

// Samples returns a reader of the samples from pos.
func (f *File) Samples(pos Pos) *SampleReader {
	sr := &SampleReader{f: f, pos: pos, end: f.Size - FooterSize}
	if err := f.Header.BodyErr(); err != nil {
		sr.err = err
	} else if f.Size-f.Header.Size() < FooterSize {
		_, sr.err = f.Footer()
	}
	return sr
}

// Pos returns the position of the next sample.
func (sr *SampleReader) Pos() Pos { return sr.pos }

// Next returns the next sample, zero counts included. At the end of the
// chunks it returns io.EOF; a chunk that breaks a rule ends the samples
// with a *decode.FormatError at that chunk, and the error is sticky.
func (sr *SampleReader) Next() (Sample, error) {
	if sr.err != nil {
		return Sample{}, sr.err
	}
	p := &sr.pos
	if p.Left == 0 {
		if err := sr.chunk(); err != nil {
			sr.err = err
			return Sample{}, err
		}
	}
	b, err := sr.bytes(p.Off, 4)
	if err != nil {
		sr.err = err
		return Sample{}, err
	}
	s := Sample{Offset: p.Next, Count: binary.LittleEndian.Uint32(b)}
	p.Off += 4
	p.Left--
	p.Next += InstructionSize
	return s, nil
}

// CountAt is the count at byte i of counts from NextRun: the samples of
// the instruction at the run's offset + i.
func CountAt(counts []byte, i int) uint32 { return binary.LittleEndian.Uint32(counts[i:]) }

// NextRun returns the offset of the next count and the following counts
// of its chunk that are at hand (4 bytes each, little-endian, zeros
// included; at least one), and advances past them: the bulk form of Next,
// with the same io.EOF and errors.
func (sr *SampleReader) NextRun() (offset uint64, counts []byte, err error) {
	if sr.err != nil {
		return 0, nil, sr.err
	}
	p := &sr.pos
	if p.Left == 0 {
		if err := sr.chunk(); err != nil {
			sr.err = err
			return 0, nil, err
		}
	}
	if _, err := sr.bytes(p.Off, 4); err != nil {
		sr.err = err
		return 0, nil, err
	}
	i := p.Off - sr.bufOff
	k := min(int64(p.Left), (int64(len(sr.buf))-i)/4)
	counts = sr.buf[i : i+4*k]
	offset = p.Next
	p.Off += 4 * k
	p.Left -= uint32(k)
	p.Next += InstructionSize * uint64(k)
	return offset, counts, nil
}

func (sr *SampleReader) chunk() error {
	p := &sr.pos
	if p.Off == sr.end {
		return io.EOF
	}
	bad := func(msg string, val any, wrapped error) error {
		return decode.ErrAt("dcpi", "chunk "+strconv.FormatInt(p.Chunks, 10), p.Off, msg, val, wrapped)
	}
	if p.Off > sr.end || sr.end-p.Off < 8 {
		return bad("chunk header runs into the footer", sr.end-p.Off, decode.ErrTruncated)
	}
	b, err := sr.bytes(p.Off, 8)
	if err != nil {
		return err
	}
	offset := uint64(binary.LittleEndian.Uint32(b))
	number := binary.LittleEndian.Uint32(b[4:])
	switch {
	case number == 0:
		return bad("chunk has no counts", number, nil)
	case uint64(number)*4 > uint64(sr.end-p.Off-8):
		return bad("chunk of this many counts runs into the footer", number, decode.ErrTruncated)
	case p.started && offset <= p.PrevOff:
		return bad("chunk offset does not increase", offset, nil)
	case p.started && offset < p.PrevEnd:
		return bad("chunk overlaps the previous chunk, which ends at offset", p.PrevEnd, nil)
	}
	p.Off += 8
	p.Left = number
	p.Next = offset
	p.PrevOff = offset
	p.PrevEnd = offset + uint64(number)*InstructionSize
	p.Chunks++
	p.started = true
	return nil
}

// bytes returns n bytes at off through the read buffer.
func (sr *SampleReader) bytes(off int64, n int) ([]byte, error) {
	if off >= sr.bufOff && off+int64(n) <= sr.bufOff+int64(len(sr.buf)) {
		i := off - sr.bufOff
		return sr.buf[i : i+int64(n)], nil
	}
	k := min(int64(readBlock), sr.end-off)
	if k < int64(n) {
		return nil, decode.ErrAt("dcpi", "body", off, "unexpected end of body", nil, decode.ErrTruncated)
	}
	if sr.buf == nil {
		sr.buf = make([]byte, readBlock)
	}
	buf := sr.buf[:k]
	if _, err := sr.f.r.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, err
	}
	sr.buf, sr.bufOff = buf[:cap(buf)][:k], off
	return sr.buf[:n], nil
}

// AppendBinary appends an encoding of p that DecodePos reads back.
func (p Pos) AppendBinary(b []byte) ([]byte, error) {
	started := uint64(0)
	if p.started {
		started = 1
	}
	for _, v := range []uint64{uint64(p.Off), uint64(p.Left), p.Next, p.PrevOff, p.PrevEnd, uint64(p.Chunks), started} {
		b = binary.AppendUvarint(b, v)
	}
	return b, nil
}

// DecodePos reads a Pos written by AppendBinary from the start of b and
// returns the rest of b.
func DecodePos(b []byte) (Pos, []byte, error) {
	var v [7]uint64
	for i := range v {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			return Pos{}, nil, decode.ErrAt("dcpi", "position", 0, "bad encoded position", nil, nil)
		}
		v[i], b = x, b[n:]
	}
	if v[0] > 1<<62 || v[1] > 1<<32-1 || v[5] > 1<<62 || v[6] > 1 {
		return Pos{}, nil, decode.ErrAt("dcpi", "position", 0, "bad encoded position", nil, nil)
	}
	return Pos{Off: int64(v[0]), Left: uint32(v[1]), Next: v[2], PrevOff: v[3], PrevEnd: v[4], Chunks: int64(v[5]), started: v[6] == 1}, b, nil
}
