package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/addr2line"
	gendcpi "github.com/hpcfs/hpcfs/testdata/gen/dcpi"
	genhpcrun "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

// TestSymbolsFolder mounts, with the background `hpcfs mount`, an hpcrun
// measurement and a DCPI profile of a compiled program that record it
// where it is not (a build on another machine), with --symbols naming
// the folder it is in; then the DCPI profile again in the foreground
// with $HPCFS_SYMBOLS instead. The names are addr2line's.
func TestSymbolsFolder(t *testing.T) {
	fsnodetest.Require(t)
	b := program.BuildT(t, program.CXX)
	lo, hi, err := program.Text(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	addrs, frames, err := addr2line.Known(b.Path, lo, hi, 4)
	if err != nil {
		t.Fatal(err)
	}
	recorded := "/home/someone/build/" + filepath.Base(b.Path)
	meas := t.TempDir()
	p := &genhpcrun.Profile{NV: []dec.NVPair{{Name: "program-name", Value: "prog"}},
		Epochs: []*genhpcrun.Epoch{{Granularity: 1, Metrics: genhpcrun.Metrics(1, dec.LayoutB),
			LoadModules: []dec.LoadModule{{ID: 1, Name: recorded}}, Nodes: genhpcrun.CallsAndLeaves(1, addrs)}}}
	f, err := os.Create(filepath.Join(meas, "prog-000000-000-a8c00270-1-0.hpcrun"))
	if err != nil {
		t.Fatal(err)
	}
	if err := genhpcrun.Write(f, p); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// tstart/tsize name the binary's text and the epoch follows its build,
	// as DCPI records them, so the binary is taken as the one measured.
	prof := gendcpi.New("pdb-0.07", lo).Set("path", recorded).Set("tsize", strconv.FormatUint(hi-lo, 10)).
		Set("epoch", time.Now().UTC().Add(time.Minute).Format("0601021504"))
	counts := make([]uint32, len(addrs))
	for i := range counts {
		counts[i] = 1
	}
	prof.Chunks = []gendcpi.Chunk{{Offset: uint32(addrs[0] - lo), Counts: counts}}
	dcpiFile := filepath.Join(t.TempDir(), "prof")
	if err := os.WriteFile(dcpiFile, prof.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	mnt := t.TempDir()
	log := filepath.Join(t.TempDir(), "hpcfs.log")
	runCLI(t, "--index-dir", "", "--symbols", filepath.Dir(b.Path), "mount", "--log-file", log, meas, mnt)
	defer runCLI(t, "unmount", mnt)
	cct := testdata.ReadCSV(t, testdata.ReadFS(t, os.DirFS(mnt), "prog-000000-000-a8c00270-1-0/cct.csv"))
	for i, a := range addrs {
		r := cct[3+2*i] // the leaf at a
		fn, file, line, inl := addr2line.Columns(frames[i])
		if r[7] != "0x"+strconv.FormatUint(a, 16) || r[8] != fn || r[10] != file || r[11] != line || r[12] != inl {
			t.Fatalf("leaf at %#x: %q, addr2line %q", a, r, []string{fn, file, line, inl})
		}
	}
	if errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt")); len(errs) != 0 {
		t.Errorf("_errors.txt %q", errs)
	}
	if readme, _ := os.ReadFile(filepath.Join(mnt, "README.txt")); !strings.Contains(string(readme), "DWARF and symbol table of "+b.Path) {
		t.Errorf("README.txt:\n%s", readme)
	}

	// The DCPI profile, in the foreground, with $HPCFS_SYMBOLS.
	t.Setenv("HPCFS_SYMBOLS", filepath.Dir(b.Path))
	mnt = mountCLI(t, dcpiFile, "--index-dir", "")
	rows := testdata.ReadCSV(t, testdata.ReadFS(t, os.DirFS(mnt), "prof/samples.csv"))
	var sampled []uint64
	for _, r := range rows[1:] {
		addr, _ := strconv.ParseUint(strings.TrimPrefix(r[0], "0x"), 16, 64)
		sampled = append(sampled, addr)
	}
	want, err := addr2line.Lookup(b.Path, sampled)
	if err != nil {
		t.Fatal(err)
	}
	named := 0
	for i, r := range rows[1:] {
		if fn, _, _, _ := addr2line.Columns(want[i]); r[5] != fn {
			t.Errorf("%s: function %q, addr2line %q", r[0], r[5], fn)
		}
		if r[5] != "" {
			named++
		}
	}
	if named == 0 {
		t.Error("no DCPI sample named")
	}
}
