package hpcrun_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	dec "github.com/hpcfs/hpcfs/decode/hpcrun"
	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/addr2line"
	gen "github.com/hpcfs/hpcfs/testdata/gen/hpcrun"
	"github.com/hpcfs/hpcfs/testdata/gen/program"
)

// TestSymbolsMatchAddr2line writes a profile whose frames point into two
// compiled programs (a C++ PIE at its recorded path, a non-PIE C program
// found by base name under the search folder) at every address where
// addr2line knows the line: a leaf at the address and a call whose
// return address is the next byte. Every row of cct.csv, read through a
// FUSE mount, names the address as addr2line -f -i -C does.
func TestSymbolsMatchAddr2line(t *testing.T) {
	for _, v := range []struct {
		version string
		layout  dec.Layout
	}{{"02.00", dec.LayoutB}, {"04.00", dec.LayoutC}} {
		t.Run(v.version, func(t *testing.T) { symbolsMatchAddr2line(t, v.version, v.layout) })
	}
}

// symbolsMatchAddr2line is TestSymbolsMatchAddr2line for one version: in
// a 04.00 file (HPCToolkit 2022.10 and later) leaves are not negated, a
// node with children is a call.
func symbolsMatchAddr2line(t *testing.T, version string, layout dec.Layout) {
	cxx, c := program.BuildT(t, program.CXX), program.BuildT(t, program.CNoPIE)
	lms := []dec.LoadModule{{ID: 1, Name: cxx.Path}, {ID: 2, Name: "/not/here/" + filepath.Base(c.Path)}}
	want := map[string][]addr2line.Frame{} // module_id,offset -> frames
	nodes := gen.CallsAndLeaves(0, nil)
	for _, lm := range lms {
		bin := cxx.Path
		if lm.ID == 2 {
			bin = c.Path
		}
		lo, hi, err := program.Text(bin)
		if err != nil {
			t.Fatal(err)
		}
		addrs, frames, err := addr2line.Known(bin, lo, hi, 1)
		if err != nil {
			t.Fatal(err)
		}
		nodes = gen.AppendCallsAndLeaves(nodes, lm.ID, addrs)
		for i, a := range addrs {
			want[strconv.Itoa(int(lm.ID))+","+strconv.FormatUint(a, 16)] = frames[i]
		}
	}
	dir := t.TempDir()
	p := &gen.Profile{Version: version, Layout: layout, NV: []dec.NVPair{{Name: "program-name", Value: "prog"}},
		Epochs: []*gen.Epoch{{Granularity: 1, Metrics: gen.Metrics(1, layout), LoadModules: lms, Nodes: nodes}}}
	writeFile(t, filepath.Join(dir, "prog.hpcrun"), p)
	if f, err := dec.Open(filepath.Join(dir, "prog.hpcrun")); err != nil || f.Version != version || len(f.Problems) != 0 {
		t.Fatalf("the generated file: %v, %v", err, f)
	} else {
		f.Close()
	}
	src := open(t, dir)
	src.Options.SymbolDirs = []string{filepath.Dir(c.Path)} // the C program is found by base name there
	mnt := fsnodetest.Mount(t, src.FS())
	cct := testdata.ReadCSV(t, testdata.ReadFS(t, os.DirFS(mnt), "prog/cct.csv"))
	col := map[string]int{}
	for i, h := range cct[0] {
		col[h] = i
	}
	checked, inlined := 0, 0
	for _, r := range cct[1:] {
		if r[col["module_id"]] == "0" {
			continue
		}
		ip, _ := strconv.ParseUint(strings.TrimPrefix(r[col["offset"]], "0x"), 16, 64)
		if r[col["is_leaf"]] == "0" {
			ip-- // a return address names its call
		}
		w, ok := want[r[col["module_id"]]+","+strconv.FormatUint(ip, 16)]
		if !ok {
			t.Fatalf("row %q: no address of the profile", r)
		}
		fn, file, line, inl := addr2line.Columns(w)
		got := []string{r[col["function"]], r[col["file"]], r[col["line"]], r[col["inlined"]]}
		if strings.Join(got, "|") != strings.Join([]string{fn, file, line, inl}, "|") {
			t.Errorf("%s+%#x: got %q, addr2line %q", r[col["module"]], ip, got, []string{fn, file, line, inl})
		}
		if raw := r[col["raw_name"]]; symbols.Demangle(raw) != fn {
			t.Errorf("raw_name %q demangles to %q, not %q", raw, symbols.Demangle(raw), fn)
		}
		checked++
		if inl != "" {
			inlined++
		}
	}
	if checked != len(nodes)-1 || inlined == 0 {
		t.Fatalf("%d rows checked of %d, %d inlined", checked, len(nodes)-1, inlined)
	}
	t.Logf("%d rows match addr2line, %d in inlined code", checked, inlined)
	if errs := src.Errors.Lines(); len(errs) != 0 {
		t.Errorf("_errors.txt %q", errs)
	}
	readme := string(testdata.ReadFS(t, os.DirFS(mnt), "README.txt"))
	for _, s := range []string{"DWARF and symbol table of " + cxx.Path, "DWARF and symbol table of " + c.Path} {
		if !strings.Contains(readme, s) {
			t.Errorf("README.txt lacks %q", s)
		}
	}

	// pprof: the functions with their source lines.
	pb := testdata.ReadFS(t, os.DirFS(mnt), "prog/profile.pb.gz")
	prof, err := profile.Parse(bytes.NewReader(pb))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, fn := range prof.Function {
		if fn.Filename != "" {
			names[fn.Name] = true
		}
	}
	for _, n := range []string{"main", "hpc::Grid::step(double)", "work"} {
		if !names[n] {
			t.Errorf("profile.pb.gz has no function %q with its file", n)
		}
	}
	folds, _ := filepath.Glob(filepath.Join(mnt, "prog/flame/*.folded"))
	if len(folds) == 0 {
		t.Fatal("no flame/*.folded")
	}
	folded, err := os.ReadFile(folds[0])
	if err != nil || !bytes.Contains(folded, []byte("main;")) {
		t.Errorf("folded stacks without function names:\n%.500s", folded)
	}
}

// TestBinaryNewerThanMeasurement: hpcrun records no build-id, so a binary
// modified after the profile was written is named with one _errors.txt
// line saying it may have been rebuilt; one modified before is quiet.
func TestBinaryNewerThanMeasurement(t *testing.T) {
	c := program.BuildT(t, program.CNoPIE)
	bin, err := os.ReadFile(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, err := program.Text(c.Path)
	if err != nil {
		t.Fatal(err)
	}
	addrs, _, err := addr2line.Known(c.Path, lo, hi, 1)
	if err != nil || len(addrs) == 0 {
		t.Fatal(err)
	}
	for _, rebuilt := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "prog")
		if err := os.WriteFile(path, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		lms := []dec.LoadModule{{ID: 1, Name: path}}
		p := &gen.Profile{Layout: dec.LayoutC, Version: "03.00", Epochs: []*gen.Epoch{{Granularity: 1,
			Metrics: gen.Metrics(1, dec.LayoutC), LoadModules: lms, Nodes: gen.CallsAndLeaves(1, addrs[:1])}}}
		prof := filepath.Join(dir, "m", "prog.hpcrun")
		os.MkdirAll(filepath.Dir(prof), 0o755)
		writeFile(t, prof, p)
		written := time.Now().Add(-time.Hour)
		if rebuilt {
			written = time.Now().Add(-2 * time.Hour)
		}
		if err := os.Chtimes(prof, written, written); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, time.Now().Add(-90*time.Minute), time.Now().Add(-90*time.Minute)); err != nil {
			t.Fatal(err)
		}
		src := open(t, prof)
		cct := testdata.ReadCSV(t, testdata.ReadFS(t, src.FS(), "prog/cct.csv"))
		fn := -1
		for i, h := range cct[0] {
			if h == "function" {
				fn = i
			}
		}
		if fn < 0 || cct[len(cct)-1][fn] == "" {
			t.Errorf("rebuilt %v: the leaf is not named: %q", rebuilt, cct[len(cct)-1])
		}
		errs := src.Errors.Lines()
		if rebuilt != (len(errs) == 1 && strings.Contains(errs[0], "after the measurement")) || !rebuilt && len(errs) != 0 {
			t.Errorf("rebuilt %v: _errors.txt %q", rebuilt, errs)
		}
	}
}
