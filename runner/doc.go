// Package runner runs a loaded fixture against an MCP server and produces a
// [Report].
//
// [Run] connects to the suite's target (a stdio command or a Streamable HTTP
// endpoint), initializes with a pinned protocol version, discovers the
// server's tools, checks that every tool a step names is both allowlisted
// and listed, then runs the scenarios: up to `concurrency` at once, the steps
// of each strictly in order. Each step resolves its `$ref` markers, calls the
// tool with the step's time limit, classifies what came back into one
// outcome class, and runs the step's checkers from package assert. Results
// are kept by scenario index, so the report is the same whatever the
// concurrency, apart from durations.
//
// # Decisions
//
//   - A command whose program is exactly `mcpcheck` runs this very binary
//     ([Options.SelfCommand]), so `command: [mcpcheck, demo]` needs nothing
//     installed.
//   - A stdio server gets a minimal environment (PATH, HOME, USER, LANG,
//     TMPDIR, TZ and a few more) plus the fixture's `env` and `envFromEnv`.
//     It runs in its own process group; shutting down closes its stdin, then
//     sends SIGTERM, then SIGKILL to the whole group, so nothing it started
//     outlives the run.
//   - The client declares no capabilities and never retries a call.
//   - Assertions and `$ref` read the result's raw bytes (see tap.go), not
//     the SDK's float64 decoding, so large integers keep their value.
//   - A step that fails skips the rest of its scenario; other scenarios go
//     on. A step is "passed" only when every expectation held.
//   - Once the run has begun, every failure is in the report: a server that
//     will not start or a failed discovery is [Report.Failure], and every
//     step not run is "skipped" with the reason.
//
// # Example
//
//	suite, err := config.Load("fixtures.yaml", config.LoadOptions{})
//	if err != nil { ... }
//	rep, err := runner.Run(ctx, suite, runner.Options{})
//	if err != nil { ... } // exit 2: a missing credential
//	if !rep.Passed { ... } // exit 1
package runner
