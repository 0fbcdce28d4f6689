package dcpi

import (
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// A profile is one profile file of the source and its views.
type profile struct {
	rel     string // path relative to the source (slash-separated); the base name for a file source
	path    string // on disk
	hdr     *dcpi.Header
	size    int64 // at mount time
	dir     string
	viewDir *vfs.Dir
	errs    *vfs.Errors
	files   *openFiles

	fileOnce sync.Once
	file     *dcpi.File
	fileErr  error

	sumOnce sync.Once
	sum     dcpi.Summary
	sumErr  error

	planOnce sync.Once
	bands    []band
	planErr  error

	syms       func() *symbols.Resolver // the mount's, on first use
	symOnce    sync.Once
	sym        *symbols.Module // the image's binary, nil when the header names none
	symReport  func(error)
	symChanged bool // the binary is of another build than the one measured
}

// openFiles closes the profiles' files with the source.
type openFiles struct {
	mu    sync.Mutex
	files []io.Closer
}

func (o *openFiles) add(c io.Closer) {
	o.mu.Lock()
	o.files = append(o.files, c)
	o.mu.Unlock()
}

func (o *openFiles) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range o.files {
		c.Close()
	}
	o.files = nil
	return nil
}

// open opens the profile file on first use and keeps it open.
func (p *profile) open() (*dcpi.File, error) {
	p.fileOnce.Do(func() {
		f, err := os.Open(p.path)
		if err != nil {
			p.fileErr = err
			return
		}
		// A file changed since the mount is the tree's to find (vfs.Inputs):
		// its views then fail, whatever this decodes.
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			p.fileErr = err
			return
		}
		p.files.add(f)
		df, err := dcpi.NewFile(f, fi.Size())
		if err != nil {
			p.fileErr = fmt.Errorf("%s: %w", p.path, render.ErrChanged)
			return
		}
		p.file = df
	})
	return p.file, p.fileErr
}

// reportHeader adds the header's problems to _errors.txt at mount time.
func (p *profile) reportHeader() {
	p.errs.ReportAll(p.dir+"/header.txt", p.hdr.Problems)
	if err := p.hdr.BodyErr(); err != nil {
		p.report(p.dir, err)
	}
}

// report adds a line "where: err" to _errors.txt.
func (p *profile) report(where string, err error) {
	p.errs.Report(where, fmt.Errorf("%s: %w", where, err))
}

// summary scans the body once; it reports chunk and footer problems.
func (p *profile) summary() (*dcpi.Summary, error) {
	p.sumOnce.Do(func() {
		f, err := p.open()
		if err != nil {
			p.sumErr = err
			return
		}
		p.sum, p.sumErr = f.Scan()
		if p.sumErr != nil || !p.hdr.BodyDecodable() {
			return
		}
		if p.sum.BodyErr != nil {
			p.report(p.dir, fmt.Errorf("%w (the views end before this chunk)", p.sum.BodyErr))
		}
		if p.sum.FooterErr != nil && p.sum.BodyErr == nil {
			p.report(p.dir, p.sum.FooterErr)
		} else if err := p.sum.FooterCheck(); err != nil && p.sum.BodyErr == nil {
			p.report(p.dir, fmt.Errorf("%w (pct columns use the sum of the counts read)", err))
		}
	})
	return &p.sum, p.sumErr
}

// total is the denominator of the pct columns: the footer's total_samples
// when the footer agrees with the chunks, else the sum of the counts read.
func total(s *dcpi.Summary) uint64 {
	if s.FooterCheck() == nil {
		return uint64(s.Footer.TotalSamples)
	}
	return s.Samples
}

func pct(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) * 100 / float64(whole)
}
