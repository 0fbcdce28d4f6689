package callgrind_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"

	"github.com/hpcfs/hpcfs/decode/callgrind"
	gen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
)

func gzipped(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	w.Close()
	return z.Bytes()
}

// fuzzFile checks that b, read as a damaged index entry, decodes to a
// state that round-trips, and returns b decoded as a profile, nil if it
// does not decode.
func fuzzFile(t *testing.T, b []byte) *callgrind.File {
	if st, _, err := callgrind.DecodeState(b); err == nil {
		enc, _ := st.AppendBinary(nil)
		if back, _, err := callgrind.DecodeState(enc); err != nil || back != st {
			t.Fatalf("state %v does not round-trip: %v %v", st, back, err)
		}
	}
	file, err := callgrind.NewFile(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil
	}
	return file
}

func FuzzDecode(f *testing.F) {
	for _, c := range []gen.Config{
		{Seed: 1, Functions: 3, Records: 20},
		{Seed: 2, Functions: 10, Records: 200, Instr: true, Jumps: true, Inline: true, Events: 3},
		{Seed: 3, Functions: 5, Records: 50, NoCompress: true},
	} {
		b := gen.Bytes(c)
		f.Add(b)
		f.Add(b[:len(b)/2])
		f.Add(gzipped(b))
	}
	f.Add([]byte("events: A B\nfn=(1) x\n1 2 3\ncfn=(1)\ncalls=0 1\n* 4\njcnd=1/2 +3\n-1 0x10\n"))
	f.Add([]byte("\n==== NEW PROFILING FILE ====\ncreator: xdebug\nevents: A\nfn=x\n1 2\n==== NEW PROFILING FILE ====\ncreator: xdebug\nevents: A\nfn=y\n1 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := fuzzFile(t, b)
		if file == nil {
			return
		}
		for _, s := range file.Sections() {
			if sf, err := file.Section(s); err == nil {
				sf.Summarize()
			}
		}
		tab := file.Summarize()
		for i := range tab.Funcs {
			_ = tab.Inclusive(i)
		}
		// A decoder resumed from any state the first pass passed through
		// yields the same records as the first pass from there.
		d := file.NewDecoder(tab.Names, file.StartState())
		var states []callgrind.State
		var offs []int64
		for {
			st := d.State()
			r, err := d.Next()
			if err == io.EOF || err != nil {
				break
			}
			states = append(states, st)
			offs = append(offs, r.Off)
		}
		for k := len(states) / 2; k < len(states) && k < len(states)/2+3; k++ {
			enc, _ := states[k].AppendBinary(nil)
			st, rest, err := callgrind.DecodeState(enc)
			if err != nil || len(rest) != 0 || st != states[k] {
				t.Fatalf("state %v does not round-trip: %v %v", states[k], st, err)
			}
			d := file.NewDecoder(tab.Names, st)
			r, err := d.Next()
			if err != nil || r.Off != offs[k] {
				t.Fatalf("resumed at record %d: %v, off %v want %d", k, err, r, offs[k])
			}
		}
	})
}

// FuzzAnnotate feeds damaged profiles to Annotate and CgAnnotate: an error
// or text, deterministic (the view's size must not change between renders),
// never a panic.
func FuzzAnnotate(f *testing.F) {
	b := gen.Bytes(gen.Config{Seed: 2, Functions: 10, Records: 50, Instr: true, Inline: true, Events: 2})
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(oddProfile))
	f.Add([]byte("desc: a\ncmd: x\nevents: A B\nfl=f\nfn=g\n1 2 -3\nsummary: 2 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := fuzzFile(t, b)
		if file == nil {
			return
		}
		for _, inclusive := range []bool{false, true} {
			x, err1 := file.Annotate("p", inclusive)
			y, err2 := file.Annotate("p", inclusive)
			if (err1 == nil) != (err2 == nil) || !bytes.Equal(x, y) {
				t.Fatal("Annotate is not deterministic")
			}
		}
		x, err1 := file.CgAnnotate("p")
		y, err2 := file.CgAnnotate("p")
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(x, y) {
			t.Fatal("CgAnnotate is not deterministic")
		}
	})
}
