package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gen "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
	"github.com/hpcfs/hpcfs/testdata/lotest"
)

// dcpiTree writes a DCPI database-like tree: profiles of both versions in
// epoch directories, a 1.x profile and a daemon log.
func dcpiTree(t *testing.T) (string, *gen.Profile) {
	dir := t.TempDir()
	big := gen.Synthetic{Seed: 5, Addresses: 20000, MaxChunk: 30, Zeros: 0.3, MaxGap: 8}.Model()
	small := gen.New("pdb-0.06", 0x3ff80000000)
	small.Chunks = []gen.Chunk{{Offset: 8, Counts: []uint32{4, 0, 9}}}
	v1 := gen.New("pdb-1.01", 0x120000000)
	v1.Body = []byte("unpublished")
	for rel, b := range map[string][]byte{
		"9805191724/synthetic": big.Bytes(),
		"9805191724/libc":      small.Bytes(),
		"9806010000/vmunix":    v1.Bytes(),
		"dcpid-walnut.log":     []byte("dcpid started\n"),
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, big
}

func TestDcpiThroughCLIAndMount(t *testing.T) {
	dir, big := dcpiTree(t)
	var want strings.Builder
	var total uint64
	for _, s := range big.Expected() {
		total += uint64(s.Count)
	}
	fmt.Fprintf(&want, "%-21s%s\n", "name", "synthetic")
	fmt.Fprintf(&want, "%-21s%s\n", "image", "19970328081403c0c18b")
	fmt.Fprintf(&want, "%-21s%s\n", "path", "/usr/local/bin/synthetic")
	fmt.Fprintf(&want, "%-21s%s\n", "epoch", "9805191724")
	fmt.Fprintf(&want, "%-21s%s\n", "platform", "walnut")
	fmt.Fprintf(&want, "%-21s0x%012x\n", "text_start", big.Tstart)
	fmt.Fprintf(&want, "%-21s0x%012x\n", "text_size", 8388608)
	fmt.Fprintf(&want, "%-21s%d cycles:63488:10000\n", "event", total)
	for _, s := range big.Expected() {
		fmt.Fprintf(&want, "0x%012x%8d\n", s.Address, s.Count)
	}
	if got := string(runCLI(t, "cat", dir, "9805191724/synthetic/samples.txt")); got != want.String() {
		t.Fatalf("hpcfs cat samples.txt differs from the model")
	}
	info := string(runCLI(t, "info", dir))
	if !strings.Contains(info, "format: dcpi") {
		t.Fatalf("hpcfs info:\n%s", info)
	}
	ls := string(runCLI(t, "ls", dir))
	for _, name := range []string{"README.txt", "_errors.txt", "images.csv", "raw/", "9805191724/", "9806010000/"} {
		if !strings.Contains(ls, name) {
			t.Fatalf("hpcfs ls lacks %s:\n%s", name, ls)
		}
	}

	mnt := mountCLI(t, dir)
	got, err := os.ReadFile(filepath.Join(mnt, "9805191724/synthetic/samples.txt"))
	if err != nil || string(got) != want.String() {
		t.Fatalf("mounted samples.txt differs: %v", err)
	}
	// top.csv is samples.csv sorted by count descending, then address:
	// check it with sort(1) on the mounted files.
	sh := func(script string) string {
		out, err := exec.Command("sh", "-c", script).Output()
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return string(out)
	}
	d := filepath.Join(mnt, "9805191724/synthetic")
	bySort := sh(`awk -F, 'NR>1 {print $1","$3}' ` + d + `/samples.csv | sort -t, -k2,2nr -k1,1`)
	fromTop := sh(`awk -F, 'NR>1 {print $1","$3}' ` + d + `/top.csv`)
	if bySort != fromTop || strings.Count(fromTop, "\n") != len(big.Expected()) {
		t.Fatal("top.csv is not samples.csv sorted by count")
	}
	if last := sh(`tail -n 1 ` + d + `/top.csv | cut -d, -f5`); last != "100.00\n" {
		t.Fatalf("last cum_pct of top.csv = %q", last)
	}
	sum := sh(`awk -F, 'NR>1 {s+=$3} END {print s}' ` + d + `/samples.csv`)
	if sum != fmt.Sprintf("%d\n", total) {
		t.Fatalf("awk sum of counts %s, want %d", sum, total)
	}
	errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
	if !strings.Contains(string(errs), "9806010000/vmunix: dcpi: header") || !strings.Contains(string(errs), "cannot be decoded") {
		t.Fatalf("_errors.txt = %q", errs)
	}
	images := sh(`cut -d, -f1,7 ` + filepath.Join(mnt, "images.csv"))
	if images != fmt.Sprintf("profile,samples\n9805191724/synthetic,%d\n9805191724/libc,13\n9806010000/vmunix,\n", total) {
		t.Fatalf("images.csv:\n%s", images)
	}
}

// TestDcpiLibreOffice opens samples.csv, top.csv and images.csv of a small
// mounted profile tree in LibreOffice and checks the spreadsheet holds the
// same rows and values (addresses stay text, pct keeps its digits).
func TestDcpiLibreOffice(t *testing.T) {
	lotest.Require(t)
	dir := t.TempDir()
	a := gen.Synthetic{Seed: 11, Addresses: 3000, MaxChunk: 30, Zeros: 0.3, MaxGap: 8}.Model()
	b := gen.New("pdb-0.06", 0x3ff80000000)
	b.Chunks = []gen.Chunk{{Offset: 8, Counts: []uint32{4, 0, 9, 100000}}, {Offset: 64, Counts: []uint32{1}}}
	for rel, p := range map[string]*gen.Profile{"9805191724/synthetic": a, "9805191724/libc": b} {
		path := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, p.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mnt := mountCLI(t, dir)
	files := []string{filepath.Join(mnt, "images.csv")}
	for _, prof := range []string{"synthetic", "libc"} {
		for _, view := range []string{"samples.csv", "top.csv"} {
			files = append(files, filepath.Join(mnt, "9805191724", prof, view))
		}
	}
	lotest.Check(t, files)
}
