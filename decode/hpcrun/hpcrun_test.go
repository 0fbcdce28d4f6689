package hpcrun_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
)

func corpusFile(t testing.TB) string {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-02.00-testvdso")
	return filepath.Join(dir, "testvdso-000000-000-007f0101-19750-0.hpcrun")
}

func TestCorpusSample(t *testing.T) {
	f, err := hpcrun.Open(corpusFile(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Err != nil {
		t.Fatalf("Err = %v", f.Err)
	}
	if f.Version != "02.00" || f.Endian != 'b' || f.Layout != hpcrun.LayoutB || len(f.NV) != 10 || len(f.Epochs) != 1 {
		t.Fatalf("header: %q %c %v %d nv, %d epochs", f.Version, f.Endian, f.Layout, len(f.NV), len(f.Epochs))
	}
	if f.Header("program-name") != "testvdso" || f.Header("process-id") != "19750" {
		t.Fatalf("nv pairs %v", f.NV)
	}
	e := f.Epochs[0]
	if e.Flags != 0 || e.Granularity != 1 || e.RAOffset != 1 || len(e.Metrics) != 1 || len(e.LoadModules) != 11 || e.NumNodes != 42 || e.Complete != 42 {
		t.Fatalf("epoch %+v", e)
	}
	m := e.Metrics[0]
	if m.Name != "CPUTIME (usec)" || m.Type != hpcrun.TypeRaw || m.ValFmt != hpcrun.FmtInt || !m.ShowPercent || m.Show != 1 || m.Period != 1 || m.BitfieldFlags {
		t.Fatalf("metric %+v", m)
	}
	if e.End() != f.Size {
		t.Fatalf("epoch ends at %d, file at %d", e.End(), f.Size)
	}
	nr := f.NodeReader(e, 0)
	var n hpcrun.Node
	var ids []int32
	for {
		if err := nr.Next(&n); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, n.ID)
	}
	if len(ids) != 42 || ids[0] != 12 || ids[2] != -52 || ids[41] != -14 {
		t.Fatalf("ids %v", ids)
	}
}

func write(t testing.TB, p *gen.Profile) []byte {
	var b bytes.Buffer
	if err := gen.Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGeneratedLayouts writes every layout with and without LUSH and
// checks every decoded field against what was written.
func TestGeneratedLayouts(t *testing.T) {
	for _, tc := range []struct {
		version string
		layout  hpcrun.Layout
		lush    bool
		epochs  int
		metrics int
	}{
		{"02.00", hpcrun.LayoutA, false, 1, 1},
		{"02.00", hpcrun.LayoutA, true, 2, 3},
		{"02.00", hpcrun.LayoutB, false, 1, 1},
		{"02.00", hpcrun.LayoutB, true, 3, 4},
		{"02.00", hpcrun.LayoutC, false, 1, 1},
		{"02.00", hpcrun.LayoutC, true, 3, 4},
		{"02.00", hpcrun.LayoutC, false, 2, 2},
		{"03.00", hpcrun.LayoutC, true, 2, 2},
	} {
		name := fmt.Sprintf("%s-%v-lush=%v-e%d-m%d", tc.version, tc.layout, tc.lush, tc.epochs, tc.metrics)
		t.Run(name, func(t *testing.T) {
			p := gen.Random(gen.Options{Seed: 7, Version: tc.version, Layout: tc.layout, Epochs: tc.epochs, Nodes: 500, Metrics: tc.metrics, LoadMods: 5, Lush: tc.lush, Rank: 3, Thread: 2, ProcessID: 99})
			data := write(t, p)
			f, err := hpcrun.NewFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			if f.Err != nil {
				t.Fatalf("Err = %v", f.Err)
			}
			if f.Layout != tc.layout || f.Version != tc.version || len(f.Epochs) != tc.epochs {
				t.Fatalf("layout %v version %s epochs %d", f.Layout, f.Version, len(f.Epochs))
			}
			if fmt.Sprint(f.NV) != fmt.Sprint(p.NV) {
				t.Fatalf("nv %v", f.NV)
			}
			for k, e := range f.Epochs {
				want := p.Epochs[k]
				if e.Flags != want.Flags || e.LogicalUnwind() != tc.lush || e.Granularity != want.Granularity || e.RAOffset != want.RAOffset || fmt.Sprint(e.NV) != fmt.Sprint(want.NV) {
					t.Fatalf("epoch header %+v", e)
				}
				for i, m := range e.Metrics {
					w := want.Metrics[i]
					w.BitfieldFlags = tc.layout == hpcrun.LayoutA
					if fmt.Sprintf("%+v", m) != fmt.Sprintf("%+v", w) {
						t.Fatalf("metric %d:\n got %+v\nwant %+v", i, m, w)
					}
				}
				if fmt.Sprint(e.LoadModules) != fmt.Sprint(want.LoadModules) {
					t.Fatalf("loadmap %v", e.LoadModules)
				}
				if int(e.NumNodes) != want.Tree.Len() {
					t.Fatalf("nodes %d", e.NumNodes)
				}
				// Read from a middle index too: the reader seeks.
				for _, start := range []uint64{0, 137} {
					nr := f.NodeReader(e, start)
					var got, exp hpcrun.Node
					for i := int(start); ; i++ {
						err := nr.Next(&got)
						if err == io.EOF {
							if i != want.Tree.Len() {
								t.Fatalf("EOF after %d nodes", i)
							}
							break
						}
						want.Tree.Node(i, &exp)
						if !tc.lush {
							exp.Assoc, exp.LIP = 0, [2]uint64{}
						}
						if fmt.Sprint(got) != fmt.Sprint(exp) {
							t.Fatalf("node %d: got %+v want %+v", i, got, exp)
						}
					}
				}
			}
		})
	}
}

// TestLayoutNeverWrong checks the detector against files of each layout
// with zero-valued aux fields, the hardest case for B versus C.
func TestLayoutNeverWrong(t *testing.T) {
	for _, layout := range []hpcrun.Layout{hpcrun.LayoutA, hpcrun.LayoutB, hpcrun.LayoutC} {
		for metrics := 1; metrics <= 3; metrics++ {
			for seed := int64(0); seed < 5; seed++ {
				p := gen.Random(gen.Options{Seed: seed, Layout: layout, Epochs: 1 + int(seed%3), Nodes: 1 + int(seed)*3, Metrics: metrics, LoadMods: 1 + int(seed), Lush: seed%2 == 0})
				for _, e := range p.Epochs {
					for i := range e.Metrics {
						e.Metrics[i].IsFrequency, e.Metrics[i].IsMultiplexed, e.Metrics[i].PeriodMean, e.Metrics[i].NumSamples = 0, 0, 0, 0
					}
				}
				data := write(t, p)
				f, err := hpcrun.NewFile(bytes.NewReader(data), int64(len(data)))
				if err != nil || f.Err != nil || f.Layout != layout {
					t.Errorf("layout %v metrics %d seed %d: detected %v, %v %v", layout, metrics, seed, f.Layout, err, f.Err)
				}
			}
		}
	}
}

func TestTruncatedKeepsCompleteEpochs(t *testing.T) {
	p := gen.Random(gen.Options{Seed: 3, Layout: hpcrun.LayoutC, Epochs: 3, Nodes: 200, Metrics: 2, LoadMods: 4})
	data := write(t, p)
	full, _ := hpcrun.NewFile(bytes.NewReader(data), int64(len(data)))
	e2 := full.Epochs[2]
	// Cut in the middle of the third epoch's CCT, 10.5 nodes in.
	cut := e2.NodesOff + 10*e2.NodeSize + e2.NodeSize/2
	f, err := hpcrun.NewFile(bytes.NewReader(data[:cut]), cut)
	if err != nil {
		t.Fatal(err)
	}
	if f.Layout != hpcrun.LayoutC || len(f.Epochs) != 3 || f.Epochs[2].Complete != 10 || !errors.Is(f.Err, decode.ErrTruncated) {
		t.Fatalf("layout %v, %d epochs, err %v", f.Layout, len(f.Epochs), f.Err)
	}
	var fe *decode.FormatError
	if !errors.As(f.Err, &fe) || fe.Off != e2.NodesOff+10*e2.NodeSize {
		t.Fatalf("error %v", f.Err)
	}
	// Cut inside the third epoch's metric table.
	cut = e2.Off + 40
	f, err = hpcrun.NewFile(bytes.NewReader(data[:cut]), cut)
	if err != nil || len(f.Epochs) != 2 || f.Err == nil || f.Layout != hpcrun.LayoutC {
		t.Fatalf("cut in header: %v epochs %d err %v layout %v", err, len(f.Epochs), f.Err, f.Layout)
	}
	// Every prefix decodes without panicking.
	for n := 0; n < len(data); n += 1 + n/50 {
		if f, err := hpcrun.NewFile(bytes.NewReader(data[:n]), int64(n)); err == nil {
			readAll(f)
		}
	}
}

func TestUnsupportedVersion(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small")
	_, err := hpcrun.Open(filepath.Join(dir, "testmeas-small-000000-000-11ac0300-5560-0.hpcrun"))
	if !errors.Is(err, decode.ErrUnsupportedVersion) {
		t.Fatalf("err = %v", err)
	}
}

func TestTrace(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small")
	tr, err := hpcrun.OpenTrace(filepath.Join(dir, "testmeas-small-000000-000-11ac0300-5560-0.hpctrace"))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if tr.Version != "01.01" || tr.NumRecords != 13 || tr.RecordSize != 12 || tr.Err != nil {
		t.Fatalf("%+v", tr)
	}
	s := make([]hpcrun.Sample, 20)
	n, err := tr.ReadSamples(s, 0)
	if err != nil || n != 13 || s[0].Time != 0x17c96de9c60f6a78 || s[0].NodeID != 0x13 || s[12].NodeID != 0x25 {
		t.Fatalf("%d %v %+v", n, err, s[:n])
	}
	tree := gen.NewTree(1, 50, nil, 2, false)
	for _, flags := range []uint64{0, hpcrun.TraceDataCentric} {
		var b bytes.Buffer
		samples := gen.TraceSamples(tree, 100, 1000, 10)
		gen.WriteTrace(&b, "01.01", flags, samples)
		b.WriteString("xyz")
		tr, err := hpcrun.NewTrace(bytes.NewReader(b.Bytes()), int64(b.Len()))
		if err != nil || tr.NumRecords != 100 || tr.Err == nil {
			t.Fatalf("%v %+v", err, tr)
		}
		got := make([]hpcrun.Sample, 100)
		tr.ReadSamples(got, 0)
		for i := range got {
			w := samples[i]
			if flags == 0 {
				w.MetricID = 0
			}
			if got[i] != w {
				t.Fatalf("sample %d %+v %+v", i, got[i], w)
			}
		}
	}
}

func readAll(f *hpcrun.File) {
	var n hpcrun.Node
	for _, e := range f.Epochs {
		nr := f.NodeReader(e, 0)
		for nr.Next(&n) == nil {
			_ = math.Abs(0)
		}
	}
}

func FuzzNewFile(f *testing.F) {
	for _, layout := range []hpcrun.Layout{hpcrun.LayoutA, hpcrun.LayoutB, hpcrun.LayoutC} {
		f.Add(write(f, gen.Random(gen.Options{Seed: 1, Layout: layout, Epochs: 2, Nodes: 6, Metrics: 2, LoadMods: 2, Lush: layout == hpcrun.LayoutB})))
	}
	if data, err := os.ReadFile(filepath.Join(testdata.Dir(), "..", "..", "shared", "corpus", "hpctoolkit", "hpcrun-02.00-testvdso", "testvdso-000000-000-007f0101-19750-0.hpcrun")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := hpcrun.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return
		}
		readAll(file)
		tr, err := hpcrun.NewTrace(bytes.NewReader(data), int64(len(data)))
		if err == nil {
			s := make([]hpcrun.Sample, 8)
			tr.ReadSamples(s, 0)
		}
	})
}
