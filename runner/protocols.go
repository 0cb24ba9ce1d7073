package runner

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// runProtocols runs the suite once per protocol version, each a part of
// its own, and joins the parts: the scenarios of each pass in turn (each
// tagged with its negotiated version), sessions summed, the first
// failure, warnings, notes and skipped tools tagged with the version the
// pass asked for. [Analyze] then judges each version's checks apart and
// lists the divergences between them.
func runProtocols(ctx context.Context, suite *config.Suite, opts Options, m purpose, versions []string) (*report.Report, error) {
	start := time.Now()
	// Each pass has scenarios of its own; the joined report exists only at
	// the end, so the passes are not followed as they go.
	opts.OnStart, opts.OnStep, opts.OnScenario = nil, nil, nil
	opts.answerKey = newAnswerKey()
	var parts []*report.Report
	for _, v := range versions {
		s := *suite
		s.ProtocolVersion = v
		rep, err := runOne(ctx, &s, opts, m)
		if err != nil {
			return nil, err
		}
		// An interrupted run still gives every pass its report: the passes
		// not begun list their steps skipped, "interrupted".
		parts = append(parts, rep)
	}
	joined := joinProtocols(parts, versions)
	joined.Summary.DurationMs = ms(time.Since(start))
	return joined, nil
}

// joinProtocols joins the passes of a multi-protocol run (requested[k] is
// what parts[k] asked for) into one report, not analysed yet.
func joinProtocols(parts []*report.Report, requested []string) *report.Report {
	first := parts[0]
	m := &report.Report{
		SchemaVersion:   report.SchemaVersion,
		Suite:           first.Suite, // named by the server in quick mode
		Target:          first.Target,
		ProtocolVersion: first.ProtocolVersion,
		ToolsDiscovered: []string{},
		StartedAt:       first.StartedAt,
		Analysis:        first.Analysis,
	}
	tools := map[string]bool{}
	for k, rep := range parts {
		v := requested[k]
		pr := report.ProtocolRun{Requested: v, Negotiated: rep.ProtocolVersion, From: len(m.Scenarios)}
		pr.Failed = rep.Failure != nil || rep.TerminatedEarly != nil || len(rep.StaleBaseline) > 0 ||
			slices.ContainsFunc(rep.Drift, func(d report.Drift) bool { return d.Failing })
		if m.Server == nil {
			m.Server = rep.Server
		}
		for _, t := range rep.ToolsDiscovered {
			tools[t] = true
		}
		joinPart(m, rep, v)
		if m.Analysis == nil {
			m.Analysis = rep.Analysis
		}
		m.ServerStderr = append(m.ServerStderr, rep.ServerStderr...)
		// The contract is compared under the first version asked for.
		if m.Summary.Drift == nil && rep.Summary.Drift != nil {
			m.Drift, m.Summary.Drift = rep.Drift, rep.Summary.Drift
		}
		for _, sc := range rep.Scenarios {
			sc.ProtocolVersion = rep.ProtocolVersion
			m.Scenarios = append(m.Scenarios, sc)
		}
		for _, st := range rep.SkippedTools {
			st.ProtocolVersion = v
			m.SkippedTools = append(m.SkippedTools, st)
		}
		pr.To = len(m.Scenarios)
		m.ProtocolRuns = append(m.ProtocolRuns, pr)
	}
	for t := range tools {
		m.ToolsDiscovered = append(m.ToolsDiscovered, t)
	}
	sort.Strings(m.ToolsDiscovered)
	m.Warnings, m.Notes = distinct(m.Warnings), distinct(m.Notes)
	sort.Strings(m.Warnings)
	return m
}

// divergences lists the steps whose status, outcome, error code or answer
// (its members' values, see eradiff.go) differ between the passes of a
// multi-protocol run, compared by value: each
// step of the first pass with the step of the same scenario name and id in
// the others. A step that is not for one of the versions (a `protocols`
// tag) is by design not divergent.
func divergences(eras []era) []report.Divergence {
	type key struct{ scenario, step string }
	index := make([]map[key]*report.StepResult, len(eras))
	for k, e := range eras {
		index[k] = map[key]*report.StepResult{}
		for i := range e.scenarios {
			sc := &e.scenarios[i]
			for j := range sc.Steps {
				kk := key{sc.Name, sc.Steps[j].ID}
				if _, dup := index[k][kk]; !dup {
					index[k][kk] = &sc.Steps[j]
				}
			}
		}
	}
	var out []report.Divergence
	for i := range eras[0].scenarios {
		sc := &eras[0].scenarios[i]
		for j := range sc.Steps {
			kk := key{sc.Name, sc.Steps[j].ID}
			if index[0][kk] != &sc.Steps[j] {
				continue // a repeated name: compared at its first
			}
			var results []report.DivergentOutcome
			var values []string
			differs, tagged := false, false
			for k, e := range eras {
				o := index[k][kk]
				if o == nil {
					continue
				}
				// A step not judged under one version (out of its scope,
				// or the run was interrupted) differs in nothing.
				if o.Cause == report.SkipNotForProtocol || interruptedStep(o) {
					tagged = true
					break
				}
				d := report.DivergentOutcome{ProtocolVersion: e.negotiated, Status: o.Status, Outcome: o.Outcome, ErrorCode: o.ErrorCode}
				if len(results) > 0 && !sameResult(d, results[0]) {
					differs = true
				}
				for _, v := range valuesDiffer(index[0][kk].AnswerDigests, o.AnswerDigests) {
					if !slices.Contains(values, v) {
						values = append(values, v)
					}
				}
				results = append(results, d)
			}
			if (differs || len(values) > 0) && !tagged {
				slices.Sort(values)
				out = append(out, report.Divergence{Scenario: sc.Name, Step: sc.Steps[j].ID, Results: results, Values: values})
			}
		}
	}
	return out
}

// sameResult reports whether two passes' results of a step are equal in
// value: status, outcome and error code (the code compared as a number,
// not as where it is stored).
func sameResult(a, b report.DivergentOutcome) bool {
	codeEqual := (a.ErrorCode == nil) == (b.ErrorCode == nil) && (a.ErrorCode == nil || *a.ErrorCode == *b.ErrorCode)
	return a.Status == b.Status && a.Outcome == b.Outcome && codeEqual
}
