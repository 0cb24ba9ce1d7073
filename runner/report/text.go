package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
)

// TextOptions tune the human report.
type TextOptions struct {
	// Color adds ANSI colours to status words.
	Color bool
	// Verbose lists passing steps too (the default lists them: the human
	// report is short for fixtures). Quiet lists only failures.
	Quiet bool
	// NoDurations prints no timings (golden tests).
	NoDurations bool
	// Exchanges prints, under each step that kept one, the request it sent
	// and the answer it got (-v, -vv).
	Exchanges bool
}

// UseColor reports whether f is a terminal and NO_COLOR is unset
// (https://no-color.org).
func UseColor(f *os.File) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set {
		return false
	}
	return IsTerminal(f)
}

// IsTerminal reports whether f is a terminal that can redraw a line: a
// character device, unless TERM is "dumb" (which cannot erase one). The
// human report streams only there ([Stream]).
func IsTerminal(f *os.File) bool {
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

const (
	green  = "\x1b[32m"
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	reset  = "\x1b[0m"
)

type textWriter struct {
	b    bytes.Buffer
	opts TextOptions
}

func (t *textWriter) paint(color, s string) string {
	if !t.opts.Color {
		return s
	}
	return color + s + reset
}

func (t *textWriter) printf(format string, args ...any) { fmt.Fprintf(&t.b, format, args...) }

// scoreTitles are the human names of the scores.
var scoreTitles = map[config.ScoreName]string{
	config.ScoreCrashResilience:   "crash resilience",
	config.ScoreSchemaEnforcement: "schema enforcement",
	config.ScoreResponseFidelity:  "response fidelity",
	config.ScoreLatency:           "latency",
	config.ScoreResponseSize:      "response size",
	config.ScoreConcurrency:       "concurrency",
	config.ScoreLifecycle:         "lifecycle",
	config.ScoreProtocol:          "protocol robustness",
	config.ScoreAnnotationHonesty: "annotation honesty",
}

// generated writes what generated checks add: scores, findings, skipped
// tools, the token estimate and notes.
func (t *textWriter) generated(r *Report) {
	if len(r.Summary.Scores) > 0 {
		t.printf("\nScores:\n")
		for _, sc := range r.Summary.Scores {
			var line string
			switch {
			case sc.Percent == nil && sc.TooFew != "":
				line = fmt.Sprintf("  %s%-18s    n/a      (%d/%d; %s", versionTag(sc.ProtocolVersion), scoreTitles[sc.Name], sc.Passed, sc.Total, sc.TooFew)
			case sc.Percent == nil:
				line = fmt.Sprintf("  %s%-18s    n/a      (no case to judge", versionTag(sc.ProtocolVersion), scoreTitles[sc.Name])
			default:
				line = fmt.Sprintf("  %s%-18s %6.2f%%  %s  (%d/%d", versionTag(sc.ProtocolVersion), scoreTitles[sc.Name], *sc.Percent, sc.Grade, sc.Passed, sc.Total)
			}
			if sc.Inconclusive > 0 && sc.TooFew == "" {
				line += fmt.Sprintf("; %d judged, %d inconclusive", sc.Total, sc.Inconclusive)
			}
			line += ")"
			if sc.FailUnder != nil {
				verdict := t.paint(green, "met")
				switch {
				case sc.Met != nil && !*sc.Met && sc.TooFew != "":
					verdict = t.paint(red, "NOT MET") + " (too few cases to grade)"
				case sc.Met != nil && !*sc.Met && sc.Percent == nil:
					verdict = t.paint(red, "NOT MET") + " (no cases to score)"
				case sc.Met != nil && !*sc.Met:
					verdict = t.paint(red, "NOT MET")
				}
				line += fmt.Sprintf("  fail-under %.4g: %s", *sc.FailUnder, verdict)
			}
			t.printf("%s\n", line)
		}
	}
	var own []Finding
	for _, f := range r.Findings {
		if f.Step == "" { // the others repeat steps already shown above
			own = append(own, f)
		}
	}
	if len(own) > 0 {
		t.printf("\nFindings:\n")
		for _, f := range own {
			mark := t.paint(yellow, "flag")
			if f.Status == StatusFailed {
				mark = t.paint(red, "FAIL")
			}
			t.printf("  %s %s%s [%s %s] %s\n", mark, versionTag(f.ProtocolVersion), f.Tool, f.Origin, f.Kind, f.Message)
			t.changes(f.Changes)
		}
	}
	if tok := r.Tokens; tok != nil {
		t.printf("\nEstimated token cost: ~%d tokens across %d tool(s) (~%d per call); %s", tok.Total, tok.Calls, tok.PerCall, tok.Method)
		if tok.Model != "" {
			t.printf(" (~$%.4f at %s's list input price as of %s, no caching or volume discount)", tok.USD, tok.Model, tok.PricesAsOf)
		}
		t.printf("\n")
	}
	if len(r.SkippedTools) > 0 {
		t.printf("\nSkipped tools (%d):\n", len(r.SkippedTools))
		for _, g := range r.SkippedGroups() {
			why := g.Reason
			if g.Fix != "" {
				why += " (" + g.Fix + ")"
			}
			t.printf("  %s%s: %s\n", versionTag(g.ProtocolVersion), why, strings.Join(g.Tools, ", "))
		}
	}
	if len(r.Notes) > 0 {
		t.printf("\nNotes:\n")
		for _, n := range r.Notes {
			t.printf("  %s\n", n)
		}
	}
}

// versionTag is "[version] " for what one pass of a multi-protocol run
// found (each version's checks are judged apart), else "".
func versionTag(version string) string {
	if version == "" {
		return ""
	}
	return "[" + version + "] "
}

// Text writes the human report. On a terminal, [Stream] writes the very
// same lines while the run goes; both call the functions below.
func Text(w io.Writer, r *Report, opts TextOptions) error {
	if r.Load != nil {
		return LoadText(w, r, opts)
	}
	t := &textWriter{opts: opts}
	t.verdict(r)
	t.printf("%s\n", targetLine(r))
	t.problems(r)
	for i := range r.Scenarios {
		t.scenario(&r.Scenarios[i])
	}
	t.drift(r)
	t.generated(r)
	t.protocolRuns(r)
	t.printf("\n")
	t.summary(r)
	_, err := w.Write(t.b.Bytes())
	return err
}

// verdict writes the verdict line: PASS, FAIL or NOTHING TESTED, and the
// suite's name; a run that tested nothing says why and how to change it.
func (t *textWriter) verdict(r *Report) {
	verdict := t.paint(green+bold, "PASS")
	switch {
	case !r.Passed:
		verdict = t.paint(red+bold, "FAIL")
	case r.NothingTested != nil && r.NothingTested.Ran != "":
		verdict = t.paint(yellow+bold, "NO TOOL TESTED")
	case r.NothingTested != nil:
		verdict = t.paint(yellow+bold, "NOTHING TESTED")
	}
	t.printf("%s %s\n", verdict, r.Suite)
	switch n := r.NothingTested; {
	case n != nil && n.Ran != "":
		t.printf("  %s\n  what ran: %s\n  to test the tools: %s\n", n.Reason, n.Ran, n.Fix)
	case n != nil:
		t.printf("  no call was made: %s\n  to test something: %s\n", n.Reason, n.Fix)
	case r.Coverage != "":
		t.printf("  %s\n", r.Coverage)
	}
}

// problems writes what went wrong outside any one step: the suite's
// failure, an early termination, the warnings and the server's stderr.
func (t *textWriter) problems(r *Report) {
	if r.Failure != nil {
		t.printf("\n%s %s: %s\n", t.paint(red, "error"), r.Failure.Stage, r.Failure.Message)
	}
	if te := r.TerminatedEarly; te != nil {
		t.printf("\n%s the run terminated early after step %s of %q: %s\n", t.paint(red, "error"), te.Step, te.Scenario, te.Reason)
	}
	for _, e := range r.StaleBaseline {
		what := fmt.Sprintf("scenario %q", e.Scenario)
		if e.Step != "" {
			what += fmt.Sprintf(", step %s,", e.Step)
		}
		where := ""
		if p := e.Position; p != nil {
			where = fmt.Sprintf("%s:%d:%d: ", p.File, p.Line, p.Column)
		}
		t.printf("%s %s%s is listed as an expected failure and now passes; remove the entry (or --update-expected-failures)\n", t.paint(red, "stale baseline"), where, what)
	}
	if r.FailOnFlaky && r.Summary.Flaky > 0 {
		t.printf("%s %d flaky scenario(s) fail the run (--fail-on-flaky)\n", t.paint(red, "error"), r.Summary.Flaky)
	}
	for _, w := range r.Warnings {
		t.printf("%s %s\n", t.paint(yellow, "warning"), w)
	}
	for _, d := range r.KeptScratch {
		t.printf("scratch directory kept (--keep-tmp): %s\n", d)
	}
	if len(r.ServerStderr) > 0 {
		t.printf("\nlast lines of the server's stderr:\n")
		for _, l := range r.ServerStderr {
			t.printf("  | %s\n", l)
		}
	}
}

// protocolRuns writes the passes of a multi-protocol run and their
// divergences.
func (t *textWriter) protocolRuns(r *Report) {
	if len(r.ProtocolRuns) <= 1 {
		return
	}
	t.printf("\nProtocol runs:")
	for _, pr := range r.ProtocolRuns {
		verdict := "pass"
		if !pr.Passed {
			verdict = "fail"
		}
		t.printf(" %s→%s %s;", pr.Requested, pr.Negotiated, verdict)
	}
	t.printf("\n")
	if len(r.Divergences) == 0 {
		t.printf("No divergences between protocol versions.\n")
	}
	for _, d := range r.Divergences {
		t.printf("%s %s\n", t.paint(yellow, "diverges"), divergenceText(&d))
	}
}

// divergenceText is a divergence in words: "scenario / step: 2025-11-25:
// passed, 2026-07-28: failed (tool_error)".
func divergenceText(d *Divergence) string {
	var parts []string
	for _, o := range d.Results {
		s := o.ProtocolVersion + ": " + string(o.Status)
		if o.Outcome != "" {
			s += " (" + string(o.Outcome) + ")"
		}
		parts = append(parts, s)
	}
	s := d.Scenario + " / " + d.Step + ": " + strings.Join(parts, ", ")
	if len(d.Values) > 0 {
		s += "; the answers differ in " + strings.Join(d.Values, ", ")
	}
	return s
}

// summary writes the counts line, the report's last.
func (t *textWriter) summary(r *Report) {
	if d := r.Summary.Drift; d != nil && r.Target.Transport == TargetNone {
		// mcpcheck diff: two files compared, no step run.
		t.printf("drift: %s\n", driftCounts(d))
		return
	}
	t.printf("%d passed, %d failed", r.Summary.Passed, r.Summary.Failed)
	if n := r.Summary.ExpectedFailures; n > 0 {
		t.printf(" (%d expected)", n)
	}
	t.printf(", %d skipped", r.Summary.Skipped)
	if !t.opts.NoDurations {
		t.printf(" in %s", duration(r.Summary.DurationMs))
	}
	if d := r.Summary.Drift; d != nil {
		t.printf("; drift: %s", driftCounts(d))
	}
	switch n := r.Summary.Flaky; {
	case n == 1:
		t.printf("; 1 flaky scenario")
	case n > 1:
		t.printf("; %d flaky scenarios", n)
	}
	t.printf("\n")
}

func targetLine(r *Report) string {
	var parts []string
	switch r.Target.Transport {
	case TargetStdio:
		parts = append(parts, "Target: stdio "+r.Target.Program)
	case TargetHTTP:
		parts = append(parts, "Target: "+r.Target.Origin)
	case TargetNone:
		parts = append(parts, "Target: none (two contract files compared)")
	default:
		parts = append(parts, "Target: "+string(r.Target.Transport))
	}
	if r.ProtocolVersion != "" {
		p := "Protocol: " + r.ProtocolVersion
		if r.RequestedProtocolVersion != "" {
			p += " (negotiated; requested " + r.RequestedProtocolVersion + ")"
		}
		parts = append(parts, p)
	}
	if r.Server != nil {
		parts = append(parts, "Server: "+strings.TrimSpace(r.Server.Name+" "+r.Server.Version))
	}
	if r.NotConnected {
		parts = append(parts, "not connected (nothing to discover)")
	} else {
		parts = append(parts, fmt.Sprintf("Tools discovered: %d", len(r.ToolsDiscovered)))
	}
	return strings.Join(parts, " | ")
}

// scenario writes a scenario's block: its name, then each step (under
// Quiet, a passed scenario and passed steps are left out).
func (t *textWriter) scenario(sc *ScenarioResult) {
	if t.opts.Quiet && (sc.Status == StatusPassed || sc.NotSelected != "") {
		return
	}
	t.scenarioName(sc)
	if sc.NotSelected != "" && len(sc.Steps) > 0 {
		// Left out whole: one line for its steps, all skipped for one reason.
		n := fmt.Sprintf("%d steps", len(sc.Steps))
		if len(sc.Steps) == 1 {
			n = "1 step"
		}
		t.printf("  %s %s, %s\n", t.paint(yellow, "skip"), n, sc.Steps[0].Reason)
		return
	}
	cols := columnsOf(sc)
	for i := range sc.Steps {
		t.step(&sc.Steps[i], cols)
	}
	t.attempts(sc)
}

// scenarioName writes the line that opens a scenario's block, after a
// blank one.
func (t *textWriter) scenarioName(sc *ScenarioResult) {
	name := sc.Name
	if sc.ProtocolVersion != "" {
		name += " [" + sc.ProtocolVersion + "]"
	}
	t.printf("\n%s\n", t.paint(bold, name))
}

// columns are the widths of a scenario's step id and tool columns: every
// step of the scenario is padded to them, so they depend on all its steps
// (their ids and tools are known before any runs).
type columns struct{ id, tool int }

func columnsOf(sc *ScenarioResult) columns {
	var c columns
	for _, st := range sc.Steps {
		c.id, c.tool = max(c.id, len(st.ID)), max(c.tool, len(Subject(&st)))
	}
	return c
}

// step writes a step's line and its detail lines: why it failed or was
// skipped, and its notes.
func (t *textWriter) step(st *StepResult, cols columns) {
	if t.opts.Quiet && st.Status == StatusPassed {
		return
	}
	var mark string
	switch st.Status {
	case StatusPassed:
		mark = t.paint(green, "ok  ")
		if st.Flagged {
			mark = t.paint(yellow, "flag")
		}
	case StatusFailed:
		mark = t.paint(red, "FAIL")
	default:
		mark = t.paint(yellow, "skip")
	}
	line := fmt.Sprintf("  %s %-*s  %-*s", mark, cols.id, st.ID, cols.tool, Subject(st))
	if st.Origin != "fixture" {
		line += "  [" + string(st.Origin) + "]"
	}
	if st.Status != StatusSkipped {
		if st.Outcome != "" && st.Outcome != "ok" {
			line += "  " + outcomeText(st)
		}
		if !t.opts.NoDurations {
			line += "  " + t.paint(dim, duration(st.DurationMs))
		}
	}
	t.printf("%s\n", strings.TrimRight(line, " "))
	switch st.Status {
	case StatusSkipped:
		t.printf("       %s\n", st.Reason)
	case StatusFailed:
		t.failure(st)
	}
	for _, n := range st.Notes {
		t.printf("       note: %s\n", n)
	}
	if len(st.ServerRequests) > 0 {
		var asked []string
		for _, q := range st.ServerRequests {
			a := fmt.Sprintf("%s ×%d", q.Method, q.Count)
			if len(q.During) > 0 {
				a += " (during this step and " + strings.Join(q.During, ", ") + ": which of them asked is not known)"
			}
			asked = append(asked, a)
		}
		t.printf("       the server asked the client: %s\n", strings.Join(asked, ", "))
	}
	t.exchange(st)
	t.withoutProgress(st)
}

func outcomeText(st *StepResult) string {
	if st.ErrorCode != nil {
		return fmt.Sprintf("%s %d", st.Outcome, *st.ErrorCode)
	}
	return string(st.Outcome)
}

func (t *textWriter) failure(st *StepResult) {
	for _, l := range failureLines(st) {
		t.printf("       %s\n", l)
	}
}

// show renders a generic JSON value compactly, cut to a readable length.
// HTML escaping is off: a sanitized "<time>" reads as written, not as
// "\u003ctime\u003e"; the HTML and XML writers escape for themselves.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	// JSON escapes C0 controls; Clean also drops C1 ones (U+009B is a CSI
	// on some terminals) and cuts long values.
	return safetext.Clean(string(b), 300)
}

func duration(ms float64) string {
	switch {
	case ms < 1:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	default:
		return fmt.Sprintf("%.2fs", ms/1000)
	}
}

// Subject is what a step addressed, as the human reports show it: a tool
// step's tool, or any other step's kind and target ("resource
// household://about", "list prompts", "ping").
func Subject(st *StepResult) string {
	if st.Kind == config.KindTool || st.Kind == "" {
		return st.Tool
	}
	return strings.TrimSpace(string(st.Kind) + " " + st.Target)
}
