package ovni

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
)

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

func TestDescribe(t *testing.T) {
	label := []byte("testtype1\x00")
	jumbo := append(le32(uint32(4+len(label))), le32(1)...)
	jumbo = append(jumbo, label...)
	tag := append(append(le32(1), 0, 0, 0, 0), binary.LittleEndian.AppendUint64(nil, 0x2a)...)
	long := append(le32(uint32(2000)), le32(7)...)
	long = append(long, strings.Repeat("x", 2000)...)
	tests := []struct {
		minor   int
		mcv     string
		payload []byte
		want    string
	}{
		{14, "VYc", jumbo, `creates task type 1 with label "testtype1"`},
		{14, "VTx", append(le32(1), le32(0)...), "executes the task 1 with bodyid 0"},
		{14, "OHx", append(append(le32(0), le32(0xffffffff)...), make([]byte, 8)...), "begins the execution on CPU 0 created from -1 with tag 0"},
		{14, "OHC", tag[4:], "creates a new thread on CPU 0 with tag 0x2a"},
		{14, "OHe", nil, "ends the execution"},
		{14, "OF]", nil, "ceases flushing events to disk"},
		{14, "ZZZ", nil, "UNKNOWN"},
		{14, "VTx", nil, "executes the task 0 with bodyid 0"}, // missing bytes read as zeros
		{14, "VYc", long, "UNKNOWN"},                          // longer than ovnidump's buffer
		{6, "POc", jumbo, "UNKNOWN"},                          // OpenMP came in 1.7
		{12, "POc", jumbo, `creates a type 1 with label "testtype1"`},
	}
	for _, tc := range tests {
		d := NewDescriber(tc.minor)
		ev := &Event{MCV: [3]byte{tc.mcv[0], tc.mcv[1], tc.mcv[2]}, Payload: tc.payload}
		if got := string(d.Append(nil, ev, nil)); got != tc.want {
			t.Errorf("1.%d %s: %q, want %q", tc.minor, tc.mcv, got, tc.want)
		}
	}
	if NewDescriber(5) != nil {
		t.Error("ovnidump 1.5 describes nothing")
	}
	for v, want := range map[string]int{"1.14.0": 14, "1.6.0": 6, "2.0.0": -1, "": -1, "1.x": -1} {
		if got := ReleaseMinor(v); got != want {
			t.Errorf("ReleaseMinor(%q) = %d, want %d", v, got, want)
		}
	}
}

// TestDescribeTables: every declaration of every release compiles to as
// many argument references as its description has, and no release
// declares an MCV twice.
func TestDescribeTables(t *testing.T) {
	for minor := DescribedFrom; minor <= DescribedUntil; minor++ {
		seen := map[string]bool{}
		for _, d := range eventDecls {
			if minor < int(d.from) || minor > int(d.until) {
				continue
			}
			if seen[d.sig[:3]] {
				t.Errorf("1.%d declares %s twice", minor, d.sig[:3])
			}
			seen[d.sig[:3]] = true
			refs := 0
			for _, p := range compile(d.sig, d.desc).parts {
				if p.arg >= 0 {
					refs++
				}
			}
			if refs != strings.Count(d.desc, "{") {
				t.Errorf("%s: %d references in %q", d.sig, refs, d.desc)
			}
		}
	}
}

func FuzzDescribe(f *testing.F) {
	f.Add(uint8(14), "VYc", append(le32(14), append(le32(1), "testtype1\x00"...)...))
	f.Add(uint8(10), "OHx", make([]byte, 16))
	f.Fuzz(func(t *testing.T, minor uint8, mcv string, payload []byte) {
		d := NewDescriber(int(minor))
		if d == nil || len(mcv) < 3 {
			return
		}
		// the payload is also the stream the arguments read on into
		s, err := NewStream(bytes.NewReader(payload), int64(len(payload)), "fuzz")
		if err != nil {
			s = nil
		}
		out := d.Append(nil, &Event{MCV: [3]byte{mcv[0], mcv[1], mcv[2]}, Payload: payload[:len(payload)/2]}, s)
		if len(out) > descMax {
			t.Fatalf("%d bytes", len(out))
		}
	})
}

// TestDescribeReadsOn: arguments past a short payload, and a label
// without its NUL, are read from the bytes that follow the event in its
// stream, as ovnidump's pointer into the mapped stream reads them; zeros
// past the stream's end.
func TestDescribeReadsOn(t *testing.T) {
	var b []byte
	b = gen.AppendEvent(b, gen.Event{MCV: "VTx", Clock: 1, Payload: le32(7)})
	b = gen.AppendEvent(b, gen.Event{MCV: "VTe", Clock: 2, Payload: append(le32(7), le32(3)...)})
	b = gen.AppendEvent(b, gen.Event{MCV: "VYc", Clock: 3, Payload: append(le32(5), "nonul"...), Jumbo: true})
	b = gen.AppendEvent(b, gen.Event{MCV: "OHx", Clock: 0x100, Payload: append(le32(1), le32(2)...)})
	s, err := NewStream(bytes.NewReader(b), int64(len(b)), "t")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"executes the task 7 with bodyid 1700025863", // 07 'V' 'T' 'e': the next event's flags and MCV
		"ends the task 7 with bodyid 3",
		"creates task type 5 with label \"nonul\x07OHx\"", // the next event's flags and MCV, up to its clock's 0 byte
		"begins the execution on CPU 1 created from 2 with tag 0",
	}
	d := NewDescriber(14)
	r := s.NewReader(0, 4096)
	var ev Event
	for i := range want {
		if err := r.Next(&ev); err != nil {
			t.Fatal(err)
		}
		if got := string(d.Append(nil, &ev, s)); got != want[i] {
			t.Errorf("event %d: %q, want %q", i, got, want[i])
		}
	}
}
