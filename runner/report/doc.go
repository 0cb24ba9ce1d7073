// Package report renders a [runner.Report]: human text for the terminal and
// JSON (schemaVersion 1, schemas/report.schema.json) for CI. On a terminal
// ([IsTerminal]) the human text can stream while the run goes ([Stream]):
// the same lines, printed as they become final, under a live status line.
//
// Both writers read the same Report and nothing else. The JSON writer emits
// only the report's JSON fields, which by construction carry no tool
// arguments, result values, headers, URL paths or server error text. The
// text writer adds, for failing steps only, the expected and actual values at
// the failing path and the server's own message. Every string of a Report
// has been through the runner's one sanitizer and one redactor before a
// writer sees it (runner's redact.go): control characters are escapes, never
// raw bytes, and secrets are [runner.Redacted]; writers only escape for
// their format (HTML, XML, workflow commands) and cut for readability.
//
// For CI pages the same Report is also written as JUnit XML ([JUnit]), a
// Markdown job summary ([Markdown]), one self-contained HTML page ([HTML])
// and GitHub Actions annotations ([GitHubAnnotations]). They show what the
// text report shows of a failure (its lines come from one place), escaped
// for their format. Beside the steps, the run's failure, its scores and its
// findings are checks in named groups, each a test suite of its own in
// JUnit.
//
// # Example
//
//	report.Text(os.Stdout, rep, report.TextOptions{Color: report.UseColor(os.Stdout)})
//	report.JSON(f, rep)
//
// and streaming:
//
//	s := report.NewStream(os.Stdout, report.TextOptions{Color: report.UseColor(os.Stdout)})
//	opts.OnStart, opts.OnStep, opts.OnScenario, opts.OnCall = s.Start, s.Step, s.Scenario, s.Call
//	rep, err := runner.Run(ctx, suite, opts)
//	...
//	s.Finish(rep)
package report
