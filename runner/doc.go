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
//   - Parallel scenarios put load on the server on purpose, so they start
//     only after every other scenario has finished (the latency probes are
//     read from calls nothing else disturbed). Those on sessions of their
//     own run up to `concurrency` at once among themselves, the one whose
//     tools made the longest call so far first; one on the shared session
//     runs alone.
//
// # Generated checks
//
// With a `generate:` block (or in quick mode, which is a suite with only
// that block), the discovered tool contracts are compiled by
// compileGenerated into ordinary scenarios after the fixture's own, named
// by what they check and by tool ("generated: T", "lifecycle: R",
// "concurrency: T", "crossed: T (one by one)", "crossed: T (all at once)"),
// in a fixed order. They run through the same scheduler and executor, and
// then analyze reads the finished steps; it makes no call. Decisions:
//
//   - Only tools annotated readOnlyHint: true on the wire are called unless
//     --include-destructive; an allowlist bounds generation and annotations
//     never widen it. Every tool left alone is in [Report.SkippedTools].
//   - Each tool's cases are one scenario that runs on even when a case
//     fails (continueOnFailure) and reconnects after a transport loss.
//     Scenarios of different tools run at once on the shared session, and
//     a read-only tool's bad-input cases run at once (up to `concurrency`
//     extra calls across the run) after its valid call, which runs alone:
//     it is what the probes time.
//   - A generated step whose call ended with the server gone (transport
//     closed, session lost, malformed response) is run once more, alone on
//     the link, and the report shows that call: a crash takes every call in
//     flight with it, and only a call made alone says which one caused it.
//     This is what keeps the report the same whatever --jobs. Fixture steps
//     are never run twice.
//   - Lifecycle chains and the crossed-responses scenarios each have a
//     session (over stdio, a server process) of their own, so no other call
//     can change or overlap what they compare; the independent-connections
//     check opens one per call.
//   - The crossed-responses check calls N distinct inputs one by one, each
//     twice, then all at once. It stops at the first one-by-one call that
//     is not ok or a repeat whose answer differs (the tool has no reference
//     answer), skips the all-at-once half and says so in a note: more
//     calls could not change the verdict.
//   - A failing valid call is advisory (mcp-fuzz's "possibly a
//     synthetic-input false positive") unless fidelity is on, which judges
//     it; fidelity counts only calls that came back ok or output_invalid.
//   - Probes read the valid calls only (never a crashed or timed-out one)
//     and flag; they make no call of their own.
//   - Every failed or flagged generated step, probe flag and concurrency
//     verdict is one entry of [Report.Findings] naming its tool and origin;
//     scored entries carry status "failed", unscored ones flagged: true.
//   - A score with a --fail-under threshold gates the run by that threshold
//     alone: its failed steps do not also fail the run on their own. A
//     score with no threshold fails the run on any failed step. A score
//     over zero cases meets any threshold, and the report says it was zero.
//
// # Runtime gate
//
// [GuardedCall] applies the fidelity rules to one real call an agent makes
// on its own session, with its own arguments (mcp-reality-check's
// guarded_call): the outcome class, and whether a result that claims
// success is a refusal in disguise, empty, or breaks the tool's
// outputSchema. It is the same classification and the same checks as a run.
// [LatencyGate] adds mcp-fuzz's latency and size probes to it, judged
// against the same tool's own earlier calls in the session rather than
// against other tools.
//
// # Example
//
//	suite, err := config.Load("fixtures.yaml", config.LoadOptions{})
//	if err != nil { ... }
//	rep, err := runner.Run(ctx, suite, runner.Options{})
//	if err != nil { ... } // exit 2: a missing credential
//	if !rep.Passed { ... } // exit 1
package runner
