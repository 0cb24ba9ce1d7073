package runner

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
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
			scores := slices.DeleteFunc(slices.Clone(rep.Summary.Scores), func(s report.Score) bool { return s.ProtocolVersion != e.version })
			findings := slices.DeleteFunc(slices.Clone(rep.Findings), func(f report.Finding) bool { return f.ProtocolVersion != e.version })
			part := report.Report{Scenarios: e.scenarios, Summary: report.Summary{Scores: scores}, Findings: findings}
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
