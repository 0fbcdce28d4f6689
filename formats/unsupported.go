package formats

import (
	"bytes"
	"os"
	"strings"

	"github.com/hpcfs/hpcfs/internal/vfs"
)

// unsupported names, in a few words, a source hpcfs recognises by its
// signature but does not read, and says why; "" when it does not know it.
// It is asked only after every format has declined the source, so a format
// added later takes its inputs over without changing this list.
func unsupported(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return unsupportedDir(path)
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
	case bytes.HasPrefix(head, []byte("HPCTOOLKIT")) && len(head) >= 14:
		return "HPCToolkit " + strings.TrimSpace(string(head[10:14])) + " database file: mount the database directory"
	case bytes.HasPrefix(head, []byte("HPCRUN-")):
		return "hpcrun file of a version this build does not read"
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip file that is no profile hpcfs reads: unpack it first"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "zip archive: unpack it first"
	case len(head) > 262 && string(head[257:262]) == "ustar":
		return "tar archive: unpack it first"
	case strings.HasSuffix(path, ".obs"):
		return "ovni stream file: mount the trace directory (the one holding loom.*)"
	}
	return ""
}

func unsupportedDir(path string) string {
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
