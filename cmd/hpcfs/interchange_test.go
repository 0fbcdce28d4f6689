package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

// TestInterchangeMounted reads the interchange views of each format
// through a mount with the tools that use them: go tool pprof -top and
// -traces on profile.pb.gz, cat and tail on the folded stacks and
// trace.json (the same bytes as hpcfs cat, stat sizes exact).
func TestInterchangeMounted(t *testing.T) {
	cases := []struct {
		name    string
		source  string
		profile string // directory of flame/ and profile.pb.gz in the tree, "" for none
		folded  string
		trace   bool
	}{
		{"callgrind", testdata.Corpus(t, "callgrind", "valgrind-3.19-generated", "callgrind.out.default"), ".", "flame/ir.folded", false},
		{"webgrind", testdata.Corpus(t, "webgrind", "xdebug-app-v7", "callgrind.out.webgrind"), ".", "flame/time_ns.folded", false},
		{"hpcrun", testdata.Corpus(t, "hpctoolkit", "hpcrun-04.00-small"), "testmeas-small-000000-000-11ac0300-5560-0", "flame/cputime_ns.folded", true},
		{"hpcdb", testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cputime-t"), ".", "flame/cputime_ns_sum.folded", true},
		{"ovni", filepath.Join(testdata.Corpus(t, "ovni", "v1-two-procs"), "ovni"), "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mnt := mountCLI(t, c.source)
			same := func(name string) []byte {
				t.Helper()
				got, err := os.ReadFile(filepath.Join(mnt, name))
				want := runCLI(t, "cat", c.source, name)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("%s through the mount differs from hpcfs cat: %v", name, err)
				}
				fi, err := os.Stat(filepath.Join(mnt, name))
				if err != nil || fi.Size() != int64(len(want)) {
					t.Fatalf("stat %s: %v, size %d of %d", name, err, fi.Size(), len(want))
				}
				tail, err := exec.Command("tail", "-c", "40", filepath.Join(mnt, name)).Output()
				if err != nil || !bytes.HasSuffix(want, tail) {
					t.Fatalf("tail -c 40 %s: %q %v", name, tail, err)
				}
				return got
			}
			if c.profile != "" {
				same(filepath.Join(c.profile, c.folded))
				pb := filepath.Join(mnt, c.profile, "profile.pb.gz")
				tool, err := exec.Command("go", "tool", "-n", "pprof").Output()
				if err != nil {
					t.Fatal(err)
				}
				for _, mode := range []string{"-top", "-traces"} {
					out, err := exec.Command(strings.TrimSpace(string(tool)), mode, pb).CombinedOutput()
					if err != nil || !strings.Contains(string(out), "Type: ") {
						t.Fatalf("go tool pprof %s: %v\n%s", mode, err, out)
					}
				}
			}
			if c.trace {
				var doc struct{ TraceEvents []json.RawMessage }
				if err := json.Unmarshal(same("trace.json"), &doc); err != nil || len(doc.TraceEvents) == 0 {
					t.Fatalf("trace.json: %v, %d events", err, len(doc.TraceEvents))
				}
				des, err := os.ReadDir(filepath.Join(mnt, "trace"))
				if err != nil || len(des) == 0 {
					t.Fatalf("trace/: %v", err)
				}
				same(filepath.Join("trace", des[0].Name()))
			}
		})
	}
}

// TestInterchangeWindowsMounted mounts an ovni trace with a small
// --trace-window-limit: trace/ lists time windows, each the same through
// the mount as hpcfs cat (with the same limit), stat size exact, tail
// and a read from the middle right, valid JSON; README.txt names the
// limit.
func TestInterchangeWindowsMounted(t *testing.T) {
	source := filepath.Join(testdata.Corpus(t, "ovni", "v1-two-procs"), "ovni")
	const limit = "4000"
	mnt := mountCLI(t, source, "--trace-window-limit", limit)
	wins, err := filepath.Glob(filepath.Join(mnt, "trace", "window-*.json"))
	if err != nil || len(wins) < 2 {
		t.Fatalf("trace/window-*.json: %d windows, %v", len(wins), err)
	}
	for _, w := range []string{wins[0], wins[len(wins)/2], wins[len(wins)-1]} {
		name := filepath.Join("trace", filepath.Base(w))
		want := runCLI(t, "--trace-window-limit", limit, "cat", source, name)
		got, err := os.ReadFile(w)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s through the mount differs from hpcfs cat: %v", name, err)
		}
		if fi, err := os.Stat(w); err != nil || fi.Size() != int64(len(want)) {
			t.Fatalf("stat %s: %v", name, err)
		}
		tail, err := exec.Command("tail", "-c", "40", w).Output()
		if err != nil || !bytes.HasSuffix(want, tail) {
			t.Fatalf("tail -c 40 %s: %q %v", name, tail, err)
		}
		f, err := os.Open(w)
		if err != nil {
			t.Fatal(err)
		}
		mid := make([]byte, 100)
		n, err := f.ReadAt(mid, int64(len(want)/2))
		f.Close()
		if !bytes.Equal(mid[:n], want[len(want)/2:len(want)/2+n]) {
			t.Fatalf("%s: read at %d differs: %v", name, len(want)/2, err)
		}
		var doc struct{ TraceEvents []json.RawMessage }
		if err := json.Unmarshal(got, &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	readme, err := os.ReadFile(filepath.Join(mnt, "README.txt"))
	if err != nil || !bytes.Contains(readme, []byte("larger than the window limit (hpcfs\n")) {
		t.Fatalf("README.txt does not name the limit: %v", err)
	}
}
