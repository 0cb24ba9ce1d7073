package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner"
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
  mcpcheck --config FILE [flags]            run a fixture against an MCP server
  mcpcheck [flags] -- COMMAND ARGS...       quick check: generated checks against a stdio server
  mcpcheck [flags] --url URL [--header K=V] quick check against a Streamable HTTP server
  mcpcheck tools [--json] TARGET            list a server's tools, resources and prompts
                                            (TARGET: --config FILE, -- COMMAND..., --url URL)
  mcpcheck demo [flags]                     serve the built-in demo MCP server
  mcpcheck merge REPORT.json... [--json OUT] merge the reports of --shard runs
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
  --version           print the version and exit

Generated checks (quick mode, or a fixture's generate block):
  --env K=V                  a variable for the stdio server (repeatable)
  --header K=V               a header for the --url server (repeatable)
  --allow-tools a,b          generate only against these tools
  --include-destructive      also call tools not annotated readOnlyHint: true,
                             and run the lifecycle check
  --no-offered-inputs        do not call the argument-free read-only tools
                             first for ids, folders and URIs to use as input
  --concurrency N            also call each tool on N connections at once
  --no-protocol-probes       do not send the protocol probes (raw JSON-RPC
                             the server's MCP layer must survive); on by
                             default in quick mode
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
  --fail-under-protocol N    the same for the other scores

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
		case "merge":
			return mergeReports(args[1:], stdout, stderr)
		case "tools":
			return runTools(ctx, args[1:], stdout, stderr)
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
			return badWord(w, stderr)
		}
	}
	return runSuite(ctx, args, stdout, stderr)
}

// flagError writes the flag package's words with the flags as users type
// them (--timeout, not -timeout).
func flagError(err error) string {
	return strings.NewReplacer("for flag -", "for flag --", "not defined: -", "not defined: --", "needs an argument: -", "needs an argument: --").Replace(err.Error())
}

// subcommands are the words mcpcheck takes before its flags.
var subcommands = []string{"demo", "tools", "merge", "snapshot", "diff", "record", "help", "schema", "version"}

// badWord refuses a word that is not a subcommand: a server to check is
// given after --, so that a typo or an unknown subcommand is never run as
// one.
func badWord(w string, stderr io.Writer) int {
	hint := "a server to check goes after --: mcpcheck [flags] -- " + w + " ..."
	if sug := config.Suggest(w, subcommands); sug != "" {
		hint = "did you mean " + sug + "?"
	}
	fmt.Fprintf(stderr, "mcpcheck: unknown command %q; %s (see mcpcheck --help)\n", w, hint)
	return exitBadArgs
}

// flags are the command line of a run.
type flags struct {
	jsonOut, trace          string
	configs                 []string         // --config, in order (files or directories)
	jobsSuites              int              // --jobs-suites: suites run at once
	sel                     runner.Selection // --tag, --skip-tag, --run
	expectedFailures        string           // --expected-failures FILE
	updateBaseline          bool             // --update-expected-failures
	junit, summary, html    string           // report files (outputs.go)
	protocols               []string
	quiet, noColor, version bool
	list, keepTmp, update   bool
	// settings are the flags that set a config setting, keyed by the
	// setting (config.Settings), for config's flag layer.
	settings map[string]any

	// Quick mode's target.
	env, headers map[string]string // K=V
	allowTools   []string
	command      []string // after --
	set          map[string]bool
}

// settingFlags maps config settings to the flags that set them, for
// messages about their values.
var settingFlags = map[string]string{
	"endpoint":                     "--url",
	"transport":                    "--sse",
	"protocolVersion":              "--protocol",
	"timeoutMs":                    "--timeout",
	"concurrency":                  "--jobs",
	"generate.includeDestructive":  "--include-destructive",
	"generate.offeredInputs":       "--no-offered-inputs",
	"generate.protocol":            "--no-protocol-probes",
	"generate.fuzzCases":           "--fuzz-cases",
	"generate.seed":                "--seed",
	"generate.concurrency":         "--concurrency",
	"generate.slowThresholdMs":     "--slow-threshold-ms",
	"generate.bloatThresholdChars": "--bloat-threshold-chars",
	"generate.priceModel":          "--price-model",
	"command":                      "-- COMMAND",
	"contract":                     "--contract",
	"failOn":                       "--fail-on",
	"env":                          "--env",
	"headers":                      "--header",
}

// thresholdFlags maps --fail-under flags to score names.
var thresholdFlags = map[string]config.ScoreName{
	"fail-under":                    config.ScoreCrashResilience,
	"fail-under-schema-enforcement": config.ScoreSchemaEnforcement,
	"fail-under-fidelity":           config.ScoreResponseFidelity,
	"fail-under-latency":            config.ScoreLatency,
	"fail-under-response-size":      config.ScoreResponseSize,
	"fail-under-concurrency":        config.ScoreConcurrency,
	"fail-under-lifecycle":          config.ScoreLifecycle,
	"fail-under-protocol":           config.ScoreProtocol,
}

func init() {
	for name, score := range thresholdFlags {
		settingFlags["generate.failUnder."+string(score)] = "--" + name
	}
}

func parseFlags(args []string) (*flags, error) {
	f := &flags{settings: map[string]any{}, set: map[string]bool{}}
	fs := flag.NewFlagSet("mcpcheck", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("config", "", func(v string) error {
		f.configs = append(f.configs, v)
		return nil
	})
	fs.Func("tag", "", func(v string) error {
		f.sel.Tags = append(f.sel.Tags, v)
		return nil
	})
	fs.Func("skip-tag", "", func(v string) error {
		f.sel.SkipTags = append(f.sel.SkipTags, v)
		return nil
	})
	fs.Func("run", "", func(v string) error {
		re, err := regexp.Compile(v)
		if err != nil {
			return fmt.Errorf("want an RE2 regular expression: %v", err)
		}
		f.sel.Run = re
		return nil
	})
	fs.Func("shard", "", func(v string) error {
		sh, err := runner.ParseShard(v)
		f.sel.Shard = &sh
		return err
	})
	fs.Func("jobs-suites", "", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("want a number of suites, 1 or more, got %q", v)
		}
		f.jobsSuites = n
		return nil
	})
	fs.StringVar(&f.jsonOut, "json", "", "")
	fs.StringVar(&f.trace, "trace", "", "")
	fs.StringVar(&f.junit, "junit", "", "")
	fs.StringVar(&f.summary, "summary", "", "")
	fs.StringVar(&f.html, "html", "", "")
	fs.BoolVar(&f.quiet, "quiet", false, "")
	fs.BoolVar(&f.noColor, "no-color", false, "")
	fs.BoolVar(&f.version, "version", false, "")
	fs.BoolVar(&f.list, "list", false, "")
	fs.BoolVar(&f.keepTmp, "keep-tmp", false, "")
	fs.StringVar(&f.expectedFailures, "expected-failures", "", "")
	fs.BoolVar(&f.updateBaseline, "update-expected-failures", false, "")
	fs.BoolVar(&f.update, "update", false, "")
	setting := func(name, key string, parse func(string) (any, error)) {
		fs.Func(name, "", func(v string) error {
			x, err := parse(v)
			if err == nil {
				f.settings[key] = x
			}
			return err
		})
	}
	str := func(v string) (any, error) { return v, nil }
	integer := func(v string) (any, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, fmt.Errorf("want an integer, got %q", v)
		}
		return n, nil
	}
	setting("url", "endpoint", str)
	setting("contract", "contract", str)
	setting("fail-on", "failOn", str)
	setting("jobs", "concurrency", integer)
	setting("timeout", "timeoutMs", func(v string) (any, error) {
		if n, err := strconv.Atoi(v); err == nil {
			v += "ms" // a bare number is milliseconds, as timeoutMs is
			_ = n
		}
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, fmt.Errorf("want a duration such as 5s or 1500ms, or a number of milliseconds, got %q", v)
		}
		if d%time.Millisecond != 0 || d < 0 {
			return nil, fmt.Errorf("want a duration of whole milliseconds between 1ms and 24h, got %s", d)
		}
		return int(min(d.Milliseconds(), config.MaxTimeoutMs+1)), nil
	})
	setting("concurrency", "generate.concurrency", integer)
	setting("fuzz-cases", "generate.fuzzCases", integer)
	setting("slow-threshold-ms", "generate.slowThresholdMs", integer)
	setting("bloat-threshold-chars", "generate.bloatThresholdChars", integer)
	setting("price-model", "generate.priceModel", str)
	setting("seed", "generate.seed", func(v string) (any, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("want an integer, got %q", v)
		}
		return n, nil
	})
	fs.BoolFunc("sse", "", func(v string) error {
		if b, err := strconv.ParseBool(v); err != nil || !b {
			return fmt.Errorf("--sse takes no value")
		}
		f.settings["transport"] = config.TransportSSE
		return nil
	})
	fs.BoolFunc("include-destructive", "", func(v string) error {
		b, err := strconv.ParseBool(v)
		f.settings["generate.includeDestructive"] = b
		return err
	})
	fs.BoolFunc("no-protocol-probes", "", func(v string) error {
		b, err := strconv.ParseBool(v)
		f.settings["generate.protocol"] = !b
		return err
	})
	fs.BoolFunc("no-offered-inputs", "", func(v string) error {
		b, err := strconv.ParseBool(v)
		f.settings["generate.offeredInputs"] = !b
		return err
	})
	for name, score := range thresholdFlags {
		setting(name, "generate.failUnder."+string(score), func(v string) (any, error) {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("want a percentage 0..100, got %q", v)
			}
			return n, nil
		})
	}
	fs.Func("env", "", keyValue(&f.env, "KEY"))
	fs.Func("header", "", keyValue(&f.headers, "NAME"))
	fs.Func("allow-tools", "", func(v string) error {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				f.allowTools = append(f.allowTools, t)
			}
		}
		return nil
	})
	fs.Func("protocol", "", func(v string) error {
		if !slices.Contains(config.SupportedProtocolVersions, v) {
			return fmt.Errorf("unsupported protocol version %q (supported: %s)", v, strings.Join(config.SupportedProtocolVersions, ", "))
		}
		if !slices.Contains(f.protocols, v) {
			f.protocols = append(f.protocols, v)
		}
		f.settings["protocolVersion"] = f.protocols[0]
		return nil
	})
	if err := fs.Parse(jsonDefault(args)); err != nil {
		return nil, err
	}
	for name, v := range map[string]string{"json": f.jsonOut, "trace": f.trace, "junit": f.junit, "summary": f.summary, "html": f.html, "contract": str0(f.settings["contract"]), "expected-failures": f.expectedFailures} {
		if len(v) > 1 && v[0] == '-' {
			return nil, fmt.Errorf("--%s takes a file, got %q (a flag?)", name, v)
		}
	}
	for _, v := range f.configs {
		if len(v) > 1 && v[0] == '-' {
			return nil, fmt.Errorf("--config takes a file, got %q (a flag?)", v)
		}
	}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	f.command = fs.Args()
	if len(f.command) > 0 && !slices.Contains(args, "--") {
		return nil, fmt.Errorf("unexpected argument %q; a server to check goes after --: mcpcheck [flags] -- COMMAND ARGS", f.command[0])
	}
	return f, nil
}

// str0 is v as a string, "" when it is not one.
func str0(v any) string {
	s, _ := v.(string)
	return s
}

// keyValue is a repeatable K=V flag (--env, --header) adding to *into.
func keyValue(into *map[string]string, what string) func(string) error {
	return func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" {
			return fmt.Errorf("want %s=VALUE, got %q", what, v)
		}
		if *into == nil {
			*into = map[string]string{}
		}
		(*into)[k] = val
		return nil
	}
}

// settingError renders config's problems with the flags' names: a setting
// that came from the command line is named by the flag that set it.
func settingError(err error) string {
	var es config.Errors
	if !errors.As(err, &es) {
		return err.Error()
	}
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
		if e.Pos == (config.Pos{}) && e.Env == "" && e.Setting != "" {
			name := settingFlags[e.Setting]
			if name == "" {
				name = "setting " + e.Setting
			}
			if e.Setting == "timeoutMs" {
				name += " (in milliseconds)"
			}
			lines[i] = name + ": " + e.Msg
		}
	}
	return strings.Join(lines, "\n")
}

// jsonDefault lets --json stand alone, as in mcp-fuzz: with no FILE after
// it (the end of the flags, "--", or another flag next) it means "-", the
// JSON on stdout. "--json=FILE" and "--json FILE" are unchanged.
func jsonDefault(args []string) []string {
	out := make([]string, 0, len(args)+1)
	for k := 0; k < len(args); k++ {
		a := args[k]
		out = append(out, a)
		if a == "--" {
			return append(out, args[k+1:]...)
		}
		if a != "--json" && a != "-json" {
			continue
		}
		if k+1 == len(args) || (len(args[k+1]) > 1 && args[k+1][0] == '-') {
			out = append(out, "-")
		}
	}
	return out
}

// targetFlags say which server to reach and how: all that a subcommand
// which only connects (tools, snapshot) takes of a run's flags.
var targetFlags = []string{"config", "url", "sse", "protocol", "timeout", "env", "header", "allow-tools", "no-color"}

// commandFlags parses a run's command line for the run itself (name "")
// or a subcommand that reaches a server the same way: --help prints usage,
// a flag error is one line, a flag outside allowed (nil: any) is refused
// by name, and so is --protocol twice for a subcommand. A nil result
// means the command is over, with the exit code.
func commandFlags(name, usage string, args, allowed []string, stdout, stderr io.Writer) (*flags, int) {
	prog := strings.TrimSpace("mcpcheck " + name)
	f, err := parseFlags(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return nil, exitPass
	case err != nil:
		fmt.Fprintf(stderr, "%s: %s (see %s --help)\n", prog, flagError(err), prog)
		return nil, exitBadArgs
	}
	if allowed == nil {
		return f, exitPass
	}
	for _, fl := range slices.Sorted(maps.Keys(f.set)) {
		if !slices.Contains(allowed, fl) {
			fmt.Fprintf(stderr, "%s: --%s is for a run, not for %s (see %s --help)\n", prog, fl, name, prog)
			return nil, exitBadArgs
		}
	}
	if len(f.protocols) > 1 {
		fmt.Fprintf(stderr, "%s: give --protocol once\n", prog)
		return nil, exitBadArgs
	}
	return f, exitPass
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
	suites, opts, code := buildSuites(f, stderr)
	if suites == nil {
		return code
	}
	baselines, err := loadBaselines(f, suites)
	if err != nil {
		fmt.Fprintf(stderr, "mcpcheck: %s\n", err)
		return exitBadArgs
	}
	if f.list {
		opts.ListOnly = true
	}
	opts.KeepTmp = f.keepTmp
	opts.Update = f.update
	if f.set["tag"] || f.set["skip-tag"] || f.set["run"] || f.set["shard"] {
		opts.Select = &f.sel
		if err := selectsSomething(&f.sel, suites); err != nil {
			fmt.Fprintf(stderr, "mcpcheck: %v\n", err)
			return exitBadArgs
		}
	}
	return runSuites(ctx, f, suites, baselines, opts, stdout, stderr)
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
		fmt.Fprintf(stderr, "mcpcheck: give one fixture, not %d\n", len(suites))
		return nil, opts, exitBadArgs
	}
	return suites[0], opts, exitPass
}
