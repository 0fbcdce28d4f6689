package dcpi

import (
	"os/exec"
	"path"
	"strconv"
	"strings"
	"testing"

	pprof "github.com/google/pprof/profile"

	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
)

// TestInterchange: profile.pb.gz of a directory of profiles of two
// events holds, per event (a sample type of unit samples) and address
// (a location named image+0xaddress), the count the generator wrote,
// and go tool pprof -top totals each event's samples; bottom-up.csv's
// procedures add up to the same.
func TestInterchange(t *testing.T) {
	ps := profiles()
	imiss := gen.Synthetic{Seed: 11, Addresses: 3000 / raceScale, MaxChunk: 30, MaxGap: 10}.Model()
	imiss.Set("event", "imiss")
	ps["imiss"] = imiss
	v1 := gen.New("pdb-1.01", 0x1000)
	v1.Body = []byte{1, 2, 3, 4, 5}
	ps["v1"] = v1
	dir := t.TempDir()
	for _, k := range []string{"one", "optional", "many", "empty", "imiss", "v1"} {
		write(t, dir, "d/"+k, ps[k].Bytes())
	}
	_, fsys := mount(t, dir+"/d")

	// the model: event -> name -> count
	want := map[string]map[string]int64{"cycles": {}, "imiss": {}}
	totals := map[string]int64{}
	for _, k := range []string{"one", "optional", "many", "empty", "imiss"} {
		p := ps[k]
		event, image := "", ""
		for _, l := range p.Lines {
			key, v, _ := strings.Cut(l, " ")
			switch {
			case key == "event":
				event = v
			case key == "image" && image == "":
				image = v
			case key == "path" && (image == "" || !strings.HasPrefix(image, "/")):
				image = v
			}
		}
		for _, s := range p.Expected() {
			name := path.Base(image) + "+0x" + strconv.FormatUint(s.Address, 16)
			want[event][name] += int64(s.Count)
			totals[event] += int64(s.Count)
		}
	}

	b := read(t, fsys, "profile.pb.gz")
	prof, err := pprof.ParseData([]byte(b))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, st := range prof.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	if strings.Join(types, " ") != "cycles/samples imiss/samples" {
		t.Fatalf("sample types %v", types)
	}
	got := map[string]map[string]int64{"cycles": {}, "imiss": {}}
	for _, s := range prof.Sample {
		if len(s.Location) != 1 || len(s.Location[0].Line) != 1 {
			t.Fatalf("a sample of %d locations: a DCPI profile is flat", len(s.Location))
		}
		loc := s.Location[0]
		name := loc.Line[0].Function.Name
		if a, _ := strconv.ParseUint(name[strings.LastIndex(name, "+0x")+3:], 16, 64); a != loc.Address {
			t.Errorf("location %s has address %#x", name, loc.Address)
		}
		for i, v := range s.Value {
			if v != 0 {
				got[prof.SampleType[i].Type][name] += v
			}
		}
	}
	for _, e := range []string{"cycles", "imiss"} {
		if len(got[e]) != len(want[e]) {
			t.Errorf("%s: %d addresses, want %d", e, len(got[e]), len(want[e]))
		}
		for name, v := range want[e] {
			if got[e][name] != v {
				t.Errorf("%s %s: %d samples, want %d", e, name, got[e][name], v)
			}
		}
	}

	// go tool pprof -top of each event: its total
	tool, err := exec.Command("go", "tool", "-n", "pprof").Output()
	if err != nil {
		t.Fatal(err)
	}
	pb := write(t, t.TempDir(), "profile.pb.gz", []byte(b))
	for _, e := range []string{"cycles", "imiss"} {
		out, err := exec.Command(strings.TrimSpace(string(tool)), "-symbolize=none", "-top", "-sample_index="+e, pb).CombinedOutput()
		if err != nil {
			t.Fatalf("pprof -top: %v\n%s", err, out)
		}
		if w := "of " + strconv.FormatInt(totals[e], 10) + "samples total"; !strings.Contains(string(out), w) {
			t.Errorf("pprof -top -sample_index=%s does not say %q:\n%s", e, w, out)
		}
	}

	// bottom-up.csv: the procedures (depth 0) add up to the totals
	rows := testdata.ReadCSV(t, []byte(read(t, fsys, "bottom-up.csv")))
	if h := strings.Join(rows[0], ","); h != "function,depth,caller,path,cycles_inc,cycles_exc,imiss_inc,imiss_exc" {
		t.Fatalf("bottom-up.csv header %s", h)
	}
	var sums [2]int64
	for _, r := range rows[1:] {
		if r[1] == "0" {
			for i := range sums {
				v, _ := strconv.ParseInt(r[5+2*i], 10, 64)
				sums[i] += v
			}
		}
	}
	if sums[0] != totals["cycles"] || sums[1] != totals["imiss"] {
		t.Errorf("bottom-up.csv procedures add up to %v, want %d %d", sums, totals["cycles"], totals["imiss"])
	}
}

// TestInterchangeBlocks: a profile sampling more than maxAddressStacks
// addresses without names gives its stacks per block of text: the
// smallest power of 2 bytes that cuts the sampled range into fewer than
// maxAddressStacks blocks, labelled image+0xfirst-0xlast, each holding
// the samples of its addresses.
func TestInterchangeBlocks(t *testing.T) {
	p := gen.Synthetic{Seed: 5, Addresses: maxAddressStacks + 4000, MaxChunk: 50, MaxGap: 3}.Model()
	_, fsys := mount(t, write(t, t.TempDir(), "prof", p.Bytes()))
	var end uint64
	for _, s := range p.Expected() {
		end = max(end, s.Offset+4)
	}
	block := uint64(4)
	for end/block >= maxAddressStacks {
		block *= 2
	}
	if block == 4 {
		t.Fatalf("the sampled range (%d bytes) needs no blocks", end)
	}
	want := map[string]int64{}
	for _, s := range p.Expected() {
		a := p.Tstart + s.Offset/block*block
		want["synthetic+0x"+strconv.FormatUint(a, 16)+"-0x"+strconv.FormatUint(a+block-1, 16)] += int64(s.Count)
	}
	prof, err := pprof.ParseData([]byte(read(t, fsys, "profile.pb.gz")))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, s := range prof.Sample {
		got[s.Location[0].Line[0].Function.Name] += s.Value[0]
	}
	if len(got) != len(want) || len(got) >= maxAddressStacks {
		t.Errorf("%d stacks, want %d (< %d)", len(got), len(want), maxAddressStacks)
	}
	for name, v := range want {
		if got[name] != v {
			t.Errorf("%s: %d samples, want %d", name, got[name], v)
		}
	}
}
