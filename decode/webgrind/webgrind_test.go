package webgrind

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
	"github.com/hpcfs/hpcfs/testdata/wgoracle"
)

var corpusCases = []string{"xdebug-app-v7", "xdebug2-app-v6", "valgrind-calls-v7"}

func loadOracle(t *testing.T, dir string) wgoracle.Oracle { return wgoracle.Load(t, dir) }

// TestCorpusOracle checks every decoded field against webgrind's own
// reading of the file.
func TestCorpusOracle(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			dir := testdata.Corpus(t, "webgrind", name)
			o := loadOracle(t, dir)
			f, err := Open(filepath.Join(dir, "callgrind.out.webgrind"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if int(f.Version) != o.Version || f.HeaderAddr != o.HeadersPos || f.NumFunctions() != o.FunctionCount || len(f.Problems) != 0 {
				t.Fatalf("header: v%d @%d n=%d problems %v; oracle v%d @%d n=%d", f.Version, f.HeaderAddr, f.NumFunctions(), f.Problems, o.Version, o.HeadersPos, o.FunctionCount)
			}
			if !reflect.DeepEqual(f.Addrs, o.FunctionPos) {
				t.Errorf("addresses differ")
			}
			if !reflect.DeepEqual(f.HeaderLines, o.HeaderLines) {
				t.Errorf("header lines %q, oracle %q", f.HeaderLines, o.HeaderLines)
			}
			h := ParseHeaders(f.HeaderLines)
			if float64(h.Runs) != o.Headers["runs"].(float64) {
				t.Errorf("runs %d, oracle %v", h.Runs, o.Headers["runs"])
			}
			for k, v := range o.Headers {
				switch k {
				case "runs":
				case "summary":
					if want := toFloat(t, v); h.Summary != want {
						t.Errorf("summary %v, oracle %v", h.Summary, want)
					}
				default:
					if h.Get(k) != v.(string) {
						t.Errorf("header %q = %q, oracle %q", k, h.Get(k), v)
					}
				}
			}
			rd := f.NewReader()
			for i, of := range o.Functions {
				fn, err := rd.Function(i)
				if err != nil {
					t.Fatalf("function %d: %v", i, err)
				}
				line := uint32(0)
				if of.Line != nil {
					line = *of.Line
				}
				if fn.Nr != of.Nr || fn.Addr != of.Address || fn.Name != of.FunctionName || fn.File != of.File || fn.Line != line ||
					fn.Invocations != of.InvocationCount || fn.Self != of.SummedSelfCost || fn.Inclusive != of.SummedInclusiveCost ||
					fn.CalledFromCount != of.CalledFromInfoCount || fn.SubCallCount != of.SubCallInfoCount {
					t.Errorf("function %d: %+v, oracle %+v", i, fn, of)
				}
				cf, sc, err := rd.Calls(i)
				if err != nil {
					t.Fatalf("calls %d: %v", i, err)
				}
				checkCalls(t, i, "called-from", cf, of.CalledFrom)
				checkCalls(t, i, "sub-calls", sc, of.SubCalls)
			}
		})
	}
}

func toFloat(t *testing.T, v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case string:
		return leadingNumber(x)
	}
	t.Fatalf("summary of type %T", v)
	return 0
}

func checkCalls(t *testing.T, i int, what string, got []Call, want []wgoracle.Call) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("function %d %s: %d entries, oracle %d", i, what, len(got), len(want))
		return
	}
	for j, w := range want {
		g := got[j]
		if uint64(g.Function) != w.FunctionNr || uint64(g.Line) != w.Line || g.Count != w.CallCount || g.Cost != w.SummedCallCost {
			t.Errorf("function %d %s[%d] = %+v, oracle %+v", i, what, j, g, w)
		}
	}
}

func encode(t testing.TB, g *gen.Graph, version int) []byte {
	var buf bytes.Buffer
	if err := g.Write(&buf, version); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func open(t testing.TB, b []byte) *File {
	f, err := NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestGeneratedVersions decodes one synthetic call graph written as each
// version and compares with the generator's own aggregation.
func TestGeneratedVersions(t *testing.T) {
	g := gen.Random(7, 3000, 15)
	sums := g.Summaries()
	for _, v := range []int{4, 5, 6, 7} {
		f := open(t, encode(t, g, v))
		if int(f.Version) != v || f.NumFunctions() != len(sums) || len(f.Problems) != 0 {
			t.Fatalf("v%d: version %d, %d functions, problems %v", v, f.Version, f.NumFunctions(), f.Problems)
		}
		if h := ParseHeaders(f.HeaderLines); h.Runs != 1 || h.Summary == 0 {
			t.Errorf("v%d headers: %+v", v, h)
		}
		rd := f.NewReader()
		for i, s := range sums {
			fn, err := rd.Function(i)
			if err != nil {
				t.Fatal(err)
			}
			wantLine := uint32(0)
			if v == 7 {
				wantLine = s.Line
			}
			if fn.Name != s.Name || fn.File != s.File || fn.Line != wantLine || fn.Self != uint64(s.Self) ||
				fn.Inclusive != uint64(s.Inclusive) || fn.Invocations != uint64(s.Count) {
				t.Fatalf("v%d function %d = %+v, want %+v", v, i, fn, s)
			}
			cf, sc, err := rd.Calls(i)
			if err != nil {
				t.Fatal(err)
			}
			if !sameCalls(cf, s.CalledFrom) {
				t.Fatalf("v%d function %d called-from %v, want %v", v, i, cf, s.CalledFrom)
			}
			if v == 5 {
				if sc != nil {
					t.Fatalf("v5 has sub-calls")
				}
			} else if !sameCalls(sc, s.SubCalls) {
				t.Fatalf("v%d function %d sub-calls %v, want %v", v, i, sc, s.SubCalls)
			}
		}
	}
}

func sameCalls(got []Call, want []gen.Call) bool {
	if len(got) != len(want) {
		return false
	}
	for j, w := range want {
		g := got[j]
		if int(g.Function) != w.Fn || g.Line != w.Line || g.Count != uint64(w.Count) || g.Cost != uint64(w.Cost) {
			return false
		}
	}
	return true
}

func TestInvocationsV4(t *testing.T) {
	g := gen.Random(3, 500, 15)
	f := open(t, encode(t, g, 4))
	rd := f.NewReader()
	for i, fn := range g.Funcs {
		_, invs, err := rd.Invocations(i)
		if err != nil || len(invs) != len(fn.Invs) {
			t.Fatalf("function %d: %d invocations, err %v", i, len(invs), err)
		}
		for j, v := range fn.Invs {
			got := invs[j]
			caller := uint32(int32(v.Caller))
			if got.Self != v.Self || got.Inclusive != v.Inclusive() || got.CallCost != v.CallCost || got.Caller != caller ||
				got.CallerLine != v.CallerLine || int(got.SubCallN) != len(v.Subs) {
				t.Fatalf("function %d invocation %d = %+v, want %+v", i, j, got, v)
			}
			if v.Caller == gen.NoCaller && got.Caller != NoCaller {
				t.Fatalf("sentinel not decoded")
			}
			subs, err := rd.SubCallRecords(i, got)
			if err != nil || len(subs) != len(v.Subs) {
				t.Fatalf("sub-calls: %v %v", subs, err)
			}
			for k, s := range v.Subs {
				if int(subs[k].Function) != s.Fn || int(subs[k].Invocation) != s.Inv || subs[k].Line != s.Line || subs[k].Cost != s.Cost {
					t.Fatalf("sub-call %d/%d/%d = %+v, want %+v", i, j, k, subs[k], s)
				}
			}
		}
	}
}

func TestParseHeaders(t *testing.T) {
	h := ParseHeaders([]string{"version: 1", "cmd:  /bin/x 18", "desc: I1 cache: ", "desc: Trigger: Program termination",
		"summary: 100 448", "summary: 50", "events: Time_(10ns)", "", "after: blank"})
	if h.Runs != 2 || h.Summary != 150 || h.Get("cmd") != " /bin/x 18" || h.Get("desc") != "Trigger" || h.Get("after") != "" {
		t.Fatalf("%+v", h)
	}
}

func le(words ...uint32) []byte {
	var b []byte
	for _, w := range words {
		b = append(b, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return b
}

func TestBadInput(t *testing.T) {
	good := encode(t, gen.Random(5, 200, 15), 7)
	t.Run("not webgrind", func(t *testing.T) {
		for _, b := range [][]byte{nil, {1, 2}, le(3, 12, 0), le(8, 12, 0)} {
			_, err := NewFile(bytes.NewReader(b), int64(len(b)))
			if err == nil {
				t.Fatalf("%x accepted", b)
			}
			var fe *decode.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%v is not a FormatError", err)
			}
		}
	})
	t.Run("zero functions", func(t *testing.T) {
		b := append(le(7, 12, 0), "summary: 5\n"...)
		f := open(t, b)
		if f.NumFunctions() != 0 || len(f.Problems) != 0 || len(f.HeaderLines) != 1 {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("count cannot fit", func(t *testing.T) {
		b := le(7, 12, 1<<30)
		f := open(t, b)
		if f.NumFunctions() != 0 || len(f.Problems) == 0 {
			t.Fatalf("%d functions, problems %v", f.NumFunctions(), f.Problems)
		}
	})
	t.Run("header address past end", func(t *testing.T) {
		b := bytes.Clone(good)
		copy(b[4:], le(uint32(len(b)+10)))
		f := open(t, b)
		if len(f.Problems) != 1 || f.HeaderLines != nil {
			t.Fatalf("problems %v", f.Problems)
		}
		if _, err := f.Function(0); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("record address past end", func(t *testing.T) {
		b := bytes.Clone(good)
		copy(b[12+4*2:], le(uint32(len(b)+100)))
		f := open(t, b)
		if _, err := f.Function(1); err != nil {
			t.Fatal(err)
		}
		_, err := f.Function(2)
		if !errors.Is(err, decode.ErrFormat) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("impossible call count", func(t *testing.T) {
		b := bytes.Clone(good)
		a := int(f0addr(b, 0))
		copy(b[a+16:], le(0x7fffffff))
		f := open(t, b)
		if _, _, err := f.Calls(0); !errors.Is(err, decode.ErrFormat) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		for _, v := range []int{4, 5, 6, 7} {
			b := encode(t, gen.Random(5, 200, 15), v)
			for cut := 12; cut < len(b); cut += 97 {
				f, err := NewFile(bytes.NewReader(b[:cut]), int64(cut))
				if err != nil {
					t.Fatal(err)
				}
				rd := f.NewReader()
				for i := 0; i < f.NumFunctions(); i++ {
					if _, err := rd.Function(i); err != nil {
						break
					}
					rd.Calls(i)
				}
			}
		}
	})
	t.Run("header text cut or followed by other bytes", func(t *testing.T) {
		ha := int(f0addr(good, -2))
		text := string(good[ha:])
		for _, c := range []struct {
			name  string
			b     []byte
			lines int
			want  string
		}{
			{"cut in the last line", good[:len(good)-3], strings.Count(text, "\n") - 1, "no newline"},
			{"cut before the summary line", good[:ha+strings.Index(text, "summary")], strings.Count(text[:strings.Index(text, "summary")], "\n"), "no summary"},
			{"binary appended", append(bytes.Clone(good), 0, 1, 2, '\n'), strings.Count(text, "\n") + 1, "not text"},
			// 0xff and ESC in the first line: the lines after it are kept.
			{"damaged first line", append(append(bytes.Clone(good[:ha+1]), 0xff, 0x1b), good[ha+3:]...), strings.Count(text, "\n"), "not text in 1 header line"},
			{"all header text cut", good[:ha], 0, "no summary"},
		} {
			v, ok := Sniff(c.b[:64], int64(len(c.b)))
			if !ok || v != V7 {
				t.Errorf("%s: Sniff = %v, %v", c.name, v, ok)
			}
			f := open(t, c.b)
			if len(f.Problems) != 1 || !strings.Contains(f.Problems[0].Error(), c.want) || len(f.HeaderLines) != c.lines {
				t.Errorf("%s: %d header lines (want %d), problems %v", c.name, len(f.HeaderLines), c.lines, f.Problems)
			}
			if f.NumFunctions() != int(f0addr(good, -1)) {
				t.Errorf("%s: %d functions", c.name, f.NumFunctions())
			}
			if c.want == "not text" || strings.HasPrefix(c.want, "not text in") {
				if h := ParseHeaders(f.HeaderLines); h.Runs != 1 || h.Get("events") == "" {
					t.Errorf("%s: the lines after the damaged one are lost: %q", c.name, f.HeaderLines)
				}
			}
		}
	})
	t.Run("sniff", func(t *testing.T) {
		for _, c := range []struct {
			b    []byte
			want bool
		}{
			{le(7, 12, 0), true},
			{le(7, 13, 0), false},
			{le(7, 40, 2, 20, 30), true},
			{le(7, 40, 2, 20, 50), false}, // a record at the header
			{le(7, 40, 2, 20, 19), false}, // addresses decrease
			{le(7, 40, 2, 24, 30), false}, // the first record is not after the table
			{le(7, 16, 2, 20, 30), false}, // header inside the table
			{le(8, 40, 2, 20, 30), false},
			{le(7, 4000, 2, 20, 30), true}, // cut in the records
		} {
			if _, ok := Sniff(c.b, 40); ok != c.want {
				t.Errorf("Sniff(% x) = %v", c.b, ok)
			}
		}
	})
	t.Run("v4 sub-call address past end", func(t *testing.T) {
		g := gen.Random(5, 200, 15)
		b := encode(t, g, 4)
		// first invocation of the last function ({main} completes last)
		last := len(g.Funcs) - 1
		a := int(f0addr(b, last))
		copy(b[a+16+28:], le(uint32(len(b))))
		f := open(t, b)
		if _, _, err := f.Calls(last); !errors.Is(err, decode.ErrFormat) {
			t.Fatalf("err = %v", err)
		}
	})
}

// f0addr is the address of function i's record; -2 and -1 give the
// header address and the function count.
func f0addr(b []byte, i int) uint32 {
	o := 12 + 4*i
	return uint32(b[o]) | uint32(b[o+1])<<8 | uint32(b[o+2])<<16 | uint32(b[o+3])<<24
}

// FuzzNewFile decodes every part of mutated files. The corpus seeds are
// up to 16 KB, so the default minimization of new inputs (60 s each)
// dominates a run: use -fuzzminimizetime 0 for throughput, e.g.
//
//	go test -run XXX -fuzz FuzzNewFile -fuzztime 90s -fuzzminimizetime 0 ./decode/webgrind
func FuzzNewFile(f *testing.F) {
	for _, v := range []int{4, 5, 6, 7} {
		f.Add(encode(f, gen.Random(11, 60, 15), v))
	}
	f.Add(le(7, 12, 0))
	for _, name := range corpusCases {
		p := filepath.Join(testdata.CorpusDir(), "webgrind", name, "callgrind.out.webgrind")
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := NewFile(bytes.NewReader(b), int64(len(b)))
		if err != nil {
			return
		}
		ParseHeaders(file.HeaderLines)
		rd := file.NewReader()
		for i := 0; i < file.NumFunctions() && i < 200; i++ {
			rd.Function(i)
			cf, _, _ := rd.Calls(i)
			_ = cf
			if file.Version == V4 {
				_, invs, _ := rd.Invocations(i)
				for j, inv := range invs {
					if j == 20 {
						break
					}
					rd.SubCallRecords(i, inv)
				}
			}
		}
	})
}
