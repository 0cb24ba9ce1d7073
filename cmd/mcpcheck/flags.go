package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// flagError writes the flag package's words with the flags as users type
// them (--timeout, not -timeout).
func flagError(err error) string {
	return strings.NewReplacer("for flag -", "for flag --", "not defined: -", "not defined: --", "needs an argument: -", "needs an argument: --").Replace(err.Error())
}

// fail writes a message to stderr and returns the exit code, for a
// command that ends on it.
func fail(stderr io.Writer, code int, format string, a ...any) int {
	fmt.Fprintf(stderr, format, a...)
	return code
}

// usageError ends a command whose flags did not parse: --help prints its
// usage (exit 0), any other error is one line (exit 2).
func usageError(prog, usage string, err error, stdout, stderr io.Writer) int {
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return exitPass
	}
	return fail(stderr, exitBadArgs, "%s: %s (see %s --help)\n", prog, flagError(err), prog)
}

// parseInterleaved parses args with fs, flags before, between or after
// the files, and returns the files; nil ends the command (usageError),
// with the exit code.
func parseInterleaved(fs *flag.FlagSet, usage string, args []string, stdout, stderr io.Writer) ([]string, int) {
	files := []string{}
	for rest := args; ; rest = fs.Args()[1:] {
		if err := fs.Parse(rest); err != nil {
			return nil, usageError(fs.Name(), usage, err, stdout, stderr)
		}
		if fs.NArg() == 0 {
			return files, exitPass
		}
		files = append(files, fs.Arg(0))
	}
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
	// The daily loop (lastrun.go, watch.go): -v / -vv show exchanges
	// (verbose 1 or 2), --last-failed, --fail-on-flaky, -x, --watch.
	verbose                           int
	lastFailed, failOnFlaky, failFast bool
	watch                             bool
	watchPaths                        []string
	roots                             []string // --root, quick mode's client roots (inputs.go)
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
	"retries":                      "--retries",
	"maxMessageBytes":              "--max-message-bytes",
	"generate.includeDestructive":  "--include-destructive",
	"generate.offeredInputs":       "--no-offered-inputs",
	"generate.protocol":            "--no-protocol-probes",
	"generate.behaviour":           "--no-behaviour",
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
	"fail-under-behaviour":          config.ScoreAnnotationHonesty,
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
	f.runFlags(fs)
	loopFlags(fs, f)
	f.configFlags(fs)
	f.quickFlags(fs)
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

// runFlags are the flags of the run itself: which suites and cases, and
// where the reports go.
func (f *flags) runFlags(fs *flag.FlagSet) {
	fs.Func("config", "", appendTo(&f.configs))
	fs.Func("tag", "", appendTo(&f.sel.Tags))
	fs.Func("skip-tag", "", appendTo(&f.sel.SkipTags))
	fs.Func("run", "", func(v string) error {
		re, err := regexp.Compile(v)
		if err != nil {
			return fmt.Errorf("want an RE2 regular expression: %v", err)
		}
		f.sel.Run = re
		return nil
	})
	fs.Func("shard", "", func(v string) error {
		sh, err := report.ParseShard(v)
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
}

// configFlags are the flags that set a config setting (f.settings, keyed
// as settingFlags lists them), each value checked as the flag is read.
func (f *flags) configFlags(fs *flag.FlagSet) {
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
	integer := parsed(strconv.Atoi, "an integer")
	setting("url", "endpoint", str)
	setting("contract", "contract", str)
	setting("fail-on", "failOn", str)
	setting("jobs", "concurrency", integer)
	setting("retries", "retries", integer)
	setting("max-message-bytes", "maxMessageBytes", integer)
	setting("timeout", "timeoutMs", parseTimeout)
	setting("concurrency", "generate.concurrency", integer)
	setting("fuzz-cases", "generate.fuzzCases", integer)
	setting("slow-threshold-ms", "generate.slowThresholdMs", integer)
	setting("bloat-threshold-chars", "generate.bloatThresholdChars", integer)
	setting("price-model", "generate.priceModel", str)
	setting("seed", "generate.seed", parsed(func(v string) (int64, error) { return strconv.ParseInt(v, 10, 64) }, "an integer"))
	percent := parsed(func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }, "a percentage 0..100")
	for name, score := range thresholdFlags {
		setting(name, "generate.failUnder."+string(score), percent)
	}
	fs.BoolFunc("sse", "", func(v string) error {
		if b, err := strconv.ParseBool(v); err != nil || !b {
			return fmt.Errorf("--sse takes no value")
		}
		f.settings["transport"] = string(config.TransportSSE)
		return nil
	})
	// A switch sets its setting; a --no-… switch clears it.
	switches := func(name, key string, no bool) {
		fs.BoolFunc(name, "", func(v string) error {
			b, err := strconv.ParseBool(v)
			f.settings[key] = b != no
			return err
		})
	}
	switches("include-destructive", "generate.includeDestructive", false)
	switches("no-protocol-probes", "generate.protocol", true)
	switches("no-behaviour", "generate.behaviour", true)
	switches("no-offered-inputs", "generate.offeredInputs", true)
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
}

// parsed reads a setting's value with parse, its error saying what the
// flag wants.
func parsed[T any](parse func(string) (T, error), want string) func(string) (any, error) {
	return func(v string) (any, error) {
		x, err := parse(v)
		if err != nil {
			return nil, fmt.Errorf("want %s, got %q", want, v)
		}
		return x, nil
	}
}

// parseTimeout reads --timeout: a duration, or a bare number of
// milliseconds (as timeoutMs is).
func parseTimeout(v string) (any, error) {
	if _, err := strconv.Atoi(v); err == nil {
		v += "ms"
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return nil, fmt.Errorf("want a duration such as 5s or 1500ms, or a number of milliseconds, got %q", v)
	}
	if d%time.Millisecond != 0 || d < 0 {
		return nil, fmt.Errorf("want a duration of whole milliseconds between 1ms and 24h, got %s", d)
	}
	return int(min(d.Milliseconds(), config.MaxTimeoutMs+1)), nil
}

// quickFlags say what quick mode's server gets: its environment, headers,
// the client's roots and the tools it may call.
func (f *flags) quickFlags(fs *flag.FlagSet) {
	fs.Func("env", "", keyValue(&f.env, "KEY"))
	fs.Func("header", "", keyValue(&f.headers, "NAME"))
	fs.Func("root", "", appendTo(&f.roots))
	fs.Func("allow-tools", "", func(v string) error {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				f.allowTools = append(f.allowTools, t)
			}
		}
		return nil
	})
}

// str0 is v as a string, "" when it is not one.
func str0(v any) string {
	s, _ := v.(string)
	return s
}

// appendTo is a repeatable flag adding each value to *list.
func appendTo(list *[]string) func(string) error {
	return func(v string) error {
		*list = append(*list, v)
		return nil
	}
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
var targetFlags = []string{"config", "url", "sse", "protocol", "timeout", "max-message-bytes", "env", "header", "allow-tools", "no-color"}

// commandFlags parses a run's command line for the run itself (name "")
// or a subcommand that reaches a server the same way: --help prints usage,
// a flag error is one line, a flag outside allowed (nil: any) is refused
// by name, and so is --protocol twice for a subcommand. A nil result
// means the command is over, with the exit code.
func commandFlags(name, usage string, args, allowed []string, stdout, stderr io.Writer) (*flags, int) {
	prog := strings.TrimSpace("mcpcheck " + name)
	f, err := parseFlags(args)
	if err != nil {
		return nil, usageError(prog, usage, err, stdout, stderr)
	}
	if allowed == nil {
		return f, exitPass
	}
	for _, fl := range slices.Sorted(maps.Keys(f.set)) {
		if !slices.Contains(allowed, fl) {
			return nil, fail(stderr, exitBadArgs, "%s: --%s is for a run, not for %s (see %s --help)\n", prog, fl, name, prog)
		}
	}
	if len(f.protocols) > 1 {
		return nil, fail(stderr, exitBadArgs, "%s: give --protocol once\n", prog)
	}
	return f, exitPass
}
