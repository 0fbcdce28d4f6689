package render

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// folderFiles is the names of dir's files and the bytes of its kept ones.
func folderFiles(t *testing.T, dir string) (names []string, kept int64) {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		info, err := de.Info()
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, de.Name())
		if filepath.Ext(de.Name()) == ".idx" {
			kept += info.Size()
		}
	}
	return names, kept
}

// TestIndexLimit: past its limit, an index folder's files written longest
// ago go first, down to three quarters of the limit, whoever wrote them
// (a saved result, an index, a package's own file counted with Kept);
// the folder's key, other files and the newest stay, and a removed
// result loads as none (to be made again).
func TestIndexLimit(t *testing.T) {
	dir := t.TempDir()
	const limit = 10000
	opts := Options{IndexDir: dir, IndexLimit: limit}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), make([]byte, 20000), 0o644); err != nil {
		t.Fatal(err)
	}
	// Each write is dated a minute after the one before, an hour ago:
	// the order of writes, whatever the clock's granularity.
	past := time.Now().Add(-time.Hour)
	date := func(p string, i int) {
		when := past.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	write := func(i int) {
		t.Helper()
		var p string
		switch i % 3 {
		case 0: // a saved result
			s := SavedFor(Binding{Options: opts, Key: fmt.Sprint("view ", i)}, "sums")
			if err := s.Store(bytes.Repeat([]byte{byte(i)}, 2984)); err != nil {
				t.Fatal(err)
			}
			p = s.path
		case 1: // an index (a few bytes)
			p = indexPath(dir, fmt.Sprint("view ", i))
			if err := saveIndex(p, limit, nil, 2976, 0, []checkpoint{{0, nil}}); err != nil {
				t.Fatal(err)
			}
		case 2: // a file of another package's (internal/symbols')
			p = IndexFile(dir, fmt.Sprint("table ", i))
			if err := os.WriteFile(p, make([]byte, 3000), 0o644); err != nil {
				t.Fatal(err)
			}
			Kept(dir, 3000, limit)
		}
		date(p, i)
		paths = append(paths, p)
		if _, kept := folderFiles(t, dir); kept > limit {
			t.Fatalf("after write %d: %d bytes kept, over the limit %d", i, kept, limit)
		}
	}
	present := func(i int) bool {
		_, err := os.Stat(paths[i])
		return err == nil
	}
	for i := range 5 {
		write(i)
	}
	for i := range 5 {
		if !present(i) {
			t.Fatalf("write %d removed under the limit", i)
		}
	}
	write(5) // over 12,000 bytes: down to 7,500, the three oldest go
	for i, want := range []bool{false, false, false, true, true, true} {
		if present(i) != want {
			t.Errorf("write %d kept: %v, want %v", i, present(i), want)
		}
	}
	if b := SavedFor(Binding{Options: opts, Key: "view 0"}, "sums").Load(); b != nil {
		t.Errorf("a removed result loads %d bytes", len(b))
	}
	names, _ := folderFiles(t, dir)
	for _, name := range []string{keyFile, "notes.txt"} {
		if !slices.Contains(names, name) {
			t.Errorf("%s removed", name)
		}
	}
}

// TestIndexLimitFirstWrite: the first write of a process to a folder that
// other mounts filled past its limit counts what is there and removes the
// oldest down to the limit.
func TestIndexLimitFirstWrite(t *testing.T) {
	dir := t.TempDir()
	past := time.Now().Add(-time.Hour)
	var old []string
	for i := range 4 {
		p := filepath.Join(dir, fmt.Sprintf("%02d.idx", 9-i)) // name order is not age order
		if err := os.WriteFile(p, make([]byte, 4000), 0o644); err != nil {
			t.Fatal(err)
		}
		when := past.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, when, when)
		old = append(old, p)
	}
	s := SavedFor(Binding{Options: Options{IndexDir: dir, IndexLimit: 10000}, Key: "view"}, "sums")
	if err := s.Store(make([]byte, 984)); err != nil {
		t.Fatal(err)
	}
	// 17,000 bytes: the three oldest go, 5,000 stay.
	for i, p := range old {
		_, err := os.Stat(p)
		if gone := err != nil; gone != (i < 3) {
			t.Errorf("file written %d-th: removed %v, want %v", i, gone, i < 3)
		}
	}
	if s.Load() == nil {
		t.Error("the file just written was removed")
	}
}
