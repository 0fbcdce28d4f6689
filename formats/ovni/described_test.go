package ovni

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/decode/ovni"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	"github.com/hpcfs/hpcfs/testdata/ovnidump"
)

// everyEventOracles are the releases whose plain ovnidump output of the
// every-event trace is in testdata/ (see testdata/README.md).
var everyEventOracles = []int{6, 7, 10, 12, 14}

// TestDescribedEveryEvent: on the trace that holds every event a release
// declares (rounds of payloads: zeros, each type's extremes, values that
// differ per event, payloads cut short), a newer release's events and
// events of no declaration, events-described.txt read through a mount is
// byte-equal to plain ovnidump of that release.
func TestDescribedEveryEvent(t *testing.T) {
	for _, minor := range everyEventOracles {
		t.Run(fmt.Sprintf("1.%d", minor), func(t *testing.T) {
			want := ovnidump.Read(t, filepath.Join("testdata", fmt.Sprintf("ovnidump-1.%d-every-event.txt.gz", minor)))
			sigs := ovni.Signatures(minor)
			described := 0
			for _, l := range strings.Split(string(want), "\n") {
				if l != "" && !strings.HasSuffix(l, "  UNKNOWN") {
					described++
				}
			}
			if n := len(gen.EveryEvent(sigs, 0, 1)); described != n {
				t.Fatalf("the oracle describes %d events, want the %d of the %d declarations", described, n, len(sigs))
			}
			dir, err := gen.WriteEveryEvent(t.TempDir(), minor, sigs, ovni.Signatures(ovni.DescribedUntil))
			if err != nil {
				t.Fatal(err)
			}
			fsys := open(t, dir).FS()
			if got := testdata.ReadFS(t, fsys, "events-described.txt"); !bytes.Equal(got, want) {
				t.Fatalf("events-described.txt differs from ovnidump 1.%d:\n%s", minor, testdata.FirstDiff(got, want))
			}
			fsnodetest.CheckFile(t, filepath.Join(fsnodetest.Mount(t, fsys), "events-described.txt"), want)
		})
	}
}
