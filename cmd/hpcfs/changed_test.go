package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"

	hpcrundec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/testdata"
	callgrindgen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
	dcpigen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
	hpcdbgen "github.com/hpcfs/hpcfs/testdata/gen/hpcdb"
	hpcrungen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
	ovnigen "github.com/hpcfs/hpcfs/testdata/gen/ovni"
	webgrindgen "github.com/hpcfs/hpcfs/testdata/gen/webgrind"
)

// changeSources writes a small source of each format under dir and
// returns its path.
var changeSources = map[string]func(t *testing.T, dir string) string{
	"ovni": func(t *testing.T, dir string) string {
		p, err := ovnigen.WriteDemo(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	},
	"hpcrun": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "app-000000-000-7f0101-4242-0.hpcrun")
		var b bytes.Buffer
		hpcrungen.Write(&b, hpcrungen.Random(hpcrungen.Options{Seed: 3, Layout: hpcrundec.LayoutC, Nodes: 3000, Metrics: 2}))
		writeFile(t, p, b.Bytes())
		return p
	},
	"hpcdb": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "database")
		if _, err := hpcdbgen.Write(p, hpcdbgen.Config{Threads: 2, Contexts: 2000, Metrics: 2, Samples: 5000, Seed: 9}); err != nil {
			t.Fatal(err)
		}
		return p
	},
	"dcpi": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "9805191724", "synthetic")
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeFile(t, p, dcpigen.Synthetic{Seed: 5, Addresses: 5000, MaxChunk: 30, Zeros: 0.3, MaxGap: 8}.Model().Bytes())
		return p
	},
	"webgrind": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "cachegrind.out.7.webgrind")
		var b bytes.Buffer
		webgrindgen.Random(4, 500, 15).Write(&b, 7)
		writeFile(t, p, b.Bytes())
		return p
	},
	"callgrind": func(t *testing.T, dir string) string {
		p := filepath.Join(dir, "callgrind.out.1234")
		writeFile(t, p, callgrindgen.Bytes(callgrindgen.Config{Seed: 2, Functions: 40, Records: 3000}))
		return p
	},
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// largestFile is the biggest regular file at or below path: the input a
// change hits.
func largestFile(t *testing.T, path string) string {
	var best string
	var size int64 = -1
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil && fi.Size() > size {
				best, size = p, fi.Size()
			}
		}
		return nil
	})
	if best == "" {
		t.Fatalf("no file in %s", path)
	}
	return best
}

// afterTick returns once the file system's clock for change times has
// moved past the change time of every file in files: the kernel keeps
// times in steps of its clock tick, and a change made in the same tick
// as the original write would not show in them.
func afterTick(t *testing.T, files ...string) {
	ctime := func(p string) int64 {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ctim.Nano()
	}
	var last int64
	for _, f := range files {
		last = max(last, ctime(f))
	}
	probe := filepath.Join(t.TempDir(), "tick")
	for {
		if err := os.WriteFile(probe, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if ctime(probe) > last {
			return
		}
	}
}

// TestSourceChangedUnderMount changes an input of a mounted source of each
// format (truncated, overwritten in place, overwritten with its modification
// time set back, replaced by rename, deleted):
// one mount per format of a folder holding five copies of its source, one
// per change (DCPI: five mounts). Every file of a changed source's root then either fails with
// EIO or reads exactly as before (files made when the source was opened),
// at least one fails, its _errors.txt names the changed file, and the
// copies not yet changed still read as before.
func TestSourceChangedUnderMount(t *testing.T) {
	formats := make([]string, 0, len(changeSources))
	for f := range changeSources {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	kinds := []string{"delete", "overwrite", "rename", "rewrite-keep-mtime", "truncate"}
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			folder := t.TempDir()
			inputs := map[string]string{}
			for _, kind := range kinds {
				dir := filepath.Join(folder, kind)
				os.Mkdir(dir, 0o755)
				inputs[kind] = largestFile(t, changeSources[format](t, dir))
			}
			// A folder of DCPI profiles is one DCPI source: those copies are
			// mounted one by one.
			separate := format == "dcpi"
			var mnt string
			if !separate {
				mnt = mountCLI(t, folder)
			}
			roots := map[string]string{}
			before := map[string]map[string][]byte{}
			for _, kind := range kinds {
				if separate {
					roots[kind] = sourceRoot(t, mountCLI(t, filepath.Join(folder, kind)))
				} else {
					roots[kind] = sourceRoot(t, filepath.Join(mnt, kind))
				}
				before[kind] = readRoot(t, roots[kind])
			}
			var files []string
			for _, p := range inputs {
				files = append(files, p)
			}
			afterTick(t, files...)
			for k, kind := range kinds {
				if err := testdata.InputChanges[kind](inputs[kind]); err != nil {
					t.Fatal(err)
				}
				failed := 0
				for name, old := range before[kind] {
					got, err := os.ReadFile(filepath.Join(roots[kind], name))
					switch {
					case errors.Is(err, syscall.EIO):
						failed++
					case err != nil:
						t.Errorf("%s: %s: %v, want EIO or the same bytes", kind, name, err)
					case !bytes.Equal(got, old):
						t.Errorf("%s: %s: %d bytes, different from the %d before the change", kind, name, len(got), len(old))
					}
				}
				if failed == 0 {
					t.Errorf("%s: no file of %q fails after the change", kind, names(before[kind]))
				}
				errs := string(mustReadFile(t, filepath.Join(roots[kind], "_errors.txt")))
				if !strings.Contains(errs, filepath.Base(inputs[kind])+": changed under the mount") {
					t.Errorf("%s: _errors.txt does not name %s:\n%s", kind, inputs[kind], errs)
				}
				for _, other := range kinds[k+1:] { // not changed yet
					for name, old := range before[other] {
						if got, err := os.ReadFile(filepath.Join(roots[other], name)); err != nil || !bytes.Equal(got, old) {
							t.Errorf("%s, unchanged: %s: %v", other, name, err)
						}
					}
				}
			}
		})
	}
}

// sourceRoot is the root of the source mounted at or below dir: the first
// directory, breadth first, that holds an _errors.txt.
func sourceRoot(t *testing.T, dir string) string {
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if _, err := os.Stat(filepath.Join(d, "_errors.txt")); err == nil {
			return d
		}
		des, _ := os.ReadDir(d)
		for _, de := range des {
			if de.IsDir() {
				queue = append(queue, filepath.Join(d, de.Name()))
			}
		}
	}
	t.Fatalf("no source mounted below %s", dir)
	return ""
}

// readRoot reads the regular files below dir (at most 40, raw/ and
// _errors.txt left out), by path relative to dir.
func readRoot(t *testing.T, dir string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case rel == "raw":
			return filepath.SkipDir
		case len(out) == 40:
			return filepath.SkipAll
		case d.Type().IsRegular() && rel != "_errors.txt":
			out[rel] = mustReadFile(t, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
