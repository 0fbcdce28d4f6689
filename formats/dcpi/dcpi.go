// Package dcpi builds the hpcfs tree of DCPI profiles (dcpiformat(4)
// versions 0.06 and 0.07): one profile file, or a directory tree of them
// (DCPI keeps one file per image per epoch), with one subdirectory per
// profile holding header.txt, samples.txt (dcpicat's layout), samples.csv
// and top.csv, and images.csv at the root of directory sources; the root
// also has the interchange views of all the profiles' samples (flame/,
// profile.pb.gz, bottom-up.csv, callers/: interchange.go), which make
// `hpcfs mount A B MNT` of two DCPI sources a diff.
//
// Mounting reads the headers only. The body of a profile is read on first
// use of one of its views, once, by a scan shared by all its views (the
// scan also starts in the background after mounting, so that _errors.txt
// soon lists every chunk and footer problem).
package dcpi

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpcfs/hpcfs/decode/dcpi"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// Format is the registry entry.
var Format = vfs.Format{
	Name:     "dcpi",
	Supports: "DCPI profile files 0.06/0.07 (1.x: headers only) or directory trees of them",
	Detect:   Detect,
	Open:     Open,
}

const sniffSize = 64 << 10

// sniff reports whether the file at path starts with a DCPI header: lines
// of "key value" up to the terminator "samples", with a "version pdb-"
// line or at least four of the required keys.
func sniff(path string) (*dcpi.Header, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, sniffSize)
	n, _ := f.ReadAt(buf, 0)
	buf = buf[:n]
	end := bytes.Index(buf, []byte("\nsamples"))
	if end < 0 {
		return nil, false
	}
	for _, c := range buf[:end] {
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return nil, false
		}
	}
	h, err := dcpi.ParseHeader(bytes.NewReader(buf), int64(len(buf)))
	if err != nil {
		return nil, false
	}
	keys := 0
	for _, k := range dcpi.RequiredKeys {
		if len(h.Values(k)) > 0 {
			keys++
		}
	}
	for _, v := range h.Values("version") {
		if strings.HasPrefix(v, "pdb-") {
			return h, true
		}
	}
	return h, keys >= 4
}

// Detect recognises a profile file, or a directory whose walk (at most
// detectFiles regular files) finds profiles in at least half of them.
func Detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if !fi.IsDir() {
		h, ok := sniff(path)
		if !ok {
			return "", false
		}
		return "DCPI profile " + h.Version, true
	}
	files, profiles := 0, 0
	const detectFiles = 200
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || files >= detectFiles {
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			files++
			if _, ok := sniff(p); ok {
				profiles++
			}
		}
		return nil
	})
	if profiles == 0 || profiles*2 < files {
		return "", false
	}
	return "directory of DCPI profiles", true
}

// reserved names at the root of the tree; profiles called so get "~2".
var reserved = []string{"README.txt", "_errors.txt", "raw", "images.csv", "flame", "profile.pb.gz", "bottom-up.csv", "callers"}

// Open mounts the profile file or directory tree at path.
func Open(path string) (*vfs.Source, error) { return vfs.FileOrDir(path, openFile, openDir) }

// openFile mounts one profile file.
func openFile(path string) (*vfs.Source, error) {
	f, err := dcpi.Open(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	return openProfiles(path, []*profile{{rel: filepath.Base(path), path: path, hdr: f.Header, size: f.Size}}, nil, false)
}

// openDir mounts the profiles of the directory tree at path; its other
// files are listed in README.txt.
func openDir(path string) (*vfs.Source, error) {
	var profiles []*profile
	var skipped []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(path, p)
		rel = filepath.ToSlash(rel)
		if _, ok := sniff(p); !ok {
			skipped = append(skipped, rel)
			return nil
		}
		f, err := dcpi.Open(p)
		if err != nil {
			skipped = append(skipped, rel)
			return nil
		}
		f.Close()
		profiles = append(profiles, &profile{rel: rel, path: p, hdr: f.Header, size: f.Size})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return openProfiles(path, profiles, skipped, true)
}

// openProfiles mounts profiles (path is the file or the directory
// mounted, isDir which; skipped are the directory's other files).
func openProfiles(path string, profiles []*profile, skipped []string, isDir bool) (*vfs.Source, error) {
	src := vfs.NewSource("dcpi", versions(profiles), path)
	names := placeProfiles(src.Root, profiles, isDir)
	files := &openFiles{}
	// The mount's Options are bound before any view renders.
	syms := func() *symbols.Resolver { return symbols.For(src.Options) }
	src.OnClose(files)
	for i, p := range profiles {
		p.dir = names[i]
		p.errs = src.Errors
		p.files = files
		p.syms = syms
		p.reportHeader()
		addViews(p)
	}
	if isDir {
		src.Root.AddFile("images.csv", render.Bytes(func() ([]byte, error) { return imagesCSV(profiles) }, nil))
	}
	addInterchange(src.Root, path, profiles)
	src.Root.AddFile("README.txt", render.Bytes(func() ([]byte, error) { return readme(path, isDir, profiles, skipped), nil }, nil))
	src.AddInfo("profiles", len(profiles))
	if len(skipped) > 0 {
		src.AddInfo("other files", len(skipped))
	}
	for _, p := range profiles {
		src.AddInfo(p.dir, p.hdr.Version+" image "+p.hdr.Image+" event "+p.hdr.Event)
		if len(profiles) > 20 {
			break
		}
	}
	go func() {
		for _, p := range profiles {
			p.summary()
		}
	}()
	return src, nil
}

func versions(profiles []*profile) string {
	var vs []string
	for _, p := range profiles {
		v := p.hdr.Version
		if v == "" {
			v = "unknown"
		}
		if !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	slices.Sort(vs)
	s := strings.Join(vs, ", ")
	if len(profiles) != 1 {
		s = strconv.Itoa(len(profiles)) + " profiles, " + s
	}
	return s
}

// placeProfiles adds one directory per profile, mirroring its relative
// path, and returns each profile's directory path in the tree.
func placeProfiles(root *vfs.Dir, profiles []*profile, isDir bool) []string {
	out := make([]string, len(profiles))
	dirs := map[string]*vfs.Dir{"": root}
	used := map[string]bool{}
	for _, r := range reserved {
		used[r] = true
	}
	var dirOf func(rel string) *vfs.Dir
	dirOf = func(rel string) *vfs.Dir {
		if d, ok := dirs[rel]; ok {
			return d
		}
		parent, base := "", rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			parent, base = rel[:i], rel[i+1:]
		}
		pd := dirOf(parent)
		d := vfs.NewDir()
		pd.Add(render.SafeName(base), d)
		dirs[rel] = d
		return d
	}
	for i, p := range profiles {
		parent, base := "", p.rel
		if i := strings.LastIndexByte(p.rel, '/'); i >= 0 {
			parent, base = p.rel[:i], p.rel[i+1:]
		}
		name := render.SafeName(base)
		treeParent := parent
		if parent == "" {
			// Top-level names may collide with the root's own files, and
			// (after SafeName) with one another.
			for k := 2; used[name]; k++ {
				name = render.SafeName(base) + "~" + strconv.Itoa(k)
			}
			used[name] = true
		} else {
			treeParent = safePath(parent)
		}
		d := vfs.NewDir()
		dirOf(treeParent).Add(name, d)
		p.viewDir = d
		if treeParent == "" {
			out[i] = name
		} else {
			out[i] = treeParent + "/" + name
		}
	}
	return out
}

func safePath(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = render.SafeName(p)
	}
	if parts[0] == "raw" || slices.Contains(reserved, parts[0]) {
		parts[0] += "~2"
	}
	return strings.Join(parts, "/")
}
