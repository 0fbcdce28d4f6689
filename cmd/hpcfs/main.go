// Command hpcfs mounts HPC performance data (HPCToolkit databases and
// hpcrun profiles, DCPI profiles, ovni traces, webgrind files) read-only
// as generated text and CSV files, and serves the same bytes without FUSE
// through ls, cat, info and export.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	log "github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/hpcfs/hpcfs/internal/symbols"
	"github.com/hpcfs/hpcfs/render"
	"github.com/hpcfs/hpcfs/render/interchange"
)

// stopSignals holds SIGINT and SIGTERM from the moment the package is
// initialised, before main runs: `hpcfs mount` acts on one that arrives
// while it starts (exit 0, no mount left behind); every other command
// lets them take their default effect, re-raising one that came early.
var stopSignals = func() chan os.Signal {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	return c
}()

func releaseSignals() {
	signal.Stop(stopSignals)
	select {
	case s := <-stopSignals:
		signal.Reset(s)
		syscall.Kill(os.Getpid(), s.(syscall.Signal))
	default:
	}
}

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		go followLiveHeap()
	}
	openReadyPipe()
	log.SetOutput(os.Stderr)
	log.SetFormatter(&log.TextFormatter{DisableTimestamp: readyPipe == nil, FullTimestamp: true})
	root := newRootCommand()
	commands := map[string]bool{"help": true, "completion": true}
	for _, c := range root.Commands() {
		commands[c.Name()] = true
	}
	os.Args = helperArgs(os.Args, commands)
	root.SetArgs(os.Args[1:])
	if err := root.Execute(); err != nil {
		var ee *exitError
		code := exitUsage
		if errors.As(err, &ee) {
			code, err = ee.code, ee.err
		}
		fmt.Fprintln(os.Stderr, "hpcfs:", err)
		reportReady(code, err.Error())
		os.Exit(code)
	}
}

// viewOptions are the flags' settings for the views of the source opened
// (openSource gives them to it).
var viewOptions render.Options

func newRootCommand() *cobra.Command {
	var level, indexDir, cpuProfile string
	var windowLimit, indexLimit int64
	var symbolDirs []string
	root := &cobra.Command{
		Use:           "hpcfs",
		Short:         "Mount HPC performance data as text and CSV files",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Name() != "mount" {
				releaseSignals()
			}
			lv, err := log.ParseLevel(level)
			if err != nil {
				return usageErr(err)
			}
			log.SetLevel(lv)
			viewOptions = render.Options{IndexDir: indexDir, IndexLimit: max(indexLimit, 1), WindowLimit: max(windowLimit, 1),
				SymbolDirs: append(symbolDirs, symbols.EnvDirs()...)}
			interchange.SpillDir = indexDir // large profile trees go beside the index, not to a /tmp in memory
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return usageErr(err)
				}
				pprof.StartCPUProfile(f)
			}
			return nil
		},
		PersistentPostRun: func(cmd *cobra.Command, args []string) {
			pprof.StopCPUProfile()
		},
	}
	root.PersistentFlags().StringVar(&level, "log-level", "info", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the command to this file (for performance work)")
	root.PersistentFlags().StringVar(&indexDir, "index-dir", render.DefaultIndexDir(), "where sizes and checkpoints of large views are kept between mounts (\"\" to keep none)")
	root.PersistentFlags().Int64Var(&indexLimit, "index-limit", render.DefaultIndexLimit, "bytes: the most the files kept in the index folder may take (past it the oldest are removed)")
	root.PersistentFlags().StringArrayVar(&symbolDirs, "symbols", nil, "a folder to look for binaries in by base name when they are not at the path a profile records (repeatable; also $HPCFS_SYMBOLS, colon-separated)")
	root.PersistentFlags().Int64Var(&windowLimit, "trace-window-limit", interchange.DefaultWindowLimit, "bytes: a trace.json larger than this is also split into trace/window-<k>.json, each aimed below it")
	root.AddCommand(newMountCommand(), newUnmountCommand(), newLsCommand(), newCatCommand(),
		newInfoCommand(), newExportCommand(), newFormatsCommand(), newInstallHelperCommand())
	return root
}
