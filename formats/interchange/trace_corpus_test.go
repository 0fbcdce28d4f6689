package interchange_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestTraceJSON checks trace.json of every corpus trace: valid JSON, at
// most one event per ovni event (a burst is one event for its begin and
// end; formats/ovni checks the pairing against ovnidump) or one per
// hpcrun sample run, and the per-thread files holding the same events.
func TestTraceJSON(t *testing.T) {
	for _, path := range []string{
		testdata.Corpus(t, "ovni", "v1-basic-mix"), testdata.Corpus(t, "ovni", "v1-two-procs"),
		testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"),
		testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"),
		testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"),
	} {
		t.Run(filepath.Base(path), func(t *testing.T) {
			fsys := open(t, path).FS()
			all := traceEvents(t, fsys, "trace.json")
			des, err := fs.ReadDir(fsys, "trace")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, de := range des {
				n += traceEvents(t, fsys, "trace/"+de.Name())
			}
			if n != all || all == 0 {
				t.Errorf("trace.json has %d events, trace/*.json %d", all, n)
			}
			if strings.Contains(path, "ovni") {
				b, _ := fs.ReadFile(fsys, "events.txt")
				if lines := bytes.Count(b, []byte("\n")); lines < all || all < lines/2 {
					t.Errorf("trace.json has %d events for the %d of events.txt", all, lines)
				}
			}
		})
	}
}

func traceEvents(t *testing.T, fsys fs.FS, name string) int {
	t.Helper()
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []json.RawMessage `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	n := 0
	for _, raw := range doc.TraceEvents {
		var e struct {
			Ph  string   `json:"ph"`
			TS  *float64 `json:"ts"`
			Dur *float64 `json:"dur"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		switch e.Ph {
		case "X", "i":
			n++
			if e.TS == nil || *e.TS < 0 || (e.Ph == "X") != (e.Dur != nil) {
				t.Fatalf("%s: bad event %s", name, raw)
			}
		case "M":
		default:
			t.Fatalf("%s: unexpected event %s", name, raw)
		}
	}
	return n
}
