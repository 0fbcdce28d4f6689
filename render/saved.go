package render

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
)

// A Saved is a result that a view computes from its whole input (the
// sums of a trace summary) kept beside the on-disk index, so that the
// next mount of the same input reads it instead of passing over the input
// again. It lives under the view's index key (Binding.Key: the format,
// the view's path and the identity of the source's inputs) and the
// running build, as indexes do; the zero value (no index) keeps nothing.
type Saved struct{ path string }

// SavedFor is the saved result called name of the view bound with b.
func SavedFor(b Binding, name string) Saved {
	if b.Key == "" {
		return Saved{}
	}
	return Saved{indexPath(b.Options.IndexDir, b.Key+"\x00saved\x00"+name)}
}

// Load returns the bytes stored by Store, nil when there are none or
// they fail their checksum (a damaged file is removed; the result is
// computed again). The caller still checks every field it decodes.
func (s Saved) Load() []byte {
	if s.path == "" {
		return nil
	}
	b, err := os.ReadFile(s.path)
	if err != nil {
		return nil
	}
	if len(b) < 4 || binary.LittleEndian.Uint32(b[len(b)-4:]) != crc32.ChecksumIEEE(b[:len(b)-4]) {
		os.Remove(s.path)
		return nil
	}
	return b[:len(b)-4]
}

// Store keeps b, with its checksum, for the next Load.
func (s Saved) Store(b []byte) error {
	if s.path == "" {
		return nil
	}
	b = binary.LittleEndian.AppendUint32(append([]byte(nil), b...), crc32.ChecksumIEEE(b))
	if err := writeAtomic(s.path, b); err != nil {
		return fmt.Errorf("saving %s: %w", s.path, err)
	}
	return nil
}

// Discard removes the saved bytes (Load found them inconsistent).
func (s Saved) Discard() {
	if s.path != "" {
		os.Remove(s.path)
	}
}
