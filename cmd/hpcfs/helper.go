package main

import (
	"fmt"
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
	return &cobra.Command{
		Use:   "install-helper [DIR]",
		Short: "Link " + helperName + " to this hpcfs in DIR (default /sbin), for mount -t fuse.hpcfs and fstab",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "/sbin"
			if len(args) == 1 {
				dir = args[0]
			}
			exe, err := os.Executable()
			if err != nil {
				return exitErr(exitFailure, "%v", err)
			}
			if exe, err = filepath.EvalSymlinks(exe); err != nil {
				return exitErr(exitFailure, "%v", err)
			}
			link := filepath.Join(dir, helperName)
			os.Remove(link)
			if err := os.Symlink(exe, link); err != nil {
				return exitErr(exitFailure, "%v", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s -> %s\n", link, exe)
			return nil
		},
	}
}
