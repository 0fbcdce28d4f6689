package hpcdb_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcfs/hpcfs/formats/hpcdb"
	"github.com/hpcfs/hpcfs/testdata"
)

var corpusSamples = []string{"db-4.0-xml-pipit-ping-pong", "db-4.0-xml-hpcviewer-empty-trace"}

func TestDumpsMatchHpcproftt(t *testing.T) {
	for _, sample := range corpusSamples {
		dir := testdata.Corpus(t, "hpctoolkit", sample)
		src, err := hpcdb.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		fsys := src.FS()
		for _, name := range []string{"profile.db", "cct.db", "trace.db"} {
			want, err := os.ReadFile(filepath.Join(dir, "expected-hpcproftt-"+name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			got, err := fs.ReadFile(fsys, "dump/"+name+".txt")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s dump/%s.txt differs from hpcproftt:\n%s", sample, name, firstDiff(got, want))
			}
		}
		if lines := src.Errors.Lines(); len(lines) > 0 {
			t.Logf("%s _errors.txt: %q", sample, lines)
		}
		src.Close()
	}
}

func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) && i < len(w); i++ {
		if !bytes.Equal(g[i], w[i]) {
			return "line " + itoa(i+1) + ":\n got: " + string(g[i]) + "\nwant: " + string(w[i])
		}
	}
	return "lengths differ: got " + itoa(len(g)) + " lines, want " + itoa(len(w))
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}
