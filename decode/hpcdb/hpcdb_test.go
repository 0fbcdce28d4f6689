package hpcdb_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/decode/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

func TestCorpusPingPong(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	t.Run("profile.db", func(t *testing.T) {
		p, err := hpcdb.OpenProfileDB(filepath.Join(dir, "profile.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		h := p.Header
		if h.Major != 1 || h.Minor != 0 || h.NumProf != 3 || h.NumSec != 2 || h.InfoSize != 156 || h.InfoPtr != 128 || h.TupleSize != 132 || h.TuplePtr != 288 {
			t.Fatalf("profile.db header = %+v", h)
		}
		if p.Footer() != hpcdb.FooterOK {
			t.Errorf("footer = %v", p.Footer())
		}
		want := []hpcdb.ProfileInfo{{TuplePtr: 288, NumVals: 113, NumCtxs: 103, Offset: 2708}, {TuplePtr: 308, NumVals: 65, NumCtxs: 48, Offset: 424}, {TuplePtr: 364, NumVals: 53, NumCtxs: 42, Offset: 1662}}
		for i, w := range want {
			if p.Profiles[i] != w {
				t.Errorf("profile %d = %+v, want %+v", i, p.Profiles[i], w)
			}
		}
		tup, err := p.Tuple(1)
		if err != nil || len(tup) != 3 || tup[0].Kind() != hpcdb.KindNode || tup[0].Interp() != hpcdb.InterpBoth || tup[0].Physical != 2831155840 ||
			tup[1].Kind() != hpcdb.KindRank || tup[1].Interp() != hpcdb.InterpLogicalOnly || tup[1].Logical != 1 {
			t.Fatalf("tuple 1 = %+v, %v", tup, err)
		}
		// profile 1's first values (golden dump): 0.131019 metric 2 twice.
		vals, err := p.Values(1, 0, 3, nil)
		if err != nil || vals[0].Metric != 2 || math.Abs(vals[0].Value-0.131019) > 1e-6 || vals[2].Metric != 1 {
			t.Fatalf("values = %+v, %v", vals, err)
		}
		// Every context of every profile is found by binary search with the
		// range the linear index gives.
		for i := range p.Profiles {
			pairs, err := p.CtxPairs(i, 0, uint64(p.Profiles[i].NumCtxs)+1, nil)
			if err != nil {
				t.Fatal(err)
			}
			if last := pairs[len(pairs)-1]; last.Ctx != hpcdb.ProfileEndMarker || last.Index != p.Profiles[i].NumVals {
				t.Fatalf("profile %d end pair = %+v", i, last)
			}
			for k := 0; k+1 < len(pairs); k++ {
				lo, hi, ok, err := p.Find(i, pairs[k].Ctx)
				if err != nil || !ok || lo != pairs[k].Index || hi != pairs[k+1].Index {
					t.Fatalf("Find(%d, %d) = %d,%d,%v,%v", i, pairs[k].Ctx, lo, hi, ok, err)
				}
			}
			if _, _, ok, _ := p.Find(i, 1<<30); ok {
				t.Fatal("found a context that does not exist")
			}
		}
	})
	t.Run("cct.db", func(t *testing.T) {
		c, err := hpcdb.OpenCCTDB(filepath.Join(dir, "cct.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if c.Header.NumCtx != 117 || c.Header.InfoSize != 2574 || c.Footer() != hpcdb.FooterOK {
			t.Fatalf("cct.db header = %+v footer %v", c.Header, c.Footer())
		}
		if info, err := c.Info(3); err != nil || info != (hpcdb.CtxInfo{Ctx: 3, NumVals: 3, NumMetric: 2, Offset: 2792}) {
			t.Fatalf("info 3 = %+v %v", info, err)
		}
		if ok, err := c.DataValid(8); ok || err != nil {
			t.Fatalf("zero-filled cct.db reported valid (%v)", err)
		}
		if _, err := c.ContextValues(3); err == nil {
			t.Fatal("zero-filled block decoded without error")
		}
	})
	t.Run("trace.db", func(t *testing.T) {
		tr, err := hpcdb.OpenTraceDB(filepath.Join(dir, "trace.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		if len(tr.Lines) != 2 || tr.Lines[0] != (hpcdb.TraceLine{Prof: 1, Start: 464, End: 752}) || tr.Lines[1].NumSamples() != 24 {
			t.Fatalf("trace lines = %+v", tr.Lines)
		}
		s, err := tr.Samples(1, 0, 3, nil)
		if err != nil || s[0] != (hpcdb.Sample{1642362974328960000, 1}) || s[2] != (hpcdb.Sample{1642362974444645000, 116}) {
			t.Fatalf("samples = %+v %v", s, err)
		}
	})
	t.Run("experiment.xml", func(t *testing.T) {
		x, err := hpcdb.OpenExperiment(filepath.Join(dir, "experiment.xml"))
		if err != nil {
			t.Fatal(err)
		}
		if x.Version != "4.0" || x.Title != "ping-pong" || len(x.IDNames) != 8 || len(x.Metrics) != 4 || len(x.MetricDBs) != 2 ||
			len(x.TraceDBs) != 1 || x.TraceDBs[0].MinTime != 1642362974325469000 || len(x.Modules) != 5 || len(x.Files) != 9 || len(x.Procedures) != 28 {
			t.Fatalf("experiment = %+v", x)
		}
		if x.Metrics[2].ID != 767 || x.Metrics[2].Partner != 511 || x.Metrics[2].Formula("view") != "$512" || x.Metrics[2].Units != "events" || !x.Metrics[2].ShowPercent {
			t.Fatalf("metric 767 = %+v", x.Metrics[2])
		}
		if x.Procedures[0].Name != "<unknown procedure> 0xc8e8 [libpsm2.so.2.2]" || !x.Procedures[0].Fake {
			t.Fatalf("procedure 0 = %+v", x.Procedures[0])
		}
		if x.Nodes[0].Kind != hpcdb.NodeRoot || x.Nodes[1].Kind != hpcdb.NodePF || x.Nodes[1].ID != 2 || x.Nodes[2].ID != -2 || x.Nodes[2].It != 2 || x.Nodes[2].Parent != 1 {
			t.Fatalf("first nodes = %+v", x.Nodes[:3])
		}
		if x.MaxCtx != 116 {
			t.Fatalf("MaxCtx = %d", x.MaxCtx)
		}
	})
}

func TestFormula(t *testing.T) {
	vals := map[int]float64{1: 2, 2: 8, 512: 3, -1: 5}
	get := func(id int) float64 { return vals[id] }
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"$512", 3},
		{"$1+$2*$512", 26},
		{"($1+$2)*$512", 30},
		{"2^3^2", 512},
		{"-$1^2", -4},
		{"sqrt($2*$1)", 4},
		{"log($2, $1)", 3},
		{"ln(1)", 0},
		{"min($1, $2, $512)", 2},
		{"max($1,$2)", 8},
		{"floor(2.5)+ceil(2.5)", 5},
		{"sum($512, $512)", 6},
		{"$-1 / 2", 2.5},
		{"1e2 - 1.5E+1", 85},
	} {
		e, err := hpcdb.ParseFormula(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := e.Eval(get); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%q = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"", "$", "1+", "foo(1)", "sqrt(1,2)", "(1", "1)", "min()"} {
		if _, err := hpcdb.ParseFormula(bad); !errors.Is(err, decode.ErrFormat) {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}

func TestBadHeaders(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	for _, name := range []string{"profile.db", "cct.db", "trace.db"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		open := func(b []byte) error {
			r := bytesReader(b)
			var err error
			switch name {
			case "profile.db":
				_, err = hpcdb.NewProfileDB(r, int64(len(b)))
			case "cct.db":
				_, err = hpcdb.NewCCTDB(r, int64(len(b)))
			default:
				_, err = hpcdb.NewTraceDB(r, int64(len(b)))
			}
			return err
		}
		if err := open(b[:20]); !errors.Is(err, decode.ErrTruncated) {
			t.Errorf("%s truncated header: %v", name, err)
		}
		bad := append([]byte(nil), b...)
		bad[0] = 'X'
		if err := open(bad); !errors.Is(err, decode.ErrFormat) {
			t.Errorf("%s bad magic: %v", name, err)
		}
		bad[0], bad[16] = b[0], 9
		if err := open(bad); !errors.Is(err, decode.ErrUnsupportedVersion) {
			t.Errorf("%s version 9: %v", name, err)
		}
	}
}
