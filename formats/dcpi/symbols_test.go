package dcpi

import (
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
	"time"

	pprof "github.com/google/pprof/profile"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/addr2line"
	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

// TestSymbolsMatchAddr2line writes a profile of a compiled C++ program
// (the image's path is the binary) with samples at every 4-byte address
// of its .text where addr2line knows the line, and checks every row of
// samples.csv and top.csv, read through a FUSE mount, against addr2line
// -f -i -C (of the same code built without split DWARF for the builds
// whose split units are packed in a .dwp, which README.txt names).
func TestSymbolsMatchAddr2line(t *testing.T) {
	for _, v := range []program.Variant{program.CXX, program.CXXLink, program.CXXDWP, program.CXXDWP4} {
		t.Run(string(v), func(t *testing.T) {
			b := program.BuildT(t, v)
			lo, hi, err := program.Text(b.Path)
			if err != nil {
				t.Fatal(err)
			}
			oracle := b.Path
			if v.Split() {
				oracle = b.Full // addr2line reads no split line table; the same code without split DWARF
			}
			addrs, frames, err := addr2line.Known(oracle, lo, hi, 1)
			if err != nil {
				t.Fatal(err)
			}
			// tsize in decimal (the format's <digit>+), the epoch after the build
			p := gen.New("pdb-0.07", lo).Set("path", b.Path).Set("tsize", strconv.FormatUint(hi-lo, 10)).
				Set("epoch", time.Now().UTC().Add(time.Minute).Format("0601021504"))
			counts := make([]uint32, (hi-lo+3)/4)
			want := map[string][]addr2line.Frame{}
			for i, a := range addrs {
				if (a-lo)%4 == 0 {
					counts[(a-lo)/4] = uint32(1 + i%7)
					want["0x"+strconv.FormatUint(a, 16)] = frames[i]
				}
			}
			p.Chunks = []gen.Chunk{{Offset: 0, Counts: counts}}
			_, fsys := mount(t, write(t, t.TempDir(), "prof", p.Bytes()))
			mnt := fsnodetest.Mount(t, fsys)
			for _, view := range []string{"prof/samples.csv", "prof/top.csv"} {
				rows := testdata.ReadCSV(t, testdata.ReadFS(t, os.DirFS(mnt), view))
				if len(rows)-1 != len(want) {
					t.Fatalf("%s: %d rows, want %d", view, len(rows)-1, len(want))
				}
				inlined := 0
				for _, r := range rows[1:] {
					addr, _ := strconv.ParseUint(strings.TrimPrefix(r[0], "0x"), 16, 64)
					w := want["0x"+strconv.FormatUint(addr, 16)]
					fn, file, line, inl := addr2line.Columns(w)
					if got, exp := strings.Join([]string{r[5], r[7], r[8], r[9]}, "|"), strings.Join([]string{fn, file, line, inl}, "|"); got != exp {
						t.Errorf("%s %s: got %q, addr2line %q", view, r[0], got, exp)
					}
					if inl != "" {
						inlined++
					}
				}
				if inlined == 0 {
					t.Errorf("%s: no row in inlined code", view)
				}
			}
			// profile.pb.gz: the samples of each stack of functions (the calls
			// an address is inlined in, outermost first, then its function)
			// add up to the counts of the addresses addr2line gives it
			wantStacks, gotStacks := map[string]int64{}, map[string]int64{}
			for i, a := range addrs {
				if (a-lo)%4 != 0 {
					continue
				}
				var names []string
				for j := len(frames[i]) - 1; j >= 0; j-- {
					names = append(names, frames[i][j].Function)
				}
				if frames[i][0].Function == "??" {
					names = []string{path.Base(b.Path) + "+0x" + strconv.FormatUint(a, 16)}
				}
				wantStacks[strings.Join(names, ";")] += int64(1 + i%7)
			}
			prof, err := pprof.ParseData(testdata.ReadFS(t, os.DirFS(mnt), "profile.pb.gz"))
			if err != nil {
				t.Fatal(err)
			}
			for _, smp := range prof.Sample {
				var names []string
				for j := len(smp.Location) - 1; j >= 0; j-- {
					for k := len(smp.Location[j].Line) - 1; k >= 0; k-- {
						names = append(names, smp.Location[j].Line[k].Function.Name)
					}
				}
				gotStacks[strings.Join(names, ";")] += smp.Value[0]
			}
			if len(gotStacks) != len(wantStacks) {
				t.Errorf("profile.pb.gz: %d stacks, addr2line gives %d", len(gotStacks), len(wantStacks))
			}
			for stack, n := range wantStacks {
				if gotStacks[stack] != n {
					t.Errorf("profile.pb.gz: %d samples in %s, addr2line's addresses have %d", gotStacks[stack], stack, n)
				}
			}
			if readme := string(testdata.ReadFS(t, os.DirFS(mnt), "README.txt")); !strings.Contains(readme, b.Path) ||
				b.DWP != "" && !strings.Contains(readme, "from .dwp") {
				t.Errorf("README.txt does not say where the symbols come from:\n%s", readme)
			}
			if errs := string(testdata.ReadFS(t, os.DirFS(mnt), "_errors.txt")); errs != "" {
				t.Errorf("_errors.txt %q", errs)
			}
		})
	}
}

// TestBinaryChangedSinceMeasurement: a DCPI profile records no build-id,
// but its tstart and tsize: a binary whose .text does not fit them is of
// another build (its names are left out, _errors.txt says so once), and
// one modified after the header's epoch is named with an _errors.txt
// line saying it may have been rebuilt.
func TestBinaryChangedSinceMeasurement(t *testing.T) {
	b := program.BuildT(t, program.CXX)
	lo, hi, err := program.Text(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	future := time.Now().UTC().Add(time.Minute).Format("0601021504")
	for _, c := range []struct {
		name, epoch   string
		tstart, tsize uint64
		named         bool
		want          string
	}{
		{"same", future, lo, hi - lo, true, ""},
		{"text shorter", future, lo, hi - lo - 64, false, "is another build than the one measured"},
		{"text elsewhere", future, lo + 0x100000, hi - lo, false, "is another build than the one measured"},
		{"rebuilt after", "9805191724", lo, hi - lo, true, "after the measurement (1998-05-19T17:24:59Z)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := gen.New("pdb-0.07", c.tstart).Set("path", b.Path).Set("tsize", strconv.FormatUint(c.tsize, 10)).Set("epoch", c.epoch)
			p.Chunks = []gen.Chunk{{Offset: uint32(lo - c.tstart), Counts: []uint32{1, 2, 3, 4}}}
			if c.tstart > lo {
				p.Chunks[0].Offset = 0
			}
			src, fsys := mount(t, write(t, t.TempDir(), "prof", p.Bytes()))
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "prof/samples.csv"))
			named := 0
			for _, r := range rows[1:] {
				if r[5] != "" {
					named++
				}
			}
			if c.named != (named > 0) {
				t.Errorf("%d of %d rows named", named, len(rows)-1)
			}
			errs := src.Errors.Lines()
			if c.want == "" && len(errs) != 0 || c.want != "" && (len(errs) != 1 || !strings.Contains(errs[0], c.want)) {
				t.Errorf("_errors.txt %q, want one line with %q", errs, c.want)
			}
		})
	}
}
