package dcpi

import (
	"fmt"
	"time"

	"github.com/hpcfs/hpcfs/internal/symbols"
)

// module is the binary of the image the profile sampled (its path
// header line), nil when the header names none.
// A binary whose text does not fit the header's tstart and tsize is
// another build: its names are left out, and _errors.txt says why (once);
// one modified after the epoch is named, with an _errors.txt line.
func (p *profile) module() *symbols.Module {
	p.symOnce.Do(func() {
		if ps := p.hdr.Values("path"); len(ps) > 0 && ps[0] != "" {
			p.sym = p.syms().Module(ps[0])
			p.symReport = p.errs.Reporter(p.dir)
			changed, newer := p.sym.Compare(symbols.Measured{When: epochEnd(p.hdr.Epoch), TextStart: p.hdr.Tstart, TextSize: p.hdr.Tsize})
			for _, err := range []error{changed, newer} {
				if err != nil {
					p.symReport(fmt.Errorf("symbols of %s: %v", ps[0], err))
				}
			}
			p.symChanged = changed != nil
		}
	})
	return p.sym
}

// epochEnd is the last instant of the header's epoch (YYMMDDHHMM, or
// YYYYMMDDHHMMSS, UTC); zero when it reads as neither.
func epochEnd(s string) time.Time {
	if t, err := time.Parse("0601021504", s); err == nil {
		return t.Add(time.Minute - time.Nanosecond)
	}
	if t, err := time.Parse("20060102150405", s); err == nil {
		return t.Add(time.Second - time.Nanosecond)
	}
	return time.Time{}
}

// frames gives the source frames at an address of the image, innermost
// first; nil when its binary or symbols are missing or of another build
// (the reason goes to _errors.txt once).
func (p *profile) frames(addr uint64) []symbols.Frame {
	m := p.module()
	if m == nil || p.symChanged {
		return nil
	}
	return m.Frames(addr, p.symReport)
}

// symbolFiles is the image's binary when found: an input of the views
// that show its names (index keys).
func (p *profile) symbolFiles() []string {
	if m := p.module(); m != nil {
		if f, err := m.File(); err == nil {
			return []string{f}
		}
	}
	return nil
}
