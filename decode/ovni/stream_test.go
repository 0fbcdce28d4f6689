package ovni

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

func sampleEvents() []gen.Event {
	evs := []gen.Event{{MCV: "OHx", Clock: 100}}
	for size := 2; size <= 16; size++ {
		p := make([]byte, size)
		for i := range p {
			p[i] = byte(size*16 + i)
		}
		evs = append(evs, gen.Event{MCV: "ZS" + string("23456789abcdefg"[size-2]), Clock: uint64(100 + size), Payload: p})
	}
	evs = append(evs,
		gen.Event{MCV: "ZJj", Clock: 200, Jumbo: true},
		gen.Event{MCV: "VYc", Clock: 201, Jumbo: true, Payload: []byte("\x01\x00\x00\x00label\x00")},
		gen.Event{MCV: "ZJb", Clock: 202, Jumbo: true, Payload: bytes.Repeat([]byte{0xab}, 3<<20)},
		gen.Event{MCV: "OHe", Clock: 1 << 63},
	)
	return evs
}

func encode(header bool, evs []gen.Event) []byte {
	var b []byte
	if header {
		b = append([]byte("ovni"), 1, 0, 0, 0)
	}
	for _, ev := range evs {
		b = gen.AppendEvent(b, ev)
	}
	return b
}

func TestReaderDecodesEveryShape(t *testing.T) {
	evs := sampleEvents()
	for _, header := range []bool{false, true} {
		data := encode(header, evs)
		s, err := NewStream(bytes.NewReader(data), int64(len(data)), "test")
		if err != nil {
			t.Fatal(err)
		}
		wantVariant := Headerless
		if header {
			wantVariant = WithHeader
		}
		if s.Variant != wantVariant {
			t.Fatalf("variant %v, want %v", s.Variant, wantVariant)
		}
		for _, bufSize := range []int{4096, 1 << 20} {
			r := s.NewReader(0, bufSize)
			for i, want := range evs {
				var ev Event
				if err := r.Next(&ev); err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				wantPayload := want.Payload
				if want.Jumbo {
					wantPayload = binary.LittleEndian.AppendUint32(nil, uint32(len(want.Payload)))
					wantPayload = append(wantPayload, want.Payload...)
				}
				if string(ev.MCV[:]) != want.MCV || ev.Clock != want.Clock || ev.Jumbo() != want.Jumbo || !bytes.Equal(ev.Payload, wantPayload) {
					t.Fatalf("event %d = %q %d jumbo=%v %d bytes, want %+v", i, ev.MCV, ev.Clock, ev.Jumbo(), len(ev.Payload), want.MCV)
				}
			}
			var ev Event
			if err := r.Next(&ev); err != io.EOF {
				t.Fatalf("after the last event: %v, want EOF", err)
			}
		}
	}
}

func TestSkipAgreesWithNext(t *testing.T) {
	data := encode(false, sampleEvents())
	s, _ := NewStream(bytes.NewReader(data), int64(len(data)), "test")
	a, b := s.NewReader(0, 4096), s.NewReader(0, 4096)
	for {
		var ev Event
		errA := a.Next(&ev)
		clock, _, payload, errB := b.Skip()
		if errA != errB {
			t.Fatalf("Next: %v, Skip: %v", errA, errB)
		}
		if errA == io.EOF {
			break
		}
		if clock != ev.Clock || payload != int64(len(ev.Payload)) || a.Offset() != b.Offset() {
			t.Fatalf("Skip disagrees at %d", ev.Off)
		}
	}
}

func TestTruncatedStreamKeepsCompleteEvents(t *testing.T) {
	evs := sampleEvents()[:18]
	data := encode(false, evs)
	ends := map[int]int{} // stream length -> complete events
	off := 0
	for i, ev := range evs {
		off += len(gen.AppendEvent(nil, ev))
		ends[off] = i + 1
	}
	complete := 0
	for cut := 0; cut <= len(data); cut++ {
		if n, ok := ends[cut]; ok {
			complete = n
		}
		s, err := NewStream(bytes.NewReader(data[:cut]), int64(cut), "thread.1")
		if err != nil {
			t.Fatal(err)
		}
		r := s.NewReader(0, 4096)
		got := 0
		var ev Event
		for {
			err = r.Next(&ev)
			if err != nil {
				break
			}
			got++
		}
		if got != complete {
			t.Fatalf("cut at %d: %d events, want %d", cut, got, complete)
		}
		_, atBoundary := ends[cut]
		if cut == 0 || atBoundary {
			if err != io.EOF {
				t.Fatalf("cut at %d (a boundary): %v, want EOF", cut, err)
			}
			continue
		}
		var fe *decode.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, decode.ErrTruncated) || fe.Off != r.Offset() {
			t.Fatalf("cut at %d: error %v, want a truncation at %d", cut, err, r.Offset())
		}
	}
}

func TestHugeJumboLengthDoesNotAllocate(t *testing.T) {
	data := gen.AppendEvent(nil, gen.Event{MCV: "ZJj", Clock: 1, Jumbo: true})
	binary.LittleEndian.PutUint32(data[12:], 0xffffffff)
	s, _ := NewStream(bytes.NewReader(data), int64(len(data)), "t")
	var ev Event
	allocs := testing.AllocsPerRun(10, func() {
		if err := s.NewReader(0, 4096).Next(&ev); !errors.Is(err, decode.ErrTruncated) {
			t.Fatalf("err = %v", err)
		}
	})
	if allocs > 20 {
		t.Fatalf("%v allocations for a lying jumbo length", allocs)
	}
}

func TestParseMetadata(t *testing.T) {
	for _, tc := range []struct {
		in   string
		ok   bool
		kind error
	}{
		{gen.Metadata(1, 0, 2, 4), true, nil},
		{`{"app_id": 1}`, false, decode.ErrFormat},
		{`{"version": 2, "app_id": 1}`, true, nil},
		{`{"version": 3, "app_id": 1}`, false, decode.ErrUnsupportedVersion},
		{`{"version": 1, "app_id": `, false, decode.ErrFormat},
		{``, false, decode.ErrFormat},
	} {
		m, err := ParseMetadata([]byte(tc.in), "metadata.json")
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, tc.kind)) {
			t.Errorf("ParseMetadata(%q) = %v, want ok=%v %v", tc.in, err, tc.ok, tc.kind)
		}
		if tc.ok && m.Version == 1 && (len(m.CPUs) != 4 || m.CPUs[3].PhyID != 7 || *m.NRanks != 2) {
			t.Errorf("ParseMetadata(%q) = %+v", tc.in, m)
		}
	}
}

func FuzzStream(f *testing.F) {
	f.Add(encode(false, sampleEvents()[:18]))
	f.Add(encode(true, sampleEvents()[:5]))
	f.Add([]byte("ovni\x02\x00\x00\x00"))
	f.Add([]byte{0x13, 'Z', 'J', 'j', 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f})
	corpus, _ := filepath.Glob(filepath.Join(testdata.CorpusDir(), "ovni", "*", "ovni", "*", "*", "thread.*"))
	// the 1.x layouts: thread.<T>.obs and thread.<T>/stream.obs (small ones)
	obs, _ := filepath.Glob(filepath.Join(testdata.CorpusDir(), "ovni-1x", "*shapes*", "ovni", "*", "*", "thread.*.obs"))
	v3, _ := filepath.Glob(filepath.Join(testdata.CorpusDir(), "ovni-1x", "*shapes*", "ovni", "*", "*", "thread.*", "stream.obs"))
	corpus = append(append(corpus, obs...), v3...)
	for _, p := range corpus {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := NewStream(bytes.NewReader(data), int64(len(data)), "fuzz")
		if s == nil {
			return
		}
		_ = err
		r, k := s.NewReader(0, 4096), s.NewReader(0, 4096)
		for {
			var ev Event
			errN := r.Next(&ev)
			_, _, _, errS := k.Skip()
			if (errN == nil) != (errS == nil) {
				t.Fatalf("Next %v, Skip %v", errN, errS)
			}
			if errN != nil {
				if errN != io.EOF && !errors.Is(errN, decode.ErrFormat) && !errors.Is(errN, decode.ErrTruncated) {
					t.Fatalf("unexpected error kind: %v", errN)
				}
				return
			}
			if r.Offset() > int64(len(data)) {
				t.Fatalf("offset %d past the end", r.Offset())
			}
		}
	})
}

func FuzzMetadata(f *testing.F) {
	f.Add([]byte(gen.Metadata(1, 0, 2, 4)))
	f.Add([]byte(`{"version": 1, "app_id": 1, "cpus": [{"index": 0}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseMetadata(data, "metadata.json")
		if err == nil && m.Version != 1 && m.Version != 2 {
			t.Fatalf("accepted version %d", m.Version)
		}
	})
}

func TestParseStreamMeta(t *testing.T) {
	js := gen.StreamJSON(3, "1.14.0", 0, gen.V3Proc("n", 1, 2, 5, 1, 4, 2)...)
	m, err := ParseStreamMeta([]byte(js), "stream.json")
	if err != nil {
		t.Fatal(err)
	}
	if *m.Ovni.Finished != 0 || *m.Ovni.TID != 2 || *m.Ovni.NRanks != 4 || len(m.Ovni.LoomCPUs) != 2 || m.Ovni.Lib.Version != "1.14.0" {
		t.Fatalf("%+v", m.Ovni)
	}
	if r := m.Require(); len(r) != 1 || r[0] != "ovni 1.1.0" {
		t.Fatalf("require %q", r)
	}
	if f := m.Fields[len(m.Fields)-1]; f.Key != "ovni.finished" || f.Value != "0" {
		t.Fatalf("last field %+v", f)
	}
	if f := m.Fields[11]; f.Key != "ovni.loom_cpus.0.index" || f.Value != "0" {
		t.Fatalf("field 11 %+v", f)
	}
	for _, bad := range []string{js[:len(js)/2], `{"ovni": {}}`, `{"version": 9}`, `[1, 2]`, `{"version": 3, "ovni": {"tid": "x"}}`} {
		if _, err := ParseStreamMeta([]byte(bad), "stream.json"); err == nil {
			t.Errorf("ParseStreamMeta(%q) accepted", bad)
		}
	}
	m, _ = ParseStreamMeta([]byte(js[:len(js)/2]), "stream.json")
	if len(m.Fields) == 0 || m.Fields[0] != (Field{"version", "3"}) {
		t.Errorf("a cut document lost the fields before the cut: %+v", m.Fields)
	}
}

func FuzzStreamMeta(f *testing.F) {
	f.Add([]byte(gen.StreamJSON(3, "1.14.0", 1, gen.V3Proc("n", 1, 2, 5, 1, 4, 2)...)))
	f.Add([]byte(gen.StreamJSON(2, "1.10.0", 0)))
	f.Add([]byte(`{"version": 3, "ovni": {"mark": {"1": {"labels": [[[[{}]]]]}}}}`))
	corpus, _ := filepath.Glob(filepath.Join(testdata.CorpusDir(), "ovni-1x", "*", "ovni", "*", "*", "thread.*", "stream.json"))
	for _, p := range corpus {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseStreamMeta(data, "stream.json")
		if err == nil && m.Version != 2 && m.Version != 3 {
			t.Fatalf("accepted version %d", m.Version)
		}
		if m != nil && len(m.Fields) > len(data) {
			t.Fatalf("%d fields from %d bytes", len(m.Fields), len(data))
		}
	})
}
