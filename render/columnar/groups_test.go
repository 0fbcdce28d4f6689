package columnar

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/hpcfs/hpcfs/render"
)

// brokenCSV has the size of a CSV but fails every read: a twin over it
// reads only what it kept.
type brokenCSV struct{ size int64 }

func (b brokenCSV) Size() (int64, error) { return b.size, nil }
func (b brokenCSV) ReadAt([]byte, int64) (int, error) {
	return 0, errors.New("the CSV was read")
}

// TestKeptGroups: a twin sized with an index folder keeps its row groups
// there, so that a later mount's reads take them from it without reading
// the CSV; damaged ones are reported, removed and encoded again, and the
// bytes stay those of a twin without an index.
func TestKeptGroups(t *testing.T) {
	text := genCSV(2*groupRows + 5)
	full := readAll(t, render.Stream(&twinGen{csv: render.Static(text)}, nil))
	dir := t.TempDir()
	var mu sync.Mutex
	var reports []error
	bind := render.Binding{Options: render.Options{IndexDir: dir}, Key: "columnar/kept/" + strconv.Itoa(len(text)),
		Report: func(err error) { mu.Lock(); reports = append(reports, err); mu.Unlock() }}
	first := render.Stream(&twinGen{csv: render.Static(text)}, nil)
	first.(render.Binder).Bind(bind)
	if _, err := first.Size(); err != nil {
		t.Fatal(err)
	}

	kept := render.Stream(&twinGen{csv: brokenCSV{int64(len(text))}}, nil)
	kept.(render.Binder).Bind(bind)
	if b := readAll(t, kept); !bytes.Equal(b, full) {
		t.Fatal("the twin read from its kept row groups differs")
	}

	// Damage every kept row group (the large files of the folder).
	ents, _ := os.ReadDir(dir)
	damaged := 0
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 100<<10 {
			continue
		}
		b[len(b)/2] ^= 1
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		damaged++
	}
	if damaged != 3 {
		t.Fatalf("%d row groups kept, want 3", damaged)
	}
	again := render.Stream(&twinGen{csv: render.Static(text)}, nil)
	again.(render.Binder).Bind(bind)
	if b := readAll(t, again); !bytes.Equal(b, full) {
		t.Fatal("the twin over damaged kept row groups differs")
	}
	mu.Lock()
	if len(reports) != damaged {
		t.Errorf("%d reports for %d damaged row groups: %v", len(reports), damaged, reports)
	}
	mu.Unlock()
	// They were made again: a CSV that fails reads is not read.
	last := render.Stream(&twinGen{csv: brokenCSV{int64(len(text))}}, nil)
	last.(render.Binder).Bind(bind)
	if b := readAll(t, last); !bytes.Equal(b, full) {
		t.Fatal("the twin read from its row groups kept again differs")
	}
}

// TestKeptGroupsKinds: a row group kept with other kinds than the plan's
// (by a first pass that a later cell widened) is not taken for the
// twin's, from memory or from disk.
func TestKeptGroupsKinds(t *testing.T) {
	g := &twinGen{}
	g.Bind(render.Binding{Options: render.Options{IndexDir: t.TempDir()}, Key: "columnar/kinds"})
	pl := &plan{names: []string{"a"}, kinds: []Kind{Int64}, rows: 10}
	g.keepGroup(&group{kinds: kindsKey([]Kind{Int64}), index: 0, row: 0, csvOff: 2, off: 4, rows: 10, csvEnd: 30, data: []byte("chunks")}, true)
	at := twinPos{plan: pl, csvOff: 2, off: 4, begun: true}
	if gr := g.cachedGroup(&at); gr == nil || string(gr.data) != "chunks" {
		t.Fatalf("kept row group not found: %v", gr)
	}
	wide := &plan{names: pl.names, kinds: []Kind{Double}, rows: 10}
	at.plan = wide
	if gr := g.cachedGroup(&at); gr != nil {
		t.Fatal("a row group of other kinds taken from memory")
	}
	recent.Lock()
	recent.groups, recent.used = nil, 0
	recent.Unlock()
	if gr := g.cachedGroup(&at); gr != nil {
		t.Fatal("a row group of other kinds taken from disk")
	}
	at.plan = pl
	if gr := g.cachedGroup(&at); gr == nil {
		t.Fatal("kept row group not found on disk")
	}
}

func FuzzDecodeGroup(f *testing.F) {
	f.Add(encodeGroup(&group{kinds: "\x01\x03", index: 2, row: 7, csvOff: 9, off: 4, rows: 3, csvEnd: 20, data: []byte("abc")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		gr := decodeGroup(b)
		if gr == nil {
			return
		}
		// Varints may come in longer forms than encodeGroup writes: the
		// fields, written again, read back the same.
		again := decodeGroup(encodeGroup(gr))
		if again == nil || !bytes.Equal(again.data, gr.data) {
			t.Fatal("a decoded row group does not read back")
		}
		if !bytes.Equal(encodeGroup(again), encodeGroup(gr)) {
			t.Fatalf("read back %+v, want %+v", again, gr)
		}
	})
}
