package runner

// Rules that keep a verdict honest on any server (issue 19): what counts as
// an empty answer, a crossed response, a latency outlier, a covered tool
// and a grade with enough data behind it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// mayBeEmpty reports whether t may honestly succeed with no content: it is
// not annotated read-only and declares no outputSchema, so it may be
// called for a side effect (the spec allows an empty content array). A
// read-only or structured tool was asked for something, and an empty
// answer is a fidelity failure.
func mayBeEmpty(t tool) bool {
	return !isReadOnly(t) && !declared(t.OutputSchema)
}

// declared reports whether a raw schema member is present and not null.
func declared(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}

// A grade needs enough judged cases: at least minGraded, and at least
// half of the cases tried (judged + inconclusive). Fidelity "100 % A" from
// 2 judged calls and 8 inconclusive said more than the data did. The rule
// holds for every score; one that misses it is n/a with its counts, and a
// threshold on it is not met (there is not enough to meet it with).
const minGraded = 3

// enoughToGrade takes the grade from a score that has too few judged
// cases, saying why.
func enoughToGrade(sc *report.Score) {
	if sc.Percent == nil || sc.Total == 0 {
		return
	}
	tried := sc.Total + sc.Inconclusive
	if sc.Total >= minGraded && 2*sc.Total >= tried {
		return
	}
	sc.Percent, sc.Grade = nil, "n/a"
	sc.TooFew = fmt.Sprintf("%d judged of %d tried: a grade needs at least %d judged, and at least half of those tried", sc.Total, tried, minGraded)
}

// noToolTested marks a run of generated checks that made calls but called
// none of the tools the server lists (protocol probes only, resource
// reads, prompts): "PASS" would claim the tools were tested. Its verdict
// is NO TOOL TESTED, and its exit code that of NOTHING TESTED (0 unless
// something failed or a threshold was given): a CI job that runs quick
// mode on a server whose tools are all left alone keeps passing, but the
// headline says what was covered ("0 of 21 tools called: ...").
func (a *analysis) noToolTested(called int, ran map[config.StepKind]int) {
	if called > 0 || a.listed == 0 {
		return
	}
	n := &report.NothingTested{Reason: fmt.Sprintf("0 of %d tools called", a.listed), Fix: "name the tools to call in --allow-tools"}
	if len(a.skipped) > 0 {
		var parts, fixes []string
		for _, gr := range report.SkippedGroupsOf(a.skipped) {
			parts = append(parts, fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason))
			if gr.Fix != "" && !slices.Contains(fixes, gr.Fix) {
				fixes = append(fixes, gr.Fix)
			}
		}
		n.Reason += ": " + strings.Join(parts, "; ")
		if len(fixes) > 0 {
			n.Fix = strings.Join(fixes, "; ")
		}
	}
	var what []string
	for _, k := range []struct {
		kind       config.StepKind
		one, other string
	}{
		{kindRaw, "protocol probe message", "protocol probe messages"},
		{config.KindResource, "resource read", "resource reads"},
		{config.KindPrompt, "prompt get", "prompt gets"},
	} {
		switch c := ran[k.kind]; c {
		case 0:
		case 1:
			what = append(what, "1 "+k.one)
		default:
			what = append(what, fmt.Sprintf("%d %s", c, k.other))
		}
	}
	if len(what) == 0 {
		what = append(what, "calls other than tools/call")
	}
	n.Ran = strings.Join(what, ", ")
	a.nothing = n
}

// timeWords are the words of an argument name that ask a tool to take
// time: a call whose valid arguments set one is slow by request, and the
// latency probe does not judge it ("delayMs", "duration", "sleep_seconds",
// "timeout", "steps": a tool that reports progress step by step).
var timeWords = []string{"duration", "delay", "sleep", "wait", "timeout", "interval", "pause", "steps", "seconds", "secs", "millis", "milliseconds", "ms"}

// timeArgument returns the name of the first argument (in name order)
// whose name holds a time word (as a whole word of a camelCase, snake_case
// or kebab-case name) and whose value asks for time: a positive number,
// or a non-empty string ("5s", "PT2M"). "" when there is none.
func timeArgument(args map[string]any) string {
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !asksForTime(args[name]) {
			continue
		}
		for _, w := range gen.SplitWords(name) {
			if slices.Contains(timeWords, w) {
				return name
			}
		}
	}
	return ""
}

func asksForTime(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f > 0
	case float64:
		return x > 0
	case int:
		return x > 0
	case int64:
		return x > 0
	}
	return false
}

// again plans the latency re-measure: each tool's valid call once more,
// one by one on the shared session, after every other scenario (last), so
// that no load of the run's own slows it. Analysis judges a tool on the
// faster of its two calls, so one slow moment of a loaded machine flags
// nothing. Tools whose arguments ask for their time are not called again.
func (c *generator) again(targets []tool, valid map[string]map[string]any) {
	sc := c.scenario("probes: latency again")
	sc.continueOnFailure, sc.reconnect, sc.last = true, true, true
	for _, t := range targets {
		args, ok := valid[t.Name]
		if !ok || timeArgument(args) != "" {
			continue
		}
		st := c.call("again-"+strconv.Itoa(len(sc.steps)+1), t.Name, args, config.OriginProbe, caseAgain)
		// A measure, not a verdict: any answer will do (the valid call
		// was judged already).
		st.spec.Advisory, st.rerun = true, true
		st.spec.Expect = config.Expect{OutcomeAny: survivedOutcomes}
		sc.steps = append(sc.steps, st)
	}
	if len(sc.steps) > 0 {
		c.add(sc)
	}
}

// remeasured lowers each tool's latency sample to its re-measure (the
// "probes: latency again" scenario) when that was faster, and returns the
// re-measures: a tool is judged on the faster of its two calls, so it is
// flagged only when it was slow both times.
func (a *analysis) remeasured(latency map[string]float64) map[string]bool {
	again := map[string]bool{}
	a.each(func(_ *report.ScenarioResult, st *report.StepResult) {
		if st.Case != caseAgain || st.Status == report.StatusSkipped || !measurable(st) {
			return
		}
		first, ok := latency[st.Tool]
		if !ok {
			return
		}
		again[st.Tool] = true
		latency[st.Tool] = min(first, st.DurationMs)
	})
	return again
}

// latencyMessage is a latency finding's words: the faster call judged,
// and both measures when the tool was measured twice.
func latencyMessage(judged float64, twice bool, why string) string {
	if !twice {
		return fmt.Sprintf("valid call: %.0f ms (%s)", judged, why)
	}
	return fmt.Sprintf("valid call: %.0f ms, the faster of two calls (%s)", judged, why)
}

// unconfirmed says why a crossing seen in the overlapping scenario at
// index i is not confirmed, "" when it is. The scenario after it re-runs
// each input one by one (caseConfirm): when one of them now gets another
// answer than in the first phase, or none, the server's state changed
// between the phases (another client, a clock, a cache), and a differing
// overlapping answer says nothing about crossing. A report without the
// re-run (made before it existed) is judged as it was.
func unconfirmed(scenarios []report.ScenarioResult, i int) string {
	if i+1 >= len(scenarios) {
		return ""
	}
	confirm := &scenarios[i+1]
	if len(confirm.Steps) == 0 || confirm.Steps[0].Case != caseConfirm {
		return ""
	}
	for k := range confirm.Steps {
		st := &confirm.Steps[k]
		switch {
		case st.Status == report.StatusSkipped && st.Outcome == "":
			return "overlapping calls got other answers than one by one, but the re-run that confirms a crossing did not run (" + st.Reason + "); crossed-responses check inconclusive"
		case st.Outcome != config.OutcomeOK:
			return fmt.Sprintf("overlapping calls got other answers than one by one, but %s came back %s when re-run one by one afterwards; crossed-responses check inconclusive", st.ID, st.Outcome)
		case st.AnswerDiffers:
			return fmt.Sprintf("overlapping calls got other answers than one by one, but %s one by one also answered differently afterwards: the server's state changed between the phases, not a crossing; crossed-responses check inconclusive", st.ID)
		}
	}
	return ""
}

// attribute says whether a request the server made of the client, which
// came while the call tp was in flight, is listed with tp's step, and the
// other steps that share it. It belongs to tp provably when it came on
// tp's own HTTP stream (its POST's response), or on a shared stream while
// tp was the only call in flight; then during is nil. On another call's
// own stream it is that call's, not tp's. Otherwise it came during tp and
// the others in flight, named in during: "roots/list ×1 (during steps A,
// B)" rather than a guess that gave "greet" the roots and sampling other
// tools asked for. One that came when tp was not in flight is not its.
func attribute(m *received, tp *tap) (during []string, ours bool) {
	switch {
	case m.owner != nil:
		return nil, m.owner == tp
	case !slices.Contains(m.during, tp):
		return nil, false
	}
	for _, t := range m.during {
		if t != tp {
			during = append(during, t.label)
		}
	}
	slices.Sort(during)
	return during, true
}

// coverageLine is the headline's coverage of a run of generated checks
// that called some but not all of the tools the server lists: "3 of 4
// tools called; 1 not: annotated readOnlyHint: false, so no generated
// call is made — --include-destructive calls tools not annotated
// read-only". The tools not called are grouped by the reason they were
// left alone (the report's skipped tools), each with what would call them.
// A shard's report sees some of the tools only, so it says nothing; the
// merge of the shards does. "" when every tool was called, or none (NO
// TOOL TESTED says that).
func (a *analysis) coverageLine(called int) string {
	if a.shard || called == 0 || a.listed == 0 || called >= a.listed {
		return ""
	}
	line := fmt.Sprintf("%d of %d tools called", called, a.listed)
	var parts []string
	grouped := 0
	groups := report.SkippedGroupsOf(a.skipped)
	for _, gr := range groups {
		grouped += len(gr.Tools)
	}
	rest := a.listed - called - grouped
	for _, gr := range groups {
		p := gr.Reason
		if len(groups) > 1 || rest > 0 {
			// One reason for all of them needs no count of its own.
			p = fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason)
		}
		if gr.Fix != "" {
			p += " — " + gr.Fix
		}
		parts = append(parts, p)
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%d without a call that ran", rest))
	}
	if len(parts) > 0 {
		line += fmt.Sprintf("; %d not: ", a.listed-called) + strings.Join(parts, "; ")
	}
	return line
}
