// Package ovnidump reads the ovnidump texts of the ovni corpus cases, the
// oracles of the tests of formats/ovni and cmd/hpcfs: the file (gzip or
// not) and its event lines in each of the three forms ovnidump printed.
package ovnidump

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Read returns the text of an oracle file, decompressed when its name
// ends in .gz.
func Read(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// A Line is the start of one event line.
type Line struct {
	Stream string // loom.pid.tid (spec v1), else the stream's path as printed
	Clock  int64
	MCV    string
}

// Parse reads an event line of any form: "loom.pid.tid clock MCV ..."
// (spec v1, 1.0.x), "path clock ±delta MCV ..." (1.1 to 1.5) or
// "clock MCV path ..." (-x, 1.6 and later). ok is false for any other line.
func Parse(l string) (_ Line, ok bool) {
	f := strings.Fields(l)
	if len(f) < 3 {
		return Line{}, false
	}
	var line Line
	var clock string
	switch {
	case f[0][0] >= '0' && f[0][0] <= '9':
		clock, line.MCV, line.Stream = f[0], f[1], f[2]
	case (f[2][0] == '+' || f[2][0] == '-') && len(f) >= 4:
		line.Stream, clock, line.MCV = f[0], f[1], f[3]
	default:
		line.Stream, clock, line.MCV = f[0], f[1], f[2]
	}
	c, err := strconv.ParseInt(clock, 10, 64)
	if err != nil || len(line.MCV) != 3 {
		return Line{}, false
	}
	line.Clock = c
	return line, true
}

// StreamLines keeps the lines of dump whose stream is stream, as they are.
func StreamLines(dump []byte, stream string) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(dump, []byte("\n")) {
		if p, ok := Parse(string(l)); ok && p.Stream == stream {
			out = append(out, l...)
		}
	}
	return out
}
