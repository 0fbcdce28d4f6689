package dcpi

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// imagesCSV is dcpiprof -i without symbols: one row per profile, by
// samples descending (then profile path); profiles whose samples cannot be
// decoded come last with empty sample columns.
func imagesCSV(profiles []*profile) ([]byte, error) {
	type row struct {
		p       *profile
		samples uint64
		ok      bool
	}
	rows := make([]row, len(profiles))
	var grand uint64
	for i, p := range profiles {
		rows[i].p = p
		if !p.hdr.BodyDecodable() {
			continue
		}
		s, err := p.summary()
		if err != nil {
			return nil, err
		}
		rows[i].samples, rows[i].ok = total(s), true
		grand += rows[i].samples
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if a.ok != b.ok {
			if a.ok {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.samples, a.samples); c != 0 {
			return c
		}
		return strings.Compare(a.p.rel, b.p.rel)
	})
	b := []byte("profile,image,path,event,period,epoch,samples,pct,cum_pct\n")
	var cum uint64
	for _, r := range rows {
		h := r.p.hdr
		fields := []string{r.p.rel, first(h.Values("image")), first(h.Values("path")), first(h.Values("event")), first(h.Values("period")), first(h.Values("epoch"))}
		if r.ok {
			cum += r.samples
			fields = append(fields, strconv.FormatUint(r.samples, 10), render.FormatPct(pct(r.samples, grand)), render.FormatPct(pct(cum, grand)))
		} else {
			fields = append(fields, "", "", "")
		}
		b = render.AppendCSVRow(b, fields...)
	}
	return b, nil
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

func readme(src string, isDir bool, profiles []*profile, skipped []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "hpcfs mount of %s\n\n", src)
	if isDir {
		fmt.Fprintf(&b, "Format: a directory of DCPI profile files (dcpiformat(4)); %s", vfs.Count(len(profiles), "profile"))
		if len(skipped) > 0 {
			fmt.Fprintf(&b, ", %d other files not shown (see raw/)", len(skipped))
		}
		b.WriteString(".\n")
	} else {
		fmt.Fprintf(&b, "Format: one DCPI profile file (dcpiformat(4)), version %s.\n", profiles[0].hdr.Version)
	}
	b.WriteString(`
Versions 0.06 and 0.07 are decoded: an ASCII header up to the line "samples",
then chunks (u32 offset, u32 number, number x u32 count, little-endian) and an
8-byte footer (addresses with >= 1 sample, total samples). The binary layout
of version 1.x was never published: such profiles show their header only,
and _errors.txt says so.

Addresses: Alpha instructions are 4 bytes, so count i of a chunk belongs to
address tstart + offset + 4*i, offset in bytes. The specification does not
say so; DCPI's text tools print only multiples of 4.

Tree:
  README.txt            this file
  _errors.txt           problems found so far: header rules broken, chunks out
                        of order or overlapping, a footer that disagrees with
                        the chunks (the body is scanned in the background after
                        mounting, so this file fills in shortly)
  raw/                  the original files, byte for byte
`)
	if isDir {
		b.WriteString(`  images.csv            one row per profile, by samples descending (dcpiprof -i):
                        profile,image,path,event,period,epoch,samples,pct,cum_pct
                        profile = the file's path below the mounted directory
`)
	}
	b.WriteString(`  <profile>/            one directory per profile file (mirroring its path)
    header.txt          the ASCII header as stored, then the decoded fields,
                        the body summary and the footer check
    samples.txt         dcpicat's layout: its header block (name, image, path,
                        epoch, platform, text_start, text_size, event W X:Y:Z
                        with W = total samples, Y = period, Z = 10000), then one
                        line per address with >= 1 sample: 0x%012x address and
                        the count right-aligned in 8 columns
    samples.csv         address,offset,count,pct,cum_pct,function,raw_name,file,
                        line,inlined in address order
    top.csv             the same rows by count descending, ties by address
                        (dcpiprof's ordering); cum_pct is accumulated in that
                        order

Units: address is a 0x hex instruction address; offset = address - tstart in
bytes, 0x hex; count is a number of samples; pct = 100 * count / total samples
with 2 decimals (cum_pct too), where total samples is the footer's total_samples
when the footer agrees with the chunks, else the sum of the counts that could be
read. Rows with a zero count are left out. A profile whose chunks break a rule
shows the samples before the bad chunk.

top.csv is sorted with bounded memory: one pass over the body counts the
addresses of every count value, the values are split into bands of at most
1048576 addresses, and each band is filled in sorted order by one more pass
(8 MiB per band; 16 MiB for counts of 65536 and more). A single count value
held by more addresses is streamed in address order.

Names of addresses: function is the demangled name of the innermost function
at the address in the image's binary (the path line), raw_name the name as the
binary has it, file and line the source line, inlined the functions it is
inlined in, outermost first, as "function (file:line)" of each call joined by
';'; empty when the binary or its symbols are not found (_errors.txt says why).
`)
	b.WriteString(`
A DCPI profile is flat: in the interchange views below, of the samples of every
profile, a stack is one address (image+0xaddress), or the functions at the
address, outermost first, when its binary's symbols name them; a metric is an
event, its samples summed over the profiles of that event. In a profile that
samples more than ` + strconv.Itoa(maxAddressStacks) + ` addresses, those without a name are grouped by
block of text (image+0xfirst-0xlast: blocks of the smallest power of 2 bytes
that cuts the sampled range into at most ` + strconv.Itoa(maxAddressStacks) + `), so that these views
stay within the memory budget; samples.csv and top.csv keep every address.
`)
	b.WriteString(interchange.ProfileReadme(eventMetrics(profiles)))
	var paths []string
	var syms *symbols.Resolver
	for _, p := range profiles {
		if m := p.module(); m != nil && !slices.Contains(paths, m.Recorded) {
			paths = append(paths, m.Recorded)
			syms = p.syms()
		}
	}
	if syms != nil {
		sort.Strings(paths)
		b.WriteString(syms.Readme(paths))
	}
	return []byte(b.String())
}
