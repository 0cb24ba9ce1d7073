package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
)

// Exit codes, as README's "Exit status" paragraph states them: every
// check passed; a check failed; bad command line, fixture, credential or
// file.
const (
	exitPass    = 0
	exitFail    = 1
	exitBadArgs = 2
)

// stdin is the demo server's input; tests replace it.
var stdin io.Reader = os.Stdin

// runOptions lets tests reach into a run (in-memory transports, the self
// command); nil in production.
var runOptions *runner.Options

const usage = `Usage:
  mcpcheck --config FILE [flags]            run a fixture against an MCP server
  mcpcheck [flags] -- COMMAND ARGS...       quick check: generated checks against a stdio server
  mcpcheck [flags] --url URL [--header K=V] quick check against a Streamable HTTP server
  mcpcheck init [-o FILE] -- COMMAND... | --url URL
                                            write a starter fixture that passes
  mcpcheck tools [--json] TARGET            list a server's tools, resources and prompts
                                            (TARGET: --config FILE, -- COMMAND..., --url URL)
  mcpcheck load --config FILE [--vus N | --rate R] [--duration D] [--threshold RULE]...
                                            repeat the scenarios and measure (mcpcheck load --help)
  mcpcheck demo [flags]                     serve the built-in demo MCP server
  mcpcheck merge REPORT.json... [--json OUT] merge the reports of --shard or --segment runs
  mcpcheck snapshot [--out FILE] --config FILE | -- COMMAND... | --url URL
                                            write the server's contract (calls nothing)
  mcpcheck diff OLD.json NEW.json [--json [FILE]] [--fail-on S]
                                            classify the drift between two contracts
  mcpcheck record --out FIXTURE.yaml -- COMMAND... | --url URL --listen ADDR
                                            record a real client's session as a fixture
  mcpcheck schema [fixture|report|contract|expected-failures]
                                            print a JSON Schema (for editors)
  mcpcheck version                          print the version, module and VCS revision
  mcpcheck help                             show this help

Flags for a run:
  --config FILE       the fixture to run (YAML or JSON); repeatable, and a
                      directory means every *.yaml, *.yml and *.json in it
  --jobs-suites N     suites run at once (default 1: one after another)
  --json [FILE]       also write the JSON report to FILE; "-", or no FILE,
                      puts the JSON alone on stdout and the human report
                      on stderr
  --url URL           run against this Streamable HTTP endpoint instead of
                      the fixture's command or endpoint
  --sse               speak the legacy HTTP+SSE transport to the endpoint
                      (--url is then the URL of its event stream)
  --protocol VERSION  protocol version to pin (default: the fixture's, else
                      2025-11-25; also 2026-07-28); give it twice to run
                      the suite under both and list the divergences
  --jobs N            scenarios in flight at once, 1..16 (default: the
                      fixture's concurrency; 4 in quick mode)
  --timeout DURATION  time limit of each request, e.g. 5s, or a number of
                      milliseconds (default: the fixture's timeoutMs; 15s
                      in quick mode)
  --max-message-bytes N
                      the largest message taken from the server (a line,
                      an SSE event, a response body; default 4194304): a
                      larger one ends its call as oversized_response
  --trace FILE        write one JSON line per call, arguments included
                      (secrets redacted)
  --tag T             run only the scenarios tagged T (repeatable: any of)
  --skip-tag T        leave out the scenarios tagged T (repeatable)
  --run REGEX         run only the scenarios whose name, or "scenario/step"
                      for one of their steps, matches (RE2); scenarios left
                      out are reported skipped, "not selected"
  --shard K/N         run only shard K of N of the selected scenarios (a
                      stable split, balanced by steps; generated checks
                      split by tool); mcpcheck merge joins the reports
  --expected-failures FILE
                      known failures (a YAML list of {scenario, step?,
                      reason?}; also the fixture's expectedFailures): listed
                      failures do not fail the run, a listed entry that now
                      passes does (stale baseline)
  --update-expected-failures
                      rewrite that file from this run, keeping the reasons
  --junit FILE        also write a JUnit XML report (a test suite per
                      scenario, a test case per step; scores too)
  --summary FILE      also write a Markdown summary (default, when
                      GITHUB_STEP_SUMMARY is set: append it there)
  --html FILE         also write the report as one self-contained HTML page
  --list              print the steps that would run, call nothing
  --keep-tmp          keep the ${tmp} scratch directories (printed) instead
                      of removing them when the run ends
  --contract FILE     compare the live server with this contract file
                      (mcpcheck snapshot) and list the drift
  --fail-on SEVERITY  the least drift that fails: breaking (default),
                      risky, compatible or none
  --update            rewrite the contract file and the golden answers
                      (expect.snapshot) from the live server instead of
                      failing on them; unused answers are removed
  --quiet             list failing steps only
  --no-color          never colour the output (also: NO_COLOR=1)
  -v                  under each failed step, the request it sent and the
                      answer it got (indented JSON, redacted, long values
                      cut); the JSON report then carries them too
  -vv                 the same for every step
  --last-failed       run only the scenarios that failed in the last run
                      (.mcpcheck/last-run.json beside the fixture, which
                      every run of a fixture writes); none: run everything
  --retries N         run a failed scenario again, on a fresh session, up
                      to N times, 0..10 (default: the fixture's retries,
                      else 0); one that then passes is flaky. Reaches only
                      scenarios whose tools are all annotated read-only,
                      unless a scenario sets retries itself
  --fail-on-flaky     a flaky scenario fails the run (default: exit 0)
  -x, --fail-fast     start no scenario once one has failed; the rest are
                      reported not run
  --watch             run again each time a fixture or a file it names
                      (contract, golden answers, expected failures)
                      changes, until Ctrl-C (exit 130)
  --watch-path PATH   also watch PATH, a file or a directory (repeatable)
  --version           print the version and exit

Generated checks (quick mode, or a fixture's generate block):
  --env K=V                  a variable for the stdio server (repeatable)
  --header K=V               a header for the --url server (repeatable)
  --allow-tools a,b          generate only against these tools
  --root DIR                 offer DIR as a client root (repeatable): the
                             server may ask for it, and generated paths
                             use it and its files
  --include-destructive      also call tools not annotated readOnlyHint: true,
                             and run the lifecycle check
  --no-offered-inputs        do not call the argument-free read-only tools
                             first for ids, folders and URIs to use as input
  --concurrency N            also call each tool on N connections at once
  --no-protocol-probes       do not send the protocol probes (raw JSON-RPC
                             the server's MCP layer must survive); on by
                             default in quick mode
  --no-behaviour             do not verify the tools' annotations by observing
                             state (read-only tools by default; the others
                             with --include-destructive)
  --fuzz-cases N             at most N bad-input cases per tool (default 30)
  --seed N                   seed of the generated inputs (default 0)
  --slow-threshold-ms N      latency flag above N ms (default 5000), or above
                             3x the tools' median and 100 ms (with 3+ tools)
  --bloat-threshold-chars N  size flag above N characters (default 20000), or
                             above 3x the median and 1,000 (with 3+ tools)
  --price-model NAME         price the token estimate at NAME's input price
  --fail-under N             fail when crash resilience is below N %
  --fail-under-schema-enforcement N, --fail-under-fidelity N,
  --fail-under-latency N, --fail-under-response-size N,
  --fail-under-concurrency N, --fail-under-lifecycle N,
  --fail-under-protocol N, --fail-under-behaviour N
                             the same for the other scores

Settings may also come from the environment: MCPCHECK_URL,
MCPCHECK_PROTOCOL_VERSION, MCPCHECK_TIMEOUT_MS, MCPCHECK_CONCURRENCY, ...
(flags win over the environment, the environment over the fixture).

Exit status: 0 every check passed, 1 a check failed, 2 bad command line,
fixture or credentials, 130/143 interrupted by SIGINT/SIGTERM (reports of
what ran are written; a second signal stops at once).
`

// run is the whole command: it parses args, runs, writes reports and
// returns the exit code. It never panics on bad input.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "demo":
			signalEnds(ctx) // a server: a signal is how it is stopped
			return demo.Run(ctx, args[1:], stdin, stdout, stderr)
		case "merge":
			return mergeReports(args[1:], stdout, stderr)
		case "tools":
			return runTools(ctx, args[1:], stdout, stderr)
		case "init":
			return runInit(ctx, args[1:], stdout, stderr)
		case "load":
			return runLoad(ctx, args[1:], stdout, stderr)
		case "help":
			fmt.Fprint(stdout, usage)
			return exitPass
		case "snapshot":
			return snapshot(ctx, args[1:], stdout, stderr)
		case "diff":
			return diffContracts(args[1:], stdout, stderr)
		case "record":
			return recordSession(ctx, args[1:], stdout, stderr)
		case "schema":
			return runSchema(args[1:], stdout, stderr)
		case "version":
			return runVersion(args[1:], stdout, stderr)
		}
		if w := args[0]; w != "" && w[0] != '-' {
			return badWord(args, stderr)
		}
	}
	return runSuite(ctx, args, stdout, stderr)
}

// subcommands are the words mcpcheck takes before its flags.
var subcommands = []string{"demo", "init", "tools", "load", "merge", "snapshot", "diff", "record", "help", "schema", "version"}

// badWord refuses a word that is not a subcommand (args[0]): a server to
// check is given after --, so that a typo or an unknown subcommand is never
// run as one. The hint says what the word most likely meant: a fixture
// file is run with --config, a run needs no "run" word, a close
// subcommand is named, anything else may be a server.
func badWord(args []string, stderr io.Writer) int {
	w := args[0]
	hint := "a server to check goes after --: mcpcheck [flags] -- " + w + " ..."
	if sug := config.Suggest(w, subcommands); sug != "" {
		hint = "did you mean " + sug + "?"
	}
	if fixtureFile(w) {
		hint = "to run the fixture, give it with --config: mcpcheck --config " + w
	} else if w == "run" && len(args) > 1 && strings.HasPrefix(args[1], "-") {
		hint = "a run needs no word: mcpcheck " + strings.Join(args[1:], " ")
	}
	return fail(stderr, exitBadArgs, "mcpcheck: unknown command %q; %s (see mcpcheck --help)\n", w, hint)
}

// fixtureFile reports whether w names a fixture: a YAML or JSON file, or
// a directory of them, that exists.
func fixtureFile(w string) bool {
	st, err := os.Stat(w)
	if err != nil {
		return false
	}
	if st.IsDir() {
		return true
	}
	switch strings.ToLower(filepath.Ext(w)) {
	case ".yaml", ".yml", ".json":
		return st.Mode().IsRegular()
	}
	return false
}

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, code := commandFlags("", usage, args, nil, stdout, stderr)
	if f == nil {
		return code
	}
	if f.version {
		fmt.Fprintf(stdout, "mcpcheck %s\n", runner.Version)
		return exitPass
	}
	if f.watch {
		return watch(ctx, f, stdout, stderr)
	}
	return runOnce(ctx, f, stdout, stderr)
}

// runOnce is one run of the suites f names (runSuite; each run of
// --watch).
func runOnce(ctx context.Context, f *flags, stdout, stderr io.Writer) int {
	suites, opts, code := buildSuites(f, stderr)
	if suites == nil {
		return code
	}
	baselines, err := loadBaselines(f, suites)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck: %s\n", err)
	}
	opts.KeepTmp = f.keepTmp
	opts.Update = f.update
	if f.set["tag"] || f.set["skip-tag"] || f.set["run"] || f.set["shard"] {
		opts.Select = &f.sel
		if err := selectsSomething(&f.sel, suites); err != nil {
			return fail(stderr, exitBadArgs, "mcpcheck: %v\n", err)
		}
	}
	extras, err := loopOptions(f, suites, &opts)
	if err != nil {
		return fail(stderr, exitBadArgs, "mcpcheck: %v\n", err)
	}
	return runSuites(ctx, f, suites, baselines, extras, opts, stdout, stderr)
}

// buildSuites is the suites a command line names, the fixtures of
// --config with the flags' settings or quick mode's target, and the run's
// options. On bad input it writes the error and returns no suite and the
// exit code.
func buildSuites(f *flags, stderr io.Writer) ([]*config.Suite, runner.Options, int) {
	var opts runner.Options
	if runOptions != nil {
		opts = *runOptions
	}
	opts.Protocols = f.protocols
	switch {
	case len(f.configs) > 0 && len(f.command) > 0:
		fmt.Fprintf(stderr, "mcpcheck: give --config FILE or -- COMMAND, not both (see mcpcheck --help)\n")
	case len(f.configs) > 0:
		suites, err := loadFixtures(f, &opts)
		if err == nil {
			return suites, opts, exitPass
		}
		fmt.Fprintf(stderr, "mcpcheck: %s\n", settingError(err))
	case len(f.command) > 0 || f.set["url"]:
		setGCPolicy("")
		suite, err := quickSuite(f, &opts)
		if err == nil {
			return []*config.Suite{suite}, opts, exitPass
		}
		fmt.Fprintf(stderr, "mcpcheck: %s\n", settingError(err))
	default:
		fmt.Fprintf(stderr, "mcpcheck: give --config FILE, or -- COMMAND ARGS... / --url URL for a quick check (see mcpcheck --help)\n")
	}
	return nil, opts, exitBadArgs
}

// buildSuite is buildSuites for one suite (mcpcheck tools).
func buildSuite(f *flags, stderr io.Writer) (*config.Suite, runner.Options, int) {
	suites, opts, code := buildSuites(f, stderr)
	switch {
	case suites == nil:
		return nil, opts, code
	case len(suites) > 1:
		return nil, opts, fail(stderr, exitBadArgs, "mcpcheck: give one fixture, not %d\n", len(suites))
	}
	return suites[0], opts, exitPass
}
