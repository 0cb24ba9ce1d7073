// Package runner runs a loaded fixture against an MCP server and produces a
// report (package runner/report).
//
// [Run] connects to the suite's target (a stdio command or a Streamable HTTP
// endpoint), initializes with a pinned protocol version, discovers the
// server's tools, checks that every tool a step names is allowlisted and
// listed, and compiles the fixture's scenarios — and, with a generate block,
// the checks generated from the tools' own contracts (fuzz, fidelity,
// probes, lifecycle, concurrency) — into one plan. The scheduler runs the
// plan's scenarios up to the suite's concurrency at once; each step resolves
// its $ref markers, makes its call, classifies what came back into one
// outcome class and runs its checkers from package assert. Results land in
// the report by scenario index, so it reads the same whatever the
// concurrency, apart from durations. Every failure once the run has begun,
// a server that will not start included, is in the report, with every step
// accounted for as passed, failed or skipped.
//
// Four entry points share the plan and the connection code, one per
// purpose: [Run] calls and judges; [List] lists every step without calling
// (--list); [Discover] connects and lists what the server offers and the
// checks it would get (mcpcheck tools); [Snapshot] builds the contract file
// (mcpcheck snapshot).
//
// The main types:
//
//   - [Options] tune a run without changing what it checks: the
//     environment, a transport for tests, a selection, a trace, and hooks
//     that follow the run as it goes ([Options.OnStep]).
//   - The report model lives in package runner/report (model.go), beside
//     the writers that render it: report.Report is one run's result,
//     report.StepResult one step's status, outcome and failed assertions,
//     report.Finding and report.Score what generated checks add. [Analyze]
//     computes those from the report's steps, once, at the end.
//   - [GuardedCall] and [LatencyGate] apply the same classification and
//     fidelity rules to an agent's own calls on its own session.
//   - Drift (report.Drift) is a change between a contract file and the live server
//     (a suite's contract) or another file ([DiffContracts]), graded by
//     severity; [Snapshot] builds the contract file itself.
//   - Golden answers (expect.snapshot) live beside the fixture;
//     [RecordAnswers] writes them from a recorded session.
//   - For CI: a [Selection] (tags, --run, a shard) leaves scenarios out,
//     reported skipped; [Merge] joins shards' reports and analyses them
//     as the whole run's; [ApplyBaseline] judges a report against known
//     failures.
//   - The report's vocabularies (report.Status, Exclusion, Stage,
//     TargetTransport, Severity, FindingKind) are named string types with
//     their values as constants; vocabulary_test.go holds each that the
//     report schema enumerates to its enum.
//
// The rules a run follows are stated where they are enforced: the child's
// environment and ${tmp} in env.go, shutdown in stdio.go, outcome classes
// in call.go, scheduling in scenario.go, generated checks in generated.go,
// the analysis in analyze.go and scores.go (load arithmetic in
// internal/loadstat), protocol probes in internal/probe, the runner's own
// requests in own.go, contracts and drift in drift.go, golden answers in
// golden.go, selection, shards, merge and baselines in merge.go, what
// reaches an output in redact.go (and internal/safetext), the verdict in
// report.Report.Tally.
//
// # One expectation, from the fixture to the report
//
// `expect: {structuredEquals: …}` is read by config (load.go: the value
// with its position), compiled into the plan with its step (plan.go),
// scheduled (scenario.go) and run (step.go: runStep makes
// the call through call.go, which classifies the outcome, readAnswer
// decodes structuredContent); check (step.go) builds the checker from
// package assert (structured.go), whose failures become the step's
// report.AssertionResult with the fixture position; runner/report prints it
// (failure.go). Each hop goes one way, down the list.
//
// # Example
//
//	suite, err := config.Load("fixtures.yaml", config.LoadOptions{})
//	if err != nil {
//		return err // exit 2: the fixture is broken
//	}
//	rep, err := runner.Run(ctx, suite, runner.Options{})
//	if err != nil {
//		return err // exit 2: a missing credential
//	}
//	ok := rep.Passed // exit 0, else 1
package runner
