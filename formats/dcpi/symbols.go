package dcpi

import (
	"github.com/hpcfs/hpcfs/internal/symbols"
)

// module is the binary of the image the profile sampled (its path
// header line), nil when the header names none.
func (p *profile) module() *symbols.Module {
	p.symOnce.Do(func() {
		if ps := p.hdr.Values("path"); len(ps) > 0 && ps[0] != "" {
			p.sym = p.syms.Module(ps[0])
			p.symReport = p.errs.Reporter(p.dir)
		}
	})
	return p.sym
}

// frames gives the source frames at an address of the image, innermost
// first; nil when its binary or symbols are missing (the reason goes to
// _errors.txt once).
func (p *profile) frames(addr uint64) []symbols.Frame {
	m := p.module()
	if m == nil {
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
