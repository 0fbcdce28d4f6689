package render

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// What hpcfs writes to an index directory (indexes and Saved results) is
// sealed: it ends with an HMAC-SHA256 of the rest under a random key that
// the directory keeps in keyFile (mode 0600, made by the first mount that
// writes there). A CRC caught only accidents: an index rewritten with its
// CRC mended (a careless tool, a hostile user, a test) passed every check
// at load when its sizes and offsets stayed within the bounds the layout
// allows, and was caught only when a read rendered its segment otherwise.
// A seal that does not match throws the file away at load. The key is
// not read by anyone but the user whose cache it is; who can read it can
// forge an index, and a read then still finds the view otherwise than the
// index says (renderSegment).
const (
	keyFile  = "key"
	keySize  = 32
	sealSize = 16 // the HMAC's first bytes
)

// sealKeys caches each directory's key ([]byte; nil when none can be
// read or made: then nothing is kept there).
var sealKeys sync.Map

func sealKey(dir string) []byte {
	if k, ok := sealKeys.Load(dir); ok {
		return k.([]byte)
	}
	k, _ := sealKeys.LoadOrStore(dir, readOrMakeKey(dir))
	return k.([]byte)
}

// readOrMakeKey returns dir's key, making it when there is none (or a
// damaged one: the files sealed with it are then thrown away as they are
// loaded). Two mounts that make it at once agree: the key is linked into
// place, never renamed over one that is there.
func readOrMakeKey(dir string) []byte {
	p := filepath.Join(dir, keyFile)
	for range 2 {
		b, err := os.ReadFile(p)
		if err == nil && len(b) == keySize {
			return b
		}
		if err == nil {
			os.Remove(p)
		}
		key := make([]byte, keySize)
		rand.Read(key)
		if os.MkdirAll(dir, 0o755) != nil {
			return nil
		}
		tmp, err := os.CreateTemp(dir, ".key-*") // mode 0600
		if err != nil {
			return nil
		}
		_, err = tmp.Write(key)
		tmp.Close()
		if err == nil {
			err = os.Link(tmp.Name(), p)
		}
		os.Remove(tmp.Name())
		if err == nil {
			return key
		}
	}
	return nil
}

func sealOf(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(b)
	return m.Sum(nil)[:sealSize]
}

// seal appends to b the seal of b under the key of the directory of path.
func seal(path string, b []byte) ([]byte, error) {
	key := sealKey(filepath.Dir(path))
	if key == nil {
		return nil, errNoKey
	}
	return append(b, sealOf(key, b)...), nil
}

// unseal returns what seal sealed, or an error when the seal does not
// match it.
func unseal(path string, data []byte) ([]byte, error) {
	key := sealKey(filepath.Dir(path))
	switch {
	case key == nil:
		return nil, errNoKey
	case len(data) < sealSize:
		return nil, errShort
	}
	body := data[:len(data)-sealSize]
	if !hmac.Equal(data[len(body):], sealOf(key, body)) {
		return nil, errSeal
	}
	return body, nil
}

var (
	errNoKey = errors.New("no key in the index directory")
	errShort = errors.New("too short for its seal")
	errSeal  = errors.New("its seal does not match its contents (not written by hpcfs under this directory's key)")
)
