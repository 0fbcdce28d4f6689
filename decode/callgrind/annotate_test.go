package callgrind_test

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/decode/callgrind"
	"github.com/hpcfs/hpcfs/testdata"
)

// realAnnotate runs valgrind's callgrind_annotate --auto=no (and
// --inclusive=yes) on data, from an empty directory so that no file name
// loses a prefix, and drops the "Profile data file" line.
func realAnnotate(t *testing.T, data []byte, inclusive bool) []byte {
	t.Helper()
	if _, err := exec.LookPath("callgrind_annotate"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("callgrind_annotate missing in CI (.ci/setup installs valgrind)")
		}
		t.Skip("callgrind_annotate not installed (apt-get install valgrind)")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "profile")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--auto=no", in}
	if inclusive {
		args = []string{"--inclusive=yes", "--auto=no", in}
	}
	cmd := exec.Command("callgrind_annotate", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("callgrind_annotate: %v", err)
	}
	return dropDataLine(out)
}

// dropDataLine removes the second line ("Profile data file ...").
func dropDataLine(b []byte) []byte {
	first, rest, _ := bytes.Cut(b, []byte("\n"))
	_, rest, _ = bytes.Cut(rest, []byte("\n"))
	return append(append(first, '\n'), rest...)
}

// checkAnnotate compares File.Annotate with callgrind_annotate on data.
func checkAnnotate(t *testing.T, data []byte) {
	t.Helper()
	f, err := callgrind.NewFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, inclusive := range []bool{false, true} {
		got, err := f.Annotate("profile", inclusive)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, []byte(strings80+"\nProfile data file 'profile'")) {
			t.Errorf("inclusive=%v: first lines %q", inclusive, got[:min(len(got), 120)])
		}
		want := realAnnotate(t, data, inclusive)
		if g := dropDataLine(got); !bytes.Equal(g, want) {
			t.Errorf("inclusive=%v: differs from callgrind_annotate\n--- got\n%s\n--- want\n%s", inclusive, g, want)
		}
	}
}

var strings80 = string(bytes.Repeat([]byte("-"), 80))

// TestAnnotateText checks annotate.txt's text byte for byte against
// callgrind_annotate on every callgrind-format corpus file (gzip ones
// decompressed for the tool, which cannot read them).
func TestAnnotateText(t *testing.T) {
	for _, cf := range corpusFiles(t) {
		t.Run(cf.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(testdata.Corpus(t, "callgrind", cf.set), cf.name))
			if err != nil {
				t.Fatal(err)
			}
			checkAnnotate(t, data)
		})
	}
	gz := filepath.Join(testdata.Corpus(t, "callgrind", "valgrind-3.19-generated"), "callgrind.out.default.gz")
	raw, err := os.ReadFile(gz)
	if err != nil {
		t.Fatal(err)
	}
	f, err := callgrind.NewFile(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Annotate("profile", false)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	if want := realAnnotate(t, plain.Bytes(), false); !bytes.Equal(dropDataLine(got), want) {
		t.Errorf("gzip: differs from callgrind_annotate on the decompressed file")
	}
}
