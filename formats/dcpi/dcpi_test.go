package dcpi

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
)

// Expected views, computed from the generator's model with fmt and sort,
// independently of the renderers.

func modelTotal(p *gen.Profile) uint64 {
	var t uint64
	for _, s := range p.Expected() {
		t += uint64(s.Count)
	}
	return t
}

func wantCSV(samples []gen.Sample, total uint64) string {
	var b strings.Builder
	b.WriteString("address,offset,count,pct,cum_pct,function,raw_name,file,line,inlined\n")
	var cum uint64
	for _, s := range samples {
		cum += uint64(s.Count)
		fmt.Fprintf(&b, "0x%012x,%#x,%d,%.2f,%.2f,,,,,\n", s.Address, s.Offset, s.Count,
			float64(s.Count)*100/float64(total), float64(cum)*100/float64(total))
	}
	return b.String()
}

func wantTop(samples []gen.Sample, total uint64) string {
	s := append([]gen.Sample(nil), samples...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Count != s[j].Count {
			return s[i].Count > s[j].Count
		}
		return s[i].Address < s[j].Address
	})
	return wantCSV(s, total)
}

func wantTxt(p *gen.Profile, name string, tsize uint64) string {
	var b strings.Builder
	field := func(k, v string) { fmt.Fprintf(&b, "%-21s%s\n", k, v) }
	field("name", name)
	field("image", "19970328081403c0c18b")
	for _, l := range p.Lines {
		if v, ok := strings.CutPrefix(l, "path "); ok {
			field("path", v)
		}
	}
	field("epoch", "9805191724")
	field("platform", "walnut")
	field("text_start", fmt.Sprintf("0x%012x", p.Tstart))
	field("text_size", fmt.Sprintf("0x%012x", tsize))
	field("event", fmt.Sprintf("%d cycles:63488:10000", modelTotal(p)))
	for _, s := range p.Expected() {
		fmt.Fprintf(&b, "0x%012x%8d\n", s.Address, s.Count)
	}
	return b.String()
}

func write(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mount(t testing.TB, path string) (*vfs.Source, *vfs.FS) {
	return mountWith(t, path, render.Options{})
}

// mountWith is mount with views bound to opts.
func mountWith(t testing.TB, path string, opts render.Options) (*vfs.Source, *vfs.FS) {
	t.Helper()
	if _, ok := Detect(path); !ok {
		t.Fatalf("Detect(%s) failed", path)
	}
	src, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	src.Options = opts
	t.Cleanup(func() { src.Close() })
	return src, vfs.NewFS(src.Root, time.Unix(1700000000, 0))
}

func read(t testing.TB, fsys fs.FS, name string) string {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// raceScale divides the sizes of the larger test profiles under the race
// detector, where every read through fstest's one-to-three-byte readers
// costs about 50 times more; the cases stay the same.
var raceScale = map[bool]int{false: 1, true: 6}[raceEnabled]

func profiles() map[string]*gen.Profile {
	one := gen.New("pdb-0.07", 0x120000000)
	one.Chunks = []gen.Chunk{{Offset: 0x40, Counts: []uint32{3, 0, 12, 1}}}
	empty := gen.New("pdb-0.06", 0x20000)
	empty.PadTo4 = true
	optional := gen.New("pdb-0.07", 0x3ff00000000)
	optional.Lines = append(optional.Lines, "cpuamask 3", "path /usr/shlib/libc.so", "label x,y \"quoted\"", "path /usr/lib/libc.so", "cpucount 2")
	optional.Chunks = []gen.Chunk{{Offset: 0, Counts: []uint32{5000, 7, 7}}, {Offset: 100, Counts: []uint32{7, 4096, 4095}}}
	return map[string]*gen.Profile{
		"one":      one,
		"empty":    empty,
		"optional": optional,
		"many":     gen.Synthetic{Seed: 7, Addresses: 30000 / raceScale, MaxChunk: 40, MaxGap: 20}.Model(),
		"sparse":   gen.Synthetic{Seed: 8, Addresses: 5000 / raceScale, MaxChunk: 300, Zeros: 0.9, MaxGap: 5000}.Model(),
		"dense":    gen.Synthetic{Seed: 9, Addresses: 40000 / raceScale, MaxChunk: 40000 / raceScale, Version: "pdb-0.06"}.Model(),
	}
}

func TestSingleProfiles(t *testing.T) {
	for name, p := range profiles() {
		t.Run(name, func(t *testing.T) {
			path := write(t, t.TempDir(), name+".prof", p.Bytes())
			src, fsys := mount(t, path)
			dir := name + ".prof/"
			total := modelTotal(p)
			samples := p.Expected()
			views := map[string]string{
				"samples.csv": wantCSV(samples, total),
				"top.csv":     wantTop(samples, total),
				"samples.txt": wantTxt(p, profName(p, name+".prof"), 8388608),
			}
			for v, want := range views {
				if got := read(t, fsys, dir+v); got != want {
					t.Errorf("%s differs:\n got %.600q\nwant %.600q", v, got, want)
				}
			}
			hdr := read(t, fsys, dir+"header.txt")
			if !strings.HasPrefix(hdr, string(p.Header())) {
				t.Errorf("header.txt does not start with the header as stored")
			}
			testdata.Contains(t, "header.txt", hdr,
				fmt.Sprintf("addresses_sampled    %d\n", len(samples)),
				fmt.Sprintf("samples              %d\n", total),
				fmt.Sprintf("chunks               %d\n", len(p.Chunks)),
				fmt.Sprintf("footer_total_offsets %d\n", len(samples)),
				"footer_check         ok\n", "header_check         ok\n",
			)
			// The image's made-up binary is not found: at most its line.
			if e := read(t, fsys, "_errors.txt"); strings.Count(e, "\n") > 1 || e != "" && !strings.Contains(e, "binary not found") {
				t.Errorf("_errors.txt = %q", e)
			}
			if raw := read(t, fsys, "raw/"+name+".prof"); raw != string(p.Bytes()) {
				t.Error("raw/ differs")
			}
			if err := fstest.TestFS(fsys, "README.txt", "_errors.txt", dir+"header.txt", dir+"samples.csv", dir+"top.csv", dir+"samples.txt"); err != nil {
				t.Fatal(err)
			}
			if src.Format != "dcpi" {
				t.Errorf("format %q", src.Format)
			}
		})
	}
}

func profName(p *gen.Profile, file string) string {
	for _, l := range p.Lines {
		if v, ok := strings.CutPrefix(l, "path "); ok {
			return filepath.Base(v)
		}
	}
	return file
}

func TestOptionalLinesInHeaderTxt(t *testing.T) {
	p := profiles()["optional"]
	_, fsys := mount(t, write(t, t.TempDir(), "opt", p.Bytes()))
	hdr := read(t, fsys, "opt/header.txt")
	testdata.Contains(t, "header.txt", hdr,
		"cpuamask             3 (optional)\n",
		"path                 /usr/shlib/libc.so (optional)\n",
		"label                x,y \"quoted\" (unknown, kept)\n",
		"tstart               0x03ff00000000\n",
		"epoch                9805191724 (1998-05-19 17:24:00 UTC)\n",
		"version              pdb-0.07 (major 0, minor 7)\n",
	)
	// The label line comes between the two path lines, as stored.
	if i, j := strings.Index(hdr, "\nlabel   "), strings.Index(hdr, "/usr/lib/libc.so (optional)"); i < 0 || j < i {
		t.Error("decoded lines are not in file order")
	}
}

// TestTopBands checks top.csv with tiny bands, so that planning recurses,
// sorted bands are evicted and single values are streamed, with values
// counted exactly and in histogram buckets.
func TestTopBands(t *testing.T) {
	oldRows, oldDense := bandRows, denseValues
	defer func() { bandRows, denseValues = oldRows, oldDense }()
	for i, rows := range []int64{1, 7, 100, 1000, 1, 7, 100, 1000} {
		bandRows = rows
		denseValues = oldDense
		if i >= 4 {
			denseValues = 40 // most values counted in buckets, not exactly
		}
		p := gen.Synthetic{Seed: uint64(i), Addresses: 6000, MaxChunk: 50, Zeros: 0.2}.Model()
		_, fsys := mount(t, write(t, t.TempDir(), "p", p.Bytes()))
		want := wantTop(p.Expected(), modelTotal(p))
		if got := read(t, fsys, "p/top.csv"); got != want {
			t.Fatalf("bandRows %d: top.csv differs", rows)
		}
		f, _ := fsys.Open("p/top.csv")
		ra := f.(interface {
			ReadAt([]byte, int64) (int, error)
		})
		for off := int64(len(want)) - 1; off > 0; off -= 20011 {
			buf := make([]byte, 300)
			n, _ := ra.ReadAt(buf, off)
			if string(buf[:n]) != want[off:min(int(off)+300, len(want))] {
				t.Fatalf("bandRows %d: ReadAt %d differs", rows, off)
			}
		}
	}
}

func TestDirectorySource(t *testing.T) {
	dir := t.TempDir()
	ps := profiles()
	rels := map[string]string{
		"one":      "9805191724/one",
		"optional": "9805191724/libc_img",
		"many":     "9806010000/deep/many",
		"empty":    "empty",
		"raw":      "raw",
	}
	ps["raw"] = gen.Synthetic{Seed: 3, Addresses: 10}.Model()
	for k, rel := range rels {
		write(t, dir, rel, ps[k].Bytes())
	}
	v1 := gen.New("pdb-1.01", 0x1000)
	v1.Body = []byte{1, 2, 3, 4, 5}
	write(t, dir, "9806010000/v1", v1.Bytes())
	write(t, dir, "dcpid-host.log", []byte("log of the daemon\n"))
	_, fsys := mount(t, dir)

	// images.csv, computed from the models.
	type img struct {
		rel, path string
		total     uint64
	}
	var imgs []img
	var grand uint64
	for k, rel := range rels {
		path := ""
		for _, l := range ps[k].Lines {
			if v, ok := strings.CutPrefix(l, "path "); ok && path == "" {
				path = v
			}
		}
		imgs = append(imgs, img{rel, path, modelTotal(ps[k])})
		grand += modelTotal(ps[k])
	}
	sort.Slice(imgs, func(i, j int) bool {
		if imgs[i].total != imgs[j].total {
			return imgs[i].total > imgs[j].total
		}
		return imgs[i].rel < imgs[j].rel
	})
	var want bytes.Buffer
	w := csv.NewWriter(&want)
	w.Write([]string{"profile", "image", "path", "event", "period", "epoch", "samples", "pct", "cum_pct"})
	var cum uint64
	for _, m := range imgs {
		cum += m.total
		w.Write([]string{m.rel, "19970328081403c0c18b", m.path, "cycles", "63488", "9805191724",
			strconv.FormatUint(m.total, 10), fmt.Sprintf("%.2f", float64(m.total)*100/float64(grand)), fmt.Sprintf("%.2f", float64(cum)*100/float64(grand))})
	}
	w.Write([]string{"9806010000/v1", "19970328081403c0c18b", "", "cycles", "63488", "9805191724", "", "", ""})
	w.Flush()
	if got := read(t, fsys, "images.csv"); got != want.String() {
		t.Errorf("images.csv:\n%s\nwant\n%s", got, want.String())
	}
	// Mirrored paths; the profile called "raw" is renamed.
	for _, name := range []string{"9805191724/one/samples.csv", "9806010000/deep/many/top.csv", "raw~2/samples.txt", "empty/header.txt", "9806010000/v1/header.txt", "raw/raw", "raw/dcpid-host.log"} {
		if _, err := fs.Stat(fsys, name); err != nil {
			t.Errorf("stat %s: %v", name, err)
		}
	}
	if _, err := fs.Stat(fsys, "9806010000/v1/samples.csv"); err == nil {
		t.Error("a 1.x profile has samples.csv")
	}
	if got := read(t, fsys, "9805191724/one/samples.csv"); got != wantCSV(ps["one"].Expected(), modelTotal(ps["one"])) {
		t.Error("one/samples.csv differs")
	}
	errs := read(t, fsys, "_errors.txt")
	if !strings.Contains(errs, "9806010000/v1: dcpi: header at byte") || !strings.Contains(errs, "binary layout of major version 1 was never published; the sample data cannot be decoded 'pdb-1.01'") || strings.Count(errs, "\n") != 1 {
		t.Errorf("_errors.txt = %q", errs)
	}
	hdr := read(t, fsys, "9806010000/v1/header.txt")
	if !strings.HasPrefix(hdr, string(v1.Header())) || !strings.Contains(hdr, "sample_data          not decodable: ") {
		t.Errorf("v1 header.txt = %q", hdr)
	}
	if err := fstest.TestFS(fsys, "images.csv", "9805191724/libc_img/top.csv", "9806010000/v1/header.txt"); err != nil {
		t.Fatal(err)
	}
}

func TestBadProfiles(t *testing.T) {
	const tstart = 0x120000000
	good := []uint32{1, 2, 3}
	cases := []struct {
		name   string
		edit   func(p *gen.Profile)
		rows   int    // samples.csv rows kept
		errs   string // substring of _errors.txt
		footer string // footer_check line of header.txt
	}{
		{"out of order", func(p *gen.Profile) {
			p.Chunks = []gen.Chunk{{Offset: 100, Counts: good}, {Offset: 50, Counts: good}}
		}, 3, "p: dcpi: chunk 1 at byte", "not checked"},
		{"overlap", func(p *gen.Profile) {
			p.Chunks = []gen.Chunk{{Offset: 100, Counts: good}, {Offset: 104, Counts: good}, {Offset: 200, Counts: good}}
		}, 3, "chunk overlaps the previous chunk, which ends at offset '112' (the views end before this chunk)", "not checked"},
		{"footer offsets", func(p *gen.Profile) {
			p.Chunks = []gen.Chunk{{Offset: 0, Counts: good}}
			p.Footer = &[2]uint32{4, 6}
		}, 3, "p: dcpi: footer at byte", "total_offsets 4 but the chunks hold 3 addresses with samples"},
		{"footer samples", func(p *gen.Profile) {
			p.Chunks = []gen.Chunk{{Offset: 0, Counts: good}}
			p.Footer = &[2]uint32{3, 0}
		}, 3, "total_samples 0 but the counts sum to 6 (pct columns use the sum of the counts read)", "total_samples 0"},
		{"truncated", func(p *gen.Profile) {
			p.Chunks = []gen.Chunk{{Offset: 0, Counts: good}, {Offset: 40, Counts: good}}
			b := p.Bytes()
			p.Body = b[len(p.Header()) : len(b)-10]
		}, 3, "runs into the footer", "not checked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := gen.New("pdb-0.07", tstart)
			c.edit(p)
			_, fsys := mount(t, write(t, t.TempDir(), "p", p.Bytes()))
			csvText := read(t, fsys, "p/samples.csv")
			recs, err := csv.NewReader(strings.NewReader(csvText)).ReadAll()
			if err != nil || len(recs)-1 != c.rows {
				t.Fatalf("samples.csv: %d rows (%v), want %d:\n%s", len(recs)-1, err, c.rows, csvText)
			}
			if recs[c.rows][4] != "100.00" {
				t.Errorf("last cum_pct %s, want 100 (pct of what was read)", recs[c.rows][4])
			}
			read(t, fsys, "p/top.csv")
			read(t, fsys, "p/samples.txt")
			hdr := read(t, fsys, "p/header.txt")
			if !strings.Contains(hdr, "footer_check         ") || !strings.Contains(hdr, c.footer) {
				t.Errorf("header.txt lacks footer check %q:\n%s", c.footer, hdr)
			}
			errs := read(t, fsys, "_errors.txt")
			if !strings.Contains(errs, c.errs) || strings.Count(errs, "\n") != 1 {
				t.Errorf("_errors.txt = %q, want one line with %q", errs, c.errs)
			}
		})
	}
}

func TestBadHeaderStillMounts(t *testing.T) {
	p := gen.New("pdb-0.07", 0x1000)
	p.Remove("cpuspeed")
	p.Set("image", "xyz")
	p.Chunks = []gen.Chunk{{Offset: 0, Counts: []uint32{1}}}
	_, fsys := mount(t, write(t, t.TempDir(), "p", p.Bytes()))
	errs := read(t, fsys, "_errors.txt")
	if !strings.Contains(errs, "p/header.txt: dcpi: header at byte") || !strings.Contains(errs, "image is not a hex number 'xyz'") ||
		!strings.Contains(errs, "missing required line 'cpuspeed'") {
		t.Errorf("_errors.txt = %q", errs)
	}
	if got := read(t, fsys, "p/samples.csv"); got != "address,offset,count,pct,cum_pct,function,raw_name,file,line,inlined\n0x000000001000,0x0,1,100.00,100.00,,,,,\n" {
		t.Errorf("samples.csv = %q", got)
	}
	if hdr := read(t, fsys, "p/header.txt"); !strings.Contains(hdr, "header_problem       dcpi: header at byte") {
		t.Errorf("header.txt = %q", hdr)
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	for name, b := range map[string][]byte{
		"text":   []byte("hello\nworld\nsamples\n"),
		"binary": {0, 1, 2, 3, '\n', 's', 'a', 'm', 'p', 'l', 'e', 's', '\n'},
		"csv":    []byte("a,b\n1,2\n"),
	} {
		if _, ok := Detect(write(t, dir, name, b)); ok {
			t.Errorf("%s detected as DCPI", name)
		}
	}
	if _, ok := Detect(dir); ok {
		t.Error("directory without profiles detected")
	}
	noVersion := gen.New("pdb-0.07", 1).Remove("version")
	if s, ok := Detect(write(t, dir, "novers", noVersion.Bytes())); !ok {
		t.Errorf("OpenVMS-style header (no version line) not detected: %q", s)
	}
}

func TestMounted(t *testing.T) {
	p := gen.Synthetic{Seed: 21, Addresses: 60000 / raceScale, MaxChunk: 100, Zeros: 0.3, MaxGap: 50}.Model()
	path := write(t, t.TempDir(), "prof", p.Bytes())
	_, fsys := mount(t, path)
	mnt := fsnodetest.Mount(t, fsys)
	if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "_errors.txt", "raw/prof", "prof/header.txt", "prof/samples.txt", "prof/samples.csv", "prof/top.csv"); err != nil {
		t.Fatal(err)
	}
	total := modelTotal(p)
	fsnodetest.CheckFile(t, filepath.Join(mnt, "prof/samples.csv"), []byte(wantCSV(p.Expected(), total)))
	fsnodetest.CheckFile(t, filepath.Join(mnt, "prof/top.csv"), []byte(wantTop(p.Expected(), total)))
	fsnodetest.CheckFile(t, filepath.Join(mnt, "prof/samples.txt"), []byte(wantTxt(p, "synthetic", 8388608)))
	fsnodetest.CheckFile(t, filepath.Join(mnt, "raw/prof"), p.Bytes())
}

func TestIndexedSecondMount(t *testing.T) {
	index := t.TempDir()
	old := bandRows
	bandRows = 500
	defer func() { bandRows = old }()
	p := gen.Synthetic{Seed: 33, Addresses: 20000, MaxChunk: 20, Zeros: 0.1}.Model()
	path := write(t, t.TempDir(), "p", p.Bytes())
	total := modelTotal(p)
	want := map[string]string{"p/samples.csv": wantCSV(p.Expected(), total), "p/top.csv": wantTop(p.Expected(), total), "p/samples.txt": wantTxt(p, "synthetic", 8388608)}
	for round := 0; round < 2; round++ {
		_, fsys := mountWith(t, path, render.Options{IndexDir: index})
		for name, w := range want {
			f, err := fsys.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			// Read the tail first: on the second round it comes from the index.
			ra := f.(io.ReaderAt)
			buf := make([]byte, 1000)
			n, _ := ra.ReadAt(buf, int64(len(w)-1000))
			if string(buf[:n]) != w[len(w)-1000:] {
				t.Fatalf("round %d: tail of %s differs", round, name)
			}
			if got := read(t, fsys, name); got != w {
				t.Fatalf("round %d: %s differs", round, name)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(index, "*.idx")); len(files) != 3 {
			t.Fatalf("round %d: %d index files, want 3", round, len(files))
		}
	}
}

// TestNamesEscaped: header values holding bytes that are not UTF-8 (the
// only hostile bytes detection lets through: it refuses control
// characters) reach no view raw (issue 27): header.txt and samples.txt
// write them as \xNN, every text view stays UTF-8 and every CSV parses.
func TestNamesEscaped(t *testing.T) {
	const bad = "bad\xffna\xc3me"
	p := gen.New("pdb-0.07", 0x120000000)
	p.Lines = append(p.Lines, "path /lib/"+bad, "label "+bad)
	p.Set("platform", bad)
	p.Chunks = []gen.Chunk{{Offset: 0x40, Counts: []uint32{3, 0, 12, 1}}}
	src, _ := mount(t, write(t, t.TempDir(), "bad.prof", p.Bytes()))
	views := testdata.CheckTextViews(t, src.FS())
	const esc = `bad\xffna\xc3me`
	for _, v := range []string{"bad.prof/header.txt", "bad.prof/samples.txt"} {
		if !strings.Contains(string(views[v]), "/lib/"+esc+"\n") {
			t.Errorf("%s does not hold the escaped path:\n%s", v, views[v])
		}
	}
}
