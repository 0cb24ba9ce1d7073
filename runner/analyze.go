package runner

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"bytes"
	"encoding/json"
	"maps"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/score"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// caseKind is the kind of a finding about generated steps: their case
// (several cases comma-joined, when one finding sums up a tool's calls)
// and, when they were aimed at one property, that property, e.g.
// "wrong-type limit" or "missing-required,wrong-type city". This is the
// one place such a kind is put together.
func caseKind(property string, cases ...string) report.FindingKind {
	kind := strings.Join(cases, ",")
	if property != "" {
		kind += " " + property
	}
	return report.FindingKind(kind)
}

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

// Analyze judges a finished report as a function of its data: the
// generated checks' findings, scores, outliers, token estimate and notes
// (from the steps' origin, case, property and score handles and
// rep.Analysis), the divergences between the protocol versions of a
// multi-protocol run, and the verdict ([Report.Tally]). It makes no calls.
//
// It runs once, at the end: of a run, of a merge of shards (the parts
// joined, then analysed), of a multi-protocol run (one part per version,
// joined; each version's scenarios are analysed apart and what they yield
// carries the version). What it added before is replaced, so analysing a
// report read back from JSON gives what the run gave.
func Analyze(rep *report.Report) {
	rep.Findings, rep.Summary.Scores, rep.Tokens, rep.NothingTested, rep.Coverage = nil, nil, nil, nil, ""
	eras := erasOf(rep)
	if rep.Analysis != nil {
		var notes []string
		nothing := 0
		for k := range eras {
			e := &eras[k]
			a := &analysis{settings: rep.Analysis, shard: rep.Shard != nil, scenarios: e.scenarios, skipped: e.skipped, listed: len(rep.ToolsDiscovered)}
			a.run()
			for i := range a.findings {
				a.findings[i].ProtocolVersion = e.version
			}
			for i := range a.scores {
				a.scores[i].ProtocolVersion = e.version
			}
			rep.Findings = append(rep.Findings, a.findings...)
			rep.Summary.Scores = append(rep.Summary.Scores, a.scores...)
			if rep.Tokens == nil {
				// One estimate: the first version's, as the contract is
				// compared under the first version asked for.
				rep.Tokens = a.tokens
			}
			if rep.Coverage == "" && a.coverage != "" {
				// The first version's, as for the token estimate.
				rep.Coverage = a.coverage
			}
			if a.nothing != nil {
				nothing++
				if rep.NothingTested == nil {
					rep.NothingTested = a.nothing
				}
			}
			for _, n := range a.notes {
				if e.version != "" {
					n = "[" + e.version + "] " + n
				}
				notes = append(notes, n)
			}
		}
		if nothing < len(eras) {
			rep.NothingTested = nil
		}
		// Notes of an earlier analysis (a shard's) are replaced by these.
		rep.Notes = slices.DeleteFunc(rep.Notes, func(n string) bool { return slices.Contains(notes, n) })
		rep.Notes = append(rep.Notes, notes...)
	}
	for _, e := range eras {
		rep.Findings = append(rep.Findings, withoutProgressFindings(e.scenarios, e.version)...)
	}
	if rep.StdoutNoise != nil {
		rep.Findings = append(rep.Findings, noiseFinding(rep.StdoutNoise, rep.ProtocolVersion))
	}
	if len(rep.Notes) == 0 {
		rep.Notes = nil
	}
	if len(rep.ProtocolRuns) > 0 {
		for k, e := range eras {
			// Each pass's verdict: its steps, findings and scores, and
			// what failed it outside them.
			part := report.Report{Scenarios: e.scenarios, Summary: report.Summary{Scores: scoresOf(rep, e.version)}, Findings: findingsOf(rep, e.version)}
			part.Tally()
			rep.ProtocolRuns[k].Passed = part.Passed && !rep.ProtocolRuns[k].Failed
		}
		rep.Divergences = divergences(eras)
	}
	rep.Tally()
}

// era is the part of a report run under one protocol version: the whole
// report, unless it is a multi-protocol run's.
type era struct {
	// version names the pass: the version it asked for (--protocol), as
	// its warnings and failure do ("" for the whole report); two passes
	// may negotiate the same one. negotiated is what it ran under.
	version, negotiated string
	scenarios           []report.ScenarioResult
	skipped             []report.SkippedTool
}

// analysis judges the generated steps of one era's scenarios.
type analysis struct {
	settings  *report.AnalysisSettings
	shard     bool // a shard's report: it sees some of the tools only
	scenarios []report.ScenarioResult
	skipped   []report.SkippedTool
	listed    int // tools the server lists

	findings []report.Finding
	scores   []report.Score
	tokens   *report.Tokens
	notes    []string
	nothing  *report.NothingTested
	coverage string // see coverageLine
}

// run judges, in the order the findings are listed: the probes (latency,
// size, tokens), the concurrency checks, schema enforcement, the scores,
// the failed and flagged generated steps, the server-level fuzz findings,
// and the protocol probes' verdicts.
func (a *analysis) run() {
	if p := a.settings.Probes; p != nil {
		a.probes(p)
	}
	checked, failedTools := a.concurrencyFindings()
	a.schemaEnforcement()
	a.behaviourFindings()
	a.tally(checked, failedTools)
	a.stepFindings()
	if !a.shard {
		// A shard sees some of the tools only: merge judges this over all.
		a.findings = sdkFindings(a.findings, a.scenarios)
	}
	a.protocolFindings()
	a.nothingTested()
}

// each calls f with every step of the era and its scenario.
func (a *analysis) each(f func(sc *report.ScenarioResult, st *report.StepResult)) {
	for i := range a.scenarios {
		sc := &a.scenarios[i]
		for j := range sc.Steps {
			f(sc, &sc.Steps[j])
		}
	}
}

// schemaEnforcement judges the fuzz cases by whether the server refused
// input its own inputSchema forbids (the steps marked Forbidden): a tool
// error or a JSON-RPC error is enforcement, a result (ok, or
// output_invalid) is acceptance, and each accepted case is a failed
// finding naming the tool, the case and the property. Cases that crashed,
// hung or lost the transport say nothing about enforcement; crash
// resilience counts them.
func (a *analysis) schemaEnforcement() {
	enforced, accepted, tried, judged := 0, 0, 0, false
	// One finding per tool and property, naming the cases it accepted.
	type key struct{ tool, property string }
	var order []key
	cases := map[key][]string{}
	outcomes := map[key][]string{}
	a.each(func(_ *report.ScenarioResult, st *report.StepResult) {
		if !st.Forbidden {
			return
		}
		judged = true
		if st.Status != report.StatusSkipped {
			tried++
		}
		switch st.Outcome {
		case config.OutcomeToolError, config.OutcomeProtocolError:
			enforced++
		case config.OutcomeOK, config.OutcomeOutputInvalid:
			accepted++
			k := key{st.Tool, st.Property}
			if _, seen := cases[k]; !seen {
				order = append(order, k)
			}
			cases[k] = append(cases[k], st.Case)
			if !slices.Contains(outcomes[k], string(st.Outcome)) {
				outcomes[k] = append(outcomes[k], string(st.Outcome))
			}
		}
	})
	if !judged {
		return
	}
	for _, k := range order {
		kind := caseKind(k.property, cases[k]...)
		a.findings = append(a.findings, report.Finding{Tool: k.tool, Origin: config.OriginFuzz, Kind: kind, Status: report.StatusFailed,
			Score: config.ScoreSchemaEnforcement, Message: "answered " + strings.Join(outcomes[k], ", ") + " to arguments its own inputSchema forbids (" + string(kind) + "): the server does not enforce its schema"})
	}
	sc := percentScore(config.ScoreSchemaEnforcement, enforced, enforced+accepted)
	sc.Inconclusive = max(0, tried-enforced-accepted)
	a.scores = append(a.scores, sc)
}

// stepFindings lists the failed and flagged generated steps as findings,
// after the probe and concurrency findings, in report order. A fixture's
// steps speak for themselves, and so do the protocol probes (their
// verdicts are listed last, with what the spec asks); a concurrency
// check's calls are judged together, so only its failed calls are listed.
func (a *analysis) stepFindings() {
	a.each(func(sc *report.ScenarioResult, st *report.StepResult) {
		switch st.Origin {
		case config.OriginFixture, config.OriginProtocol, config.OriginBehaviour:
			// A behaviour check's calls are judged together (its scenario's
			// verdicts), like the probes'.
			return
		}
		failed := st.Status == report.StatusFailed
		if !failed && (!st.Flagged || st.Origin == config.OriginConcurrency) {
			return
		}
		f := report.Finding{Tool: st.Tool, Origin: st.Origin, Kind: caseKind(st.Property, st.Case), Score: st.Score, Step: sc.Name + " / " + st.ID}
		if failed {
			f.Status = report.StatusFailed
			f.Message = stepMessage(st)
		} else {
			f.Flagged = true
			f.Message = st.Notes[0]
			f.Score = ""
		}
		a.findings = append(a.findings, f)
	})
}

// protocolFindings lists the protocol probes' failed and flagged verdicts,
// in step order.
func (a *analysis) protocolFindings() {
	a.each(func(sc *report.ScenarioResult, st *report.StepResult) {
		v := st.Probe
		if v == nil {
			return
		}
		f := report.Finding{Tool: v.Tool, Origin: config.OriginProtocol, Kind: caseKind("", st.Case), Step: sc.Name + " / " + st.ID,
			Expected: v.Expected, Got: v.Got, Reference: v.Reference}
		switch {
		case st.Status == report.StatusFailed:
			f.Status, f.Score, f.Message = report.StatusFailed, config.ScoreProtocol, st.Reason
		case st.Flagged:
			f.Flagged, f.Message = true, st.Notes[0]
		default:
			return
		}
		a.findings = append(a.findings, f)
	})
}

// sdkFindings reports once, at server level, a fuzz case that every tool
// given it failed the same way (the same outcome and error code, two tools
// at least): that comes from the server's SDK, not from its tools. The
// steps keep their verdicts; the per-tool findings are replaced by one
// whose tool is empty, listed after the others.
func sdkFindings(findings []report.Finding, scenarios []report.ScenarioResult) []report.Finding {
	type key struct {
		kase, outcome string
		code          int64
	}
	tried := map[string]map[string]bool{} // case → the tools it was tried on
	failed := map[key][]string{}          // → the findings' step references
	tools := map[key]map[string]bool{}
	var order []key
	for i := range scenarios {
		res := &scenarios[i]
		for j := range res.Steps {
			st := &res.Steps[j]
			if st.Origin != config.OriginFuzz || st.Status == report.StatusSkipped || st.Case == caseValid {
				continue
			}
			if tried[st.Case] == nil {
				tried[st.Case] = map[string]bool{}
			}
			tried[st.Case][st.Tool] = true
			if st.Status != report.StatusFailed || st.Score != config.ScoreCrashResilience {
				continue
			}
			k := key{kase: st.Case, outcome: string(st.Outcome)}
			if st.ErrorCode != nil {
				k.code = *st.ErrorCode
			}
			if tools[k] == nil {
				order = append(order, k)
				tools[k] = map[string]bool{}
			}
			tools[k][st.Tool] = true
			failed[k] = append(failed[k], res.Name+" / "+st.ID)
		}
	}
	drop := map[string]bool{}
	var add []report.Finding
	for _, k := range order {
		if len(tools[k]) < 2 || len(tools[k]) != len(tried[k.kase]) {
			continue
		}
		got := k.outcome
		if k.code != 0 {
			got += " " + strconv.FormatInt(k.code, 10)
		}
		add = append(add, report.Finding{Origin: config.OriginFuzz, Kind: caseKind("", k.kase), Status: report.StatusFailed, Score: config.ScoreCrashResilience, Step: failed[k][0],
			Message: fmt.Sprintf("every tool given a %s case (%d) answered %s: this comes from the server's SDK or transport, not from its tools", k.kase, len(tools[k]), got)})
		for _, ref := range failed[k] {
			drop[ref] = true
		}
	}
	if len(add) == 0 {
		return findings
	}
	kept := findings[:0:0]
	for _, f := range findings {
		if f.Origin != config.OriginFuzz || !drop[f.Step] {
			kept = append(kept, f)
		}
	}
	return append(kept, add...)
}

// stepMessage summarises why a step failed, in the runner's words.
func stepMessage(st *report.StepResult) string {
	switch {
	case len(st.Assertions) > 0:
		a := st.Assertions[0]
		return strings.TrimSpace(string(a.Kind) + " " + a.Path + ": " + a.Message)
	case st.Reason != "":
		return st.Reason
	default:
		return "failed with outcome " + string(st.Outcome)
	}
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
		names := make([]string, 0, len(flags))
		for t := range flags {
			names = append(names, t)
		}
		sort.Strings(names)
		for _, t := range names {
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

// concurrencyFindings judges the concurrency checks and returns how many
// tools were checked and how many failed. Independent connections: a tool
// is flagged only when the failure is informative — some calls succeeded
// and some did not on identical input, or the sequential call succeeded and
// concurrent ones failed. Crossed responses: an overlapping call whose
// answer differs from its one-by-one twin's, or never arrives, is a
// failure; a tool that answers the same input differently one by one is
// skipped as non-deterministic, with a note.
//
// The checks are found by their steps' cases: a scenario of
// independent-connections calls; a scenario of one-by-one calls of a tool
// (its reference), then one of its overlapping calls.
func (a *analysis) concurrencyFindings() (checked, failedTools int) {
	seqOK := map[string]bool{}
	for _, st := range a.validRuns() {
		seqOK[st.Tool] = st.Outcome == config.OutcomeOK
	}
	fail := func(tool string, kind report.FindingKind, msg string) {
		a.findings = append(a.findings, report.Finding{Tool: tool, Origin: config.OriginConcurrency, Kind: kind, Status: report.StatusFailed, Score: config.ScoreConcurrency, Message: msg})
	}
	caseOf := func(sc *report.ScenarioResult) string {
		if len(sc.Steps) == 0 || sc.Steps[0].Origin != config.OriginConcurrency {
			return ""
		}
		return sc.Steps[0].Case
	}
	// Independent connections first, then crossed responses, each in
	// report order (by tool).
	for i := range a.scenarios {
		sc := &a.scenarios[i]
		if caseOf(sc) != caseIndependent {
			continue
		}
		tool := sc.Steps[0].Tool
		ran, okCount := 0, 0
		var outcomes []string
		for _, st := range sc.Steps {
			if st.Status == report.StatusSkipped && st.Outcome == "" {
				continue
			}
			ran++
			if st.Outcome == config.OutcomeOK {
				okCount++
			} else if !slices.Contains(outcomes, string(st.Outcome)) {
				outcomes = append(outcomes, string(st.Outcome))
			}
		}
		if ran == 0 {
			continue
		}
		checked++
		switch {
		case okCount > 0 && okCount < ran:
			fail(tool, report.FindingIndependentConnections, fmt.Sprintf("%d of %d identical calls on independent connections succeeded and the rest ended in %s: the failure depends on load", okCount, ran, strings.Join(outcomes, ", ")))
		case okCount == 0 && seqOK[tool]:
			fail(tool, report.FindingIndependentConnections, fmt.Sprintf("the call succeeds alone but all %d concurrent calls on independent connections ended in %s", ran, strings.Join(outcomes, ", ")))
		}
	}
	var seq *report.ScenarioResult
	for i := range a.scenarios {
		par := &a.scenarios[i]
		switch caseOf(par) {
		case caseSequential:
			seq = par
			continue
		case caseOverlapping:
		default:
			continue
		}
		tool := par.Steps[0].Tool
		if par.NotSelected != "" || seq == nil {
			continue
		}
		if why := referenceBroken(seq.Steps); why != "" {
			a.notes = append(a.notes, fmt.Sprintf("tool %q: %s", tool, why))
			continue
		}
		checked++
		// One finding per tool: which of the overlapping calls lost a race
		// is chance, the defect is not.
		var failedOutcomes []string
		for _, st := range par.Steps {
			if st.Outcome != config.OutcomeOK && !slices.Contains(failedOutcomes, string(st.Outcome)) {
				failedOutcomes = append(failedOutcomes, string(st.Outcome))
			}
		}
		switch {
		case par.AnswersDiffer:
			if why := unconfirmed(a.scenarios, i); why != "" {
				checked--
				a.notes = append(a.notes, fmt.Sprintf("tool %q: %s", tool, why))
				break
			}
			fail(tool, report.FindingCrossedResponses, fmt.Sprintf("%d distinct calls overlapping on one session did not all get the answer each gets alone, and each still gets it alone afterwards: responses crossed", len(par.Steps)))
		case len(failedOutcomes) > 0:
			sort.Strings(failedOutcomes)
			fail(tool, report.FindingCrossedResponses, fmt.Sprintf("%d distinct calls overlapping on one session did not all come back (%s); each succeeds alone", len(par.Steps), strings.Join(failedOutcomes, ", ")))
		}
	}
	tools := map[string]bool{}
	for _, f := range a.findings {
		if f.Score == config.ScoreConcurrency && f.Status == report.StatusFailed {
			tools[f.Tool] = true
		}
	}
	return checked, len(tools)
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
		groups := report.SkippedGroupsOf(a.skipped)
		var parts, fixes []string
		for _, gr := range groups {
			parts = append(parts, fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason))
			if gr.Fix != "" && !slices.Contains(fixes, gr.Fix) {
				fixes = append(fixes, gr.Fix)
			}
		}
		n.Reason = fmt.Sprintf("every tool the server lists was left alone (%d): %s", k, strings.Join(parts, "; "))
		n.Fix = strings.Join(fixes, "; ")
	}
	a.nothing = n
}

// eras splits the report by protocol version (ProtocolRuns' scenario
// ranges).
func erasOf(r *report.Report) []era {
	if len(r.ProtocolRuns) == 0 {
		return []era{{negotiated: r.ProtocolVersion, scenarios: r.Scenarios, skipped: r.SkippedTools}}
	}
	out := make([]era, len(r.ProtocolRuns))
	for k, pr := range r.ProtocolRuns {
		out[k] = era{version: pr.Requested, negotiated: pr.Negotiated, scenarios: r.Scenarios[pr.From:pr.To:pr.To]}
		for _, s := range r.SkippedTools {
			if s.ProtocolVersion == pr.Requested {
				out[k].skipped = append(out[k].skipped, s)
			}
		}
	}
	return out
}
func scoresOf(r *report.Report, version string) []report.Score {
	var out []report.Score
	for _, s := range r.Summary.Scores {
		if s.ProtocolVersion == version {
			out = append(out, s)
		}
	}
	return out
}
func findingsOf(r *report.Report, version string) []report.Finding {
	var out []report.Finding
	for _, f := range r.Findings {
		if f.ProtocolVersion == version {
			out = append(out, f)
		}
	}
	return out
}

// Rules that keep a verdict honest on any server (issue 19): what counts as
// an empty answer, a crossed response, a latency outlier, a covered tool
// and a grade with enough data behind it.

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
