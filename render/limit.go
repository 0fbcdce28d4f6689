package render

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultIndexLimit is the most bytes the files kept in one index folder
// (indexes, saved results, Parquet row groups, spilled symbol tables)
// take when Options.IndexLimit is 0.
const DefaultIndexLimit = 4 << 30

// An index folder is one cache for every mount that uses it: past its
// limit, the files written longest ago (by modification time) are
// removed until it holds three quarters of the limit, so that the next
// writes do not each list the folder. What is removed is made again when
// needed (an index by measuring the view, a row group by encoding it).
// Files are only ever replaced whole (renamed into place), so a reader
// that opened one before it was removed reads it to its end.
type indexFolder struct {
	mu      sync.Mutex
	used    int64 // bytes of its kept files: as last listed, plus those written since
	counted bool  // used was counted from a listing
}

var indexFolders sync.Map // folder path → *indexFolder

// Kept tells the index folder dir that a file of n bytes was just put in
// it, by a package that keeps its own files there (internal/symbols'
// spilled tables, under IndexFile); the oldest files go when the folder
// is past limit (0: DefaultIndexLimit).
func Kept(dir string, n, limit int64) {
	if dir == "" {
		return
	}
	limit = cmp.Or(limit, DefaultIndexLimit)
	v, _ := indexFolders.LoadOrStore(dir, &indexFolder{})
	f := v.(*indexFolder)
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.counted {
		// The first write of the process counts what other mounts left
		// (the file just written included).
		f.used, f.counted = trimFolder(dir, limit), true
		return
	}
	if f.used += n; f.used > limit {
		f.used = trimFolder(dir, limit)
	}
}

// trimFolder removes the oldest kept files of dir, when they take more
// than limit bytes, down to three quarters of it, and returns the bytes
// left. Kept
// files are the *.idx ones: the folder's key and the temporary files
// being written (named with a leading dot) are not.
func trimFolder(dir string, limit int64) int64 {
	des, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	type kept struct {
		name string
		size int64
		mod  time.Time
	}
	var files []kept
	var used int64
	for _, de := range des {
		name := de.Name()
		if !de.Type().IsRegular() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".idx") {
			continue
		}
		info, err := de.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, kept{name, info.Size(), info.ModTime()})
		used += info.Size()
	}
	if used <= limit {
		return used
	}
	slices.SortFunc(files, func(a, b kept) int {
		return cmp.Or(a.mod.Compare(b.mod), strings.Compare(a.name, b.name))
	})
	for _, k := range files {
		if used <= limit*3/4 {
			break
		}
		if err := os.Remove(filepath.Join(dir, k.name)); err == nil || os.IsNotExist(err) {
			used -= k.size
		}
	}
	return used
}
