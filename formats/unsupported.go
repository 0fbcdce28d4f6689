package formats

import (
	"bytes"
	"os"

	"github.com/hpcfs/hpcfs/internal/vfs"
)

// unsupported names, in a few words, a file hpcfs recognises by its
// signature but does not read, and says why; "" when it does not know it.
// It is asked only after every format has declined the file: an archive
// (gzip, zip, tar) is named here, and a file of a format's family by that
// format's registry entry (vfs.Format.Unsupported), so a format added
// later brings its own wording and takes its inputs over.
func unsupported(path string) string {
	fi, err := os.Stat(path)
	if err != nil || fi.IsDir() {
		return ""
	}
	head := make([]byte, 512)
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	n, _ := f.Read(head)
	f.Close()
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip file that is no profile hpcfs reads: unpack it first"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "zip archive: unpack it first"
	case len(head) > 262 && string(head[257:262]) == "ustar":
		return "tar archive: unpack it first"
	}
	for _, f := range All {
		if f.Unsupported == nil {
			continue
		}
		if what := f.Unsupported(path, head); what != "" {
			return what
		}
	}
	return ""
}

// describe says in a few words what an unread source looks like.
func describe(path string) string {
	if what := unsupported(path); what != "" {
		return what
	}
	fi, err := os.Stat(path)
	if err != nil {
		return errText(err)
	}
	if fi.IsDir() {
		des, _ := os.ReadDir(path)
		return "a folder of " + vfs.Count(len(des), "entry") + ", no source among them or their subfolders"
	}
	return "a file of " + vfs.Count(int(fi.Size()), "byte") + " that is no source hpcfs reads"
}
