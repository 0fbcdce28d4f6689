package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/hpcfs/hpcfs/internal/vfs"
)

func cleanTreePath(p string) string {
	p = path.Clean("/" + p)
	if p == "/" {
		return "."
	}
	return strings.TrimPrefix(p, "/")
}

func treeErr(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return &exitError{exitNotFound, err}
	}
	return &exitError{exitFailure, err}
}

// withSource opens args[0] as a source for a command's run and closes it
// afterwards.
func withSource(run func(cmd *cobra.Command, args []string, src *vfs.Source) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		src, cleanup, err := openSource(args[0])
		if err != nil {
			return err
		}
		defer cleanup()
		return run(cmd, args, src)
	}
}

func newLsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "ls SOURCE [PATH]",
		Short: "List a directory of the tree SOURCE mounts as, with sizes",
		Args:  cobra.RangeArgs(1, 2),
		RunE: withSource(func(cmd *cobra.Command, args []string, src *vfs.Source) error {
			p := "."
			if len(args) == 2 {
				p = cleanTreePath(args[1])
			}
			fsys := src.FS()
			info, err := fs.Stat(fsys, p)
			if err != nil {
				return treeErr(err)
			}
			out := cmd.OutOrStdout()
			if !info.IsDir() {
				fmt.Fprintf(out, "%12d  %s\n", info.Size(), info.Name())
				return nil
			}
			des, err := fs.ReadDir(fsys, p)
			if err != nil {
				return treeErr(err)
			}
			for _, de := range des {
				if de.IsDir() {
					fmt.Fprintf(out, "%12s  %s/\n", "-", de.Name())
					continue
				}
				fi, err := de.Info()
				if err != nil {
					return treeErr(err)
				}
				fmt.Fprintf(out, "%12d  %s\n", fi.Size(), de.Name())
			}
			return nil
		}),
	}
}

func newCatCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "cat SOURCE PATH",
		Short: "Print a file of the tree SOURCE mounts as (the same bytes as the mount)",
		Args:  cobra.ExactArgs(2),
		RunE: withSource(func(cmd *cobra.Command, args []string, src *vfs.Source) error {
			p := cleanTreePath(args[1])
			f, err := src.FS().Open(p)
			if err != nil {
				return treeErr(err)
			}
			defer f.Close()
			if fi, err := f.Stat(); err == nil && fi.IsDir() {
				src := args[0]
				if src == "" {
					src = `""` // the demo
				}
				return exitErr(exitFailure, "%s is a directory (`hpcfs ls %s %s` lists it)", args[1], src, p)
			}
			if _, err := io.Copy(cmd.OutOrStdout(), f.(io.Reader)); err != nil {
				return treeErr(err)
			}
			return nil
		}),
	}
}

func newInfoCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "info SOURCE",
		Short: "Say what SOURCE is: format, version and counts",
		Args:  cobra.ExactArgs(1),
		RunE: withSource(func(cmd *cobra.Command, args []string, src *vfs.Source) error {
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "source: %s\nformat: %s\nversion: %s\ndetected: %s\n", src.Path, src.Format, src.Version, src.Summary)
			for _, f := range src.Info {
				fmt.Fprintf(out, "%s: %s\n", f.Key, f.Value)
			}
			return nil
		}),
	}
}

func newExportCommand() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "export [--force] SOURCE DIR",
		Short: "Write the whole tree of SOURCE (without raw/) into DIR as ordinary files",
		Long: `Write the whole tree of SOURCE (without raw/) into DIR as ordinary files.
A view that fails is left out (no partial file) and export goes on; _errors.txt
is written last, so it holds what rendering the views found. The exit status is
non-zero when a view failed, and each failure is named. DIR must be new or
empty, so that no file of an earlier export is mistaken for part of this one;
--force writes into a folder that is not (files of the same name are
replaced, others stay).`,
		Args: cobra.ExactArgs(2),
		RunE: withSource(func(cmd *cobra.Command, args []string, src *vfs.Source) error {
			if !force {
				if err := emptyOrNew(args[1]); err != nil {
					return err
				}
			}
			return export(src.FS(), args[1])
		}),
	}
	cmd.Flags().BoolVar(&force, "force", false, "export into a folder that is not empty")
	return cmd
}

// emptyOrNew accepts a folder that does not exist yet or is empty.
func emptyOrNew(dir string) error {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return exitErr(exitFailure, "export: %v", err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		return exitErr(exitFailure, "export: %s is not a directory", dir)
	case err == nil && len(names) > 0:
		return exitErr(exitFailure, "export: %s is not empty (it holds %s); export into a new folder, or add --force", dir, names[0])
	}
	return nil
}

// export writes fsys (without raw/) under dir. Every _errors.txt is
// written after all other files, so that it holds the problems their
// rendering found; a failing view is named and left out, and the walk
// goes on.
func export(fsys fs.FS, dir string) error {
	var failed, errorLists []string
	fail := func(p string, err error) {
		failed = append(failed, fmt.Sprintf("%s: %v", p, err))
	}
	fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			fail(p, err)
		case p == "raw":
			return fs.SkipDir
		case d.IsDir():
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(p)), 0o755); err != nil {
				fail(p, err)
				return fs.SkipDir
			}
		case d.Name() == "_errors.txt":
			errorLists = append(errorLists, p)
		default:
			if err := exportFile(fsys, p, dir); err != nil {
				fail(p, err)
			}
		}
		return nil
	})
	for _, p := range errorLists {
		if err := exportFile(fsys, p, dir); err != nil {
			fail(p, err)
		}
	}
	if len(failed) > 0 {
		return exitErr(exitFailure, "export: %d of the views failed and were not written:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return nil
}

// exportFile copies the view p of fsys under dir; a view that cannot be
// read to its end leaves no file behind.
func exportFile(fsys fs.FS, p, dir string) error {
	in, err := fsys.Open(p)
	if err != nil {
		return err
	}
	defer in.Close()
	dst := filepath.Join(dir, filepath.FromSlash(p))
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst)
	}
	return err
}
