// Package dcpi writes synthetic DCPI profile files (dcpiformat(4), versions
// 0.06 and 0.07) for tests and benchmarks, and keeps the model they were
// written from, so tests compute expected views from the model rather than
// from the decoder.
//
// The model follows the project's reading of the specification: count i
// of a chunk belongs to address tstart + offset + 4·i, offset in bytes.
package dcpi

import (
	"bufio"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
)

// A Chunk is a contiguous run of counts starting at Offset bytes after
// tstart.
type Chunk struct {
	Offset uint32
	Counts []uint32
}

// A Profile is a profile file to write: header lines as text, chunks and
// an optional forced footer.
type Profile struct {
	Lines      []string // header lines without their newline, in order
	Terminator string   // the terminator line without newline; "samples" when empty
	PadTo4     bool     // pad the terminator with blanks so the header length is a multiple of 4
	Tstart     uint64   // must agree with the tstart line; used by the model
	Chunks     []Chunk
	Footer     *[2]uint32 // written instead of the true footer when not nil
	Body       []byte     // written instead of chunks and footer when not nil
}

// New returns a profile of the given version ("pdb-0.07") with all the
// required lines, in the specification's order.
func New(version string, tstart uint64) *Profile {
	return &Profile{
		Tstart: tstart,
		Lines: []string{
			"version " + version,
			"image 19970328081403c0c18b",
			"epoch 9805191724",
			"platform walnut",
			"event cycles",
			"period 63488",
			"tstart " + strconv.FormatUint(tstart, 16),
			"tsize 8388608",
			"cpuspeed 500",
		},
	}
}

// Set replaces the first line with key (or appends one) by "key value".
func (p *Profile) Set(key, value string) *Profile {
	for i, l := range p.Lines {
		if strings.HasPrefix(l, key+" ") || strings.HasPrefix(l, key+"\t") || l == key {
			p.Lines[i] = key + " " + value
			return p
		}
	}
	p.Lines = append(p.Lines, key+" "+value)
	return p
}

// Remove drops every line with key.
func (p *Profile) Remove(key string) *Profile {
	var out []string
	for _, l := range p.Lines {
		if !(strings.HasPrefix(l, key+" ") || strings.HasPrefix(l, key+"\t") || l == key) {
			out = append(out, l)
		}
	}
	p.Lines = out
	return p
}

// Header returns the header bytes.
func (p *Profile) Header() []byte {
	var b []byte
	for _, l := range p.Lines {
		b = append(b, l...)
		b = append(b, '\n')
	}
	term := p.Terminator
	if term == "" {
		term = "samples"
	}
	b = append(b, term...)
	if p.PadTo4 {
		for (len(b)+1)%4 != 0 {
			b = append(b, ' ')
		}
	}
	return append(b, '\n')
}

// Bytes returns the whole file.
func (p *Profile) Bytes() []byte {
	b := p.Header()
	if p.Body != nil {
		return append(b, p.Body...)
	}
	for _, c := range p.Chunks {
		b = binary.LittleEndian.AppendUint32(b, c.Offset)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(c.Counts)))
		for _, v := range c.Counts {
			b = binary.LittleEndian.AppendUint32(b, v)
		}
	}
	f := p.TrueFooter()
	if p.Footer != nil {
		f = *p.Footer
	}
	b = binary.LittleEndian.AppendUint32(b, f[0])
	return binary.LittleEndian.AppendUint32(b, f[1])
}

// A Sample is one expected row: an address with at least one sample.
type Sample struct {
	Address uint64
	Offset  uint64 // Address - tstart
	Count   uint32
}

// Expected lists the addresses with at least one sample in address order,
// computed from the model.
func (p *Profile) Expected() []Sample {
	var out []Sample
	for _, c := range p.Chunks {
		for i, v := range c.Counts {
			if v == 0 {
				continue
			}
			off := uint64(c.Offset) + 4*uint64(i)
			out = append(out, Sample{p.Tstart + off, off, v})
		}
	}
	return out
}

// TrueFooter is the footer the model implies: addresses with samples and
// the sum of counts (modulo 2^32).
func (p *Profile) TrueFooter() [2]uint32 {
	var n, sum uint32
	for _, s := range p.Expected() {
		n++
		sum += s.Count
	}
	return [2]uint32{n, sum}
}

// Synthetic describes a large profile generated on the fly: Addresses
// counts ≥ 1 spread over chunks of 1..MaxChunk counts, a fraction Zeros of
// the counts zero (sparse ranges), chunks separated by 0..MaxGap
// instructions. The same Synthetic always gives the same file.
type Synthetic struct {
	Seed      uint64
	Version   string // "pdb-0.07" when empty
	Tstart    uint64
	Addresses int
	MaxChunk  int
	Zeros     float64
	MaxGap    int
}

func (s Synthetic) withDefaults() Synthetic {
	if s.Version == "" {
		s.Version = "pdb-0.07"
	}
	if s.Tstart == 0 {
		s.Tstart = 0x120000000
	}
	if s.MaxChunk <= 0 {
		s.MaxChunk = 64
	}
	return s
}

// Profile returns the header part (lines, padding) of the synthetic
// profile; its Chunks are empty.
func (s Synthetic) Profile() *Profile {
	s = s.withDefaults()
	p := New(s.Version, s.Tstart)
	p.Set("path", "/usr/local/bin/synthetic")
	p.PadTo4 = true
	return p
}

// EachChunk calls fn with every chunk in order; counts is reused between
// calls.
func (s Synthetic) EachChunk(fn func(offset uint32, counts []uint32)) {
	s = s.withDefaults()
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	counts := make([]uint32, 0, s.MaxChunk)
	var next uint64
	left := s.Addresses
	for left > 0 {
		n := 1 + rng.IntN(s.MaxChunk)
		counts = counts[:0]
		for len(counts) < n && left > 0 {
			if s.Zeros > 0 && rng.Float64() < s.Zeros && len(counts) > 0 {
				counts = append(counts, 0)
				continue
			}
			counts = append(counts, count(rng))
			left--
		}
		fn(uint32(next), counts)
		next += 4 * uint64(len(counts))
		if s.MaxGap > 0 {
			next += 4 * uint64(rng.IntN(s.MaxGap+1))
		}
		if next > 1<<32-4*uint64(s.MaxChunk) {
			next = 1<<32 - 4*uint64(s.MaxChunk) // stays in range: such sizes are beyond the bench
		}
	}
}

// count draws a sample count: mostly small, with a heavy tail.
func count(rng *rand.Rand) uint32 {
	switch r := rng.IntN(1000); {
	case r == 0:
		return 1000 + rng.Uint32N(50000)
	case r < 50:
		return 100 + rng.Uint32N(900)
	default:
		return 1 + uint32(rng.ExpFloat64()*8)
	}
}

// WriteTo writes the synthetic profile to w.
func (s Synthetic) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	cw.Write(s.Profile().Header())
	var n, sum uint32
	var buf []byte
	s.EachChunk(func(offset uint32, counts []uint32) {
		buf = binary.LittleEndian.AppendUint32(buf[:0], offset)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(counts)))
		for _, v := range counts {
			buf = binary.LittleEndian.AppendUint32(buf, v)
			if v != 0 {
				n++
				sum += v
			}
		}
		cw.Write(buf)
	})
	buf = binary.LittleEndian.AppendUint32(buf[:0], n)
	buf = binary.LittleEndian.AppendUint32(buf, sum)
	cw.Write(buf)
	if cw.err != nil {
		return cw.n, cw.err
	}
	return cw.n, bw.Flush()
}

// Model returns the synthetic profile as an in-memory Profile (for tests
// of moderate size).
func (s Synthetic) Model() *Profile {
	p := s.Profile()
	p.Tstart = s.withDefaults().Tstart
	s.EachChunk(func(offset uint32, counts []uint32) {
		p.Chunks = append(p.Chunks, Chunk{offset, append([]uint32(nil), counts...)})
	})
	return p
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}
