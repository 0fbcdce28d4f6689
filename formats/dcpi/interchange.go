package dcpi

import (
	"path"
	"slices"
	"strconv"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// A DCPI profile is flat: samples per address of one image for one
// event. The source's interchange views (flame/, profile.pb.gz,
// bottom-up.csv, callers/ at the root) sum every profile whose body
// decodes: one metric per event (its sample counts, unit "samples"), and
// per address with samples one stack, the address's functions outermost
// first (the calls it is inlined in, then its own function, with file and
// line) when its binary's symbols name it, else the address as
// image+0xaddress (the base name of the image's path; hpcrun names unknown
// code so), with the image's path as the module. A profile of more than
// maxAddressStacks sampled addresses gives its unnamed ones per block of
// text instead (image+0xfirst-0xlast), so that the tree stays small.

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

// maxAddressStacks bounds the stacks of a profile's addresses that its
// binary's symbols do not name, so that the tree stays within the memory
// budget: a profile with more sampled addresses gets one stack per block
// of its text (addressBlock).
const maxAddressStacks = 1 << 16

// addressBlock is the size in bytes of the text that one stack of an
// unnamed address covers: an instruction (4) when the profile samples at
// most maxAddressStacks addresses, else the smallest power of 2 that cuts
// span bytes of text (the sampled addresses' range) into at most
// maxAddressStacks blocks.
func addressBlock(addresses int64, span uint64) uint64 {
	block := uint64(4)
	if addresses > maxAddressStacks {
		for block < 1<<62 && span/block >= maxAddressStacks {
			block *= 2
		}
	}
	return block
}

// span is the bytes from tstart to the end of the last sampled
// instruction (a pass over the body).
func span(f *dcpi.File) uint64 {
	var end uint64
	sr := f.Samples(f.Start())
	for {
		smp, err := sr.Next()
		if err != nil {
			return end
		}
		if smp.Count > 0 {
			end = max(end, smp.Offset+4)
		}
	}
}

// addSamples adds p's samples to t as metric m. The body's problems are
// the summary scan's to report; the samples stop at the first.
func (p *profile) addSamples(t *interchange.Tree, m int) error {
	s, err := p.summary()
	if err != nil {
		return err
	}
	f, err := p.open()
	if err != nil {
		return err
	}
	module := p.imagePath()
	name := path.Base(module)
	tstart := f.Header.Tstart
	block := uint64(4)
	if s.Addresses > maxAddressStacks {
		block = addressBlock(s.Addresses, span(f))
	}
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
			a := addr
			label := name + "+0x" + strconv.FormatUint(a, 16)
			if block > 4 {
				a = tstart + (addr-tstart)/block*block
				label = name + "+0x" + strconv.FormatUint(a, 16) + "-0x" + strconv.FormatUint(a+block-1, 16)
			}
			n = t.Child(n, interchange.Frame{Name: label, Module: module, Addr: a})
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
func addInterchange(dir *vfs.Dir, src string, profiles []*profile) {
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
	interchange.NewProfile(build, "DCPI "+src, []string{"hpcfs: DCPI " + src}).AddViews(dir)
}
