package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// A StateCodec is a Generator whose cursor states can be written to disk,
// so that a view's size and checkpoints survive the mount (the on-disk
// index of DESIGN.md). EncodeState must be deterministic.
type StateCodec interface {
	EncodeState(state any) []byte
	DecodeState(b []byte) (any, error)
}

// indexDir is where indexes are kept; "" (the default) disables them.
var indexDir atomic.Pointer[string]

func init() {
	none := ""
	indexDir.Store(&none)
}

// SetIndexDir sets where view indexes are kept; "" disables them.
func SetIndexDir(dir string) { indexDir.Store(&dir) }

// DefaultIndexDir is the per-user cache directory for indexes.
func DefaultIndexDir() string {
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "hpcfs", "index")
}

// indexVersion changes whenever the index layout changes.
const indexVersion = "hpcfs-index-1"

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

// IndexKey names the view called view of a source of the given format in
// the on-disk index (the key of IndexedStream). It identifies the input
// files by absolute path, size, modification and change time, device and
// inode, so any change to a file gives a new key and reading it (which
// moves only the access time) does not. It returns "" (keep no index) when
// a file cannot be identified.
func IndexKey(format, view string, files ...string) string {
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
	return format + "/" + view + "/" + hex.EncodeToString(h.Sum(nil))
}

func indexPath(key string) string {
	dir := *indexDir.Load()
	if dir == "" || key == "" || buildKey == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(indexVersion + "\x00" + buildKey + "\x00" + key))
	return filepath.Join(dir, hex.EncodeToString(sum[:16])+".idx")
}

var errBadIndex = errors.New("bad index")

func loadIndex(path string, codec StateCodec) (int64, []checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	r := bytes.NewReader(data)
	var size int64
	var n uint32
	if binary.Read(r, binary.LittleEndian, &size) != nil || binary.Read(r, binary.LittleEndian, &n) != nil || int64(n) > int64(len(data)) {
		return 0, nil, errBadIndex
	}
	cps := make([]checkpoint, 0, n)
	for i := uint32(0); i < n; i++ {
		var off int64
		var l uint32
		if binary.Read(r, binary.LittleEndian, &off) != nil || binary.Read(r, binary.LittleEndian, &l) != nil || int64(l) > int64(r.Len()) {
			return 0, nil, errBadIndex
		}
		b := make([]byte, l)
		r.Read(b)
		var state any
		if l > 0 {
			if state, err = codec.DecodeState(b); err != nil {
				return 0, nil, err
			}
		}
		cps = append(cps, checkpoint{off, state})
	}
	if len(cps) == 0 || cps[0].off != 0 {
		return 0, nil, errBadIndex
	}
	return size, cps, nil
}

func saveIndex(path string, codec StateCodec, size int64, cps []checkpoint) error {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, size)
	binary.Write(&b, binary.LittleEndian, uint32(len(cps)))
	for _, cp := range cps {
		var enc []byte
		if cp.state != nil {
			enc = codec.EncodeState(cp.state)
		}
		binary.Write(&b, binary.LittleEndian, cp.off)
		binary.Write(&b, binary.LittleEndian, uint32(len(enc)))
		b.Write(enc)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".idx-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	tmp.Close()
	return os.Rename(tmp.Name(), path)
}
