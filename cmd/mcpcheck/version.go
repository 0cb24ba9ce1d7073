package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"github.com/mcpcheck/mcpcheck/runner"
)

// readBuildInfo is runtime/debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

// runVersion prints what this binary is, for a bug report: mcpcheck's
// version, the module version it was installed at (`go install
// …@v0.1.0`, or "(devel)" for a build from a checkout), the VCS revision
// and time it was built from and whether the tree had changes, and the Go
// version. --version prints the first line only.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return fail(stderr, exitBadArgs, "mcpcheck: version takes no arguments, got %q\n", args[0])
	}
	fmt.Fprintf(stdout, "mcpcheck %s\n", runner.Version)
	bi, ok := readBuildInfo()
	if !ok {
		fmt.Fprintln(stdout, "no build information (not built with module support)")
		return exitPass
	}
	fmt.Fprintf(stdout, "module   %s %s\n", bi.Main.Path, bi.Main.Version)
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += " (modified)"
		}
		fmt.Fprintf(stdout, "revision %s\n", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(stdout, "commit   %s\n", t)
		}
	} else {
		fmt.Fprintln(stdout, "revision unknown (built without VCS information)")
	}
	fmt.Fprintf(stdout, "go       %s\n", bi.GoVersion)
	return exitPass
}
