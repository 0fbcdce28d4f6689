package columnar

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hpcfs/hpcfs/render"
)

// readRows reads every record of text with a rowReader over a bufio
// buffer of size (bufio's least is 16), and the input offset after each.
func readRows(text string, size int) (recs [][]string, offs []int64, err error) {
	r := &rowReader{in: bufio.NewReaderSize(strings.NewReader(text), size)}
	var buf []byte
	var ends []int
	for {
		buf, ends, err = r.read(buf[:0], ends[:0])
		if err == io.EOF {
			return recs, offs, nil
		}
		if err != nil {
			return recs, offs, err
		}
		rec, at := []string{}, 0
		for _, e := range ends {
			rec = append(rec, string(buf[at:e]))
			at = e
		}
		recs, offs = append(recs, rec), append(offs, r.off)
	}
}

// csvRows is what encoding/csv reads of text, with its InputOffset after
// each record.
func csvRows(text string) (recs [][]string, offs []int64, err error) {
	r := csv.NewReader(strings.NewReader(text))
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return recs, offs, nil
		}
		if err != nil {
			return recs, offs, err
		}
		recs, offs = append(recs, rec), append(offs, r.InputOffset())
	}
}

var rowSeeds = []string{
	"a,b\n1,2\n",
	"a,b\r\n1,2\r\n",
	"a,b\n\n\r\n1,\"x,\"\"y\"\"\nz\"\n",
	"a\n\"p\r\nq\"\n\"\"\n",
	"a,b\n1,2",
	"a,b\n1,2\r",
	"a,b\n\"1\",\"2\"\r",
	"a\n\r\n\r",
	"a,b\n\"\",\n,\n",
	"a\nx\ry\n",
}

// TestRowReaderIsEncodingCSV: the rowReader reads the records, the input
// offsets and the errors encoding/csv does, at every buffer size.
func TestRowReaderIsEncodingCSV(t *testing.T) {
	bad := []string{"a,b\n1\n", "a\nx\"y\n", "a\n\"x\n", "a\n\"x\"y\n", "a\n\"x\r"}
	long := "h,v\n1," + strings.Repeat("ab", 70000) + "\n2,\"" + strings.Repeat("q\"\"\r\n", 20000) + "\"\n"
	for _, text := range append(append(slices.Clone(rowSeeds), bad...), long) {
		for _, size := range []int{16, 17, 64, 4096} {
			sameRows(t, text, size)
		}
	}
}

func sameRows(t *testing.T, text string, size int) {
	t.Helper()
	want, wantOffs, wantErr := csvRows(text)
	got, gotOffs, gotErr := readRows(text, size)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%.40q (buffer %d): error %v, encoding/csv %v", text, size, gotErr, wantErr)
	}
	if !slices.EqualFunc(got, want, slices.Equal) || !slices.Equal(gotOffs, wantOffs) {
		t.Fatalf("%.40q (buffer %d):\n got %q %v\nwant %q %v", text, size, got, gotOffs, want, wantOffs)
	}
}

func FuzzRowReader(f *testing.F) {
	for _, s := range rowSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !utf8.Valid(b) {
			return // encoding/csv reads runes; the CSV views are UTF-8
		}
		sameRows(t, string(b), 16)
	})
}

// linesView is a view of text whose cursor renders one line per Next, as
// the CSV views of formats do (its state: the line's offset).
func linesView(text string) render.View {
	return render.Stream(render.GeneratorFunc(func(state any) (render.Cursor, error) {
		at, _ := state.(int)
		return &lineCursor{text: text, at: at}, nil
	}), nil)
}

type lineCursor struct {
	text string
	at   int
}

func (c *lineCursor) State() any { return c.at }

func (c *lineCursor) Next(dst []byte) ([]byte, error) {
	if c.at == len(c.text) {
		return dst, io.EOF
	}
	n := strings.IndexByte(c.text[c.at:], '\n') + 1
	if n == 0 {
		n = len(c.text) - c.at
	}
	dst = append(dst, c.text[c.at:c.at+n]...)
	c.at += n
	return dst, nil
}

// TestTwinOfRenderedCSV: the twin of a CSV view that a cursor renders
// (read without a copy, render.NewReader's ReadSlice) is the twin of the
// same CSV as bytes (read through bufio), with a 3 MB cell as an ovni
// jumbo payload has and cells quoted over lines.
func TestTwinOfRenderedCSV(t *testing.T) {
	text := "n,hex,note\n1,0x" + strings.Repeat("0a1b", 750000) + ",jumbo\n" +
		"2,,\"two\nlines, \"\"quoted\"\"\"\n" + strings.Repeat("3,ff,x\n", 5000) + "4,0x" + strings.Repeat("c", 1<<20) + ",\n5,,end\n"
	want := readAll(t, Twin(render.Static([]byte(text))))
	got := readAll(t, Twin(linesView(text)))
	if !bytes.Equal(got, want) {
		t.Fatalf("twin of the rendered CSV: %d bytes, of the same bytes %d, not equal", len(got), len(want))
	}
	r, err := csvReader(linesView(text), 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	var ends []int
	rows := 0
	for ; err == nil; rows++ {
		buf, ends, err = r.read(buf[:0], ends[:0])
	}
	if err != io.EOF || rows-1 != 5005 || r.off != int64(len(text)) {
		t.Fatalf("%d records to offset %d of %d: %v", rows-1, r.off, len(text), err)
	}
}

// TestRowReaderStop: with stop set, a record comes whole when it ends at
// or before stop (encoding/csv's offsets) and errPast when it ends after.
func TestRowReaderStop(t *testing.T) {
	text := "a,b\n\n1,\"x\ny\"\n22,333\r\n4,5"
	_, offs, err := csvRows(text)
	if err != nil {
		t.Fatal(err)
	}
	for stop := int64(1); stop <= int64(len(text)); stop++ {
		for _, size := range []int{16, 4096} {
			r := &rowReader{in: bufio.NewReaderSize(strings.NewReader(text), size), stop: stop}
			for i := 0; ; i++ {
				_, _, err := r.read(nil, nil)
				if err == errPast {
					if offs[i] <= stop {
						t.Errorf("stop %d: record %d ends at %d, but errPast", stop, i, offs[i])
					}
					break
				}
				if err != nil || r.off != offs[i] || offs[i] > stop {
					t.Fatalf("stop %d: record %d to %d (%v), encoding/csv's ends at %d", stop, i, r.off, err, offs[i])
				}
				if i == len(offs)-1 {
					break
				}
			}
		}
	}
}
