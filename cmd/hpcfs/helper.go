package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// helperName is the name under which mount(8) runs hpcfs for
// `mount -t fuse.hpcfs SOURCE MOUNTPOINT` and fstab lines of type
// fuse.hpcfs: /sbin/mount.fuse.hpcfs, a link to hpcfs.
const helperName = "mount.fuse.hpcfs"

// helperArgs turns the mount helper convention, `mount.fuse.hpcfs SOURCE
// MOUNTPOINT [-o OPTIONS] [-n] [-s] [-v]` (also `hpcfs SOURCE MOUNTPOINT
// -o OPTIONS` as mount.fuse calls it), into `hpcfs mount -o OPTIONS SOURCE
// MOUNTPOINT`. Other command lines are returned unchanged.
func helperArgs(args []string, commands map[string]bool) []string {
	base := filepath.Base(args[0])
	asHelper := base == helperName || base == "mount.hpcfs"
	if !asHelper && (len(args) < 3 || strings.HasPrefix(args[1], "-") || commands[args[1]]) {
		return args
	}
	if !asHelper {
		// `hpcfs SOURCE MOUNTPOINT ...`: only when SOURCE is a path.
		if _, err := os.Stat(args[1]); err != nil {
			return args
		}
	}
	var paths, opts []string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-o" && i+1 < len(args):
			i++
			for _, o := range strings.Split(args[i], ",") {
				if o != "rw" { // mount(8) may add it; hpcfs is read-only anyway
					opts = append(opts, o)
				}
			}
		case a == "-n" || a == "-s" || a == "-v" || a == "-f":
			// no mtab, sloppy, verbose, fake: nothing for hpcfs to do
		case strings.HasPrefix(a, "-t"):
			if a == "-t" {
				i++
			}
		default:
			paths = append(paths, a)
		}
	}
	out := []string{args[0], "mount"}
	if len(opts) > 0 {
		out = append(out, "-o", strings.Join(opts, ","))
	}
	return append(out, paths...)
}

func newInstallHelperCommand() *cobra.Command {
	var binDir string
	cmd := &cobra.Command{
		Use:   "install-helper [--bin-dir DIR] [HELPERDIR]",
		Short: "Install hpcfs in --bin-dir and link " + helperName + " to it in HELPERDIR (default /sbin), for mount -t fuse.hpcfs and fstab",
		Long: `Copy this hpcfs binary to --bin-dir (default /usr/local/bin), so that mounts
from fstab do not depend on a checkout or a build cache, and link
HELPERDIR/` + helperName + ` (default /sbin, where mount(8) looks) to the copy.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "/sbin"
			if len(args) == 1 {
				dir = args[0]
			}
			exe, err := os.Executable()
			if err != nil {
				return exitErr(exitFailure, "%v", err)
			}
			bin := filepath.Join(binDir, "hpcfs")
			if err := installCopy(exe, bin); err != nil {
				return exitErr(exitFailure, "installing %s: %v", bin, err)
			}
			link := filepath.Join(dir, helperName)
			os.Remove(link)
			if err := os.Symlink(bin, link); err != nil {
				return exitErr(exitFailure, "%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s\n%s -> %s\n", bin, link, bin)
			return nil
		},
	}
	cmd.Flags().StringVar(&binDir, "bin-dir", "/usr/local/bin", "where the hpcfs binary is installed")
	return cmd
}

// installCopy copies the file from to the path to (mode 0755) through a
// temporary file renamed into place, so that a running copy is replaced,
// not overwritten. Installing a binary onto itself does nothing.
func installCopy(from, to string) error {
	if a, err := os.Stat(from); err == nil {
		if b, err := os.Stat(to); err == nil && os.SameFile(a, b) {
			return nil
		}
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(to), ".hpcfs-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o755)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), to)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
