package columnar

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hpcfs/hpcfs/render"
	"github.com/parquet-go/parquet-go"
)

// genCSV is a table of n rows with an int64, a double, a string and a
// mixed column (ints and text: strings), empty cells here and there.
func genCSV(n int) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"t_ns", "value", "name", "mixed", "empty"})
	rng := rand.New(rand.NewSource(1))
	for i := range n {
		t := strconv.FormatInt(int64(i)*1000+rng.Int63n(1000)-(1<<40), 10)
		v := strconv.FormatFloat(rng.NormFloat64()*1e6, 'g', -1, 64)
		name := "fn" + strconv.Itoa(rng.Intn(50))
		mixed := strconv.Itoa(i)
		switch i % 7 {
		case 3:
			t = ""
		case 4:
			name = "a \"quoted\", name\nover lines"
			v = "12"
		case 5:
			mixed = "0x" + strconv.FormatInt(int64(i), 16)
		}
		w.Write([]string{t, v, name, mixed, ""})
	}
	w.Flush()
	return b.Bytes()
}

func readAll(t *testing.T, v render.View) []byte {
	t.Helper()
	size, err := v.Size()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, size)
	if n, err := v.ReadAt(b, 0); n != len(b) || err != nil && err != io.EOF {
		t.Fatalf("read %d of %d: %v", n, size, err)
	}
	return b
}

// checkTwin reads the twin with parquet-go and compares every value with
// the CSV's cells.
func checkTwin(t *testing.T, pq, csvText []byte) {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(pq), int64(len(pq)))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(csvText)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if f.NumRows() != int64(len(recs)-1) {
		t.Fatalf("%d rows, the CSV %d", f.NumRows(), len(recs)-1)
	}
	for i, col := range f.Schema().Fields() {
		if col.Name() != recs[0][i] {
			t.Fatalf("column %d is %q, in the CSV %q", i, col.Name(), recs[0][i])
		}
	}
	if got, want := groupSizes(f), wantGroups(t, csvText); !slices.Equal(got, want) {
		t.Errorf("row groups of %v rows, want %v", got, want)
	}
	rows := parquet.NewReader(f)
	buf := make([]parquet.Row, 100)
	k := 1
	for {
		n, err := rows.ReadRows(buf)
		for _, row := range buf[:n] {
			for _, v := range row {
				cell, got := recs[k][v.Column()], ""
				if !v.IsNull() {
					got = v.String()
					if v.Kind() == parquet.Double {
						got = strconv.FormatFloat(v.Double(), 'g', -1, 64)
						if c, err := strconv.ParseFloat(cell, 64); err == nil {
							cell = strconv.FormatFloat(c, 'g', -1, 64)
						}
					}
				}
				if got != cell {
					t.Fatalf("row %d column %d: %q, in the CSV %q", k, v.Column(), got, cell)
				}
			}
			k++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if k != len(recs) {
		t.Fatalf("read %d rows of %d", k-1, len(recs)-1)
	}
}

// TestTwin: the twin of a 132k-row CSV (two row groups) has its rows
// and values, with the kinds the cells call for; read at random it gives
// the same bytes; sized from the on-disk index (footer included) too.
func TestTwin(t *testing.T) {
	text := genCSV(groupRows + 1234)
	csvView := render.Static(text)
	g := &twinGen{csv: csvView}
	full := readAll(t, render.Stream(g, nil))
	checkTwin(t, full, text)
	p, _ := g.getPlan()
	if want := []Kind{Int64, Double, String, String, Null}; !slices.Equal(p.kinds, want) {
		t.Errorf("kinds %v, want %v", p.kinds, want)
	}

	bind := render.Binding{Options: render.Options{IndexDir: t.TempDir()}, Key: "columnar/test/" + strconv.Itoa(len(text))}
	first := render.Stream(&twinGen{csv: csvView}, nil)
	first.(render.Binder).Bind(bind)
	if b := readAll(t, first); !bytes.Equal(b, full) {
		t.Fatal("indexed twin differs")
	}
	again := &twinGen{csv: csvView}
	second := render.Stream(again, nil)
	second.(render.Binder).Bind(bind)
	size, _ := second.Size()
	if size != int64(len(full)) || again.plan != nil || again.footer == nil {
		t.Fatalf("from the index: size %d of %d, planned %v, footer %d bytes", size, len(full), again.plan != nil, len(again.footer))
	}
	rng := rand.New(rand.NewSource(2))
	for range 40 {
		off := rng.Int63n(size)
		b := make([]byte, min(1+rng.Int63n(3<<20), size-off))
		if n, err := second.ReadAt(b, off); n != len(b) || err != nil && err != io.EOF {
			t.Fatalf("ReadAt %d: %d, %v", off, n, err)
		}
		if !bytes.Equal(b, full[off:off+int64(len(b))]) {
			t.Fatalf("ReadAt %d differs", off)
		}
	}
	if again.plan != nil {
		t.Error("random reads from the index scanned the CSV for a plan")
	}
}

// TestTwinEdges: an empty CSV, a header alone and one row give readable
// files.
func TestTwinEdges(t *testing.T) {
	for _, text := range []string{"", "a,b\n", "a,b\n1,x\n"} {
		pq := readAll(t, Twin(render.Static([]byte(text))))
		if text == "" {
			if string(pq) != "PAR1"+string(pq[4:len(pq)-8])+string(pq[len(pq)-8:]) || len(pq) < 12 {
				t.Errorf("empty CSV: %q", pq)
			}
			continue
		}
		checkTwin(t, pq, []byte(text))
	}
}

func groupSizes(f *parquet.File) []int64 {
	var n []int64
	for _, g := range f.RowGroups() {
		n = append(n, g.NumRows())
	}
	return n
}

// wantGroups is how many rows each row group of the twin of csvText
// holds: at most groupRows, and no more CSV bytes than groupBytes unless
// one row alone has more.
func wantGroups(t *testing.T, csvText []byte) []int64 {
	r := csv.NewReader(bytes.NewReader(csvText))
	if _, err := r.Read(); err != nil {
		return nil
	}
	var sizes []int64
	start, rows := r.InputOffset(), int64(0)
	for {
		before := r.InputOffset()
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rows == groupRows || rows > 0 && r.InputOffset()-start > groupBytes {
			sizes = append(sizes, rows)
			start, rows = before, 0
		}
		rows++
	}
	if rows > 0 {
		sizes = append(sizes, rows)
	}
	return sizes
}

// TestTwinLongCells: rows of MBs (ovni jumbo payloads as hex) make row
// groups of a few rows each, a row longer than groupBytes one of its own,
// and the twin still holds every value.
func TestTwinLongCells(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("i,payload_hex\n")
	for i, n := range []int{10, 1 << 20, 3 << 20, 1 << 20, 5 << 20, 20, 30, 2 << 20} {
		b.WriteString(strconv.Itoa(i) + "," + strings.Repeat("ab", n/2) + "\n")
	}
	pq := readAll(t, render.Stream(&twinGen{csv: render.Static(b.Bytes())}, nil))
	checkTwin(t, pq, b.Bytes())
	// The long cells compress to almost nothing, and their column has no
	// min/max statistics (written whole, they would be megabytes).
	if len(pq) > 64<<10 {
		t.Errorf("the twin of %d bytes of repeated hex is %d bytes", b.Len(), len(pq))
	}
	f, err := parquet.OpenFile(bytes.NewReader(pq), int64(len(pq)))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := groupSizes(f), []int64{2, 1, 1, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("row groups of %v rows, want %v", got, want)
	}
}

// TestFirstPass: the plan's pass encodes the row groups with the head's
// kinds and sizing then encodes nothing (NextLen); the twin is the same
// bytes as one planned by a whole scan. A cell wider than the head's
// kinds after the first row group (an empty column that fills, integers
// that turn to fractions and then to text) makes the pass fall back to a
// whole scan.
func TestFirstPass(t *testing.T) {
	widened := func() []byte {
		var b bytes.Buffer
		b.WriteString("late,num,id\n")
		for i := range groupRows + 300 {
			late, num := "", strconv.Itoa(i)
			if i > groupRows+100 {
				late, num = "7", strconv.Itoa(i)+".5"
			}
			if i > groupRows+200 {
				num = "x" + num
			}
			fmt.Fprintf(&b, "%s,%s,%d\n", late, num, i)
		}
		return b.Bytes()
	}()
	for _, c := range []struct {
		text   []byte
		layout bool
		kinds  []Kind
	}{
		{genCSV(2*groupRows + 5), true, []Kind{Int64, Double, String, String, Null}},
		{genCSV(100), true, []Kind{Int64, Double, String, String, Null}},
		{[]byte("a,b\n"), true, []Kind{Null, Null}},
		{widened, false, []Kind{Int64, String, Int64}},
	} {
		g := &twinGen{csv: render.Static(c.text)}
		got := readAll(t, render.Stream(g, nil))
		if (g.layout != nil) != c.layout || !slices.Equal(g.plan.kinds, c.kinds) {
			t.Errorf("%d bytes of CSV: layout %v, kinds %v; want %v, %v", len(c.text), g.layout != nil, g.plan.kinds, c.layout, c.kinds)
		}
		old := &twinGen{csv: render.Static(c.text)}
		old.planOnce.Do(func() { old.plan, _, old.planErr = scanPlan(old.csv, math.MaxInt64) })
		if want := readAll(t, render.Stream(old, nil)); !bytes.Equal(got, want) {
			t.Fatalf("%d bytes of CSV: the first pass's twin differs from a whole scan's", len(c.text))
		}
		checkTwin(t, got, c.text)
	}
}
