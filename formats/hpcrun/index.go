package hpcrun

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/hpcfs/hpcfs/render"
)

// The big views are render.IndexedStream views: their cursor states are
// written to the on-disk index so that a second mount sizes them at once.

var errBadState = errors.New("hpcrun: bad index state")

// posGen is a generator whose states are cctPos values (cct.csv, cct.txt).
type posGen func(state any) (render.Cursor, error)

func (g posGen) Start(state any) (render.Cursor, error) { return g(state) }

func (posGen) EncodeState(state any) []byte {
	s := state.(cctPos)
	b := []byte{0}
	if s.started {
		b[0] = 1
	}
	b = binary.AppendUvarint(b, uint64(s.epoch))
	return binary.AppendUvarint(b, s.node)
}

func (posGen) DecodeState(b []byte) (any, error) {
	v, err := uvarints(b[min(len(b), 1):], 2)
	if err != nil || len(b) == 0 || b[0] > 1 || v[0] > 1<<31 {
		return nil, errBadState
	}
	return cctPos{started: b[0] == 1, epoch: int(v[0]), node: v[1]}, nil
}

// ptGen is the generator of hpcproftt.txt (ptPos states).
type ptGen func(state any) (render.Cursor, error)

func (g ptGen) Start(state any) (render.Cursor, error) { return g(state) }

func (ptGen) EncodeState(state any) []byte {
	s := state.(ptPos)
	return binary.AppendUvarint(binary.AppendUvarint(nil, uint64(s.part)), s.node)
}

func (ptGen) DecodeState(b []byte) (any, error) {
	v, err := uvarints(b, 2)
	if err != nil || v[0] > 1<<31 {
		return nil, errBadState
	}
	return ptPos{part: int(v[0]), node: v[1]}, nil
}

// EncodeState writes a trace record index (-1 = the CSV header).
func (g *traceGen) EncodeState(state any) []byte { return binary.AppendVarint(nil, state.(int64)) }

func (g *traceGen) DecodeState(b []byte) (any, error) {
	v, n := binary.Varint(b)
	if n <= 0 || n != len(b) || v < -1 {
		return nil, errBadState
	}
	return v, nil
}

// uvarints decodes exactly n uvarints that fill b.
func uvarints(b []byte, n int) ([]uint64, error) {
	out := make([]uint64, 0, n)
	for range n {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			return nil, errBadState
		}
		out = append(out, v)
		b = b[k:]
	}
	if len(b) != 0 {
		return nil, errBadState
	}
	return out, nil
}

// indexKey names a view of files in the on-disk index; "" (no index)
// when a file cannot be identified. Unlike render.SourceKey it leaves
// out the access time, which reading the files changes (the first read
// after a write moves it even under relatime).
func indexKey(view string, files ...string) string {
	b := []byte("hpcrun/" + view)
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return ""
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return ""
		}
		b = append(b, 0)
		b = append(b, abs...)
		b = binary.AppendVarint(b, fi.Size())
		b = binary.AppendVarint(b, fi.ModTime().UnixNano())
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			b = binary.AppendUvarint(b, uint64(st.Dev))
			b = binary.AppendUvarint(b, st.Ino)
			b = binary.AppendVarint(b, st.Ctim.Nano())
		}
	}
	return string(b)
}

var (
	_ render.StateCodec = posGen(nil)
	_ render.StateCodec = ptGen(nil)
	_ render.StateCodec = (*traceGen)(nil)
)
