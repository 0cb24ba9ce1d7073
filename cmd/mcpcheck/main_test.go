package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/internal/goldentest"
	"github.com/mcpcheck/mcpcheck/runner"
)

// asCLI, set to 1 in its environment, makes the test binary mcpcheck
// itself.
const asCLI = "MCPCHECK_TEST_AS_CLI"

// TestMain lets the test binary be the demo server: a fixture's `command:
// [mcpcheck, demo]` runs os.Args[0] with "demo", exactly as the real binary
// would run itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "demo" {
		os.Exit(demo.Run(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if os.Getenv(asCLI) == "1" {
		// The binary as a user runs it (the CI workflow test starts it as
		// separate processes): main's run and signal rules, nothing of the
		// tests'.
		os.Exit(runWithSignals(os.Args[1:], os.Stdout, os.Stderr))
	}
	runOptions = &runner.Options{SelfCommand: []string{os.Args[0]}, TerminateGrace: time.Second}
	moreParallel()
	// Under GitHub Actions the command would annotate and summarise every
	// test's run; the tests that want it set these themselves.
	os.Unsetenv("GITHUB_ACTIONS")
	os.Unsetenv("GITHUB_STEP_SUMMARY")
	// Under CI a missing golden answer fails instead of being written; the
	// tests that want that set CI themselves, and the others need no
	// t.Setenv (which would keep them from running in parallel).
	os.Unsetenv("CI")
	startHeadStart()
	code := m.Run()
	endHeadStart()
	os.Exit(code)
}

// result is one in-process run of the command.
type result struct {
	code           int
	stdout, stderr string
}

func runCmd(t *testing.T, args ...string) result {
	t.Helper()
	// The bound is for a run that hangs, not a slow one: a run it stops is
	// interrupted and reports steps "not run", which a test comparing
	// reports would read as a difference of verdicts. So it is wide (a
	// whole defects.yaml run took 4.5 minutes with two suites at once), and
	// a test whose run it stopped fails saying so.
	ctx, cancel := context.WithTimeout(context.Background(), runBound)
	defer cancel()
	var out, errb bytes.Buffer
	code := run(ctx, args, &out, &errb)
	if ctx.Err() != nil {
		t.Errorf("mcpcheck %s: still running after %s; stopped (exit %d)", strings.Join(args, " "), runBound, code)
	}
	return result{code, out.String(), errb.String()}
}

// runBound is how long runCmd lets one run go on.
const runBound = 8 * time.Minute

var durations = regexp.MustCompile(`\d+(\.\d+)?(ms|s)\b`)

// normalize replaces durations so golden files do not change run to run.
func normalize(s string) string {
	return durations.ReplaceAllString(s, "<dur>")
}

var durationsJSON = regexp.MustCompile(`"durationMs": [0-9.e+-]+`)

func normalizeJSON(s string) string {
	return durationsJSON.ReplaceAllString(s, `"durationMs": 0`)
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldentest.Compare(t, filepath.Join("testdata", name), got)
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := runCmd(t, args...)
		if r.code != 0 || r.stderr != "" {
			t.Errorf("%v: code %d stderr %q", args, r.code, r.stderr)
		}
		golden(t, "help.golden", r.stdout)
	}
}

func TestDemoHelp(t *testing.T) {
	r := runCmd(t, "demo", "--help")
	if r.code != 0 {
		t.Fatalf("code %d", r.code)
	}
	golden(t, "demo-help.golden", r.stdout)
}

func TestBadCommandLine(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{nil, "give --config FILE, or -- COMMAND ARGS... / --url URL"},
		{[]string{"--bogus"}, "flag provided but not defined: --bogus (see mcpcheck --help)"},
		{[]string{"--config"}, "flag needs an argument"},
		{[]string{"--config", "x.yaml", "extra"}, `unexpected argument "extra"; a server to check goes after --`},
		{[]string{"--config", "x.yaml", "--", "node"}, "not both"},
		{[]string{"verison"}, `unknown command "verison"; did you mean version?`},
		{[]string{"dmeo"}, `unknown command "dmeo"; did you mean demo?`},
		{[]string{"node", "server.js"}, "a server to check goes after --: mcpcheck [flags] -- node ..."},
		{[]string{"--timeout", "soon", "--", "x"}, "or a number of milliseconds"},
		{[]string{"--price-model", "gpt-9", "--", "x"}, "known models: "},
		{[]string{"--concurrency", "1", "--", "x"}, "--concurrency: must be 2..16"},
		{[]string{"--fail-under", "120", "--", "x"}, "--fail-under: must be a percentage 0..100, got 120"},
		{[]string{"--fail-under", "most", "--", "x"}, "want a percentage 0..100"},
		{[]string{"--jobs", "0", "--", "x"}, "--jobs: must be 1..16, got 0"},
		{[]string{"--seed", "1.5", "--", "x"}, "want an integer"},
		{[]string{"--fuzz-cases", "0", "--", "x"}, "--fuzz-cases: must be 1..1000, got 0"},
		{[]string{"--fail-under-protocol", "101", "--", "x"}, "--fail-under-protocol: must be a percentage 0..100, got 101"},
		{[]string{"--slow-threshold-ms", "0", "--", "x"}, "--slow-threshold-ms: must be 1..2147483647, got 0"},
		{[]string{"--timeout", "0s", "--", "x"}, "--timeout (in milliseconds): must be 1..86400000, got 0"},
		{[]string{"--env", "=1", "--", "x"}, "want KEY=VALUE"},
		{[]string{"--url", "http://example.com/mcp"}, "https"},
		{[]string{"--url", "https://example.com/mcp", "--header", "Mcp-Session-Id=x"}, "set by the MCP transport"},
		{[]string{"--env", "A=1", "--url", "https://example.com/mcp"}, "--env is for a server started with -- COMMAND"},
		{[]string{"--header", "A=1", "--", "x"}, "--header is for an --url server"},
		{[]string{"--config", "../../examples/demo.yaml", "--allow-tools", "x"}, "--allow-tools is for quick mode"},
		{[]string{"--config", "testdata/missing.yaml"}, "missing.yaml"},
		{[]string{"--config", "../../examples/demo.yaml", "--jobs", "40"}, "--jobs"},
		{[]string{"--config", "../../examples/demo.yaml", "--timeout", "-1s"}, "--timeout"},
		{[]string{"--config", "../../examples/demo.yaml", "--protocol", "1999-01-01"}, "1999-01-01"},
		{[]string{"--config", "../../examples/demo.yaml", "--url", "http://example.com/mcp"}, "https"},
		{[]string{"--config", "../../examples/demo.yaml", "--json", "/nonexistent/dir/report.json"}, "--json"},
		{[]string{"--trace", "--json", "--", "x"}, `--trace takes a file, got "--json"`},
		{[]string{"--config", "--quiet"}, `--config takes a file, got "--quiet"`},
	}
	for _, tt := range tests {
		r := runCmd(t, tt.args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", tt.args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, tt.want) {
			t.Errorf("%v: stderr %q does not mention %q", tt.args, r.stderr, tt.want)
		}
		if strings.Contains(r.stderr, "goroutine") || strings.Contains(r.stderr, "panic") {
			t.Errorf("%v: stack trace reached the user: %s", tt.args, r.stderr)
		}
	}
}

// TestErrorsNameFixtureLines: a missing credential and a command that
// cannot start name the fixture line of the key that asked for them.
func TestErrorsNameFixtureLines(t *testing.T) {
	dir := t.TempDir()
	cred := filepath.Join(dir, "cred.yaml")
	os.WriteFile(cred, []byte("name: n\nendpoint: https://example.com/mcp\nheadersFromEnv: {Authorization: MCPCHECK_TEST_UNSET_TOKEN}\nallowTools: [t]\nscenarios: [{name: s, steps: [{tool: t}]}]\n"), 0o644)
	r := runCmd(t, "--config", cred)
	if want := cred + ":3:1: headersFromEnv Authorization needs variable MCPCHECK_TEST_UNSET_TOKEN"; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("missing credential: exit %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	cmd := filepath.Join(dir, "cmd.yaml")
	os.WriteFile(cmd, []byte("name: n\nallowTools: [t]\ncommand: [/nonexistent/server]\nscenarios: [{name: s, steps: [{tool: t}]}]\n"), 0o644)
	r = runCmd(t, "--config", cmd)
	if want := cmd + ":3:1: starting server server"; r.code != 1 || !strings.Contains(r.stdout, want) {
		t.Errorf("command that cannot start: exit %d, stdout %q, want %q", r.code, r.stdout, want)
	}
}
