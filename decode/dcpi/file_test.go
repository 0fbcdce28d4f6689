package dcpi_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/dcpi"
	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
)

func open(t testing.TB, b []byte) *dcpi.File {
	t.Helper()
	f, err := dcpi.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatalf("NewFile: %v", err)
	}
	return f
}

func TestHeaderFields(t *testing.T) {
	p := gen.New("pdb-0.07", 0x120000000)
	p.Lines = append(p.Lines, "cpuamask 3", "path /usr/bin/x", "label\tsome  label ", "path  /lib/y", "cpucount 2")
	p.PadTo4 = true
	f := open(t, p.Bytes())
	h := f.Header
	if len(h.Problems) != 0 {
		t.Fatalf("problems: %v", h.Err())
	}
	if h.Size()%4 != 0 || !bytes.Equal(h.Raw, p.Header()) {
		t.Fatalf("header size %d, raw %q", h.Size(), h.Raw)
	}
	got := []any{h.Version, h.Major, h.Minor, h.Image, h.Epoch, h.Platform, h.Event, h.Period, h.Tstart, h.Tsize, h.CPUSpeed}
	want := []any{"pdb-0.07", uint64(0), uint64(7), "19970328081403c0c18b", "9805191724", "walnut", "cycles", uint64(63488), uint64(0x120000000), uint64(8388608), uint64(500)}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("field %d = %v, want %v", i, got[i], want[i])
		}
	}
	if v := h.Values("path"); len(v) != 2 || v[0] != "/usr/bin/x" || v[1] != "/lib/y" {
		t.Errorf("paths %q", v)
	}
	var kinds []string
	for _, l := range h.Lines[9:] {
		kinds = append(kinds, l.Key+"="+l.Kind.String()+"="+l.Value)
	}
	if s := strings.Join(kinds, "|"); s != "cpuamask=optional=3|path=optional=/usr/bin/x|label=unknown=some  label |path=optional=/lib/y|cpucount=optional=2" {
		t.Errorf("extra lines %s", s)
	}
	if !h.BodyDecodable() {
		t.Error("body not decodable")
	}
}

func TestHeaderRules(t *testing.T) {
	type tc struct {
		name     string
		edit     func(p *gen.Profile)
		problem  string // substring of the single problem expected; "" = none
		body     bool   // body stays decodable
		terminal bool   // NewFile fails
	}
	var cases []tc
	for _, k := range dcpi.RequiredKeys {
		body := k != "version" && k != "tstart"
		cases = append(cases,
			tc{"missing " + k, func(p *gen.Profile) { p.Remove(k) }, "missing required line '" + k + "'", body, false},
			tc{"repeated " + k, func(p *gen.Profile) {
				for _, l := range p.Lines {
					if strings.HasPrefix(l, k+" ") {
						p.Lines = append(p.Lines, l)
						break
					}
				}
			}, "repeated required line '" + k + "'", body, false})
	}
	cases = append(cases,
		tc{"valid 0.06", func(p *gen.Profile) { p.Set("version", "pdb-0.06") }, "", true, false},
		tc{"tabs and blanks", func(p *gen.Profile) { p.Lines[1] = "image\t \t19970328" }, "", true, false},
		tc{"terminator with blanks", func(p *gen.Profile) { p.Terminator = "samples \t " }, "", true, false},
		tc{"14-digit epoch", func(p *gen.Profile) { p.Set("epoch", "19980519172400") }, "", true, false},
		tc{"upper-case hex", func(p *gen.Profile) { p.Set("image", "ABCDEF09") }, "", true, false},
		tc{"unknown line", func(p *gen.Profile) { p.Lines = append(p.Lines, "name xemacs") }, "", true, false},
		tc{"optional lines", func(p *gen.Profile) {
			p.Lines = append(p.Lines, "cpuamask ff", "cpuimplv 2", "cpucount 4", "path /bin/ls")
		}, "", true, false},
		tc{"bad hex image", func(p *gen.Profile) { p.Set("image", "19970g") }, "image is not a hex number '19970g'", true, false},
		tc{"bad hex tstart", func(p *gen.Profile) { p.Set("tstart", "0x120000000") }, "tstart is not a hex number", false, false},
		tc{"tstart too long", func(p *gen.Profile) { p.Set("tstart", "11112222333344445") }, "tstart does not fit in 64 bits", false, false},
		tc{"bad hex cpuamask", func(p *gen.Profile) { p.Lines = append(p.Lines, "cpuamask xyz") }, "cpuamask is not a hex number", true, false},
		tc{"bad digits period", func(p *gen.Profile) { p.Set("period", "12a") }, "period is not a decimal number", true, false},
		tc{"trailing blank in digits", func(p *gen.Profile) { p.Set("tsize", "100 ") }, "tsize is not a decimal number", true, false},
		tc{"bad cpucount", func(p *gen.Profile) { p.Lines = append(p.Lines, "cpucount -1") }, "cpucount is not a decimal number", true, false},
		tc{"bad epoch length", func(p *gen.Profile) { p.Set("epoch", "98051917") }, "epoch is not YYMMDDHHMM", true, false},
		tc{"bad epoch digits", func(p *gen.Profile) { p.Set("epoch", "98051917ab") }, "epoch is not YYMMDDHHMM", true, false},
		tc{"bad version prefix", func(p *gen.Profile) { p.Set("version", "0.07") }, "version is not pdb-<major>.<minor> '0.07'", false, false},
		tc{"bad version minor", func(p *gen.Profile) { p.Set("version", "pdb-0.") }, "version is not pdb-<major>.<minor>", false, false},
		tc{"bad version suffix", func(p *gen.Profile) { p.Set("version", "pdb-0.07b") }, "version is not pdb-<major>.<minor>", false, false},
		tc{"version 1.01", func(p *gen.Profile) { p.Set("version", "pdb-1.01") }, "", false, false},
		tc{"version 0.05", func(p *gen.Profile) { p.Set("version", "pdb-0.05") }, "", false, false},
		tc{"empty line", func(p *gen.Profile) { p.Lines = append(p.Lines, "") }, "line does not start with a word", true, false},
		tc{"leading blank", func(p *gen.Profile) { p.Lines = append(p.Lines, " path /x") }, "line does not start with a word", true, false},
		tc{"no value", func(p *gen.Profile) { p.Lines = append(p.Lines, "path") }, "no blank between key and value", true, false},
		tc{"only blanks after key", func(p *gen.Profile) { p.Lines = append(p.Lines, "path   ") }, "line has no value 'path'", true, false},
		tc{"no terminator", func(p *gen.Profile) { p.Terminator = "samplesx" }, "", false, true},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := gen.New("pdb-0.07", 0x120000000)
			p.Chunks = []gen.Chunk{{Offset: 0, Counts: []uint32{1, 2}}}
			c.edit(p)
			b := p.Bytes()
			f, err := dcpi.NewFile(bytes.NewReader(b), int64(len(b)))
			if c.terminal {
				if err == nil || !errors.Is(err, dcpi.ErrNoHeader) {
					t.Fatalf("NewFile = %v, want ErrNoHeader", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			probs := f.Header.Problems
			switch {
			case c.problem == "" && len(probs) != 0:
				t.Fatalf("unexpected problems: %v", f.Header.Err())
			case c.problem != "" && (len(probs) != 1 || !strings.Contains(probs[0].Error(), c.problem)):
				t.Fatalf("problems %v, want one containing %q", f.Header.Err(), c.problem)
			}
			for _, e := range probs {
				var fe *decode.FormatError
				if !errors.As(e, &fe) || fe.Section != "header" || fe.Off < 0 || fe.Off > f.Header.Size() {
					t.Errorf("problem %v is not a header FormatError with an offset", e)
				}
			}
			if got := f.Header.BodyDecodable(); got != c.body {
				t.Fatalf("BodyDecodable = %v, want %v (%v)", got, c.body, f.Header.BodyErr())
			}
			s, err := f.Scan()
			if err != nil {
				t.Fatal(err)
			}
			if c.body {
				if s.BodyErr != nil || s.Addresses != 2 || s.Samples != 3 || s.FooterCheck() != nil {
					t.Fatalf("summary %+v", s)
				}
			} else if s.BodyErr == nil || s.Addresses != 0 {
				t.Fatalf("undecodable body read: %+v", s)
			}
		})
	}
}

func TestProblemOffsets(t *testing.T) {
	p := gen.New("pdb-0.07", 0x1000)
	p.Set("period", "x")
	f := open(t, p.Bytes())
	var fe *decode.FormatError
	if !errors.As(f.Header.Problems[0], &fe) || fe.Off != int64(strings.Index(string(p.Header()), "period x")) {
		t.Fatalf("problem %v", f.Header.Problems[0])
	}
}

func TestVersion1(t *testing.T) {
	p := gen.New("pdb-1.01", 0x1000)
	p.Body = []byte("opaque binary data of an unpublished layout")
	f := open(t, p.Bytes())
	err := f.Header.BodyErr()
	if !errors.Is(err, decode.ErrUnsupportedVersion) || !strings.Contains(err.Error(), "major version 1 was never published") {
		t.Fatalf("BodyErr = %v", err)
	}
	if _, err := f.Samples(f.Start()).Next(); !errors.Is(err, decode.ErrUnsupportedVersion) {
		t.Fatalf("Next = %v", err)
	}
	if _, err := f.Footer(); !errors.Is(err, decode.ErrUnsupportedVersion) {
		t.Fatalf("Footer = %v", err)
	}
}

// readAll reads the samples with Next, and checks that NextRun reads the
// same samples and ends with the same error.
func readAll(t *testing.T, f *dcpi.File) ([]gen.Sample, error) {
	t.Helper()
	out, err := readNext(f)
	runs, runErr := readRuns(f)
	if !equalSamples(out, runs) || fmt.Sprint(err) != fmt.Sprint(runErr) {
		t.Fatalf("NextRun read %d samples and %v, Next %d and %v", len(runs), runErr, len(out), err)
	}
	return out, err
}

func readNext(f *dcpi.File) ([]gen.Sample, error) {
	var out []gen.Sample
	sr := f.Samples(f.Start())
	for {
		s, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if s.Count != 0 {
			out = append(out, gen.Sample{Address: s.Address(f.Header), Offset: s.Offset, Count: s.Count})
		}
	}
}

func readRuns(f *dcpi.File) ([]gen.Sample, error) {
	var out []gen.Sample
	sr := f.Samples(f.Start())
	for {
		off, counts, err := sr.NextRun()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if len(counts) == 0 || len(counts)%4 != 0 {
			return out, fmt.Errorf("run of %d bytes", len(counts))
		}
		for i := 0; i < len(counts); i += 4 {
			if c := binary.LittleEndian.Uint32(counts[i:]); c != 0 {
				o := off + uint64(i)
				out = append(out, gen.Sample{Address: f.Header.Tstart + o, Offset: o, Count: c})
			}
		}
	}
}

func equalSamples(a, b []gen.Sample) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func le(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return b
}

func TestBody(t *testing.T) {
	const tstart = 0x120000000
	s := func(off uint64, c uint32) gen.Sample { return gen.Sample{Address: tstart + off, Offset: off, Count: c} }
	cases := []struct {
		name   string
		body   []byte
		want   []gen.Sample
		err    string // substring of the body error; "" = none
		footer string // substring of the footer check error; "" = agrees
	}{
		{"empty", le(0, 0), nil, "", ""},
		{"one chunk", le(16, 3, 5, 0, 7, 2, 12), []gen.Sample{s(16, 5), s(24, 7)}, "", ""},
		{"two chunks adjacent", le(0, 2, 1, 1, 8, 1, 9, 3, 11), []gen.Sample{s(0, 1), s(4, 1), s(8, 9)}, "", ""},
		{"zero counts only", le(0, 2, 0, 0, 0, 0), nil, "", ""},
		{"offset not increasing", le(8, 1, 1, 8, 1, 2, 2, 3), []gen.Sample{s(8, 1)}, "chunk 1 at byte 168 (0xa8): chunk offset does not increase '8'", "not checked"},
		{"offset decreasing", le(8, 1, 1, 4, 1, 2, 2, 3), []gen.Sample{s(8, 1)}, "chunk offset does not increase '4'", "not checked"},
		{"overlap", le(0, 3, 1, 1, 1, 8, 1, 2, 4, 5), []gen.Sample{s(0, 1), s(4, 1), s(8, 1)}, "overlaps the previous chunk, which ends at offset '12'", "not checked"},
		{"empty chunk", le(0, 0, 0, 0), nil, "chunk has no counts", "not checked"},
		{"chunk past footer", le(0, 5, 1, 2, 1, 3), nil, "runs into the footer '5'", "not checked"},
		{"partial chunk header", le(0, 1, 1, 7, 1, 1), []gen.Sample{s(0, 1)}, "chunk header runs into the footer", "not checked"},
		{"no footer", le(7), nil, "body shorter than the 8-byte footer", "body shorter"},
		{"footer offsets wrong", le(0, 2, 1, 2, 3, 3), []gen.Sample{s(0, 1), s(4, 2)}, "", "total_offsets 3 but the chunks hold 2"},
		{"footer samples wrong", le(0, 2, 1, 2, 2, 4), []gen.Sample{s(0, 1), s(4, 2)}, "", "total_samples 4 but the counts sum to 3"},
		{"footer both wrong", le(0, 1, 1, 0, 0), []gen.Sample{s(0, 1)}, "", "total_offsets 0 but the chunks hold 1 addresses with samples; total_samples 0"},
		{"big offsets", le(0xfffffff0, 2, 1, 2, 2, 3), []gen.Sample{s(0xfffffff0, 1), s(0xfffffff4, 2)}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := gen.New("pdb-0.07", tstart)
			p.PadTo4 = true
			p.Body = c.body
			f := open(t, p.Bytes())
			got, err := readAll(t, f)
			if !equalSamples(got, c.want) {
				t.Errorf("samples %v, want %v", got, c.want)
			}
			if (err == nil) != (c.err == "") || (err != nil && !strings.Contains(err.Error(), c.err)) {
				t.Errorf("error %v, want %q", err, c.err)
			}
			if err != nil && !errors.Is(err, decode.ErrFormat) && !errors.Is(err, decode.ErrTruncated) {
				t.Errorf("error %v is not a data error", err)
			}
			sum, err := f.Scan()
			if err != nil {
				t.Fatal(err)
			}
			if sum.Addresses != int64(len(c.want)) {
				t.Errorf("Scan addresses %d", sum.Addresses)
			}
			ferr := sum.FooterCheck()
			if (ferr == nil) != (c.footer == "") || (ferr != nil && !strings.Contains(ferr.Error(), c.footer)) {
				t.Errorf("footer check %v, want %q", ferr, c.footer)
			}
		})
	}
}

func TestGeneratedProfiles(t *testing.T) {
	for _, syn := range []gen.Synthetic{
		{Seed: 1, Addresses: 0},
		{Seed: 2, Addresses: 1, MaxChunk: 1},
		{Seed: 3, Addresses: 5000, MaxChunk: 200},
		{Seed: 4, Addresses: 20000, MaxChunk: 64, Zeros: 0.7, MaxGap: 1000},
		{Seed: 5, Addresses: 20000, MaxChunk: 4096, Version: "pdb-0.06", Tstart: 0xfffff00000000},
	} {
		var buf bytes.Buffer
		if _, err := syn.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		model := syn.Model()
		if !bytes.Equal(buf.Bytes(), model.Bytes()) {
			t.Fatalf("seed %d: streamed and modelled files differ", syn.Seed)
		}
		f := open(t, buf.Bytes())
		got, err := readAll(t, f)
		if err != nil {
			t.Fatal(err)
		}
		want := model.Expected()
		if !equalSamples(got, want) || len(want) != syn.Addresses {
			t.Fatalf("seed %d: %d samples, want %d", syn.Seed, len(got), len(want))
		}
		s, _ := f.Scan()
		if s.FooterCheck() != nil || s.Chunks != int64(len(model.Chunks)) || f.Header.Size()%4 != 0 {
			t.Fatalf("seed %d: summary %+v, footer %v", syn.Seed, s, s.FooterCheck())
		}
	}
}

func TestResume(t *testing.T) {
	syn := gen.Synthetic{Seed: 9, Addresses: 3000, MaxChunk: 30, Zeros: 0.3}
	b := syn.Model().Bytes()
	f := open(t, b)
	all, _ := readAll(t, f)
	sr := f.Samples(f.Start())
	var positions []dcpi.Pos
	var idx []int
	n := 0
	for {
		positions = append(positions, sr.Pos())
		idx = append(idx, n)
		s, err := sr.Next()
		if err != nil {
			break
		}
		if s.Count != 0 {
			n++
		}
	}
	for k := 0; k < len(positions); k += 97 {
		r := f.Samples(positions[k])
		var got []gen.Sample
		for {
			s, err := r.Next()
			if err != nil {
				break
			}
			if s.Count != 0 {
				got = append(got, gen.Sample{Address: s.Address(f.Header), Offset: s.Offset, Count: s.Count})
			}
		}
		if !equalSamples(got, all[idx[k]:]) {
			t.Fatalf("resume at %d differs", k)
		}
	}
}

func TestTruncated(t *testing.T) {
	syn := gen.Synthetic{Seed: 11, Addresses: 500, MaxChunk: 20}
	b := syn.Model().Bytes()
	for cut := 0; cut < len(b); cut += 7 {
		f, err := dcpi.NewFile(bytes.NewReader(b[:cut]), int64(cut))
		if err != nil {
			continue
		}
		s, err := f.Scan()
		if err != nil {
			t.Fatalf("cut %d: Scan I/O error %v", cut, err)
		}
		got, _ := readAll(t, f)
		if int64(len(got)) != s.Addresses {
			t.Fatalf("cut %d: Scan counted %d addresses, Next read %d", cut, s.Addresses, len(got))
		}
	}
}
