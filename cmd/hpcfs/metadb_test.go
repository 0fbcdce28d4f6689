package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/hpcfs/hpcfs/fsnode/fsnodetest"
	"github.com/hpcfs/hpcfs/testdata"
	"github.com/hpcfs/hpcfs/testdata/lotest"
)

var metaSamples = []string{"pipit-ping-pong", "hpctoolkit-loops-cuda-nvidia-t"}

// A meta.db-generation database mounts: `hpcfs info` names the
// generation, every view reads the same through the mount as through
// `hpcfs cat`, and the mounted tree passes fstest.TestFS.
func TestMetaDBMount(t *testing.T) {
	for _, sample := range metaSamples {
		t.Run(sample, func(t *testing.T) {
			dir := testdata.Corpus(t, "hpctoolkit-metadb", sample)
			info := string(runCLI(t, "info", dir))
			if !strings.Contains(info, "meta.db generation") || !strings.Contains(info, "format: hpcdb-meta") {
				t.Errorf("hpcfs info does not name the generation:\n%s", info)
			}
			mnt := mountCLI(t, dir)
			for _, view := range []string{"README.txt", "header.txt", "metrics.csv", "profiles.csv", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"} {
				fsnodetest.CheckFile(t, filepath.Join(mnt, view), runCLI(t, "cat", dir, view))
			}
			readme := mustRead(t, filepath.Join(mnt, "README.txt"))
			if !bytes.Contains(readme, []byte("meta.db generation")) {
				t.Errorf("README.txt does not name the generation")
			}
			traces, _ := os.ReadDir(filepath.Join(mnt, "traces"))
			if len(traces) == 0 {
				t.Errorf("no traces/")
			}
			if err := fstest.TestFS(os.DirFS(mnt), "README.txt", "header.txt", "cct.csv", "cct.txt", "procedures.csv", "contexts/0.csv", "profiles/summary.csv"); err != nil {
				t.Fatal(err)
			}
			if errs := mustRead(t, filepath.Join(mnt, "_errors.txt")); len(errs) > 0 {
				t.Errorf("_errors.txt of a sound database: %s", errs)
			}
		})
	}
}

// A folder holding a database of each generation mounts both.
func TestMetaDBFolderOfBothGenerations(t *testing.T) {
	dir := t.TempDir()
	testdata.CopyDir(t, testdata.Corpus(t, "hpctoolkit-metadb", "pipit-ping-pong"), filepath.Join(dir, "new"))
	testdata.CopyDir(t, testdata.Corpus(t, "hpctoolkit", "db-4.0-xml-pipit-ping-pong"), filepath.Join(dir, "old"))
	mnt := mountCLI(t, dir)
	for _, p := range []string{"new/cct.csv", "old/cct.csv", "new/traces", "old/dump/profile.db.txt"} {
		if _, err := os.Stat(filepath.Join(mnt, p)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	readme := string(mustRead(t, filepath.Join(mnt, "README.txt")))
	if !strings.Contains(readme, "new/") || !strings.Contains(readme, "old/") {
		t.Errorf("README.txt does not list both databases:\n%s", readme)
	}
	head := string(mustRead(t, filepath.Join(mnt, "new", "cct.csv")))
	if !strings.HasPrefix(head, "ctx_id,parent_id,depth,kind,relation,") {
		t.Errorf("new/cct.csv is not of the meta.db generation: %.80s", head)
	}
}

// Every CSV of a meta.db-generation database converts to xlsx in
// LibreOffice and reads back with the same rows, columns and values.
func TestMetaDBLibreOffice(t *testing.T) {
	lotest.Require(t)
	mnt := mountCLI(t, testdata.Corpus(t, "hpctoolkit-metadb", "pipit-ping-pong"))
	var csvs []string
	fs.WalkDir(os.DirFS(mnt), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".csv") && !strings.HasPrefix(p, "raw/") {
			if strings.HasPrefix(p, "contexts/") && !strings.HasPrefix(p, "contexts/12") {
				return nil // contexts/12*.csv stand for the alike files
			}
			csvs = append(csvs, filepath.Join(mnt, p))
		}
		return nil
	})
	// and the taxonomic metrics' values, empty cells included (pipit has no metrics/)
	tax := mountCLI(t, testdata.Corpus(t, "hpctoolkit-metadb", "hpctoolkit-loops-cuda-nvidia-t"))
	csvs = append(csvs, filepath.Join(tax, "taxonomy", "default.csv"))
	lotest.Check(t, csvs)
}
