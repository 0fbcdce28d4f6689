package otf2

import (
	"io/fs"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode/otf2"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
)

// oracleEvent is one event of otf2-print's text: its record name, its
// time (ticks), its fields' text and its numeric attributes by id.
type oracleEvent struct {
	upper, time, text string
	attrs, attrTypes  map[string]string
}

var (
	eventLine = regexp.MustCompile(`^([A-Z][A-Z0-9_]*) +(\d+) +(\d+) +(.*)$`)
	attrValue = regexp.MustCompile(`<(\d+)>; ((?:U?INT|FLOAT|DOUBLE)\d*); ([^)]*)\)`)
	attrDef   = regexp.MustCompile(`^ATTRIBUTE +(\d+) `)
	clockDef  = regexp.MustCompile(`^CLOCK_PROPERTIES +Ticks per Seconds: (\d+), Global Offset: (\d+),`)
)

// oracleEvents reads otf2-print's events per location, in the order it
// prints them (each location's in file order).
func oracleEvents(t *testing.T, text string) map[string][]oracleEvent {
	text, _, _ = strings.Cut(text, "=== Snapshots")
	out := map[string][]oracleEvent{}
	var last *oracleEvent
	for _, line := range strings.Split(text, "\n") {
		if m := eventLine.FindStringSubmatch(line); m != nil {
			out[m[2]] = append(out[m[2]], oracleEvent{upper: m[1], time: m[3], text: m[4], attrs: map[string]string{}, attrTypes: map[string]string{}})
			last = &out[m[2]][len(out[m[2]])-1]
			continue
		}
		if a, ok := strings.CutPrefix(strings.TrimSpace(line), "ADDITIONAL ATTRIBUTES: "); ok && last != nil {
			for _, m := range attrValue.FindAllStringSubmatch(a, -1) {
				last.attrs[m[1]], last.attrTypes[m[1]] = m[3], m[2]
			}
		}
	}
	return out
}

// TestEventsCSVMatchesOtf2Print reads every location's events.csv against
// otf2-print's text on every corpus case, event by event: the record, the
// region of ENTER/LEAVE, the peer, tag and length of MPI sends and
// receives, and every numeric attribute in the column named after it
// (doubles to otf2-print's 6 digits). Every location has the same header.
func TestEventsCSVMatchesOtf2Print(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			fsys, dir := openCase(t, name)
			checkEventsCSV(t, fsys, string(oracle(t, dir, "oracle-otf2-print.txt")))
		})
	}
}

// checkShortFloat32 fails unless cell is the shortest decimal of a float32
// (no more significant digits than strconv's for that float32).
func checkShortFloat32(t *testing.T, cell string) {
	t.Helper()
	f, err := strconv.ParseFloat(cell, 32)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return
	}
	digits := func(s string) int {
		s, _, _ = strings.Cut(strings.ToLower(s), "e")
		s = strings.TrimLeft(strings.NewReplacer("-", "", ".", "").Replace(s), "0")
		return len(strings.TrimRight(s, "0"))
	}
	if want := strconv.FormatFloat(f, 'g', -1, 32); digits(cell) > digits(want) {
		t.Errorf("FLOAT attribute %s: not the float32's shortest decimal %s", cell, want)
	}
}

// checkEventsCSV compares every location's events.csv of fsys with
// printed, otf2-print's text of the same archive (see
// TestEventsCSVMatchesOtf2Print).
func checkEventsCSV(t *testing.T, fsys fs.FS, printed string) {
	upper := map[string]string{} // record name -> otf2-print's
	p := newEventPrinter(newDefNames(nil), otf2.EventRecords(), false)
	for _, r := range otf2.EventRecords() {
		upper[r.Name] = p.label[r.ID]
	}
	num := regexp.MustCompile(`(Receiver|Sender|Tag|Length): (\d+)`)
	region := regexp.MustCompile(`^Region: "(.*)" <\d+>$`)
	want := oracleEvents(t, printed)
	// The attribute columns follow exit_status in definition order.
	var attrIDs []string
	res, offset := big.NewInt(1e9), new(big.Int)
	for _, line := range strings.Split(string(testdata.ReadFS(t, fsys, "definitions.txt")), "\n") {
		if m := attrDef.FindStringSubmatch(line); m != nil {
			attrIDs = append(attrIDs, m[1])
		}
		if m := clockDef.FindStringSubmatch(line); m != nil {
			res.SetString(m[1], 10)
			offset.SetString(m[2], 10)
		}
	}
	// tns is t_ns of ticks: its distance from the global offset in ns,
	// rounded down (towards 0 before the offset), "" when it does not fit
	// an int64.
	tns := func(ticks string) string {
		d, _ := new(big.Int).SetString(ticks, 10)
		d.Sub(d, offset)
		neg := d.Sign() < 0
		d.Abs(d).Mul(d, big.NewInt(1e9)).Quo(d, res)
		if !d.IsInt64() {
			return ""
		}
		if neg {
			d.Neg(d)
		}
		return d.String()
	}
	var header []string
	checked := 0
	for _, l := range locationsOf(t, fsys) {
		rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "locations/"+l[0]+"/events.csv"))
		if header == nil {
			header = rows[0]
		} else if !slices.Equal(rows[0], header) {
			t.Fatalf("location %s: header %v, location 0's %v", l[0], rows[0], header)
		}
		col := map[string]int{}
		for i, c := range header {
			col[c] = i
		}
		attrFrom := col["exit_status"] + 1
		evs := want[l[0]]
		if len(evs) != len(rows)-1 {
			t.Fatalf("location %s: %d rows, otf2-print %d events", l[0], len(rows)-1, len(evs))
		}
		for k, r := range rows[1:] {
			ev := evs[k]
			if upper[r[col["event"]]] != ev.upper {
				t.Fatalf("location %s event %d: %s, otf2-print %s", l[0], k, r[col["event"]], ev.upper)
			}
			if want := tns(ev.time); r[col["t_ns"]] != want {
				t.Errorf("location %s event %d: t_ns %q, otf2-print's %s ticks are %q", l[0], k, r[col["t_ns"]], ev.time, want)
			}
			if m := region.FindStringSubmatch(ev.text); m != nil {
				if r[col["region"]] != render.EscapeCSV(m[1]) { // CSV cells escape control and invalid bytes
					t.Errorf("location %s event %d: region %q, otf2-print %q", l[0], k, r[col["region"]], m[1])
				}
				checked++
			}
			if strings.HasPrefix(ev.upper, "MPI_") && !strings.Contains(ev.upper, "COLLECTIVE") {
				for _, m := range num.FindAllStringSubmatch(ev.text, -1) {
					c := map[string]string{"Receiver": "receiver", "Sender": "sender", "Tag": "tag", "Length": "bytes"}[m[1]]
					if r[col[c]] != m[2] {
						t.Errorf("location %s event %d %s: %s %q, otf2-print %s", l[0], k, ev.upper, c, r[col[c]], m[2])
					}
					checked++
				}
			}
			for a, v := range ev.attrs {
				ai := slices.Index(attrIDs, a)
				if ai < 0 || attrFrom+ai >= len(r) {
					t.Fatalf("location %s event %d: no column for attribute %s", l[0], k, a)
				}
				got := r[attrFrom+ai]
				if ev.attrTypes[a] == "FLOAT" {
					checkShortFloat32(t, got)
				}
				if g, err1 := strconv.ParseFloat(got, 64); strings.ContainsAny(v, ".e") || v == "-0" {
					w, err2 := strconv.ParseFloat(v, 64)
					if err1 != nil || err2 != nil || math.Abs(g-w) > 1e-5*math.Abs(w) {
						t.Errorf("location %s event %d: attribute %s %q, otf2-print %s", l[0], k, a, got, v)
					}
				} else if got != v {
					t.Errorf("location %s event %d: attribute %s %q, otf2-print %s", l[0], k, a, got, v)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Error("no field or attribute compared")
	}
	t.Logf("%d fields and attributes equal otf2-print's", checked)
}
