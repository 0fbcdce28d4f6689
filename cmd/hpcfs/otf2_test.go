package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/testdata"
	gen "github.com/hpcfs/hpcfs/testdata/gen/otf2"
)

// TestOTF2ThroughMount mounts a corpus archive (its directory) and a
// generated one (its anchor file, and inside a folder scan) with the CLI,
// and uses them as a user would: cmp of events.txt and definitions.txt
// against otf2-print's output, grep and awk; fstest.TestFS on the tree of
// the folder and on the mount of the generated archive (small: TestFS
// reads every file in many pieces).
func TestOTF2ThroughMount(t *testing.T) {
	corpus := testdata.Corpus(t, "otf2", "pipit-ping-pong")
	mnt := mountCLI(t, corpus)
	got, err := os.ReadFile(filepath.Join(mnt, "events.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := os.ReadFile(filepath.Join(corpus, "oracle-otf2-print.txt")); !bytes.Equal(got, want) {
		t.Errorf("mounted events.txt differs from otf2-print's (%d vs %d bytes)", len(got), len(want))
	}
	if err := exec.Command("cmp", filepath.Join(mnt, "definitions.txt"), filepath.Join(corpus, "oracle-otf2-print-G.txt")).Run(); err != nil {
		t.Errorf("cmp definitions.txt oracle-otf2-print-G.txt: %v", err)
	}
	out, err := exec.Command("grep", "-c", "^MPI_SEND ", filepath.Join(mnt, "events.txt")).Output()
	if err != nil || strings.TrimSpace(string(out)) != "16" {
		t.Errorf("grep -c MPI_SEND events.txt: %q %v", out, err)
	}
	// awk: the messages.csv bytes add up to what the MPI_SEND lines say.
	sum, err := exec.Command("awk", "-F,", `NR>1 && $1=="message" {s+=$8} END {printf "%d", s}`, filepath.Join(mnt, "messages.csv")).Output()
	if err != nil || string(sum) == "0" {
		t.Fatalf("awk messages.csv: %q %v", sum, err)
	}

	dir := t.TempDir()
	anchor, err := gen.Random(3, 2, 120).Write(filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	info := string(runCLI(t, "info", anchor))
	if !strings.Contains(info, "format: otf2") {
		t.Fatalf("hpcfs info:\n%s", info)
	}
	src := testdata.Open(t, formats.Open, dir)
	if err := fstest.TestFS(src.FS(), "run/events.txt", "run/locations/1/cct.csv"); err != nil {
		t.Fatal(err)
	}
	mnt2 := mountCLI(t, anchor)
	if err := fstest.TestFS(os.DirFS(mnt2), "README.txt", "header.txt", "events.txt", "definitions.txt", "cct.csv",
		"procedures.csv", "messages.csv", "metrics.csv", "imbalance.csv", "locations/0/events.csv",
		"flame/time_ns.folded", "profile.pb.gz", "trace.json"); err != nil {
		t.Fatal(err)
	}
	if errs, _ := os.ReadFile(filepath.Join(mnt2, "_errors.txt")); len(errs) != 0 {
		t.Errorf("_errors.txt: %s", errs)
	}
}
