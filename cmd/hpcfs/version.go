package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hpcfs/hpcfs/formats"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the module and VCS data Go records.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v = strings.TrimSpace(v + " commit " + rev + dirty)
	} else {
		v += " commit unknown (built without VCS information: go run, go test, -buildvcs=false," +
			" or a git worktree; `go build -buildvcs=true ./cmd/hpcfs` in a clone records it)"
	}
	return v + " (" + bi.GoVersion + ")"
}

func newFormatsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "formats",
		Short: "List the formats and versions hpcfs reads",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			w := cmd.OutOrStdout()
			for _, f := range formats.All {
				fmt.Fprintf(w, "%-10s %s\n", f.Name, f.Supports)
			}
			fmt.Fprintln(w, "\nA folder is scanned for these, subfolders included; README.txt of the mount lists what was not mounted and why.")
			return nil
		},
	}
}
