package main

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

const toolsUsage = `Usage:
  mcpcheck tools [--json] -- COMMAND ARGS...   a stdio server
  mcpcheck tools [--json] --url URL            a Streamable HTTP server
  mcpcheck tools [--json] --config FILE        the server a fixture names

Connects, lists what the server offers and calls nothing: each tool with
its arguments (name, type, required, allowed values, the first line of its
description), its annotations and whether it declares an output schema;
then its resources, resource templates and prompts. --json prints the
same as JSON, schemas as the server sent them (secrets redacted).

The target's flags are a run's: --env, --header, --protocol, --timeout,
--allow-tools (see mcpcheck --help).
`

// runTools is mcpcheck tools: a server's surface, discovered by a run
// that calls nothing (the runner's list mode).
func runTools(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := commandFlags("tools", toolsUsage, args, append(slices.Clone(targetFlags), "json"), stdout, stderr)
	if f == nil {
		return code
	}
	suite, opts, code := buildSuite(f, stderr)
	if suite == nil {
		return code
	}
	rep, err := runner.Discover(ctx, suite, opts)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck tools: %v\n", err)
	}
	// The listing, or with --json the JSON alone, on stdout or in FILE.
	rs, err := openJSON(f.jsonOut, stdout, stderr)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck tools: %v\n", err)
	}
	defer rs.jsonFile.Abort()
	out, write := rs.machine, report.ToolsJSON
	if out == nil {
		out, write = stdout, report.Tools
	}
	err = write(out, rep)
	if err == nil && rs.jsonFile != nil {
		err = rs.jsonFile.Commit()
	}
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck tools: %v\n", err)
	}
	if rep.Surface == nil {
		// Connecting or discovery failed: nothing to list.
		if f.jsonOut != "" && rep.Failure != nil {
			fmt.Fprintf(stderr, "mcpcheck tools: %s: %s\n", rep.Failure.Stage, rep.Failure.Message)
		}
		return exitFail
	}
	return exitPass
}
