package render

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// sample is one row of the test table, kept as the values that went in.
type sample struct {
	name  string
	delta int64
	count uint64
	ratio float64
	addr  uint64
	t     int64
	pct   float64
	empty bool // the ratio cell is empty
}

var sampleColumns = []Column{
	{Name: "name", Kind: String, Width: 10},
	{Name: "delta", Kind: Int, Width: 8},
	{Name: "count", Kind: Uint, Width: 8},
	{Name: "ratio", Kind: Float},
	{Name: "address", Kind: Hex, Digits: 8},
	{Name: "t_ns", Kind: Ns},
	{Name: "pct", Kind: Pct, Width: 8},
}

func samples(n int) []sample {
	rng := rand.New(rand.NewSource(7))
	names := []string{"main", "a,b", `say "hi"`, "two\nlines", "", " lead", "ünï", "x"}
	out := make([]sample, n)
	for i := range out {
		out[i] = sample{
			name:  names[rng.Intn(len(names))] + strings.Repeat("z", rng.Intn(5)),
			delta: rng.Int63n(1<<40) - 1<<39,
			count: rng.Uint64() >> uint(rng.Intn(64)),
			ratio: math.Float64frombits(rng.Uint64()>>2) * float64(rng.Intn(3)-1),
			addr:  rng.Uint64() >> uint(rng.Intn(64)),
			t:     rng.Int63(),
			pct:   rng.Float64() * 100,
			empty: rng.Intn(10) == 0,
		}
		if i%5 == 0 {
			out[i].ratio = float64(rng.Intn(1000)) / 8
		}
	}
	return out
}

func (s sample) fill(r *Row) {
	r.Str(s.name).Int(s.delta).Uint(s.count)
	if s.empty {
		r.Empty()
	} else {
		r.Float(s.ratio)
	}
	r.Uint(s.addr).Int(s.t).Float(s.pct)
}

// sampleTable is a Counted table over rows; opens counts its scanners.
func sampleTable(rows []sample, opens *atomic.Int64) *Table {
	open := Counted(int64(len(rows)), func(i int64, r *Row) error {
		rows[i].fill(r)
		return nil
	})
	return &Table{Columns: sampleColumns, Open: func(pos []byte) (Scanner, error) {
		opens.Add(1)
		return open(pos)
	}}
}

// TestTableCSVRoundTrip: the CSV reads back with encoding/csv to the
// values that went in (floats exactly, hex and percentages as written).
func TestTableCSVRoundTrip(t *testing.T) {
	rows := samples(20000)
	var opens atomic.Int64
	b := readAll(t, sampleTable(rows, &opens).CSV())
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(recs[0], ","); got != "name,delta,count,ratio,address,t_ns,pct" {
		t.Fatalf("header %q", got)
	}
	if len(recs) != len(rows)+1 {
		t.Fatalf("%d records for %d rows", len(recs), len(rows))
	}
	for i, s := range rows {
		r := recs[i+1]
		want := []string{s.name, strconv.FormatInt(s.delta, 10), strconv.FormatUint(s.count, 10), "",
			fmt.Sprintf("0x%08x", s.addr), strconv.FormatInt(s.t, 10), strconv.FormatFloat(s.pct, 'f', 2, 64)}
		if !s.empty {
			if f, err := strconv.ParseFloat(r[3], 64); err != nil || f != s.ratio {
				t.Fatalf("row %d: ratio %q reads back as %v, want %v", i, r[3], f, s.ratio)
			}
			want[3] = r[3]
		}
		if strings.Join(r, "\x00") != strings.Join(want, "\x00") {
			t.Fatalf("row %d: %q, want %q", i, r, want)
		}
	}
}

// textReference renders the rows as aligned text by hand (fmt).
func textReference(rows []sample) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-10s %7s %7s %s %s %s %7s\n", "name", "delta", "count", "ratio", "address", "t_ns", "pct")
	for _, s := range rows {
		ratio := ""
		if !s.empty {
			ratio = string(AppendC(nil, s.ratio, 'g'))
		}
		fmt.Fprintf(&b, "%-10s %7d %7d %s 0x%08x %d %7.2f\n", EscapeName(s.name), s.delta, s.count, ratio, s.addr, s.t, s.pct)
	}
	return b.Bytes()
}

// TestTableLengthsAndRandomReads: for CSV and text, the size counted
// without rendering equals the rendered length, the text equals a
// hand-made rendering, and reads at 200 random offsets equal the whole.
func TestTableLengthsAndRandomReads(t *testing.T) {
	rows := samples(30000)
	var opens atomic.Int64
	tab := sampleTable(rows, &opens)
	for _, tc := range []struct {
		name string
		view func() View
		want []byte
	}{
		{"csv", tab.CSV, nil},
		{"text", func() View { return tab.Text(nil) }, textReference(rows)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := renderAll(t, &tableGen{t: tab, csv: tc.name == "csv"})
			if tc.want != nil && !bytes.Equal(full, tc.want) {
				i := 0
				for i < len(full) && i < len(tc.want) && full[i] == tc.want[i] {
					i++
				}
				t.Fatalf("text differs at %d: %q vs %q", i, full[max(i-40, 0):min(i+40, len(full))], tc.want[max(i-40, 0):min(i+40, len(tc.want))])
			}
			v := tc.view()
			size, err := v.Size()
			if err != nil || size != int64(len(full)) {
				t.Fatalf("counted size %d (%v), rendered %d", size, err, len(full))
			}
			rng := rand.New(rand.NewSource(3))
			for range 200 {
				off := rng.Int63n(size)
				buf := make([]byte, min(rng.Int63n(100000)+1, size-off))
				if n, err := v.ReadAt(buf, off); n != len(buf) {
					t.Fatalf("ReadAt(%d) = %d, %v", off, n, err)
				}
				if !bytes.Equal(buf, full[off:off+int64(len(buf))]) {
					t.Fatalf("ReadAt(%d) differs from the whole rendering", off)
				}
			}
		})
	}
}

// renderAll renders a generator with Next only (no counting).
func renderAll(t *testing.T, g Generator) []byte {
	c, err := g.Start(nil)
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for {
		b, err = c.Next(b)
		if err == io.EOF {
			return b
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TestTableIndexRoundTrip: a second view of the same table with the same
// key reads its size and checkpoints (the scanners' positions) from the
// on-disk index and serves the same bytes; a damaged position fails.
func TestTableIndexRoundTrip(t *testing.T) {
	rows := samples(40000)
	bind := Binding{Options: Options{IndexDir: t.TempDir()}, Key: "test/table.csv"}
	var want []byte
	for round := range 2 {
		var opens atomic.Int64
		v := sampleTable(rows, &opens).CSV()
		v.(Binder).Bind(bind)
		size, err := v.Size()
		if err != nil {
			t.Fatal(err)
		}
		if round == 1 && opens.Load() != 0 {
			t.Fatalf("the second view measured again (%d scanners)", opens.Load())
		}
		buf := make([]byte, 5000)
		if _, err := v.ReadAt(buf, size-5000); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			want = readAll(t, v)
		} else if !bytes.Equal(buf, want[size-5000:]) {
			t.Fatal("tail read through loaded checkpoints differs")
		}
	}
	g := &tableGen{t: sampleTable(rows, new(atomic.Int64)), csv: true}
	st, err := g.DecodeState(g.EncodeState(tableState{started: true, pos: (&StateWriter{}).Uint(123).Bytes()}))
	if err != nil {
		t.Fatal(err)
	}
	if c, err := g.Start(st); err != nil || c.(*tableCursor).s.(*counted).i != 123 {
		t.Fatalf("state did not come back: %v", err)
	}
	bad, _ := g.DecodeState(g.EncodeState(tableState{started: true, pos: (&StateWriter{}).Uint(1 << 40).Bytes()}))
	if _, err := g.Start(bad); err == nil {
		t.Fatal("a position past the last row was accepted")
	}
}

// TestTableRejectsWrongCells: a cell of the wrong kind or a short row is
// a bug of the format, and fails the read.
func TestTableRejectsWrongCells(t *testing.T) {
	for _, fill := range []func(*Row){
		func(r *Row) { r.Str("x").Str("y") },
		func(r *Row) { r.Str("x") },
	} {
		tab := &Table{Columns: []Column{{Name: "a", Kind: String}, {Name: "b", Kind: Uint}},
			Open: Counted(3, func(_ int64, r *Row) error { fill(r); return nil })}
		if _, err := tab.CSV().Size(); err == nil {
			t.Error("a wrong row was rendered")
		}
	}
}

// BenchmarkTableCSV compares the table engine with a hand-written row
// writer of the same columns (strconv and AppendCSVField), and times the
// engine's counting of the same rows (NextLen, a view's sizing).
func BenchmarkTableCSV(b *testing.B) {
	rows := samples(10000)
	tab := sampleTable(rows, new(atomic.Int64))
	b.Run("count", func(b *testing.B) {
		var n int64
		for range b.N {
			c, _ := (&tableGen{t: tab, csv: true}).Start(nil)
			for {
				k, err := c.(*tableCursor).NextLen()
				n += k
				if err != nil {
					break
				}
			}
		}
		b.SetBytes(n / int64(b.N))
	})
	b.Run("table", func(b *testing.B) {
		var n int64
		for range b.N {
			c, _ := (&tableGen{t: tab, csv: true}).Start(nil)
			buf := make([]byte, 0, 64<<10)
			for {
				var err error
				buf, err = c.Next(buf[:0])
				n += int64(len(buf))
				if err != nil {
					break
				}
			}
		}
		b.SetBytes(n / int64(b.N))
	})
	b.Run("hand", func(b *testing.B) {
		var n int64
		for range b.N {
			buf := make([]byte, 0, 64<<10)
			for _, s := range rows {
				buf = AppendCSVField(buf, s.name)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, s.delta, 10)
				buf = append(buf, ',')
				buf = AppendUint(buf, s.count)
				buf = append(buf, ',')
				if !s.empty {
					buf = AppendFloat(buf, s.ratio)
				}
				buf = append(buf, ',')
				buf = AppendHexPadded(buf, s.addr, 8)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, s.t, 10)
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, s.pct, 'f', 2, 64)
				buf = append(buf, '\n')
				if len(buf) > 60<<10 {
					n += int64(len(buf))
					buf = buf[:0]
				}
			}
			n += int64(len(buf))
		}
		b.SetBytes(n / int64(b.N))
	})
}

// readAll reads a view whole through Size and ReadAt.
func readAll(t *testing.T, v View) []byte {
	t.Helper()
	size, err := v.Size()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, size)
	if n, err := v.ReadAt(b, 0); int64(n) != size {
		t.Fatalf("read %d of %d: %v", n, size, err)
	}
	return b
}

// TestPctHalfUp: PHP's rounding of the fast path equals the emulation of
// PHP's round (15 significant digits, then half up) on many values,
// exact halves included, and a few written out.
func TestPctHalfUp(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{{0, "0.00"}, {12.5, "12.50"}, {0.125, "0.13"}, {100.0 / 3, "33.33"}, {200.0 / 3, "66.67"}, {0.0005, "0.00"}, {0.005, "0.01"}, {-1.005, "-1.00"}} {
		if got := string(AppendPctHalfUp(nil, c.v)); got != c.want {
			t.Errorf("AppendPctHalfUp(%v) = %s, want %s", c.v, got, c.want)
		}
	}
	r := rand.New(rand.NewSource(1))
	for k := 0; k < 200000; k++ {
		cost := uint64(r.Int63n(1 << 33))
		summary := float64(1 + r.Int63n(1<<34))
		if k%3 == 0 {
			summary = float64(uint64(1) << uint(r.Intn(12))) // exact halves
			cost = uint64(r.Intn(100000))
		}
		if cost == 0 {
			continue
		}
		v := float64(cost*100) / summary
		n := roundHalfUpPHP(v)
		want := strconv.FormatUint(n/100, 10) + "." + fmt.Sprintf("%02d", n%100)
		if got := string(AppendPctHalfUp(nil, v)); got != want {
			t.Fatalf("pct(%d, %v) = %s, PHP rounding %s", cost, summary, got, want)
		}
	}
}

// groupTable is a table of n groups, group i of i%4 rows (i, j, a name
// with a comma every third row), ending with end after the last group.
func groupTable(n int64, end error, layouts *atomic.Int64) *Table {
	return &Table{
		Layout: func() []Column {
			layouts.Add(1)
			return []Column{{Name: "i", Kind: Uint, Width: 6}, {Name: "j", Kind: Int, Sep: ":"}, {Name: "name", Sep: "  "}, {Name: "v", Kind: Number, Width: 12}}
		},
		Open: Groups(n+1, func(i int64) (int64, func(int64, *Row) error, error) {
			if i == n {
				return 0, nil, end
			}
			return i % 4, func(j int64, r *Row) error {
				r.Uint(uint64(i)).Int(-j)
				if j%3 == 2 {
					r.Str("a,b")
				} else {
					r.Str("n" + strconv.FormatInt(i, 10))
				}
				if j%2 == 0 {
					r.Uint(uint64(i * j))
				} else {
					r.Float(float64(i) / 8)
				}
				return nil
			}, nil
		}),
	}
}

// groupReference renders groupTable by hand, as CSV or text.
func groupReference(n int64, csv bool) []byte {
	var b bytes.Buffer
	if csv {
		b.WriteString("i,j,name,v\n")
	} else {
		fmt.Fprintf(&b, "%6s:%s  %s %11s\n", "i", "j", "name", "v")
	}
	for i := range n {
		for j := range i % 4 {
			name := "n" + strconv.FormatInt(i, 10)
			if j%3 == 2 {
				name = "a,b"
			}
			v := strconv.FormatInt(i*j, 10)
			if j%2 == 1 {
				v = FormatFloat(float64(i) / 8)
				if !csv {
					v = string(AppendC(nil, float64(i)/8, 'g'))
				}
			}
			if csv {
				if j%3 == 2 {
					name = `"a,b"`
				}
				fmt.Fprintf(&b, "%d,%d,%s,%s\n", i, -j, name, v)
			} else {
				fmt.Fprintf(&b, "%6d:%d  %s %11s\n", i, -j, name, v)
			}
		}
	}
	return b.Bytes()
}

// TestTableGroups: a Groups table with a lazy Layout, text separators and
// a Number column renders as written by hand, as CSV and text, counted
// sizes equal rendered ones, random reads equal the whole, the layout is
// asked for once, and the error after the last group ends the view (and
// AppendCSV returns it with the rows before).
func TestTableGroups(t *testing.T) {
	const n = 20000
	var layouts atomic.Int64
	tab := groupTable(n, nil, &layouts)
	for _, csv := range []bool{true, false} {
		want := groupReference(n, csv)
		v := tab.CSV()
		if !csv {
			v = tab.Text(nil)
		}
		size, err := v.Size()
		if err != nil || size != int64(len(want)) {
			t.Fatalf("csv=%v: size %d (%v), want %d", csv, size, err, len(want))
		}
		if got := readAll(t, v); !bytes.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Fatalf("csv=%v: differs at %d: %q vs %q", csv, i, got[max(i-40, 0):min(i+40, len(got))], want[max(i-40, 0):min(i+40, len(want))])
		}
		rng := rand.New(rand.NewSource(5))
		for range 100 {
			off := rng.Int63n(size)
			buf := make([]byte, min(rng.Int63n(70000)+1, size-off))
			if k, err := v.ReadAt(buf, off); k != len(buf) || !bytes.Equal(buf, want[off:off+int64(k)]) {
				t.Fatalf("csv=%v: ReadAt(%d) = %d, %v, or differs", csv, off, k, err)
			}
		}
	}
	if layouts.Load() != 1 {
		t.Errorf("Layout called %d times", layouts.Load())
	}
	small, err := tab.AppendCSV(nil)
	if err != nil || !bytes.Equal(small, groupReference(n, true)) {
		t.Fatalf("AppendCSV differs from the stream (%v)", err)
	}
	end := fmt.Errorf("cut: %w", io.ErrUnexpectedEOF)
	cut := groupTable(10, end, new(atomic.Int64))
	b, err := cut.AppendCSV(nil)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !bytes.Equal(b, groupReference(10, true)) {
		t.Fatalf("AppendCSV of a cut table: %v, %q", err, b)
	}
	var reported []error
	v := cut.SmallCSV(func(err error) { reported = append(reported, err) })
	if size, err := v.Size(); err != nil || size != int64(len(b)) || len(reported) != 1 {
		t.Fatalf("SmallCSV of a cut table: %d, %v, reported %v", size, err, reported)
	}
	if s := cut.CSV(); !strings.HasPrefix(string(readAll(t, s)), "i,j,name,v\n") {
		t.Fatal("a cut stream lost its header")
	}
}

// TestGroupsPos: a scanner resumed at a position of another continues
// with the same rows, and a position past the groups is refused.
func TestGroupsPos(t *testing.T) {
	tab := groupTable(50, nil, new(atomic.Int64))
	s, _ := tab.Open(nil)
	var r Row
	for range 30 {
		r.reset()
		if err := s.Scan(&r); err != nil {
			t.Fatal(err)
		}
	}
	s2, err := tab.Open(s.Pos())
	if err != nil {
		t.Fatal(err)
	}
	for {
		var a, b Row
		ea, eb := s.Scan(&a), s2.Scan(&b)
		if ea != eb || fmt.Sprint(a.cells) != fmt.Sprint(b.cells) {
			t.Fatalf("resumed scanner differs: %v %v / %v %v", a.cells, ea, b.cells, eb)
		}
		if ea != nil {
			break
		}
	}
	if _, err := tab.Open((&StateWriter{}).Uint(1 << 20).Uint(0).Bytes()); err == nil {
		t.Fatal("a group past the last was accepted")
	}
}

// TestTextCells: a cell of a Text is written as a Str cell of its string
// is, in CSV (quoted, escaped) and in text, and sized alike.
func TestTextCells(t *testing.T) {
	names := []string{"main", "a,b", `say "hi"`, "two\nlines", "", " lead", "ünï", "bad\xff", "nul\x00", "util::reduce(const Mesh&)"}
	texts := make([]Text, len(names))
	for i, s := range names {
		texts[i] = NewText(s)
	}
	table := func(text bool) *Table {
		return &Table{Columns: []Column{{Name: "name", Kind: String, Width: 12}, {Name: "n", Kind: Uint}},
			Open: Counted(int64(len(names)), func(i int64, r *Row) error {
				if text {
					r.Text(&texts[i])
				} else {
					r.Str(names[i])
				}
				r.Uint(uint64(i))
				return nil
			})}
	}
	for _, csv := range []bool{true, false} {
		view := func(tab *Table) View {
			if csv {
				return tab.CSV()
			}
			return tab.Text(nil)
		}
		want, got := readAll(t, view(table(false))), readAll(t, view(table(true)))
		if !bytes.Equal(got, want) {
			t.Errorf("csv %v: Text cells give\n%q\nStr cells\n%q", csv, got, want)
		}
		if size, err := view(table(true)).Size(); err != nil || size != int64(len(want)) {
			t.Errorf("csv %v: size %d, %v; want %d", csv, size, err, len(want))
		}
	}
}

// A cell that repeats the number before it (a leaf's inclusive and
// exclusive values) is copied from the text already written: the copy is
// the text of its own column, empty cells between them included, and the
// counted length agrees.
func TestTableRepeatedCells(t *testing.T) {
	ab, cd := NewText("ab"), NewText("cd")
	cols := []Column{
		{Name: "a", Kind: Uint}, {Name: "b", Kind: Uint}, {Name: "c", Kind: Hex}, {Name: "d", Kind: Hex, Digits: 4},
		{Name: "e", Kind: Float}, {Name: "f", Kind: Float}, {Name: "g", Kind: Pct}, {Name: "h", Kind: Number},
		{Name: "i", Kind: Number}, {Name: "j", Kind: Int}, {Name: "k", Kind: Int}, {Name: "l"}, {Name: "m"},
	}
	fills := []func(r *Row){
		func(r *Row) {
			r.Uint(5).Uint(5).Uint(5).Uint(5).Float(0.1).Float(0.1).Float(0.1).Uint(7).Float(7).Int(-3).Int(-3).Str("x,y").Str("x,y")
		},
		func(r *Row) {
			r.Uint(12).Empty().Uint(12).Empty().Float(2.5).Empty().Empty().Float(2.5).Float(2.5).Empty().Int(-3).Empty().Str("")
		},
		func(r *Row) { r.Empties(4).Float(1e21).Float(1e21).Float(1e21).Empties(6) },
		func(r *Row) { r.Empties(11).Text(&ab).Text(&cd) }, // Texts of one length are not copied
	}
	want := "a,b,c,d,e,f,g,h,i,j,k,l,m\n" +
		"5,5,0x5,0x0005,0.1,0.1,0.10,7,7,-3,-3,\"x,y\",\"x,y\"\n" +
		"12,,0xc,,2.5,,,2.5,2.5,,-3,,\n" +
		",,,,1e+21,1e+21,1000000000000000000000.00,,,,,,\n" +
		",,,,,,,,,,,ab,cd\n"
	tab := &Table{Columns: cols, Open: Counted(int64(len(fills)), func(i int64, r *Row) error { fills[i](r); return nil })}
	got, err := tab.AppendCSV(nil)
	if err != nil || string(got) != want {
		t.Fatalf("CSV = %q, %v\nwant %q", got, err, want)
	}
	v := tab.CSV()
	if size, err := v.Size(); err != nil || size != int64(len(want)) {
		t.Fatalf("Size = %d, %v; want %d", size, err, len(want))
	}
	buf := make([]byte, len(want))
	if n, err := v.ReadAt(buf, 0); n != len(want) || err != nil && err != io.EOF || string(buf) != want {
		t.Fatalf("ReadAt = %q, %v", buf[:n], err)
	}
}
