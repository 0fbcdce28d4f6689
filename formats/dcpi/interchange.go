package dcpi

import (
	"path"
	"slices"
	"strconv"

	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// A DCPI profile is flat: samples per address of one image for one
// event. The source's interchange views (flame/, profile.pb.gz,
// bottom-up.csv, callers/ at the root) sum every profile whose body
// decodes: one metric per event (its sample counts, unit "samples"), and
// per address with samples one stack, the address's functions outermost
// first (the calls it is inlined in, then its own function, with file and
// line) when its binary's symbols name it, else the address itself
// (0x..., with the image's path as the module).

// events are the distinct events of the profiles whose body decodes, in
// the order the profiles come.
func events(profiles []*profile) []string {
	var out []string
	for _, p := range profiles {
		if p.hdr.BodyDecodable() && !slices.Contains(out, p.hdr.Event) {
			out = append(out, p.hdr.Event)
		}
	}
	return out
}

func eventMetrics(profiles []*profile) []interchange.Metric {
	var out []interchange.Metric
	for _, e := range events(profiles) {
		out = append(out, interchange.Metric{Name: e, Unit: "samples"})
	}
	return out
}

// imagePath is the image's binary as the header names it, else its id.
func (p *profile) imagePath() string {
	if ps := p.hdr.Values("path"); len(ps) > 0 && ps[0] != "" {
		return ps[0]
	}
	return p.hdr.Image
}

// addSamples adds p's samples to t as metric m. The body's problems are
// the summary scan's to report; the samples stop at the first.
func (p *profile) addSamples(t *interchange.Tree, m int) error {
	if _, err := p.summary(); err != nil {
		return err
	}
	f, err := p.open()
	if err != nil {
		return err
	}
	module := p.imagePath()
	name := path.Base(module)
	sr := f.Samples(f.Start())
	for {
		smp, err := sr.Next()
		if err != nil {
			return nil
		}
		if smp.Count == 0 {
			continue
		}
		addr := smp.Address(f.Header)
		frames := p.frames(addr)
		n := interchange.Root
		if len(frames) == 0 || frames[0].Function == "" {
			n = t.Child(n, interchange.Frame{Name: name + "+0x" + strconv.FormatUint(addr, 16), Module: module, Addr: addr})
		} else {
			for i := len(frames) - 1; i >= 0; i-- {
				fr := interchange.Frame{Name: frames[i].Function, File: frames[i].File, Line: int64(frames[i].Line), Module: module}
				if i == 0 {
					fr.Addr = addr
				}
				n = t.Child(n, fr)
			}
		}
		t.Add(n, m, int64(smp.Count))
	}
}

// addInterchange adds the interchange views of the profiles to dir.
func addInterchange(dir *vfs.Dir, src string, profiles []*profile, report func(string) func(error)) {
	build := func() (*interchange.Tree, error) {
		evs := events(profiles)
		t := interchange.NewTree(eventMetrics(profiles))
		for _, p := range profiles {
			if !p.hdr.BodyDecodable() {
				continue
			}
			if err := p.addSamples(t, slices.Index(evs, p.hdr.Event)); err != nil {
				return nil, err
			}
		}
		return t, nil
	}
	interchange.NewProfile(build, "DCPI "+src, []string{"hpcfs: DCPI " + src}, report).AddViews(dir)
}
