package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/lotest"
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
		for {
			errs, _ := os.ReadFile(filepath.Join(mnt, "_errors.txt"))
			if bytes.Contains(errs, []byte("contexts/ derived from profile.db")) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "header.txt", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"); err != nil {
			t.Fatal(err)
		}
	}
}

// The ping-pong sample's contexts 9 and 18 have values in profile.db but
// no tag in experiment.xml (research §3.7): unlisted.csv lists them, not
// cct.csv.
func TestHpcdbUnlistedContexts(t *testing.T) {
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	tree := string(runCLI(t, "cat", dir, "cct.csv"))
	out := string(runCLI(t, "cat", dir, "unlisted.csv"))
	if n := strings.Count(out, "\n"); n != 3 {
		t.Errorf("unlisted.csv has %d lines, want the header and 2 rows:\n%s", n, out)
	}
	for _, id := range []string{"9", "18"} {
		if !strings.Contains(out, "\n"+id+",") {
			t.Errorf("unlisted.csv has no row for context %s", id)
		}
		if strings.Contains(tree, "\n"+id+",") {
			t.Errorf("cct.csv has a row for the unlisted context %s", id)
		}
	}
}

// Every CSV of the ping-pong sample converts to xlsx in LibreOffice and
// reads back (xlsx -> csv) with the same rows, columns and values.
func TestHpcdbLibreOffice(t *testing.T) {
	lotest.Require(t)
	dir := testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong")
	mnt := mountCLI(t, dir)
	var csvs []string
	fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".csv") && !strings.HasPrefix(p, "raw/") {
			if strings.HasPrefix(p, "contexts/") && !strings.HasPrefix(p, "contexts/3") {
				return nil // contexts/3*.csv stand for the 117 alike files
			}
			csvs = append(csvs, filepath.Join(mnt, p))
		}
		return nil
	})
	lotest.Check(t, csvs)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
