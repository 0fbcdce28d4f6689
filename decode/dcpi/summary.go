package dcpi

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"

	"github.com/hpcfs/hpcfs/decode"
)

// A Summary is what one pass over the body finds.
type Summary struct {
	Chunks    int64  // chunks read before the end or the first bad chunk
	Counts    int64  // counts read, zeros included
	Addresses int64  // counts ≥ 1
	Samples   uint64 // sum of the counts
	MinCount  uint32 // smallest count ≥ 1; 0 when there is none
	MaxCount  uint32
	End       int64 // file offset where reading stopped

	Footer    Footer
	FooterErr error // the footer could not be read
	BodyErr   error // the bad chunk that ended the samples (a *decode.FormatError), or the reason the body is not decodable
}

// Scan reads the whole body once. Its error is only that of the
// underlying reader; malformed data is reported in the Summary.
func (f *File) Scan() (Summary, error) {
	var s Summary
	sr := f.Samples(f.Start())
	for {
		_, counts, err := sr.NextRun()
		if err == io.EOF {
			break
		}
		if err != nil {
			if !isDataError(err) {
				return s, err
			}
			s.BodyErr = err
			break
		}
		s.Counts += int64(len(counts) / 4)
		for i := 0; i+4 <= len(counts); i += 4 {
			c := binary.LittleEndian.Uint32(counts[i:])
			if c == 0 {
				continue
			}
			s.Addresses++
			s.Samples += uint64(c)
			if s.MinCount == 0 || c < s.MinCount {
				s.MinCount = c
			}
			s.MaxCount = max(s.MaxCount, c)
		}
	}
	s.Chunks = sr.pos.Chunks
	s.End = sr.pos.Off
	s.Footer, s.FooterErr = f.Footer()
	return s, nil
}

func isDataError(err error) bool {
	return errors.Is(err, decode.ErrFormat) || errors.Is(err, decode.ErrTruncated) || errors.Is(err, decode.ErrUnsupportedVersion)
}

// FooterCheck compares the footer with the counts read. It returns nil
// when both footer values agree with the body, which requires the body to
// have been read to its end without error.
func (s *Summary) FooterCheck() error {
	if s.FooterErr != nil {
		return s.FooterErr
	}
	bad := func(msg string) error {
		return decode.ErrAt("dcpi", "footer", s.End, msg, nil, nil)
	}
	if s.BodyErr != nil {
		return bad("not checked: the chunks could not all be read")
	}
	var msg string
	if uint64(s.Footer.TotalOffsets) != uint64(s.Addresses) {
		msg = "total_offsets " + strconv.FormatUint(uint64(s.Footer.TotalOffsets), 10) +
			" but the chunks hold " + strconv.FormatInt(s.Addresses, 10) + " addresses with samples"
	}
	if uint64(s.Footer.TotalSamples) != s.Samples {
		if msg != "" {
			msg += "; "
		}
		msg += "total_samples " + strconv.FormatUint(uint64(s.Footer.TotalSamples), 10) +
			" but the counts sum to " + strconv.FormatUint(s.Samples, 10)
	}
	if msg != "" {
		return bad(msg)
	}
	return nil
}
