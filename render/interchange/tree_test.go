package interchange

import (
	"bytes"
	"compress/gzip"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/testdata"
)

// bigTree is a tree of n nodes shaped like an hpcrun CCT: every node its
// own frame (module+0xip), 4 metrics, random parents.
func bigTree(n int) *Tree {
	r := rand.New(rand.NewPCG(1, 2))
	return synthTree(n, r, func(nodes []int32) ([]int32, int32) { return nodes, nodes[r.IntN(len(nodes))] })
}

// synthTree is a tree of n nodes, each with its own frame and 4 metrics,
// whose parents pick chooses from the nodes so far (which it may cut).
func synthTree(n int, r *rand.Rand, pick func(nodes []int32) ([]int32, int32)) *Tree {
	t := NewTree([]Metric{{"a", "count"}, {"b", "count"}, {"c", "nanoseconds"}, {"d", "count"}})
	nodes := []int32{Root}
	for i := 1; i < n; i++ {
		var parent int32
		nodes, parent = pick(nodes)
		ip := uint64(0x400000 + 16*i)
		x := t.Child(parent, Frame{Name: "libapp.so+0x" + strconv.FormatUint(ip, 16), Module: "/usr/lib/libapp.so", Addr: ip})
		for m := range 4 {
			t.Add(x, m, int64(r.IntN(1000)))
		}
		nodes = append(nodes, x)
	}
	return t
}

// TestTreeBytesPerNode pins the memory of a tree: live heap per node
// while building (merge indexes included) and after Done, for a CCT whose
// frames are all distinct (the hpcrun case: ~27 bytes of name each).
// Before the flat layout it was ~400 bytes per node while building; with
// the columns in files (past SpillValues) about 60 while building (the
// merge indexes and the columns' page caches) and, after Done, only the
// page caches (13 columns of spillPages pages), whatever the tree's size.
func TestTreeBytesPerNode(t *testing.T) {
	const n = 200_000
	before := testdata.LiveHeap()
	tr := bigTree(n)
	built := testdata.LiveHeap()
	tr.Done()
	done := testdata.LiveHeap()
	perBuild := (float64(built) - float64(before)) / n
	after := int64(done) - int64(before)
	t.Logf("bytes per node: %.0f while building; %d KiB after Done", perBuild, after>>10)
	if tr.parent.f == nil {
		t.Fatal("a tree of 200k nodes kept its columns in memory")
	}
	if caches := int64(13 * spillPages * spillPageBytes); perBuild > 160 || after > caches+1<<20 {
		t.Errorf("bytes per node: %.0f while building (want <= 160); %d KiB after Done (want <= %d KiB, the page caches and 1 MiB)",
			perBuild, after>>10, (caches+1<<20)>>10)
	}
	runtime.KeepAlive(tr)
}

// TestPprofChunks: a profile larger than one chunk is one gzip member
// that the profile package reads back whole, and random reads equal the
// full rendering.
func TestPprofChunks(t *testing.T) {
	tr := bigTree(20_000)
	p := &Profile{build: func() (*Tree, error) { return tr, nil },
		comment: []string{"made by a test"}}
	v := render.Stream(&pprofGen{p: p}, nil)
	b := readAll(t, v)
	plan, _ := p.pprofPlan()
	raw := 0
	w := &pbWriter{}
	for r := range plan.end {
		plan.appendRecord(w, r)
	}
	raw = len(w.out.b)
	if raw < 3*chunkRaw {
		t.Fatalf("%d protobuf bytes: fewer than 3 chunks", raw)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false)
	data, err := io.ReadAll(zr)
	if err != nil || len(data) != raw {
		t.Fatalf("first gzip member: %d bytes of %d, %v", len(data), raw, err)
	}
	if !bytes.Equal(data, w.out.b) {
		t.Fatal("decompressed bytes differ from the records")
	}
	prof, err := profile.ParseData(b)
	if err != nil {
		t.Fatal(err)
	}
	if err := prof.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, s := range prof.Sample {
		sum += s.Value[2]
	}
	if sum != tr.Total(2) || len(prof.Location) != tr.frames.Len() || len(prof.Comments) != 1 {
		t.Errorf("total %d want %d, %d locations want %d, comments %q", sum, tr.Total(2), len(prof.Location), tr.frames.Len(), prof.Comments)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		off := r.IntN(len(b))
		buf := make([]byte, min(1+r.IntN(200_000), len(b)-off))
		if k, err := v.ReadAt(buf, int64(off)); k != len(buf) || (err != nil && err != io.EOF) || !bytes.Equal(buf, b[off:off+k]) {
			t.Fatalf("ReadAt(%d, %d): %d, %v", off, len(buf), k, err)
		}
	}
}
