package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"syscall"
)

// A StateCodec is a Generator whose cursor states can be written to disk,
// so that a view's size and checkpoints survive the mount (the on-disk
// index of DESIGN.md). EncodeState must be deterministic.
type StateCodec interface {
	EncodeState(state any) []byte
	DecodeState(b []byte) (any, error)
}

// DefaultIndexDir is the per-user cache directory for indexes.
func DefaultIndexDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "hpcfs", "index")
}

// indexVersion changes whenever the index layout changes.
const indexVersion = "hpcfs-index-4"

// buildKey identifies the running program (its file's path, size and
// modification time), so that an index written by one build of hpcfs is
// never read by another, whose views may render differently.
var buildKey = func() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d", exe, fi.Size(), fi.ModTime().UnixNano())
}()

// withFiles extends the index key of a view with the identity of more
// files it depends on (ExtraInputs): their absolute paths, sizes,
// modification and change times, devices and inodes, so any change to a
// file gives a new key and reading it (which moves only the access time)
// does not. It returns "" (keep no index) when a file cannot be identified.
func withFiles(key string, files ...string) string {
	h := sha256.New()
	for _, p := range files {
		fi, err := os.Stat(p)
		if err != nil {
			return ""
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return ""
		}
		var dev, ino uint64
		var ctime int64
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			dev, ino, ctime = uint64(st.Dev), st.Ino, st.Ctim.Nano()
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00%d\x00%d\x00%d\x00", abs, fi.Size(), fi.ModTime().UnixNano(), ctime, dev, ino)
	}
	return key + "/" + hex.EncodeToString(h.Sum(nil))
}

// IsStream reports whether v was made by Stream: a view
// too big to be rendered whole.
func IsStream(v View) bool {
	_, ok := v.(*stream)
	return ok
}

// IndexFile is the file of the on-disk index in dir that holds what is
// kept under key for the running build of hpcfs ("" when dir is ""): for
// packages that keep their own files there (internal/symbols' spilled
// tables). The caller checks the file as input.
func IndexFile(dir, key string) string { return indexPath(dir, key) }

func indexPath(dir, key string) string {
	if dir == "" || key == "" || buildKey == "" || sealKey(dir) == nil {
		return ""
	}
	sum := sha256.Sum256([]byte(indexVersion + "\x00" + buildKey + "\x00" + key))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".idx")
}

// errBadIndex starts the _errors.txt line of an on-disk index that was
// thrown away.
var errBadIndex = errors.New("bad on-disk index")

// An index file holds the size (int64), the number of checkpoints
// (uint32), each checkpoint's output offset (int64), state length
// (uint32) and encoded state, the step (int64: the most bytes one call of
// the view's cursor gave while it was measured), all little-endian, then
// the seal of all that (seal.go): an index that hpcfs did not write under
// its directory's key is thrown away here, whatever it holds. It is input
// like any other file all the same: loadIndex checks every field against
// the rest before anything is allocated from it, and the layout against
// the way measuring places checkpoints: the first at 0, each next one at
// least checkpointEvery and less than checkpointEvery+step after it, the
// end less than checkpointEvery+step after the last, the step no more
// than the size. A size or offset rewritten within those bounds by one
// who holds the key is found by the first read of its segment, which
// renders otherwise.
func loadIndex(path string, codec StateCodec) (int64, []checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	bad := func(format string, args ...any) (int64, []checkpoint, error) {
		return 0, nil, fmt.Errorf(format, args...)
	}
	body, err := unseal(path, data)
	if err != nil {
		return bad("%d bytes: %v", len(data), err)
	}
	if len(body) < 20 {
		return bad("%d bytes, too short", len(data))
	}
	size := int64(binary.LittleEndian.Uint64(body))
	n := binary.LittleEndian.Uint32(body[8:])
	step := int64(binary.LittleEndian.Uint64(body[len(body)-8:]))
	body = body[12 : len(body)-8]
	const cpMin = 12 // offset and state length
	if size < 0 || n == 0 || uint64(n) > uint64(len(body))/cpMin || uint64(n-1) > uint64(size)/checkpointEvery {
		return bad("size %d with %d checkpoints in %d bytes", size, n, len(data))
	}
	if step < 0 || step > size || size > math.MaxInt64/4 { // the sums below stay in range
		return bad("step %d with size %d", step, size)
	}
	// reach is how far past a checkpoint the next one (or the end) can be.
	reach := func(off int64) int64 { return off + checkpointEvery + step }
	cps := make([]checkpoint, 0, n)
	for i := range n {
		if len(body) < cpMin {
			return bad("checkpoint %d cut short", i)
		}
		off := int64(binary.LittleEndian.Uint64(body))
		l := binary.LittleEndian.Uint32(body[8:])
		body = body[cpMin:]
		switch {
		case i == 0 && off != 0:
			return bad("first checkpoint at %d, not 0", off)
		case i > 0 && (off-cps[i-1].off < checkpointEvery || off >= reach(cps[i-1].off)):
			return bad("checkpoint %d at %d, not %d to %d bytes after the one before (%d)", i, off,
				checkpointEvery, checkpointEvery+step-1, cps[i-1].off)
		case off > size:
			return bad("checkpoint %d at %d, beyond the size %d", i, off, size)
		case uint64(l) > uint64(len(body)):
			return bad("checkpoint %d: a state of %d bytes, %d left", i, l, len(body))
		}
		var state any
		if l > 0 {
			if state, err = codec.DecodeState(body[:l]); err != nil {
				return bad("checkpoint %d: %v", i, err)
			}
		}
		body = body[l:]
		cps = append(cps, checkpoint{off, state})
	}
	if len(body) != 0 {
		return bad("%d bytes after the last checkpoint", len(body))
	}
	if last := cps[len(cps)-1].off; size >= reach(last) {
		return bad("size %d, %d bytes or more after the last checkpoint (%d)", size, checkpointEvery+step, last)
	}
	return size, cps, nil
}

func saveIndex(path string, limit int64, codec StateCodec, size, step int64, cps []checkpoint) error {
	b := binary.LittleEndian.AppendUint64(nil, uint64(size))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(cps)))
	for _, cp := range cps {
		var enc []byte
		if cp.state != nil {
			enc = codec.EncodeState(cp.state)
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(cp.off))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(enc)))
		b = append(b, enc...)
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(step))
	b, err := seal(path, b)
	if err != nil {
		return err
	}
	return writeAtomic(path, b, limit)
}

// writeAtomic writes b to path through a temporary file renamed over it,
// so that a reader never sees a file half written, and counts it against
// the limit of its index folder (Kept).
func writeAtomic(path string, b []byte, limit int64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".idx-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	tmp.Close()
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	Kept(filepath.Dir(path), int64(len(b)), limit)
	return nil
}
