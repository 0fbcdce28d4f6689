package interchange

import (
	"bytes"

	"github.com/google/pprof/profile"
)

// pprofBytes encodes t as a gzipped pprof profile: one sample type per
// metric, one sample per node with a non-zero exclusive value (its stack
// leaf first), one location per frame, one function per (name, file) and
// one mapping per load module. The profile is built from the tree and
// dropped once encoded, so the tree is held once more only while this
// runs.
func pprofBytes(t *Tree, comments []string) ([]byte, error) {
	nm := len(t.Metrics)
	p := &profile.Profile{Comments: comments}
	for _, m := range t.Metrics {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: m.Name, Unit: m.Unit})
	}
	if nm > 0 {
		p.DefaultSampleType = t.Metrics[0].Name
	}
	mappings := map[string]*profile.Mapping{}
	type fnKey struct{ name, file string }
	functions := map[fnKey]*profile.Function{}
	locs := make([]*profile.Location, len(t.frames))
	location := func(fi int32) *profile.Location {
		if l := locs[fi]; l != nil {
			return l
		}
		f := t.frames[fi]
		k := fnKey{FrameLabel(f), f.File}
		fn := functions[k]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: k.name, SystemName: f.Name, Filename: f.File}
			functions[k] = fn
			p.Function = append(p.Function, fn)
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Address: f.Addr,
			Line: []profile.Line{{Function: fn, Line: f.Line}}}
		if f.Module != "" {
			m := mappings[f.Module]
			if m == nil {
				m = &profile.Mapping{ID: uint64(len(p.Mapping) + 1), File: f.Module,
					HasFunctions: true, HasFilenames: f.File != "", HasLineNumbers: f.Line != 0}
				mappings[f.Module] = m
				p.Mapping = append(p.Mapping, m)
			}
			m.HasFilenames = m.HasFilenames || f.File != ""
			m.HasLineNumbers = m.HasLineNumbers || f.Line != 0
			l.Mapping = m
		}
		locs[fi] = l
		p.Location = append(p.Location, l)
		return l
	}
	var rootLoc *profile.Location
	for _, x := range t.order {
		vals := t.vals[int(x)*nm : int(x)*nm+nm]
		nonzero := false
		for _, v := range vals {
			nonzero = nonzero || v != 0
		}
		if !nonzero {
			continue
		}
		var stack []*profile.Location
		if x == Root {
			if rootLoc == nil {
				fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: t.label(Root)}
				p.Function = append(p.Function, fn)
				rootLoc = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn}}}
				p.Location = append(p.Location, rootLoc)
			}
			stack = []*profile.Location{rootLoc}
		} else {
			stack = make([]*profile.Location, 0, t.depth[x])
			for y := x; y != Root; y = t.parent[y] {
				stack = append(stack, location(t.frame[y]))
			}
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: vals})
	}
	if err := p.CheckValid(); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
