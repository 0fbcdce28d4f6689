package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestBadIndexRebuilt damages the on-disk index of a view in every way a
// field can be wrong (the seal kept; resealed by a forger who knows the
// format but not the directory's key, as a careless tool mending a
// checksum would; resealed with the key, as a buggy writer would): the
// view still has its true size and bytes, the bad index is reported once
// and replaced by a good one, and nothing allocates from the damaged
// fields. Only the last can reach a read.
func TestBadIndexRebuilt(t *testing.T) {
	const n = 100000
	want := reference(n)
	le := binary.LittleEndian
	// Offsets in an index: size at 0, count at 8, checkpoints from 12
	// (offset, state length, state); the second checkpoint's offset
	// field starts after the first one's (offset 0, state "0").
	cp1 := 12 + 8 + 4 + 1
	damages := map[string]func(b []byte){
		"size-high-bit": func(b []byte) { b[7] |= 0x80 },
		"size-plus-100": func(b []byte) { le.PutUint64(b, le.Uint64(b)+100) },
		"size-minus-1":  func(b []byte) { le.PutUint64(b, le.Uint64(b)-1) },
		"count-huge":    func(b []byte) { le.PutUint32(b[8:], 0xffffffff) },
		"offset-high-bit": func(b []byte) {
			b[cp1+7] |= 0x80
		},
		"offset-shifted": func(b []byte) { le.PutUint64(b[cp1:], le.Uint64(b[cp1:])+3) },
		"offset-swapped": func(b []byte) { le.PutUint64(b[cp1:], 0) },
		"state-length":   func(b []byte) { le.PutUint32(b[cp1+8:], 0x7fffffff) },
		"state-garbage":  func(b []byte) { b[cp1+12] = 'x' },
		"cut":            func(b []byte) { copy(b[len(b)-40:], b[len(b)-20:]) },
		"size-doubled":   func(b []byte) { le.PutUint64(b, 2*le.Uint64(b)) },
		"size-plus-64k":  func(b []byte) { le.PutUint64(b, le.Uint64(b)+64<<10) },
		"offset-minus-1": func(b []byte) { le.PutUint64(b[cp1:], le.Uint64(b[cp1:])-1) },
		"step-huge":      func(b []byte) { le.PutUint64(b[len(b)-8:], 1<<62) },
	}
	// What an index sealed with the key can hold that only a read of the
	// segment shows: a size or offset moved within the bounds the layout
	// has (checkpoints 64 KiB to 64 KiB+step apart, the end within 64
	// KiB+step of the last), and a state that decodes.
	afterLoad := map[string]bool{"size-minus-1": true, "size-plus-100": true, "offset-shifted": true, "offset-minus-1": true, "state-garbage": true}
	foreign := make([]byte, keySize)
	for name, damage := range damages {
		for _, mend := range []string{"seal-kept", "foreign-key", "true-key"} {
			label := name + "/" + mend
			t.Run(label, func(t *testing.T) {
				dir := t.TempDir()
				first := &codecLines{lines{n: n, failAt: -1}}
				if size, err := indexedView(first, dir, "test/bad", nil).Size(); err != nil || size != int64(len(want)) {
					t.Fatalf("first Size = %d, %v", size, err)
				}
				files, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
				if len(files) != 1 {
					t.Fatalf("%d index files", len(files))
				}
				b, _ := os.ReadFile(files[0])
				body := b[:len(b)-sealSize]
				damage(body)
				switch mend {
				case "foreign-key":
					copy(b[len(body):], sealOf(foreign, body))
				case "true-key":
					copy(b[len(body):], sealOf(sealKey(dir), body))
				}
				os.WriteFile(files[0], b, 0o644)

				var mu sync.Mutex
				var reported []string
				v := indexedView(&codecLines{lines{n: n, failAt: -1}}, dir, "test/bad", func(err error) {
					mu.Lock()
					reported = append(reported, err.Error())
					mu.Unlock()
				})
				// A size field that is consistent with the rest of the
				// index is served until a read finds the view otherwise:
				// read as a kernel would, up to what the size says and on
				// to end of file. Damage the layout shows is thrown away
				// at load: the first Size is already true.
				size, err := v.Size()
				if err != nil {
					t.Fatal(err)
				}
				if mend != "true-key" || !afterLoad[name] {
					if size != int64(len(want)) || len(reported) != 1 {
						t.Errorf("at load: size %d (want %d), reported %q", size, len(want), reported)
					}
				}
				got := make([]byte, max(size, int64(len(want)))+4096)
				k, err := v.ReadAt(got, 0)
				if k != len(want) || err != io.EOF || !bytes.Equal(got[:k], want) {
					t.Fatalf("ReadAt: %d bytes, %v; want the %d of the view and EOF", k, err, len(want))
				}
				if size, err := v.Size(); err != nil || size != int64(len(want)) {
					t.Fatalf("Size after reading = %d, %v; want %d", size, err, len(want))
				}
				if len(reported) != 1 || !strings.Contains(reported[0], "bad on-disk index") {
					t.Fatalf("reported %q, want one line on the bad index", reported)
				}
				// The rebuilt index is good: a third view loads it quietly.
				third := &codecLines{lines{n: n, failAt: -1}}
				v3 := indexedView(third, dir, "test/bad", func(err error) { t.Errorf("third view: %v", err) })
				if size, err := v3.Size(); err != nil || size != int64(len(want)) {
					t.Fatalf("third Size = %d, %v", size, err)
				}
				if third.starts != 0 {
					t.Errorf("the third view measured again (%d cursors)", third.starts)
				}
			})
		}
	}
}

// TestRenderSegmentChecksCheckpoints: a segment whose checkpoints do not
// fall between records is reported as disagreeing, not served.
func TestRenderSegmentChecksCheckpoints(t *testing.T) {
	s := &stream{gen: &lines{n: 100, failAt: -1}}
	cps := []checkpoint{{0, 0}, {5, 1}} // line 0 is "line 0\n", 7 bytes
	if _, err := s.renderSegment(cps, 20, nil); !errors.Is(err, errDisagrees) || !errors.Is(err, ErrChanged) {
		t.Fatalf("renderSegment: %v, want errDisagrees", err)
	}
}

// FuzzLoadIndex: any bytes sealed with the directory's key (what only a
// buggy writer or a forger with the key can leave) load without a panic
// and without allocating beyond their length, or are rejected; unsealed,
// they are always rejected.
func FuzzLoadIndex(f *testing.F) {
	dir := f.TempDir()
	v := indexedView(&codecLines{lines{n: 20000, failAt: -1}}, dir, "fuzz/seed", nil)
	if _, err := v.Size(); err != nil {
		f.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.idx"))
	for _, p := range files {
		b, _ := os.ReadFile(p)
		f.Add(b[:len(b)-sealSize])
	}
	f.Add([]byte{})
	path := filepath.Join(dir, "fuzz.idx")
	f.Fuzz(func(t *testing.T, body []byte) {
		codec := &codecLines{lines{n: 20000, failAt: -1}}
		os.WriteFile(path, body, 0o644)
		if _, _, err := loadIndex(path, codec); err == nil && len(body) > 0 {
			t.Fatal("an unsealed index loaded")
		}
		sealed, err := seal(path, append([]byte(nil), body...))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, sealed, 0o644)
		size, cps, err := loadIndex(path, codec)
		if err == nil && (size < 0 || len(cps) == 0 || cps[0].off != 0 || len(cps) > len(body)) {
			t.Fatalf("loaded size %d with %d checkpoints from %d bytes", size, len(cps), len(body))
		}
	})
}
