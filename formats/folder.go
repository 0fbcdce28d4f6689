package formats

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcfs/hpcfs/formats/callgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// Limits of the folder scan: how deep it descends and how many entries it
// looks at, so that pointing hpcfs at a home directory stays quick.
const (
	maxFolderDepth   = 6
	maxFolderEntries = 20000
	maxSkippedListed = 200
)

type folderScan struct {
	root    string
	seen    int
	subs    []*vfs.Source
	rels    []string
	skipped []skippedEntry
	cut     bool // a limit was reached
	// damaged are the entries (at damagedAt) that look like sources but
	// do not open, for _errors.txt beside README.txt's list.
	damaged   []error
	damagedAt []string
}

type skippedEntry struct{ rel, reason string }

// openFolder scans the directory at path for sources, subfolders included,
// and mounts each at its relative path. It returns nil when none is found.
func openFolder(path string) *vfs.Source {
	// The folder's own files (raw/) are its inputs; each source in it
	// watches its own.
	inputs := vfs.NewInputs(path)
	sc := &folderScan{root: path}
	if !sc.scan("", 0) || len(sc.subs) == 0 {
		for _, s := range sc.subs {
			s.Close()
		}
		return nil
	}
	src := vfs.NewSource("folder", vfs.Count(len(sc.subs), "source"), path)
	src.Watch(inputs)
	for i, err := range sc.damaged {
		src.Errors.Report(sc.damagedAt[i], err)
	}
	src.Summary = "a folder of " + vfs.Count(len(sc.subs), "source")
	var readme strings.Builder
	fmt.Fprintf(&readme, "hpcfs mount of %s\n\nA folder of %s, each at its path in the folder:\n\n",
		path, vfs.Count(len(sc.subs), "source"))
	// The first component of each path may not take the root's own names
	// (README.txt, _errors.txt, raw).
	var tops []string
	topIndex := map[string]int{}
	for _, rel := range sc.rels {
		top, _, _ := strings.Cut(rel, "/")
		if _, ok := topIndex[top]; !ok {
			topIndex[top] = len(tops)
			tops = append(tops, top)
		}
	}
	topNames := render.FileNames(tops, vfs.Reserved...)
	src.Errors.ReportRenames("", tops, topNames)
	for i, s := range sc.subs {
		dir := src.Root
		parts := strings.Split(sc.rels[i], "/")
		for j, p := range parts {
			name := render.SafeName(p)
			if j == 0 {
				name = topNames[topIndex[p]]
			}
			if j == len(parts)-1 {
				dir.Add(name, s.Root)
				break
			}
			if sub, ok := dir.Lookup(name).(*vfs.Dir); ok {
				dir = sub
			} else {
				dir = dir.AddDir(name)
			}
		}
		src.OnClose(s)
		src.AddInfo(sc.rels[i], s.Format+" "+s.Version)
		fmt.Fprintf(&readme, "  %s/  %s %s\n", sc.rels[i], s.Format, s.Version)
	}
	readme.WriteString("\nEach of them has its own README.txt and _errors.txt.\n")
	if len(sc.skipped) > 0 || sc.cut {
		readme.WriteString("\nNot mounted:\n\n")
		for i, e := range sc.skipped {
			if i == maxSkippedListed {
				fmt.Fprintf(&readme, "  ... and %d more\n", len(sc.skipped)-i)
				break
			}
			if len(e.rel)+len(e.reason) > 94 {
				fmt.Fprintf(&readme, "  %s\n      %s\n", e.rel, e.reason)
			} else {
				fmt.Fprintf(&readme, "  %s  %s\n", e.rel, e.reason)
			}
		}
		if sc.cut {
			fmt.Fprintf(&readme, "  (the scan stops %d folders deep and after %d entries)\n", maxFolderDepth, maxFolderEntries)
		}
	}
	src.Root.AddFile("README.txt", renderStatic(readme.String()))
	return src
}

// scan looks at the entries of the folder rel (relative to the root); it
// reports false when the root itself cannot be read.
func (sc *folderScan) scan(rel string, depth int) bool {
	des, err := os.ReadDir(filepath.Join(sc.root, rel))
	if err != nil {
		if rel != "" {
			sc.skipped = append(sc.skipped, skippedEntry{rel + "/", "unreadable: " + errText(err)})
		}
		return rel != ""
	}
	for _, de := range des {
		if sc.seen >= maxFolderEntries {
			sc.cut = true
			return true
		}
		sc.seen++
		r := de.Name()
		if rel != "" {
			r = rel + "/" + de.Name()
		}
		p := filepath.Join(sc.root, r)
		if !de.IsDir() && !de.Type().IsRegular() {
			if fi, err := os.Stat(p); err != nil || special(fi) != "" {
				what := "a dangling link"
				if err == nil {
					what = special(fi)
				}
				sc.skipped = append(sc.skipped, skippedEntry{r, what})
				continue
			}
		}
		if f, ok := detectQuiet(p); ok && !mixedFolder(p, f) {
			inputs := vfs.NewInputs(p)
			s, err := f.Open(p)
			if err != nil {
				sc.skipped = append(sc.skipped, skippedEntry{r, f.Name + " source that does not open: " + errText(err)})
				sc.damaged = append(sc.damaged, fmt.Errorf("%s source that does not open: %w", f.Name, err))
				sc.damagedAt = append(sc.damagedAt, r)
				continue
			}
			s.Watch(inputs)
			sc.subs = append(sc.subs, s)
			sc.rels = append(sc.rels, r)
			continue
		}
		if what := unsupported(p); what != "" {
			if de.IsDir() {
				r += "/"
			}
			sc.skipped = append(sc.skipped, skippedEntry{r, what})
			continue
		}
		if !de.IsDir() && callgrind.NamedLikeProfile(de.Name()) {
			sc.skipped = append(sc.skipped, skippedEntry{r, "named like a callgrind profile, but not one (empty, cut or damaged)"})
			sc.damaged = append(sc.damaged, callgrind.ErrNotProfile)
			sc.damagedAt = append(sc.damagedAt, r)
			continue
		}
		if de.IsDir() {
			if depth+1 >= maxFolderDepth {
				sc.cut = true
				sc.skipped = append(sc.skipped, skippedEntry{r + "/", "not scanned: too deep"})
				continue
			}
			before, skippedBefore := len(sc.subs), len(sc.skipped)
			sc.scan(r, depth+1)
			if len(sc.subs) == before && len(sc.skipped)-skippedBefore > 1 && allGeneric(sc.skipped[skippedBefore:]) {
				sc.skipped = append(sc.skipped[:skippedBefore], skippedEntry{r + "/",
					"no source inside (" + vfs.Count(len(sc.skipped)-skippedBefore, "entry") + ")"})
			}
			continue
		}
		sc.skipped = append(sc.skipped, skippedEntry{r, notASource})
	}
	return true
}

const notASource = "not a source hpcfs reads"

func allGeneric(es []skippedEntry) bool {
	for _, e := range es {
		if e.reason != notASource && !strings.HasPrefix(e.reason, "no source inside") {
			return false
		}
	}
	return true
}

// mixedFolder reports whether path is a folder that format f reads as one
// source but that also holds a file another format reads (a .webgrind
// cache beside the raw callgrind files it was made from): such a folder
// is scanned as a folder, so that neither source hides the other.
func mixedFolder(path string, f vfs.Format) bool {
	des, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	for i, de := range des {
		if i == maxFolderEntries {
			break
		}
		if !de.Type().IsRegular() {
			continue
		}
		if g, ok := detectQuiet(filepath.Join(path, de.Name())); ok && g.Name != f.Name {
			return true
		}
	}
	return false
}

func detectQuiet(path string) (vfs.Format, bool) {
	for _, f := range All {
		if _, ok := f.Detect(path); ok {
			return f, true
		}
	}
	return vfs.Format{}, false
}

func errText(err error) string {
	s := err.Error()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
