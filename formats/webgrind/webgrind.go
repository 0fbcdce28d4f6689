// Package webgrind builds the hpcfs tree of webgrind preprocessed callgrind
// files (format versions 4 to 7): one file, or a webgrind storage
// directory of them (one subdirectory per file, and files.csv).
//
// The numbers are webgrind's own: raw costs, percentages of the summary
// header formatted as webgrind's Reader formats them, functions kinds by
// webgrind's rule. Mounting reads the file header, the function addresses
// and the header text only; the function table behind the views is read
// on first use, once, and shared.
package webgrind

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hpcfs/hpcfs/decode"
	wg "github.com/hpcfs/hpcfs/decode/webgrind"
	"github.com/hpcfs/hpcfs/internal/vfs"
	"github.com/hpcfs/hpcfs/render"
)

// Format is the registry entry.
var Format = vfs.Format{
	Name:     "webgrind",
	Supports: "webgrind preprocessed callgrind files v4-v7 (*.webgrind) or a storage directory of them",
	Detect:   Detect,
	Open:     Open,
}

// sniff reports whether the file at path holds a preprocessed file: the
// header words and the first function addresses fit (wg.Sniff). A file
// with fewer than four functions has too few addresses to tell: its first
// header line must be text as well ("key: value" when it has none).
func sniff(path string) (wg.Version, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	head := make([]byte, 12+4*64)
	n, _ := f.ReadAt(head, 0)
	v, ok := wg.Sniff(head[:n], fi.Size())
	if !ok {
		return 0, false
	}
	headerAddr, functions := wg.HeadWords(head)
	if functions >= 4 {
		return v, true
	}
	text := make([]byte, 256)
	n, _ = f.ReadAt(text, headerAddr)
	first, _, _ := strings.Cut(string(text[:n]), "\n")
	for _, c := range []byte(first) {
		if c < 0x20 && c != '\t' && c != '\r' || c == 0x7f {
			return 0, false
		}
	}
	if functions == 0 && !strings.Contains(first, ": ") {
		return 0, false
	}
	return v, true
}

// storageFiles lists the preprocessed files of a directory, in name order.
// A directory with subdirectories is not a webgrind storage directory.
func storageFiles(dir string) ([]string, bool) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var files []string
	for _, de := range des {
		if de.IsDir() {
			return nil, false
		}
		if de.Type().IsRegular() {
			if _, ok := sniff(filepath.Join(dir, de.Name())); ok {
				files = append(files, de.Name())
			}
		}
	}
	return files, len(files) > 0
}

// Detect recognises a preprocessed file by its content, or a directory
// without subdirectories that holds at least one.
func Detect(path string) (string, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		files, ok := storageFiles(path)
		if !ok {
			return "", false
		}
		return fmt.Sprintf("webgrind storage directory, %d preprocessed files", len(files)), true
	}
	v, ok := sniff(path)
	if !ok {
		return "", false
	}
	return fmt.Sprintf("webgrind preprocessed file, format version %d", v), true
}

// Open opens a preprocessed file or a storage directory.
func Open(path string) (*vfs.Source, error) { return vfs.FileOrDir(path, openFile, openDir) }

func openFile(path string) (*vfs.Source, error) {
	f, err := wg.Open(path)
	if err != nil {
		return nil, err
	}
	src := vfs.NewSource("webgrind", "v"+f.Version.String(), path)
	src.OnClose(f)
	p := newProfile(f, "", src.Errors)
	p.build(src.Root)
	src.Root.AddFile("README.txt", render.Bytes(func() ([]byte, error) { return []byte(p.readme(path)), nil }, nil))
	src.AddInfo("format version", f.Version)
	src.AddInfo("functions", f.NumFunctions())
	src.AddInfo("runs", p.hdr.Runs)
	src.AddInfo("summary", render.FormatFloat(p.hdr.Summary))
	src.AddInfo("events", p.hdr.Get("events"))
	return src, nil
}

func openDir(dir string) (*vfs.Source, error) {
	files, ok := storageFiles(dir)
	if !ok {
		return nil, fmt.Errorf("%s: no webgrind preprocessed files", dir)
	}
	var profiles []*profile
	var names []string
	var unread decode.Problems // files of the storage that do not open
	for _, name := range files {
		f, err := wg.Open(filepath.Join(dir, name))
		if err != nil {
			unread.Add(fmt.Errorf("%s not mounted: %w", name, err))
			continue
		}
		names = append(names, name)
		profiles = append(profiles, &profile{f: f})
	}
	if len(profiles) == 0 {
		return nil, fmt.Errorf("%s: no readable webgrind preprocessed files", dir)
	}
	versions := map[string]bool{}
	for _, p := range profiles {
		versions["v"+p.f.Version.String()] = true
	}
	vs := make([]string, 0, len(versions))
	for v := range versions {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	src := vfs.NewSource("webgrind", strings.Join(vs, ","), dir)
	src.Errors.ReportAll("", unread)
	dirNames := render.FileNames(names, append(vfs.Reserved, "files.csv")...)
	src.Errors.ReportRenames("", names, dirNames)
	var rows [][]string
	for i, p := range profiles {
		src.OnClose(p.f)
		*p = *newProfile(p.f, dirNames[i]+"/", src.Errors)
		sub := src.Root.AddDir(dirNames[i])
		p.build(sub)
		sub.AddFile("README.txt", render.Bytes(func() ([]byte, error) { return []byte(p.readme(filepath.Join(dir, names[i]))), nil }, nil))
		rows = append(rows, p.fileRow(names[i], dirNames[i]))
	}
	if len(profiles) == 1 {
		src.Run = []string{dirNames[0] + "/profile.pb.gz"}
	}
	src.Root.AddFile("files.csv", render.Static(csvTable(filesColumns, rows)))
	src.Root.AddFile("README.txt", render.Static([]byte(dirReadme(dir, names, dirNames, profiles))))
	src.AddInfo("files", len(profiles))
	return src, nil
}

var filesColumns = []string{"file", "directory", "format_version", "size_bytes", "function_count", "runs", "summary", "events", "cmd"}

func (p *profile) fileRow(name, dir string) []string {
	return []string{name, dir, p.f.Version.String(), fmt.Sprint(p.f.Size()), fmt.Sprint(p.f.NumFunctions()),
		fmt.Sprint(p.hdr.Runs), render.FormatFloat(p.hdr.Summary), p.hdr.Get("events"), p.hdr.Get("cmd")}
}

func csvTable(columns []string, rows [][]string) []byte {
	b := render.AppendCSVRow(nil, columns...)
	for _, r := range rows {
		b = render.AppendCSVRow(b, r...)
	}
	return b
}

func dirReadme(dir string, names, dirNames []string, ps []*profile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "hpcfs mount of %s\n\nA webgrind storage directory: %d preprocessed callgrind files, one subdirectory each\n(its own README.txt explains the views):\n\n", dir, len(ps))
	for i, p := range ps {
		fmt.Fprintf(&b, "  %s/  %s (format version %d, %s)\n", dirNames[i], names[i], p.f.Version, vfs.Count(p.f.NumFunctions(), "function"))
	}
	b.WriteString("\nfiles.csv     one row per file: file, directory, format_version, size_bytes, function_count,\n" +
		"              runs, summary, events, cmd\n_errors.txt   decode problems found so far, prefixed by the subdirectory\nraw/          the original files\n")
	return b.String()
}
