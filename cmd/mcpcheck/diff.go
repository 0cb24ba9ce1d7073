package main

import (
	"flag"
	"io"
	"slices"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/fileio"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

const diffUsage = `Usage: mcpcheck diff OLD.json NEW.json [--json [FILE]] [--junit FILE] [--summary FILE]
                     [--html FILE] [--fail-on SEVERITY] [--quiet] [--no-color]

Compares two contract files written by mcpcheck snapshot, calling nothing,
and lists every change with its severity: breaking (a client that worked
may now fail), risky (what an agent reads changed: descriptions, titles,
openWorldHint), compatible, or info (server version, instructions). Input
schemas and output schemas are judged oppositely: a property added to an
input breaks clients when it is required, one added to an output never
does; a removed output property always does.

The report files are a run's: --json (drift: [...], summary.drift),
--junit (a testcase per change, failing at or above --fail-on), --summary
(Markdown, also $GITHUB_STEP_SUMMARY) and --html.

Exit status: 0 no change at or above --fail-on (breaking by default;
risky, compatible, none), 1 there is one, 2 bad command line or a file
that is not a contract.
`

// diffContracts is "mcpcheck diff OLD NEW".
func diffContracts(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpcheck diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	jsonOut := fs.String("json", "", "")
	failOn := fs.String("fail-on", string(config.DefaultFailOn), "")
	quiet := fs.Bool("quiet", false, "")
	noColor := fs.Bool("no-color", false, "")
	var files0 flags // the CI report files, as a run takes them
	fs.StringVar(&files0.junit, "junit", "", "")
	fs.StringVar(&files0.summary, "summary", "", "")
	fs.StringVar(&files0.html, "html", "", "")
	files, code := parseInterleaved(fs, diffUsage, jsonDefault(args), stdout, stderr)
	if files == nil {
		return code
	}
	if len(files) != 2 {
		return fail(stderr, exitBadArgs, "mcpcheck diff: give two contract files, OLD and NEW (got %d; see mcpcheck diff --help)\n", len(files))
	}
	if !slices.Contains(config.FailOns, config.FailOn(*failOn)) {
		return fail(stderr, exitBadArgs, "mcpcheck diff: --fail-on must be one of %s, got %q\n", config.Join(config.FailOns, ", "), *failOn)
	}
	var data [2][]byte
	for i, name := range files {
		b, err := fileio.ReadJSONFile(name)
		if err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck diff: %s\n", safetext.Sanitize(err.Error()))
		}
		data[i] = b
	}
	rep, err := runner.DiffContracts(files[0], data[0], files[1], data[1], config.FailOn(*failOn))
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck diff: %s\n", safetext.Sanitize(err.Error()))
	}
	outs := outputsOf(&files0)
	if err := openOutputs(outs); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck diff: %v\n", err)
	}
	defer closeOutputs(outs)
	rs, err := openJSON(*jsonOut, stdout, stderr)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck diff: %v\n", err)
	}
	defer rs.jsonFile.Abort()
	if err := report.Text(rs.human, rep, report.TextOptions{Color: useColor(rs.human, *noColor), Quiet: *quiet, NoDurations: true}); err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck diff: writing the report: %v\n", err)
	}
	if c := writeReports("mcpcheck diff", &files0, []*report.Report{rep}, false, rs, outs, stderr); c != exitPass {
		return c
	}
	if !rep.Passed {
		return exitFail
	}
	return exitPass
}
