package runner

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/score"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// Rules that keep a verdict honest on any server (issue 19): what counts as
// an empty answer, a crossed response, a latency outlier, a covered tool
// and a grade with enough data behind it.

// Probe defaults (mcp-fuzz's): absolute thresholds, and the relative rule
// of more than 3× the server's median, only with ≥ 3 tools. A run's
// relative rule also asks for a margin above the median (score.Outliers):
// 500 ms, a delay a user notices, and 1,000 characters. The live gate
// (LatencyGate) keeps mcp-fuzz's floor, above which a tool's own earlier
// calls are its median.
const (
	defaultSlowMs     = 5000
	defaultBloatChars = 20000
	outlierRatio      = 3
	slowFloorMs       = 100
	bloatFloorChars   = 1000
	slowMarginMs      = 500
	bloatMarginChars  = 1000
	minProbeSamples   = 3
)

// analysisSettings are g's settings for [Analyze].
func analysisSettings(g *config.Generate) *report.AnalysisSettings {
	a := &report.AnalysisSettings{FailUnder: g.FailUnder}
	if g.Probes {
		a.Probes = &report.ProbeSettings{SlowThresholdMs: defaultSlowMs, BloatThresholdChars: defaultBloatChars, PriceModel: g.PriceModel}
		if g.SlowThresholdMs > 0 {
			a.Probes.SlowThresholdMs = float64(g.SlowThresholdMs)
		}
		if g.BloatThresholdChars > 0 {
			a.Probes.BloatThresholdChars = float64(g.BloatThresholdChars)
		}
	}
	return a
}

// validRuns are the tools' generated valid calls that ran: what the probes
// measure.
func (a *analysis) validRuns() []*report.StepResult {
	var out []*report.StepResult
	a.each(func(_ *report.ScenarioResult, st *report.StepResult) {
		if st.Case == caseValid && st.Status != report.StatusSkipped {
			out = append(out, st)
		}
	})
	return out
}

// measurable reports whether a call produced a real response to measure:
// crashed, hung or broken calls are excluded from the probes.
func measurable(st *report.StepResult) bool {
	switch st.Outcome {
	case config.OutcomeOK, config.OutcomeToolError, config.OutcomeProtocolError, config.OutcomeOutputInvalid:
		return true
	}
	return false
}

// probes flags the latency and size outliers among the valid calls and
// adds the two scores and the token estimate. Outliers are judged against
// the median of every tool, so a shard's are judged again when merged.
func (a *analysis) probes(p *report.ProbeSettings) {
	latency, size := map[string]float64{}, map[string]float64{}
	chars, unmeasured := 0, 0
	for _, st := range a.validRuns() {
		if !measurable(st) {
			unmeasured++
			continue
		}
		size[st.Tool] = float64(st.ResponseChars)
		chars += st.ResponseChars
		switch {
		case st.AsTask:
			// A task's time is its work and the server's poll interval,
			// not a latency.
			continue
		case st.TimedBy != "":
			a.notes = append(a.notes, fmt.Sprintf("tool %q: latency not judged: its argument %s asks for the time the call takes", st.Tool, st.TimedBy))
			continue
		}
		latency[st.Tool] = st.DurationMs
	}
	again := a.remeasured(latency)
	add := func(kind report.FindingKind, name config.ScoreName, unit string, values map[string]float64, flags map[string]string, measured int) {
		for _, t := range slices.Sorted(maps.Keys(flags)) {
			msg := fmt.Sprintf("valid call: %.0f %s (%s)", values[t], unit, flags[t])
			if kind == report.FindingLatency {
				msg = latencyMessage(values[t], again[t], flags[t])
			}
			a.findings = append(a.findings, report.Finding{Tool: t, Origin: config.OriginProbe, Kind: kind, Flagged: true, Score: name, Message: msg})
		}
		sc := percentScore(name, measured-len(flags), measured)
		sc.Inconclusive = unmeasured
		a.scores = append(a.scores, sc)
	}
	add(report.FindingLatency, config.ScoreLatency, "ms", latency, score.Outliers(latency, p.SlowThresholdMs, outlierRatio, slowMarginMs, minProbeSamples), len(latency))
	add(report.FindingResponseSize, config.ScoreResponseSize, "characters", size, score.Outliers(size, p.BloatThresholdChars, outlierRatio, bloatMarginChars, minProbeSamples), len(size))
	if len(size) > 0 {
		tok := &report.Tokens{Total: score.EstimateTokens(chars), Calls: len(size), Method: "about 4 characters a token over each tool's valid call, an estimate, not a tokenizer"}
		tok.PerCall = tok.Total / tok.Calls
		if m := p.PriceModel; m != "" {
			if price, ok := score.PricePerMTok(m); ok {
				tok.Model, tok.PricesAsOf = m, score.PricesAsOf
				tok.USD = math.Round(float64(tok.Total)*price/1e6*1e6) / 1e6
			}
		}
		a.tokens = tok
	}
}

// tally computes the scores the steps count toward, and concurrency's,
// and applies the thresholds.
func (a *analysis) tally(concurrencyChecked, concurrencyFailed int) {
	type tally struct{ passed, total, inconclusive int }
	t := map[config.ScoreName]*tally{}
	a.each(func(_ *report.ScenarioResult, st *report.StepResult) {
		if st.Score == "" || st.Status == report.StatusSkipped {
			return
		}
		c := t[st.Score]
		if c == nil {
			c = &tally{}
			t[st.Score] = c
		}
		if st.Score == config.ScoreResponseFidelity && st.Outcome != config.OutcomeOK && st.Outcome != config.OutcomeOutputInvalid {
			// An honest error or a crash says nothing about fidelity:
			// the generated input may just be unrealistic.
			c.inconclusive++
			return
		}
		c.total++
		if st.Status == report.StatusPassed {
			c.passed++
		}
	})
	for _, name := range []config.ScoreName{config.ScoreCrashResilience, config.ScoreResponseFidelity, config.ScoreLifecycle, config.ScoreProtocol} {
		if c := t[name]; c != nil {
			sc := percentScore(name, c.passed, c.total)
			sc.Inconclusive = c.inconclusive
			a.scores = append(a.scores, sc)
		}
	}
	if concurrencyChecked > 0 {
		a.scores = append(a.scores, percentScore(config.ScoreConcurrency, concurrencyChecked-concurrencyFailed, concurrencyChecked))
	}
	// A threshold on a score nothing was generated for has no case to
	// meet it: the score is listed as n/a, and the threshold as not met.
	failUnder := a.settings.FailUnder
	for _, name := range config.ScoreNames {
		if _, ok := failUnder[name]; ok && !slices.ContainsFunc(a.scores, func(sc report.Score) bool { return sc.Name == name }) {
			a.scores = append(a.scores, percentScore(name, 0, 0))
		}
	}
	sort.SliceStable(a.scores, func(i, j int) bool {
		return scoreOrder(a.scores[i].Name) < scoreOrder(a.scores[j].Name)
	})
	for i := range a.scores {
		enoughToGrade(&a.scores[i])
	}
	for i := range a.scores {
		sc := &a.scores[i]
		if th, ok := failUnder[sc.Name]; ok {
			// A score with no case has nothing to meet a threshold with.
			met := sc.Percent != nil && *sc.Percent >= th
			sc.FailUnder, sc.Met = &th, &met
		}
	}
}

func scoreOrder(name config.ScoreName) int { return slices.Index(config.ScoreNames, name) }

func percentScore(name config.ScoreName, passed, total int) report.Score {
	s := report.Score{Name: name, Passed: passed, Total: total, Grade: "n/a"}
	if total > 0 {
		pct := math.Round(float64(passed)/float64(total)*10000) / 100
		s.Percent, s.Grade = &pct, score.Grade(pct)
	}
	return s
}

// nothingTested marks a run that only generates checks (no step of the
// fixture's own) and made no call at all: it tested nothing, whatever its
// scores say. The run still passes unless a threshold was given, which
// then has no case to meet.
func (a *analysis) nothingTested() {
	called, fixture := false, false
	tools := map[string]bool{}
	ran := map[config.StepKind]int{}
	a.each(func(_ *report.ScenarioResult, st *report.StepResult) {
		fixture = fixture || st.Origin == config.OriginFixture
		if st.Outcome == "" {
			return
		}
		called = true
		if st.Kind == config.KindTool && st.Tool != "" {
			tools[st.Tool] = true
		} else {
			ran[st.Kind]++
		}
	})
	if fixture {
		return
	}
	if called {
		a.noToolTested(len(tools), ran)
		a.coverage = a.coverageLine(len(tools))
		return
	}
	n := &report.NothingTested{Reason: "the server lists no tool", Fix: "check that the server is the one you meant"}
	if k := len(a.skipped); k > 0 {
		reasons, fixes := skippedWhy(a.skipped)
		n.Reason = fmt.Sprintf("every tool the server lists was left alone (%d): %s", k, reasons)
		n.Fix = fixes
	}
	a.nothing = n
}

// skippedWhy sums up the tools left alone: how many for each reason, and
// the fixes that would call them, each "; "-joined.
func skippedWhy(skipped []report.SkippedTool) (reasons, fixes string) {
	var parts, fixList []string
	for _, gr := range report.SkippedGroupsOf(skipped) {
		parts = append(parts, fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason))
		if gr.Fix != "" && !slices.Contains(fixList, gr.Fix) {
			fixList = append(fixList, gr.Fix)
		}
	}
	return strings.Join(parts, "; "), strings.Join(fixList, "; ")
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
		reasons, fixes := skippedWhy(a.skipped)
		n.Reason += ": " + reasons
		if fixes != "" {
			n.Fix = fixes
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
