package render

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand"
	"strconv"
	"sync"
	"testing"

	"github.com/hpcfs/hpcfs/decode"
)

// lines renders n numbered lines and fails with a data error at failAt.
type lines struct {
	n, failAt int
	starts    int
	mu        sync.Mutex
}

type linesCursor struct {
	g *lines
	i int
}

func (g *lines) Start(state any) (Cursor, error) {
	g.mu.Lock()
	g.starts++
	g.mu.Unlock()
	i, _ := state.(int)
	return &linesCursor{g, i}, nil
}

func (c *linesCursor) State() any { return c.i }

func (c *linesCursor) Next(dst []byte) ([]byte, error) {
	if c.i == c.g.failAt {
		return dst, &decode.FormatError{Format: "test", Off: int64(c.i), Msg: "bad record"}
	}
	if c.i >= c.g.n {
		return dst, io.EOF
	}
	dst = append(dst, "line "...)
	dst = strconv.AppendInt(dst, int64(c.i), 10)
	dst = append(dst, padding(c.i%7)...)
	c.i++
	return append(dst, '\n'), nil
}

func padding(n int) string { return string(bytes.Repeat([]byte{'x'}, n*13)) }

func reference(n int) []byte {
	var b []byte
	c := &linesCursor{g: &lines{n: n, failAt: -1}}
	for {
		var err error
		b, err = c.Next(b)
		if err != nil {
			return b
		}
	}
}

func TestStreamSizeAndRandomReads(t *testing.T) {
	useKeeper(t, newKeeper(0)) // rendered from checkpoints (kept bytes: keep_test.go)
	const n = 200000
	want := reference(n)
	v := Stream(&lines{n: n, failAt: -1}, nil)
	size, err := v.Size()
	if err != nil || size != int64(len(want)) {
		t.Fatalf("Size = %d, %v; want %d", size, err, len(want))
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < 200; i++ {
				off := rng.Int63n(size + 10)
				buf := make([]byte, rng.Intn(300000))
				k, err := v.ReadAt(buf, off)
				end := min(off+int64(len(buf)), size)
				if off > size {
					end = off
				}
				if err != nil && err != io.EOF {
					t.Error(err)
					return
				}
				if (err == io.EOF) != (off+int64(len(buf)) > size) {
					t.Errorf("ReadAt(%d, %d) err = %v", off, len(buf), err)
				}
				if off <= size && !bytes.Equal(buf[:k], want[off:end]) {
					t.Errorf("ReadAt(%d, %d) differs", off, len(buf))
					return
				}
			}
		}(int64(g))
	}
	wg.Wait()
}

func TestStreamResumesFromCheckpoint(t *testing.T) {
	useKeeper(t, newKeeper(0)) // rendered from checkpoints (kept bytes: keep_test.go)
	g := &lines{n: 500000, failAt: -1}
	v := Stream(g, nil)
	size, _ := v.Size()
	buf := make([]byte, 100)
	before := g.starts
	if _, err := v.ReadAt(buf, size-100); err != nil {
		t.Fatal(err)
	}
	if want := reference(500000)[size-100:]; !bytes.Equal(buf, want) {
		t.Fatalf("tail = %q, want %q", buf, want)
	}
	if g.starts-before > 2 {
		t.Fatalf("reading the tail started %d cursors", g.starts-before)
	}
}

func TestStreamEndsAtDataError(t *testing.T) {
	var reported []error
	v := Stream(&lines{n: 100, failAt: 40}, func(err error) { reported = append(reported, err) })
	size, err := v.Size()
	if err != nil {
		t.Fatal(err)
	}
	want := reference(40)
	if size != int64(len(want)) {
		t.Fatalf("size %d, want %d", size, len(want))
	}
	if len(reported) != 1 || !errors.Is(reported[0], decode.ErrFormat) {
		t.Fatalf("reported %v", reported)
	}
	got := make([]byte, size)
	if _, err := v.ReadAt(got, 0); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("content differs: %v", err)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {0.1, "0.1"}, {1e20, "100000000000000000000"}, {1e21, "1e+21"},
		{1e-6, "0.000001"}, {1e-7, "1e-07"}, {-2.5, "-2.5"}, {123456789.125, "123456789.125"},
	} {
		if got := FormatFloat(tc.f); got != tc.want {
			t.Errorf("FormatFloat(%v) = %q, want %q", tc.f, got, tc.want)
		}
		if back, err := strconv.ParseFloat(FormatFloat(tc.f), 64); err != nil || back != tc.f {
			t.Errorf("%v does not round-trip: %v %v", tc.f, back, err)
		}
	}
}

type codecLines struct{ lines }

func (g *codecLines) EncodeState(s any) []byte { return strconv.AppendInt(nil, int64(s.(int)), 10) }
func (g *codecLines) DecodeState(b []byte) (any, error) {
	n, err := strconv.Atoi(string(b))
	return n, err
}

// indexedView is the Stream of gen bound to the index in dir under key,
// reporting data errors to report.
func indexedView(gen Generator, dir, key string, report func(error)) View {
	v := Stream(gen, nil)
	v.(Binder).Bind(Binding{Options: Options{IndexDir: dir}, Key: key, Report: report})
	return v
}

func TestIndexReusesSizing(t *testing.T) {
	dir := t.TempDir()
	indexed := func(gen Generator, key string) View { return indexedView(gen, dir, key, nil) }
	want := reference(300000)
	first := &codecLines{lines{n: 300000, failAt: -1}}
	v1 := indexed(first, "test/lines")
	if size, err := v1.Size(); err != nil || size != int64(len(want)) {
		t.Fatalf("first Size = %d, %v", size, err)
	}
	second := &codecLines{lines{n: 300000, failAt: -1}}
	v2 := indexed(second, "test/lines")
	if size, err := v2.Size(); err != nil || size != int64(len(want)) {
		t.Fatalf("second Size = %d, %v", size, err)
	}
	if second.starts != 0 {
		t.Fatalf("the second view measured again (%d cursors)", second.starts)
	}
	buf := make([]byte, 5000)
	off := int64(len(want)) - 7000
	if _, err := v2.ReadAt(buf, off); err != nil || !bytes.Equal(buf, want[off:off+5000]) {
		t.Fatalf("read through loaded checkpoints differs: %v", err)
	}
	other := &codecLines{lines{n: 300000, failAt: -1}}
	indexed(other, "test/other").Size()
	if other.starts == 0 {
		t.Fatal("a different key reused the index")
	}
}

func TestAppendFloatMatchesStrconv(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	check := func(f float64) {
		t.Helper()
		want := strconv.FormatFloat(f, 'f', -1, 64)
		if a := math.Abs(f); a < 1e-6 || a >= 1e21 {
			want = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if f == 0 {
			want = "0"
		}
		if got := FormatFloat(f); got != want {
			t.Fatalf("FormatFloat(%v) = %q, strconv says %q", f, got, want)
		}
	}
	for i := 0; i < 300000; i++ {
		check(float64(rng.Int63n(1e12)) / math.Pow10(rng.Intn(8)))
		check(-float64(rng.Intn(1e6)) / 1000)
		check(rng.Float64() * math.Pow10(rng.Intn(30)-10))
		check(float64(rng.Intn(1000)) * 100 / float64(1+rng.Intn(100000)))
	}
	for _, f := range []float64{0.1, 0.2, 0.3, 1e-6, 9.999999e14, 1e15, 123456789012345, 0.000001234, 5e-324, math.MaxFloat64} {
		check(f)
	}
}

// bigRecords renders n records of size bytes each, counting the bytes it
// renders.
type bigRecords struct {
	n, size  int
	rendered int64
	mu       sync.Mutex
}

type bigCursor struct {
	g *bigRecords
	i int
}

func (g *bigRecords) Start(state any) (Cursor, error) {
	i, _ := state.(int)
	return &bigCursor{g, i}, nil
}

func (c *bigCursor) State() any { return c.i }

func (c *bigCursor) Next(dst []byte) ([]byte, error) {
	if c.i >= c.g.n {
		return dst, io.EOF
	}
	c.g.mu.Lock()
	c.g.rendered += int64(c.g.size)
	c.g.mu.Unlock()
	dst = append(dst, bytes.Repeat([]byte{byte('a' + c.i%26)}, c.g.size-1)...)
	c.i++
	return append(dst, '\n'), nil
}

// TestStreamLargeRecordsRenderedOnce reads a view of multi-MB records (an
// ovni jumbo event is one such line) sequentially in 128 KiB pieces: each
// record must be rendered about once, not once per read.
func TestStreamLargeRecordsRenderedOnce(t *testing.T) {
	useKeeper(t, newKeeper(0)) // rendered from checkpoints (kept bytes: keep_test.go)
	g := &bigRecords{n: 6, size: 3 << 20}
	v := Stream(g, nil)
	size, err := v.Size()
	if err != nil || size != int64(g.n*g.size) {
		t.Fatalf("Size = %d, %v", size, err)
	}
	g.rendered = 0
	buf := make([]byte, 128<<10)
	for off := int64(0); off < size; off += int64(len(buf)) {
		k, err := v.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		rec := int(off) / g.size
		if want := byte('a' + rec%26); k == 0 || buf[0] != want && buf[0] != '\n' {
			t.Fatalf("ReadAt(%d) = %q...", off, buf[:min(k, 8)])
		}
	}
	if g.rendered > 2*size {
		t.Fatalf("reading %d bytes once rendered %d bytes", size, g.rendered)
	}
}
