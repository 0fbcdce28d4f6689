package main

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	log "github.com/sirupsen/logrus"
)

// Nothing here touches a mountpoint's own inode without a deadline: on a
// FUSE mount whose server hangs (not dead, not answering) a stat or open
// may block for ever.

// mountType returns the file system type of the topmost mount at dir
// ("fuse.hpcfs", "ext4", ...) from /proc/self/mountinfo, or "" when dir is
// no mountpoint.
func mountType(dir string) string {
	abs := mountPath(dir)
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	typ := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional...] - type source super-options
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || unescapeMountinfo(fields[4]) != abs {
			continue
		}
		typ = "unknown"
		for i, f := range fields[5:] {
			if f == "-" && 5+i+1 < len(fields) {
				typ = fields[5+i+1]
				break
			}
		}
	}
	return typ
}

// mounted reports whether dir is a mountpoint.
func mounted(dir string) bool { return mountType(dir) != "" }

// mountPath is dir as /proc/self/mountinfo spells it: absolute, with the
// symbolic links of its parent resolved. dir itself is not resolved: that
// would ask a possibly hung server.
func mountPath(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	parent, base := filepath.Split(abs)
	if base == "" {
		return abs
	}
	if r, err := filepath.EvalSymlinks(parent); err == nil {
		parent = r
	}
	return filepath.Join(parent, base)
}

func unescapeMountinfo(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// isHpcfsType reports whether a mount type is one of hpcfs's mounts
// (fuse.hpcfs, also with a subtype= of the user's choosing kept out).
func isHpcfsType(typ string) bool { return strings.HasPrefix(typ, "fuse.hpcfs") }

// probeTimeout bounds the question to a mount's server.
const probeTimeout = 5 * time.Second

// errNoAnswer is a probe that timed out: a server that lives but hangs.
var errNoAnswer = errors.New("its server does not answer")

// probe asks the server of the mount at dir for statfs, which FUSE always
// forwards (no cache answers it), in a goroutine bounded by timeout. A dead
// server's mount answers ENOTCONN (or ECONNABORTED once aborted).
func probe(dir string, timeout time.Duration) error {
	done := make(chan error, 1)
	go func() {
		var st syscall.Statfs_t
		done <- syscall.Statfs(dir, &st)
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(timeout):
		return errNoAnswer
	}
}

func deadServer(err error) bool {
	return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED)
}

// clearStaleMount unmounts (lazily, like fusermount3 -u -z) an hpcfs mount
// at dir whose server is gone, logging what it did, and reports whether it
// did. Any other mount, and a live one, is left alone.
func clearStaleMount(dir string) (bool, error) {
	typ := mountType(dir)
	if !isHpcfsType(typ) {
		return false, nil
	}
	err := probe(dir, probeTimeout)
	if !deadServer(err) {
		return false, err
	}
	log.Warnf("%s: stale %s mount, its server is gone (%v); clearing it with a lazy unmount (fusermount3 -u -z %s)", dir, typ, err, dir)
	if err := lazyUnmount(dir); err != nil {
		return false, err
	}
	deadline := time.Now().Add(probeTimeout)
	for mounted(dir) {
		if time.Now().After(deadline) {
			return false, errors.New("still mounted after a lazy unmount")
		}
		time.Sleep(10 * time.Millisecond)
	}
	log.Infof("%s: stale mount cleared", dir)
	return true, nil
}
