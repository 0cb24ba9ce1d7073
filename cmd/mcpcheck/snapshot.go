package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

const snapshotUsage = `Usage:
  mcpcheck snapshot --config FILE [--out CONTRACT.json]
  mcpcheck snapshot [--out CONTRACT.json] [--env K=V] -- COMMAND ARGS...
  mcpcheck snapshot [--out CONTRACT.json] [--header K=V] --url URL

Connects, discovers everything the server offers (tools, resources,
resource templates, prompts, capabilities, server info, the negotiated
protocol), calls nothing, and writes the server's contract as JSON: keys
sorted, lists in a stable order, annotation hints with the spec's defaults
written out, so the file changes only when the surface does. Commit it,
then compare with mcpcheck diff OLD NEW, or name it in a fixture's
contract: key (or --contract FILE) to check the live server on every run.

Without --out the contract goes to stdout. The run's flags that reach the
server (--protocol, --timeout, --sse, --env, --header) apply.
`

// snapshot is "mcpcheck snapshot": it writes the contract of the server a
// fixture or a quick check's target names.
func snapshot(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out, rest, err := cutOut(args)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck snapshot: %v (see mcpcheck snapshot --help)\n", err)
	}
	f, code := commandFlags("snapshot", snapshotUsage, rest, targetFlags, stdout, stderr)
	if f == nil {
		return code
	}
	suite, opts, code := buildSuite(f, stderr)
	if suite == nil {
		return code
	}
	suite.Contract = ""
	// Start the file first, so a bad path fails before connecting. It is
	// a temporary file until the contract is written whole: a snapshot
	// that fails or is interrupted leaves the previous contract.
	var file *fileio.Pending
	w := io.Writer(stdout)
	if out != "" && out != "-" {
		if file, err = createFile("--out", out); err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck snapshot: %v\n", err)
		}
		defer file.Abort()
		w = file
	}
	rep, err := runner.Snapshot(ctx, suite, opts)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck snapshot: %v\n", err)
	}
	if rep.Failure != nil || rep.Contract == nil {
		msg := "no contract"
		if rep.Failure != nil {
			msg = string(rep.Failure.Stage) + ": " + rep.Failure.Message
		}
		fmt.Fprintf(stderr, "mcpcheck snapshot: %s\n", msg)
		for _, l := range rep.ServerStderr {
			fmt.Fprintf(stderr, "  | %s\n", l)
		}
		if file != nil {
			fmt.Fprintf(stderr, "mcpcheck snapshot: %s is unchanged\n", out)
		}
		return exitFail
	}
	if _, err := w.Write(rep.Contract); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck snapshot: writing the contract: %v\n", err)
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck snapshot: %v\n", err)
		}
		fmt.Fprintf(stderr, "wrote the contract of %s to %s: %d tools, %d resources, %d resource templates, %d prompts\n",
			serverName(rep), out, len(rep.ToolsDiscovered), len(rep.ResourcesDiscovered), len(rep.ResourceTemplatesDiscovered), len(rep.PromptsDiscovered))
	}
	return exitPass
}

func serverName(rep *report.Report) string {
	if rep.Server == nil || rep.Server.Name == "" {
		return "the server"
	}
	return rep.Server.Name + " " + rep.Server.Version
}

// cutOut takes --out FILE (or --out=FILE) from the flags before "--".
func cutOut(args []string) (out string, rest []string, err error) {
	for k := 0; k < len(args); k++ {
		a := args[k]
		if a == "--" {
			return out, append(rest, args[k:]...), nil
		}
		switch {
		case a == "--out" || a == "-out":
			if k+1 == len(args) || args[k+1] == "--" || strings.HasPrefix(args[k+1], "-") && args[k+1] != "-" {
				return "", nil, errors.New("--out needs a file")
			}
			out = args[k+1]
			k++
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-out="):
			out = a[strings.Index(a, "=")+1:]
			if out == "" {
				return "", nil, errors.New("--out needs a file")
			}
		default:
			rest = append(rest, a)
		}
	}
	return out, rest, nil
}
