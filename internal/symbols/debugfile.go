package symbols

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// buildID is the GNU build-id of f in hex, "" when it has none.
func buildID(f *elf.File) string {
	for _, s := range f.Sections {
		if s.Type != elf.SHT_NOTE || s.Size > 1<<16 {
			continue
		}
		b, err := s.Data()
		if err != nil {
			continue
		}
		for len(b) >= 12 {
			namesz := int(f.ByteOrder.Uint32(b))
			descsz := int(f.ByteOrder.Uint32(b[4:]))
			typ := f.ByteOrder.Uint32(b[8:])
			name := 12 + align4(namesz)
			end := name + align4(descsz)
			if namesz < 0 || descsz < 0 || end > len(b) || end < name {
				break
			}
			if typ == 3 && namesz == 4 && string(b[12:15]) == "GNU" {
				return hex.EncodeToString(b[name : name+descsz])
			}
			b = b[end:]
		}
	}
	return ""
}

func align4(n int) int { return (n + 3) &^ 3 }

// debugLink is the file name and CRC in f's .gnu_debuglink section.
func debugLink(f *elf.File) (name string, crc uint32, ok bool) {
	s := f.Section(".gnu_debuglink")
	if s == nil || s.Size > 4096 {
		return "", 0, false
	}
	b, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	i := bytes.IndexByte(b, 0)
	if i <= 0 || align4(i+1)+4 > len(b) {
		return "", 0, false
	}
	return string(b[:i]), binary.LittleEndian.Uint32(b[align4(i+1):]), true
}

// fileCRC is the CRC-32 of a file as .gnu_debuglink records it.
func fileCRC(path string) (uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, f); err != nil {
		return 0, err
	}
	return h.Sum32(), nil
}

// debugCandidates lists where the separate debug file of the binary at
// path may be, in gdb's order: by build-id under each debug root, then
// by the debug link beside the binary, in its .debug folder and under
// each debug root.
func debugCandidates(path, id, link string, roots []string) []string {
	var out []string
	if len(id) > 2 {
		for _, r := range roots {
			out = append(out, filepath.Join(r, ".build-id", id[:2], id[2:]+".debug"))
		}
	}
	if link != "" {
		dir := filepath.Dir(path)
		out = append(out, filepath.Join(dir, link), filepath.Join(dir, ".debug", link))
		if abs, err := filepath.Abs(dir); err == nil {
			for _, r := range roots {
				out = append(out, filepath.Join(r, abs, link))
			}
		}
	}
	return out
}
