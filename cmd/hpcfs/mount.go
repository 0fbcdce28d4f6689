package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	log "github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/hpcfs/hpcfs/formats"
	"github.com/hpcfs/hpcfs/fsnode"
	"github.com/hpcfs/hpcfs/internal/vfs"
)

func newMountCommand() *cobra.Command {
	var opts []string
	var debug, foreground bool
	var logFile string
	cmd := &cobra.Command{
		Use:   "mount [flags] [SOURCE [SOURCE_B]] MOUNTPOINT",
		Short: "Mount SOURCE (or the built-in demo trace, or the diff of two runs) at MOUNTPOINT",
		Long: `Mount SOURCE read-only at MOUNTPOINT. The command returns once the mount is
ready and the mount is served in the background until it is unmounted
(hpcfs unmount, fusermount3 -u or umount); its log goes to --log-file.
With -f it stays in the foreground, logging to standard error, and
SIGINT or SIGTERM unmount it. Without SOURCE, a small demo ovni trace is
mounted. With two sources of one format (two runs), the mount holds a/ and
b/ (each as mounted alone) and diff/, what changed from a to b.`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			source, mnt := "", args[len(args)-1]
			other := "" // the second run of a diff mount
			if len(args) == 3 {
				source, other = args[0], args[1]
			} else if len(args) == 2 {
				source = args[0]
			} else if looksLikeSource(mnt) {
				return usageErr(fmt.Errorf("missing MOUNTPOINT: %s is a source; usage: hpcfs mount [SOURCE] MOUNTPOINT", mnt))
			}
			if _, err := mountOptions(opts); err != nil {
				return err
			}
			if foreground || readyPipe != nil {
				return runMount(source, other, mnt, opts, debug)
			}
			// Checked here too, so that what is found (and a stale mount
			// cleared) is said on this terminal, not in the log file.
			if err := checkMountpoint(mnt); err != nil {
				return err
			}
			return daemonize(backgroundArgs(cmd, source, other, mnt, opts, debug), logFile)
		},
	}
	cmd.Flags().StringSliceVarP(&opts, "options", "o", nil, "mount options, comma-separated (ro, allow_other, debug, ...)")
	cmd.Flags().BoolVarP(&debug, "debug", "d", false, "log the FUSE protocol (implies nothing else; add -f to see it)")
	cmd.Flags().BoolVarP(&foreground, "foreground", "f", false, "stay in the foreground until SIGINT/SIGTERM, logging to standard error")
	cmd.Flags().StringVar(&logFile, "log-file", defaultLogFile(), "where a background mount logs")
	return cmd
}

// backgroundArgs are the arguments of the `hpcfs mount -f` that serves a
// background mount: the same flags, absolute paths (it runs in /).
func backgroundArgs(cmd *cobra.Command, source, other, mnt string, opts []string, debug bool) []string {
	args := []string{"--log-level", cmd.Flag("log-level").Value.String(),
		"--index-dir", cmd.Flag("index-dir").Value.String(),
		"--index-limit", cmd.Flag("index-limit").Value.String(),
		"--trace-window-limit", cmd.Flag("trace-window-limit").Value.String()}
	dirs, _ := cmd.Flags().GetStringArray("symbols")
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs // the background process runs in /
		}
		args = append(args, "--symbols", d)
	}
	args = append(args, "mount", "-f")
	if len(opts) > 0 {
		args = append(args, "-o", strings.Join(opts, ","))
	}
	if debug {
		args = append(args, "--debug")
	}
	if source != "" {
		if abs, err := filepath.Abs(source); err == nil {
			source = abs
		}
		args = append(args, source)
	}
	if other != "" {
		if abs, err := filepath.Abs(other); err == nil {
			other = abs
		}
		args = append(args, other)
	}
	if abs, err := filepath.Abs(mnt); err == nil {
		mnt = abs
	}
	return append(args, mnt)
}

func runMount(source, other, mnt string, opts []string, debug bool) error {
	// Signals are caught from the start (stopSignals): a SIGINT or SIGTERM
	// that arrives while the mount is being set up must not kill the
	// process with the mount left behind. It is acted on once the mount
	// call has returned.
	sig := stopSignals
	defer signal.Stop(sig)
	log.Debugf("starting the mount of %q at %s; SIGINT and SIGTERM are caught", source, mnt)

	mo, err := mountOptions(opts)
	if err != nil {
		return err
	}
	mo.Debug = mo.Debug || debug
	if err := checkMountpoint(mnt); err != nil {
		return err
	}
	src, cleanup, err := openInterruptibly(source, other, sig)
	if errors.Is(err, errInterrupted) {
		reportReady(0, "interrupted before mounting")
		return nil
	}
	if err != nil {
		return err
	}
	defer cleanup()
	mo.FsName = src.Path
	if source == "" {
		mo.FsName = "hpcfs-demo"
	}
	select {
	case s := <-sig:
		log.Infof("%v before mounting: nothing to unmount", s)
		reportReady(0, "interrupted before mounting")
		return nil
	default:
	}
	srv, err := fsnode.Mount(mnt, src.FS(), mo)
	if err != nil {
		return exitErr(exitMount, "mount %s: %v", mnt, err)
	}
	if err := srv.WaitMount(); err != nil {
		srv.Unmount()
		return exitErr(exitMount, "mount %s: %v", mnt, err)
	}
	what := src.Path
	if source == "" {
		what = "the demo trace (" + src.Path + ")"
	}
	log.Infof("mounted %s (%s %s) at %s; Ctrl-C or `hpcfs unmount %s` to stop", what, src.Format, src.Version, mnt, mnt)
	reportReady(0, "mounted")

	done := make(chan struct{})
	go func() { srv.Wait(); close(done) }()
	select {
	case s := <-sig:
		log.Infof("%v: unmounting %s", s, mnt)
		if err := srv.Unmount(); err != nil {
			log.Warnf("unmount: %v; trying a lazy unmount", err)
			lazyUnmount(mnt)
		}
		<-done
	case <-done:
		log.Infof("%s was unmounted", mnt)
	}
	return nil
}

var errInterrupted = errors.New("interrupted")

// openInterruptibly opens the source(s) while watching sig: a SIGINT or
// SIGTERM ends the command at once, whatever the opening waits for (a
// slow or hung file system); nothing is mounted yet.
func openInterruptibly(source, other string, sig chan os.Signal) (*vfs.Source, func(), error) {
	type opened struct {
		src     *vfs.Source
		cleanup func()
		err     error
	}
	done := make(chan opened, 1)
	go func() {
		src, cleanup, err := openSources(source, other)
		done <- opened{src, cleanup, err}
	}()
	select {
	case o := <-done:
		return o.src, o.cleanup, o.err
	case s := <-sig:
		log.Infof("%v while opening the source: nothing mounted", s)
		return nil, nil, errInterrupted
	}
}

// mountOptions checks the -o options and turns them into fsnode options;
// an error names the option.
func mountOptions(opts []string) (fsnode.Options, error) {
	mo := fsnode.Options{DirectMount: os.Geteuid() == 0}
	for _, o := range opts {
		name, _, _ := strings.Cut(o, "=")
		switch {
		case o == "ro" || o == "":
		case o == "rw":
			return mo, usageErr(errors.New("mount option rw: hpcfs mounts are read-only"))
		case o == "allow_other":
			mo.AllowOther = true
		case o == "debug":
			mo.Debug = true
		case o == "auto_unmount":
			log.Warn("ignoring mount option auto_unmount: hpcfs unmounts on SIGINT/SIGTERM")
		case ignoredOptions[o] || strings.HasPrefix(o, "x-") || strings.HasPrefix(o, "comment="):
			// fstab's options for mount(8) itself, not for the filesystem.
		case passedOptions[o] || valueOptions[name] && name != o:
			mo.Extra = append(mo.Extra, o)
		default:
			return mo, usageErr(fmt.Errorf("unknown mount option %q (hpcfs accepts ro, allow_other, allow_root, debug, "+
				"default_permissions, nodev, nosuid, noexec, noatime, fsname=, subtype=, max_read=)", o))
		}
	}
	return mo, nil
}

var (
	passedOptions = map[string]bool{"allow_root": true, "default_permissions": true, "nodev": true,
		"nosuid": true, "noexec": true, "noatime": true, "nodiratime": true, "relatime": true}
	valueOptions   = map[string]bool{"fsname": true, "subtype": true, "max_read": true}
	ignoredOptions = map[string]bool{"defaults": true, "auto": true, "noauto": true, "user": true,
		"users": true, "nouser": true, "nofail": true, "_netdev": true, "dev": true, "suid": true,
		"exec": true, "atime": true, "async": true, "sync": true}
)

// looksLikeSource reports whether the one argument of `hpcfs mount` is a
// source rather than a mountpoint: a file, or a directory hpcfs can read.
func looksLikeSource(path string) bool {
	if mounted(path) {
		return false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !fi.IsDir() {
		return true
	}
	_, _, err = formats.Detect(path)
	return err == nil
}

// checkMountpoint rejects a missing, non-directory, non-empty or busy
// mountpoint, and clears a stale hpcfs mount left by a killed server.
func checkMountpoint(mnt string) error {
	if _, err := clearStaleMount(mnt); err != nil {
		if errors.Is(err, errNoAnswer) {
			return exitErr(exitInUse, "mountpoint %s is an hpcfs mount whose server does not answer within %v; `fusermount3 -u -z %s` clears it", mnt, probeTimeout, mnt)
		}
		return exitErr(exitInUse, "mountpoint %s: %v; `fusermount3 -u -z %s` clears it", mnt, err, mnt)
	}
	if mounted(mnt) {
		return exitErr(exitInUse, "mountpoint %s is already in use by another mount", mnt)
	}
	fi, err := os.Stat(mnt)
	if err != nil {
		return exitErr(exitMountpoint, "mountpoint %s: %v", mnt, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return exitErr(exitMountpoint, "mountpoint %s is not a directory", mnt)
	}
	f, err := os.Open(mnt)
	if err != nil {
		return exitErr(exitMountpoint, "mountpoint %s: %v", mnt, errors.Unwrap(err))
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != io.EOF {
		return exitErr(exitMountpoint, "mountpoint %s is not empty", mnt)
	}
	return nil
}

func lazyUnmount(mnt string) error {
	if err := exec.Command("fusermount3", "-u", "-z", mnt).Run(); err == nil {
		return nil
	}
	return syscall.Unmount(mnt, syscall.MNT_DETACH)
}

func newUnmountCommand() *cobra.Command {
	var lazy bool
	cmd := &cobra.Command{
		Use:   "unmount [-z] MOUNTPOINT",
		Short: "Unmount an hpcfs mount (like fusermount3 -u)",
		Long: `Unmount an hpcfs mount, also one whose server was killed, is stopped or
hangs: nothing is asked of the server first (a question it does not answer would
keep the mount busy). A mount still in use (a shell's working folder, an open
file) stays; -z detaches it at once and it goes when the last user lets go.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			mnt := args[0]
			if !mounted(mnt) {
				return exitErr(exitMountpoint, "%s is not mounted", mnt)
			}
			if lazy {
				if err := lazyUnmount(mnt); err != nil {
					return exitErr(exitFailure, "lazy unmount %s: %v", mnt, err)
				}
				return nil
			}
			out, err := exec.Command("fusermount3", "-u", mnt).CombinedOutput()
			if err == nil {
				return nil
			}
			if err2 := syscall.Unmount(mnt, 0); err2 != nil {
				why := strings.TrimSpace(string(out))
				if why == "" {
					why = err2.Error()
				}
				return exitErr(exitInUse, "unmount %s: %s; `fusermount3 -u -z %s` (or `hpcfs unmount -z %s`) detaches it now and it goes when no longer in use",
					mnt, why, mnt, mnt)
			}
			return nil
		},
	}
	cmd.Flags().BoolVarP(&lazy, "lazy", "z", false, "detach the mount now, even when in use (like fusermount3 -u -z)")
	return cmd
}
