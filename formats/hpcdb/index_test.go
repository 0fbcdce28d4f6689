package hpcdb_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
)

// A second open of the same database answers the sizes of cct.csv,
// cct.txt and the traces from the on-disk index, before experiment.xml
// is parsed, and renders the same bytes from the loaded checkpoints.
func TestIndexAcrossOpens(t *testing.T) {
	idx := t.TempDir()
	dir := t.TempDir()
	if _, err := gen.Write(dir, gen.Config{Threads: 2, Contexts: 3000, Metrics: 2, Samples: 20000, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	views := []string{"cct.csv", "cct.txt", "traces/node-0.rank-0.thread-0.txt", "traces/node-0.rank-0.thread-1.csv"}
	first := map[string][]byte{}
	src, err := hpcdb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	src.Options.IndexDir = idx
	for _, v := range views {
		if first[v], err = fs.ReadFile(src.FS(), v); err != nil {
			t.Fatal(err)
		}
	}
	src.Close()
	files, _ := filepath.Glob(filepath.Join(idx, "*.idx"))
	if len(files) != len(views) {
		t.Fatalf("%d index files, want %d", len(files), len(views))
	}

	inodes := func() map[string]uint64 {
		out := map[string]uint64{}
		for _, f := range files {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			out[f] = fi.Sys().(*syscall.Stat_t).Ino
		}
		return out
	}
	before := inodes()

	// Without experiment.xml the tree's sizes must come from the index:
	// the model of an empty experiment would size them differently.
	xml := filepath.Join(dir, "experiment.xml")
	saved, _ := os.ReadFile(xml)
	src, err = hpcdb.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	src.Options.IndexDir = idx
	defer src.Close()
	hide := xml + ".hidden"
	if err := os.Rename(xml, hide); err != nil {
		t.Fatal(err)
	}
	for _, v := range views[:2] {
		fi, err := fs.Stat(src.FS(), v)
		if err != nil || fi.Size() != int64(len(first[v])) {
			t.Fatalf("second open: %s size %v, %v; want %d", v, fi.Size(), err, len(first[v]))
		}
	}
	if err := os.Rename(hide, xml); err != nil {
		t.Fatal(err)
	}
	src.Close()
	src, err = hpcdb.Open(dir) // a model built without the XML stays: start again
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range views {
		b, err := fs.ReadFile(src.FS(), v)
		if err != nil || !bytes.Equal(b, first[v]) {
			t.Fatalf("second open: %s differs (%v)", v, err)
		}
	}
	after := inodes()
	for f, ino := range before {
		if after[f] != ino {
			t.Errorf("index %s rewritten: the view was measured again", f)
		}
	}
	if b, _ := os.ReadFile(xml); !bytes.Equal(b, saved) {
		t.Fatal("experiment.xml changed")
	}
}
