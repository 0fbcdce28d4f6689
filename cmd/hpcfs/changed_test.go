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
	"time"

	hpcrundec "github.com/hpcfs/hpcfs/decode/hpcrun"
	callgrindgen "github.com/hpcfs/hpcfs/testdata/gen/callgrind"
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
		p, _ := dcpiTree(t)
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

var changes = map[string]func(p string) error{
	"truncate": func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		return os.Truncate(p, fi.Size()/2)
	},
	"overwrite": func(p string) error {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		fi, _ := f.Stat()
		_, err = f.WriteAt(bytes.Repeat([]byte{0x5a}, int(min(fi.Size()/2, 4096))), fi.Size()/3)
		f.Close()
		return err
	},
	"rename": func(p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p+".new", b, 0o644); err != nil {
			return err
		}
		return os.Rename(p+".new", p)
	},
	"delete": os.Remove,
}

// TestSourceChangedUnderMount changes an input of a mounted source of each
// format (truncated, overwritten in place, replaced by rename, deleted)
// and checks that every file of the root then either fails with EIO or
// reads exactly as before (files made when the source was opened), that
// at least one fails, and that _errors.txt names the changed file.
func TestSourceChangedUnderMount(t *testing.T) {
	formats := make([]string, 0, len(changeSources))
	for f := range changeSources {
		formats = append(formats, f)
	}
	sort.Strings(formats)
	for _, format := range formats {
		for _, change := range []string{"truncate", "overwrite", "rename", "delete"} {
			t.Run(format+"/"+change, func(t *testing.T) {
				src := changeSources[format](t, t.TempDir())
				input := largestFile(t, src)
				mnt := mountCLI(t, src)
				des, err := os.ReadDir(mnt)
				if err != nil {
					t.Fatal(err)
				}
				before := map[string][]byte{}
				for _, de := range des {
					if de.Type().IsRegular() && de.Name() != "_errors.txt" {
						before[de.Name()] = mustReadFile(t, filepath.Join(mnt, de.Name()))
					}
				}
				// The kernel's clock for modification times is coarse (a tick):
				// a rewrite in the same tick as the write would not show.
				time.Sleep(20 * time.Millisecond)
				if err := changes[change](input); err != nil {
					t.Fatal(err)
				}
				failed := 0
				for name, old := range before {
					got, err := os.ReadFile(filepath.Join(mnt, name))
					switch {
					case errors.Is(err, syscall.EIO):
						failed++
					case err != nil:
						t.Errorf("%s: %v, want EIO or the same bytes", name, err)
					case !bytes.Equal(got, old):
						t.Errorf("%s: %d bytes, different from the %d before the change", name, len(got), len(old))
					}
				}
				if failed == 0 {
					t.Errorf("no file of %q fails after the change", names(before))
				}
				rel, _ := filepath.Rel(src, input)
				if rel == "." {
					rel = filepath.Base(input)
				}
				errs := string(mustReadFile(t, filepath.Join(mnt, "_errors.txt")))
				if !strings.Contains(errs, rel+": changed under the mount") {
					t.Errorf("_errors.txt does not name %s:\n%s", rel, errs)
				}
			})
		}
	}
}

func names(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
