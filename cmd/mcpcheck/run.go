package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// Exit codes (DESIGN.md): every check passed; a check failed; bad input.
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
  mcpcheck --config FILE [flags]     run a fixture against an MCP server
  mcpcheck demo [flags]              serve the built-in demo MCP server
  mcpcheck help                      show this help

Flags for a run:
  --config FILE       the fixture to run (YAML or JSON)
  --json FILE         also write the JSON report to FILE; "-" puts the JSON
                      alone on stdout and the human report on stderr
  --url URL           run against this Streamable HTTP endpoint instead of
                      the fixture's command or endpoint
  --protocol VERSION  protocol version to pin (default: the fixture's, else
                      2025-11-25; also 2026-07-28); give it twice to run
                      the suite under both and list the divergences
  --jobs N            scenarios in flight at once, 1..16 (default: the
                      fixture's concurrency)
  --timeout DURATION  time limit of each request, e.g. 5s (default: the
                      fixture's timeoutMs)
  --quiet             list failing steps only
  --no-color          never colour the output (also: NO_COLOR=1)
  --version           print the version and exit

Settings may also come from the environment: MCPCHECK_URL,
MCPCHECK_PROTOCOL_VERSION, MCPCHECK_TIMEOUT_MS, MCPCHECK_CONCURRENCY, ...
(flags win over the environment, the environment over the fixture).

Exit status: 0 every check passed, 1 a check failed, 2 bad command line,
fixture or credentials.
`

// run is the whole command: it parses args, runs, writes reports and
// returns the exit code. It never panics on bad input.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "demo":
			return demo.Run(ctx, args[1:], stdin, stdout, stderr)
		case "help":
			fmt.Fprint(stdout, usage)
			return exitPass
		}
	}
	return runSuite(ctx, args, stdout, stderr)
}

func runSuite(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcpcheck", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		cfgPath   = fs.String("config", "", "")
		jsonOut   = fs.String("json", "", "")
		url       = fs.String("url", "", "")
		protocols []string
		jobs      = fs.Int("jobs", 0, "")
		timeout   = fs.Duration("timeout", 0, "")
		quiet     = fs.Bool("quiet", false, "")
		noColor   = fs.Bool("no-color", false, "")
		version   = fs.Bool("version", false, "")
	)
	fs.Func("protocol", "", func(v string) error {
		if !slices.Contains(config.SupportedProtocolVersions, v) {
			return fmt.Errorf("unsupported protocol version %q (supported: %s)", v, strings.Join(config.SupportedProtocolVersions, ", "))
		}
		if !slices.Contains(protocols, v) {
			protocols = append(protocols, v)
		}
		return nil
	})
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return exitPass
		}
		fmt.Fprintf(stderr, "mcpcheck: %v\n\n%s", err, usage)
		return exitBadArgs
	}
	if *version {
		fmt.Fprintf(stdout, "mcpcheck %s\n", runner.Version)
		return exitPass
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpcheck: unexpected argument %q\n\n%s", fs.Arg(0), usage)
		return exitBadArgs
	}
	if *cfgPath == "" {
		fmt.Fprintf(stderr, "mcpcheck: --config FILE is required\n\n%s", usage)
		return exitBadArgs
	}
	if *timeout < 0 || (*timeout > 0 && *timeout < time.Millisecond) || *timeout > config.MaxTimeoutMs*time.Millisecond {
		fmt.Fprintf(stderr, "mcpcheck: --timeout must be between 1ms and 24h, got %s\n", *timeout)
		return exitBadArgs
	}
	if *jobs != 0 && (*jobs < 1 || *jobs > config.MaxConcurrency) {
		fmt.Fprintf(stderr, "mcpcheck: --jobs must be 1..%d, got %d\n", config.MaxConcurrency, *jobs)
		return exitBadArgs
	}
	var opts runner.Options
	if runOptions != nil {
		opts = *runOptions
	}
	opts.Protocols = protocols
	firstProtocol := ""
	if len(protocols) > 0 {
		firstProtocol = protocols[0]
	}
	suite, err := config.Load(*cfgPath, config.LoadOptions{
		Environ: opts.Environ,
		Overrides: config.Overrides{
			Endpoint:        *url,
			ProtocolVersion: firstProtocol,
			Concurrency:     *jobs,
			TimeoutMs:       int(timeout.Milliseconds()),
		},
	})
	if err != nil {
		fmt.Fprintf(stderr, "mcpcheck: %v\n", err)
		return exitBadArgs
	}

	human, machine := stdout, io.Writer(nil)
	var jsonFile *os.File
	switch *jsonOut {
	case "":
	case "-":
		human, machine = stderr, stdout
	default:
		// Open the file before running, so a bad path fails fast (exit 2)
		// instead of after a long run.
		jsonFile, err = os.Create(*jsonOut)
		if err != nil {
			fmt.Fprintf(stderr, "mcpcheck: --json: %v\n", err)
			return exitBadArgs
		}
		defer jsonFile.Close()
		machine = jsonFile
	}

	stopGC := tuneGC()
	rep, err := runner.Run(ctx, suite, opts)
	stopGC()
	if err != nil {
		fmt.Fprintf(stderr, "mcpcheck: %v\n", err)
		return exitBadArgs
	}
	color := false
	if f, ok := human.(*os.File); ok && !*noColor {
		color = report.UseColor(f)
	}
	if err := report.Text(human, rep, report.TextOptions{Color: color, Quiet: *quiet}); err != nil {
		fmt.Fprintf(stderr, "mcpcheck: writing the report: %v\n", err)
		return exitBadArgs
	}
	if machine != nil {
		if err := report.JSON(machine, rep); err != nil {
			fmt.Fprintf(stderr, "mcpcheck: writing the JSON report: %v\n", err)
			return exitBadArgs
		}
		if jsonFile != nil {
			if err := jsonFile.Close(); err != nil {
				fmt.Fprintf(stderr, "mcpcheck: writing %s: %v\n", *jsonOut, err)
				return exitBadArgs
			}
		}
	}
	if !rep.Passed {
		return exitFail
	}
	return exitPass
}
