package testdata

import (
	"bytes"
	"os"
	"syscall"
	"time"
)

// InputChanges are the ways an input file changes under a reader, by
// name; each changes the file at p so that its identity (device, inode),
// size, modification time or change time tells.
var InputChanges = map[string]func(p string) error{
	"truncate": func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		return os.Truncate(p, fi.Size()/2)
	},
	"overwrite": overwrite,
	"touch": func(p string) error {
		return os.Chtimes(p, time.Now(), time.Now().Add(time.Hour))
	},
	// Replaced by a copy renamed over it: same bytes, another inode.
	"rename": func(p string) error {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p+".new", b, 0o644); err != nil {
			return err
		}
		return os.Rename(p+".new", p)
	},
	"delete": os.Remove,
	// Written in place with the same size and the modification time set
	// back: only the change time, which no one can set back, tells. It
	// moves in steps of the kernel's clock tick: rewritten until it has.
	"rewrite-keep-mtime": func(p string) error {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		before, err := changeTime(p)
		for err == nil {
			if err := overwrite(p); err != nil {
				return err
			}
			if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
				return err
			}
			var now syscall.Timespec
			if now, err = changeTime(p); now != before {
				break
			}
		}
		return err
	},
}

// overwrite writes into the middle of p, keeping its size.
func overwrite(p string) error {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	_, err = f.WriteAt(bytes.Repeat([]byte{0x5a}, int(min(fi.Size()/2, 4096))), fi.Size()/3)
	return err
}

func changeTime(p string) (syscall.Timespec, error) {
	var st syscall.Stat_t
	err := syscall.Stat(p, &st)
	return st.Ctim, err
}
