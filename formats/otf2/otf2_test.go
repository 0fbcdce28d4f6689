package otf2

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

var corpusCases = []string{"pipit-ping-pong", "gen-mpi-rma", "gen-threads-metrics", "gen-io-sampling-attrs"}

// openCase mounts corpus case name (closed when the test ends) and returns
// its tree and the case's directory.
func openCase(t *testing.T, name string) (fs.FS, string) {
	t.Helper()
	dir := testdata.Corpus(t, "otf2", name)
	src, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src.FS(), dir
}

// oracle reads a corpus oracle file, gunzipping a .gz one.
func oracle(t *testing.T, dir, name string) []byte {
	t.Helper()
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil {
		return b
	}
	f, err := os.Open(p + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff describes where got and want first differ.
func firstDiff(got, want []byte) string {
	n := 0
	for n < len(got) && n < len(want) && got[n] == want[n] {
		n++
	}
	ls := bytes.LastIndexByte(got[:n], '\n') + 1
	end := func(b []byte) string {
		e := bytes.IndexByte(b[ls:], '\n')
		if e < 0 {
			return string(b[ls:])
		}
		return string(b[ls : ls+e])
	}
	return "got  " + end(got) + "\nwant " + end(want)
}

// TestViewsMatchOtf2Print checks events.txt and definitions.txt against
// the outputs of otf2-print and otf2-print -G on every corpus case.
func TestViewsMatchOtf2Print(t *testing.T) {
	for _, name := range corpusCases {
		for view, file := range map[string]string{"events.txt": "oracle-otf2-print.txt", "definitions.txt": "oracle-otf2-print-G.txt"} {
			t.Run(name+"/"+view, func(t *testing.T) {
				fsys, dir := openCase(t, name)
				got := testdata.ReadFS(t, fsys, view)
				want := oracle(t, dir, file)
				if !bytes.Equal(got, want) {
					t.Errorf("%s differs from %s (%d vs %d bytes)\n%s", view, file, len(got), len(want), firstDiff(got, want))
				}
			})
		}
	}
}

// TestEventsCSV checks every location's events.csv: one row per event (the
// count the Location definition states), times that do not go back, and
// t_ns = time_ns - the global offset (ticks are ns in these traces).
func TestEventsCSV(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			fsys, _ := openCase(t, name)
			for _, l := range locationsOf(t, fsys) {
				rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "locations/"+l[0]+"/events.csv"))
				if got := strconv.Itoa(len(rows) - 1); got != l[4] {
					t.Errorf("location %s: %s rows, locations.csv says %s events", l[0], got, l[4])
				}
				last := int64(-1 << 62)
				for _, r := range rows[1:] {
					tn, _ := strconv.ParseInt(r[0], 10, 64)
					if tn < last {
						t.Fatalf("location %s: t_ns goes back at %v", l[0], r)
					}
					last = tn
				}
			}
		})
	}
}

// locationsOf reads locations.csv without its header.
func locationsOf(t *testing.T, fsys fs.FS) [][]string {
	rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "locations.csv"))
	if strings.Join(rows[0], ",") != "location,name,kind,location_group,num_events" {
		t.Fatalf("locations.csv header %v", rows[0])
	}
	return rows[1:]
}

// TestInterchange checks the interchange views against cct.csv: the folded
// stacks of time_ns add up to the root's inclusive time, and trace.json
// holds one complete event per ENTER of every location.
func TestInterchange(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			fsys, _ := openCase(t, name)
			cct := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "cct.csv"))
			root, _ := strconv.ParseInt(cct[1][6], 10, 64)
			var sum int64
			for _, line := range strings.Split(strings.TrimSpace(string(testdata.ReadFS(t, fsys, "flame/time_ns.folded"))), "\n") {
				if line == "" {
					continue
				}
				v, err := strconv.ParseInt(line[strings.LastIndexByte(line, ' ')+1:], 10, 64)
				if err != nil {
					t.Fatal(line)
				}
				sum += v
			}
			if sum != root {
				t.Errorf("folded time_ns adds up to %d, cct.csv root %d", sum, root)
			}
			var tr struct {
				TraceEvents []struct {
					Ph   string `json:"ph"`
					Name string `json:"name"`
				} `json:"traceEvents"`
			}
			if err := json.Unmarshal(testdata.ReadFS(t, fsys, "trace.json"), &tr); err != nil {
				t.Fatal(err)
			}
			x := 0
			for _, e := range tr.TraceEvents {
				if e.Ph == "X" {
					x++
				}
			}
			enters := 0
			for _, l := range locationsOf(t, fsys) {
				for _, r := range testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "locations/"+l[0]+"/events.csv"))[1:] {
					if r[2] == "Enter" {
						enters++
					}
				}
			}
			if x != enters {
				t.Errorf("trace.json: %d complete events, %d ENTERs", x, enters)
			}
		})
	}
}

// TestMetricsCSV checks that metrics.csv has a row per value of every
// METRIC event that otf2-print shows ("METRIC ... N Values").
func TestMetricsCSV(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			fsys, dir := openCase(t, name)
			rows := testdata.ReadCSV(t, testdata.ReadFS(t, fsys, "metrics.csv"))
			events, _, _ := strings.Cut(string(oracle(t, dir, "oracle-otf2-print.txt")), "=== Snapshots")
			want := 0
			for _, line := range strings.Split(events, "\n") {
				if !strings.HasPrefix(line, "METRIC ") {
					continue
				}
				_, rest, _ := strings.Cut(line, ", ")
				n, err := strconv.Atoi(rest[:strings.IndexByte(rest, ' ')])
				if err != nil {
					t.Fatal(line)
				}
				want += n
			}
			if len(rows)-1 != want {
				t.Errorf("metrics.csv: %d rows, otf2-print shows %d values", len(rows)-1, want)
			}
		})
	}
}
