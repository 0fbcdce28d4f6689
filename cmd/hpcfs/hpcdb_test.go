package main

import (
	"bytes"
	"encoding/csv"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
)

var hpcdbSamples = []string{"db-4.0-xml-pipit-ping-pong", "db-4.0-xml-hpcviewer-empty-trace"}

// The dump views are byte-identical to hpcproftt's output, through a
// mount and through `hpcfs cat`.
func TestHpcdbDumpsThroughMountAndCat(t *testing.T) {
	for _, sample := range hpcdbSamples {
		dir := testdata.Corpus(t, "hpctoolkit", sample)
		mnt := mountCLI(t, dir)
		for _, name := range []string{"profile.db", "cct.db", "trace.db"} {
			want, err := os.ReadFile(filepath.Join(dir, "expected-hpcproftt-"+name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			view := "dump/" + name + ".txt"
			fsnodetest.CheckFile(t, filepath.Join(mnt, view), want)
			if got := runCLI(t, "cat", dir, view); !bytes.Equal(got, want) {
				t.Errorf("%s: hpcfs cat %s differs from hpcproftt", sample, view)
			}
		}
		// read everything once so that _errors.txt is complete before
		// TestFS checks it
		fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				os.ReadFile(filepath.Join(mnt, p))
			}
			return nil
		})
		// the cct.db check runs in the background once the model is
		// built; wait for its line so that _errors.txt holds still
		deadline := time.Now().Add(10 * time.Second)
		for {
			errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
			if bytes.Contains(errs, []byte("contexts/ derived from profile.db")) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: _errors.txt does not say contexts/ is derived: %q", sample, errs)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "header.txt", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"); err != nil {
			t.Fatal(err)
		}
	}
}

// The ping-pong sample's contexts 9 and 18 have values in profile.db but
// no tag in experiment.xml (research §3.7).
func TestHpcdbUnlistedContexts(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	out := string(runCLI(t, "cat", dir, "cct.csv"))
	for _, id := range []string{"9", "18"} {
		if !strings.Contains(out, "\n"+id+",,,unlisted,unlisted context "+id+",") {
			t.Errorf("cct.csv has no unlisted row for context %s", id)
		}
	}
}

func hpcdbCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// Every CSV of the ping-pong sample converts to xlsx in LibreOffice and
// reads back (xlsx -> csv) with the same rows, columns and values.
func TestHpcdbLibreOffice(t *testing.T) {
	lo, err := exec.LookPath("libreoffice")
	if err != nil {
		t.Skip("libreoffice not installed")
	}
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	mnt := mountCLI(t, dir)
	var csvs []string
	fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".csv") && !strings.HasPrefix(p, "raw/") {
			if strings.HasPrefix(p, "contexts/") && !strings.HasPrefix(p, "contexts/3") {
				return nil // contexts/3*.csv stand for the 117 alike files
			}
			csvs = append(csvs, p)
		}
		return nil
	})
	out := t.TempDir()
	in := filepath.Join(out, "in")
	os.MkdirAll(in, 0o755)
	var args []string
	for _, p := range csvs {
		flat := strings.ReplaceAll(p, "/", "__")
		b, err := os.ReadFile(filepath.Join(mnt, p))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(in, flat), b, 0o644)
		args = append(args, filepath.Join(mnt, p))
	}
	profile := "-env:UserInstallation=file://" + filepath.Join(out, "profile")
	run := func(args ...string) {
		if b, err := exec.Command(lo, append([]string{profile, "--headless"}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("libreoffice: %v\n%s", err, b)
		}
	}
	// xlsx straight from the mount (the files keep their names per directory)
	for _, p := range csvs {
		flat := strings.ReplaceAll(p, "/", "__")
		os.Rename(filepath.Join(in, flat), filepath.Join(in, strings.TrimSuffix(flat, ".csv")+".csv"))
	}
	var inputs []string
	for _, p := range csvs {
		inputs = append(inputs, filepath.Join(in, strings.ReplaceAll(p, "/", "__")))
	}
	run(append([]string{"--infilter=CSV:44,34,76,1", "--convert-to", "xlsx", "--outdir", filepath.Join(out, "xlsx")}, inputs...)...)
	var xlsx []string
	for _, p := range inputs {
		xlsx = append(xlsx, filepath.Join(out, "xlsx", strings.TrimSuffix(filepath.Base(p), ".csv")+".xlsx"))
	}
	run(append([]string{"--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1", "--outdir", filepath.Join(out, "back")}, xlsx...)...)
	for i, p := range csvs {
		want := hpcdbCSV(t, mustRead(t, inputs[i]))
		got := hpcdbCSV(t, mustRead(t, filepath.Join(out, "back", filepath.Base(inputs[i]))))
		if len(got) != len(want) {
			t.Errorf("%s: LibreOffice read %d rows, want %d", p, len(got), len(want))
			continue
		}
		for r := range want {
			if len(got[r]) != len(want[r]) {
				t.Errorf("%s row %d: %d columns, want %d", p, r, len(got[r]), len(want[r]))
				continue
			}
			for c := range want[r] {
				if !sameCell(got[r][c], want[r][c]) {
					t.Errorf("%s row %d column %d: %q, want %q", p, r, c, got[r][c], want[r][c])
				}
			}
		}
	}
	_ = args
}

func sameCell(got, want string) bool {
	if got == want {
		return true
	}
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if err1 != nil || err2 != nil {
		return strings.EqualFold(got, want) // true/false become TRUE/FALSE
	}
	return math.Abs(g-w) <= 1e-12*math.Max(1, math.Abs(w))
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
