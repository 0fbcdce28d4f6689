package otf2

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/testdata"
)

var corpusCases = []string{"pipit-ping-pong", "gen-mpi-rma", "gen-threads-metrics", "gen-io-sampling-attrs"}

// oracle reads a corpus oracle file, gunzipping a .gz one.
func oracle(t *testing.T, dir, name string) []byte {
	t.Helper()
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil {
		return b
	}
	f, err := os.Open(p + ".gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff describes where got and want first differ.
func firstDiff(got, want []byte) string {
	n := 0
	for n < len(got) && n < len(want) && got[n] == want[n] {
		n++
	}
	ls := bytes.LastIndexByte(got[:n], '\n') + 1
	end := func(b []byte) string {
		e := bytes.IndexByte(b[ls:], '\n')
		if e < 0 {
			return string(b[ls:])
		}
		return string(b[ls : ls+e])
	}
	return "got  " + end(got) + "\nwant " + end(want)
}

func TestEventsTxtMatchesOtf2Print(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			dir := testdata.Corpus(t, "otf2", name)
			src, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got := testdata.ReadFS(t, src.FS(), "events.txt")
			want := oracle(t, dir, "oracle-otf2-print.txt")
			if !bytes.Equal(got, want) {
				t.Errorf("events.txt differs from otf2-print (%d vs %d bytes)\n%s", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func TestDefinitionsTxtMatchesOtf2PrintG(t *testing.T) {
	for _, name := range corpusCases {
		t.Run(name, func(t *testing.T) {
			dir := testdata.Corpus(t, "otf2", name)
			src, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			got := testdata.ReadFS(t, src.FS(), "definitions.txt")
			want := oracle(t, dir, "oracle-otf2-print-G.txt")
			if !bytes.Equal(got, want) {
				t.Errorf("definitions.txt differs from otf2-print -G (%d vs %d bytes)\n%s", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}
