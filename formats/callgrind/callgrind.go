// Package callgrind builds the hpcfs tree of raw callgrind, cachegrind and
// Xdebug profiles (plain or gzip): one file, or a directory of them (the
// threads or parts of one run) with one subdirectory per file and a summed
// view.
//
// Mounting reads the header lines only. The first use of a table view reads
// the whole file once (decode/callgrind's Summarize) and keeps the function
// and call tables; lines.csv streams from the file through decoder states.
package callgrind

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	cg "github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// Format is the registry entry.
var Format = vfs.Format{
	Name:     "callgrind",
	Supports: "callgrind, cachegrind and Xdebug profiles (callgrind.out.*, cachegrind.out.*, also gzip) or a directory of them",
	Detect:   Detect,
	Open:     Open,
}

// profileFiles lists the profiles among the regular files of dir, in name
// order.
func profileFiles(dir string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var files []string
	for _, de := range des {
		if !de.Type().IsRegular() {
			continue
		}
		if ok, _ := cg.SniffFile(filepath.Join(dir, de.Name())); ok {
			files = append(files, de.Name())
		}
	}
	return files
}

// ErrNotProfile is a file named as valgrind and Xdebug name profiles
// (NamedLikeProfile) whose first lines are not a profile's: empty, cut or
// damaged. Such a file vanished from a directory's views without a word.
var ErrNotProfile = errors.New("callgrind: named like a profile, but its first lines are not one (empty, cut or damaged): not mounted")

// NamedLikeProfile reports whether a file called name is named as valgrind
// and Xdebug name profiles (callgrind.out.*, cachegrind.out.*; not a
// webgrind cache, callgrind.out.webgrind).
func NamedLikeProfile(name string) bool {
	return (strings.HasPrefix(name, "callgrind.out.") || strings.HasPrefix(name, "cachegrind.out.")) &&
		!strings.HasSuffix(name, ".webgrind")
}

// namedLikeProfiles lists the regular files of dir named like profiles
// that are not among the profiles found, names.
func namedLikeProfiles(dir string, names []string) []string {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range des {
		if n := de.Name(); de.Type().IsRegular() && NamedLikeProfile(n) && !slices.Contains(names, n) {
			out = append(out, n)
		}
	}
	return out
}

// Detect recognises a profile by its first lines (decompressed when it is
// gzip), or a directory whose files include profiles.
func Detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		files := profileFiles(path)
		if len(files) == 0 {
			return "", false
		}
		return fmt.Sprintf("directory of %d callgrind profiles", len(files)), true
	}
	ok, gz := cg.SniffFile(path)
	if !ok {
		return "", false
	}
	if gz {
		return "callgrind profile (gzip)", true
	}
	return "callgrind profile", true
}

// Open opens a profile or a directory of profiles.
func Open(path string) (*vfs.Source, error) { return vfs.FileOrDir(path, openFile, openDir) }

func openFile(path string) (*vfs.Source, error) {
	f, err := cg.Open(path)
	if err != nil {
		return nil, err
	}
	src := vfs.NewSource("callgrind", version(f), path)
	src.OnClose(f)
	if strings.HasPrefix(f.Header.Creator, "xdebug") {
		if secs := f.Sections(); secs != nil {
			return openSections(src, f, secs, path)
		}
	}
	p := newProfile(f, path, "", src.Errors)
	p.build(src.Root, true)
	src.Root.AddFile("README.txt", render.Bytes(func() ([]byte, error) { return []byte(p.readme(path)), nil }, nil))
	src.AddInfo("creator", f.Header.Creator)
	src.AddInfo("events", strings.Join(f.Header.Events, " "))
	src.AddInfo("positions", strings.Join(f.Header.Positions, " "))
	src.AddInfo("gzip", f.Gzip)
	return src, nil
}

// openSections mounts each profile of an Xdebug append-mode file as
// profile-<k>/.
func openSections(src *vfs.Source, f *cg.File, secs []cg.Section, path string) (*vfs.Source, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "hpcfs mount of %s\n\nAn Xdebug profile file written in append mode (xdebug.profiler_append): %d profiles,\n"+
		"each after a %q line, one subdirectory each (its own README.txt\nexplains the views). They are runs of their own and are not summed:\n\n", path, len(secs), cg.SectionMarker)
	for k, s := range secs {
		name := "profile-" + strconv.Itoa(k+1)
		sf, err := f.Section(s)
		if err != nil {
			src.Errors.Report(name, err)
			fmt.Fprintf(&b, "  %s/  not mounted: %v\n", name, err)
			continue
		}
		p := newProfile(sf, path, name+"/", src.Errors)
		sub := src.Root.AddDir(name)
		p.build(sub, true)
		sub.AddFile("README.txt", render.Bytes(func() ([]byte, error) { return []byte(p.readme(path)), nil }, nil))
		fmt.Fprintf(&b, "  %s/  bytes %d-%s of the stream, cmd %s, events %s\n", name, s.Start, endText(s.End), orDash(sf.Header.Cmd), strings.Join(sf.Header.Events, " "))
	}
	b.WriteString("\n_errors.txt   decode problems found so far, prefixed by the subdirectory\nraw/          the original file\n")
	src.Root.AddFile("README.txt", render.Static([]byte(b.String())))
	src.AddInfo("creator", f.Header.Creator)
	src.AddInfo("profiles", len(secs))
	src.AddInfo("gzip", f.Gzip)
	return src, nil
}

func endText(end int64) string {
	if end < 0 {
		return "end"
	}
	return strconv.FormatInt(end, 10)
}

func version(f *cg.File) string {
	v := "1"
	if f.Header.Version != "" {
		v = f.Header.Version
	}
	return "version " + v
}

func openDir(dir string) (*vfs.Source, error) {
	names := profileFiles(dir)
	var profiles []*profile
	var opened []string
	src := vfs.NewSource("callgrind", "version 1", dir)
	for _, name := range names {
		f, err := cg.Open(filepath.Join(dir, name))
		if err != nil {
			src.Errors.Report(name, err)
			continue
		}
		src.OnClose(f)
		opened = append(opened, name)
		profiles = append(profiles, &profile{f: f})
	}
	if len(profiles) == 0 {
		return nil, fmt.Errorf("%s: no readable callgrind profiles", dir)
	}
	for _, name := range namedLikeProfiles(dir, names) {
		src.Errors.Report(name, ErrNotProfile)
	}
	dirNames := render.FileNames(opened, vfs.Reserved...)
	src.Errors.ReportRenames("", opened, dirNames)
	for i, p := range profiles {
		*p = *newProfile(p.f, filepath.Join(dir, opened[i]), dirNames[i]+"/", src.Errors)
		sub := src.Root.AddDir(dirNames[i])
		p.build(sub, true)
		sub.AddFile("README.txt", render.Bytes(func() ([]byte, error) { return []byte(p.readme(filepath.Join(dir, opened[i]))), nil }, nil))
	}
	groups := runs(profiles)
	sumNames := make([]string, len(groups))
	for i, g := range groups {
		sumNames[i] = "sum"
		if len(groups) > 1 {
			sumNames[i] = "sum-pid" + profiles[g[0]].f.Header.Pid
		}
	}
	sumNames = render.FileNames(sumNames, append(dirNames, vfs.Reserved...)...)
	for i, g := range groups {
		ps := make([]*profile, len(g))
		for k, j := range g {
			ps[k] = profiles[j]
		}
		newSum(ps, sumNames[i]+"/", src.Errors).build(src.Root.AddDir(sumNames[i]), false)
	}
	switch {
	case len(groups) == 1 && len(groups[0]) == len(profiles):
		src.Run = []string{sumNames[0] + "/profile.pb.gz"} // one run in parts or threads
	case len(profiles) == 1:
		src.Run = []string{dirNames[0] + "/profile.pb.gz"}
	}
	src.Root.AddFile("README.txt", render.Static([]byte(dirReadme(dir, opened, dirNames, profiles, groups, sumNames))))
	src.AddInfo("profiles", len(profiles))
	return src, nil
}

// runs groups the profiles that are parts or threads of one run (the
// same tool, command and pid, each a different part or thread) and more
// than one: those are summed. A profile repeating the part and thread of
// one before it is a copy and left out; a profile without a pid
// (cachegrind) is a run of its own. Groups come in the order of their
// first profile.
func runs(ps []*profile) [][]int {
	index := map[[3]string]int{}
	seen := map[[5]string]bool{}
	var groups [][]int
	for i, p := range ps {
		h := p.f.Header
		if h.Pid == "" || seen[[5]string{h.Creator, h.Cmd, h.Pid, h.Part, h.Thread}] {
			continue
		}
		seen[[5]string{h.Creator, h.Cmd, h.Pid, h.Part, h.Thread}] = true
		k := [3]string{h.Creator, h.Cmd, h.Pid}
		g, ok := index[k]
		if !ok {
			g = len(groups)
			index[k] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	return out
}

func dirReadme(dir string, names, dirNames []string, ps []*profile, groups [][]int, sumNames []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hpcfs mount of %s\n\nA directory of %d callgrind profiles, one subdirectory each (its own README.txt\nexplains the views):\n\n", dir, len(ps))
	for i, p := range ps {
		h := p.f.Header
		fmt.Fprintf(&b, "  %s/", dirNames[i])
		if names[i] != dirNames[i] {
			fmt.Fprintf(&b, "  %s", names[i])
		}
		fmt.Fprintf(&b, "  creator %q, pid %s, part %s, thread %s\n      events %s\n", h.Creator, orDash(h.Pid), orDash(h.Part), orDash(h.Thread), strings.Join(h.Events, " "))
	}
	b.WriteString("\nParts and threads of one run (the same creator, cmd and pid, each a different part or\n" +
		"thread) are summed; other profiles, runs of their own or copies, are not:\n\n")
	if len(groups) == 0 {
		b.WriteString("  (no two profiles of one run: nothing summed)\n")
	}
	for i, g := range groups {
		var in []string
		for _, j := range g {
			in = append(in, dirNames[j]+"/")
		}
		h := ps[g[0]].f.Header
		fmt.Fprintf(&b, "  %s/  pid %s, cmd %s: the sum of\n      %s\n", sumNames[i], h.Pid, orDash(h.Cmd), strings.Join(in, "\n      "))
	}
	b.WriteString(`
A sum holds functions.csv, calls.csv, functions/<nr>-<name>/ and header.txt of its profiles
summed the way callgrind_annotate sums several files: functions matched by file and name,
calls by caller, callee and call site, costs by event name.
_errors.txt   decode problems found so far, prefixed by the subdirectory
raw/          the original files
`)
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
