package otf2

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestLocTree merges streams of times with many ties, and times that go
// back, through locTree and checks each step against the first (time,
// location) found by a scan, for 1 to 17 locations.
func TestLocTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 1; n <= 17; n++ {
		streams := make([][]uint64, n)
		for i := range streams {
			tm := uint64(0)
			for range rng.IntN(200) {
				switch rng.IntN(10) {
				case 0:
					tm -= min(tm, uint64(rng.IntN(3))) // goes back
				case 1:
					tm = math.MaxUint64 // an undefined time
				default:
					tm = min(tm, math.MaxUint64-10) + uint64(rng.IntN(3))
				}
				streams[i] = append(streams[i], tm)
			}
		}
		var h locTree
		h.reset(n)
		next := make([]int, n)
		for i, s := range streams {
			if len(s) > 0 {
				h.push(i, s[0])
				next[i] = 1
			}
		}
		h.init()
		for h.Len() > 0 {
			want, live := -1, 0
			for i, s := range streams {
				if next[i] == 0 || next[i] > len(s) {
					continue
				}
				live++
				if want < 0 || s[next[i]-1] < streams[want][next[want]-1] {
					want = i
				}
			}
			if got := h.top(); got != want || h.Len() != live {
				t.Fatalf("%d locations: first %d of %d, want %d of %d", n, got, h.Len(), want, live)
			}
			if next[want] < len(streams[want]) {
				h.fixTop(streams[want][next[want]])
			} else {
				h.popTop()
			}
			next[want]++
		}
		for i, s := range streams {
			if len(s) > 0 && next[i] != len(s)+1 {
				t.Fatalf("%d locations: location %d ended after %d of %d", n, i, next[i]-1, len(s))
			}
		}
	}
}

// TestSizeAhead sizes events.txt of a generated archive with the locations
// read ahead (sizeAhead), renders one batch from the sizing cursor's place
// on the way, and checks the lengths and that batch against the bytes of
// the view.
func TestSizeAhead(t *testing.T) {
	src, tr, err := openTrace(writeGen(t, 3, 20000))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	want := testdata.ReadFS(t, src.FS(), "events.txt")
	c, err := (&mergeGen{t: tr}).Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	mc := c.(*mergeCursor)
	var off int64
	for k := 0; ; k++ {
		n, err := mc.NextLen()
		if k == 0 && mc.ahead == nil && runtime.GOMAXPROCS(0) > 1 {
			t.Fatal("sizing does not read ahead")
		}
		off += n
		if err == io.EOF {
			break
		}
		if k == 30 {
			got, err := mc.Next(nil)
			if err != nil || mc.ahead != nil || !bytes.Equal(got, want[off:min(off+int64(len(got)), int64(len(want)))]) {
				t.Fatalf("rendering after sizing %d bytes: %d bytes (%v), not those of events.txt", off, len(got), err)
			}
			off += int64(len(got))
		}
	}
	if off != int64(len(want)) {
		t.Errorf("sized %d bytes, events.txt has %d", off, len(want))
	}
}
