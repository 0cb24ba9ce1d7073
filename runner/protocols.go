package runner

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// ProtocolRun is one pass of a multi-protocol run.
type ProtocolRun struct {
	Requested  string `json:"requested"`
	Negotiated string `json:"negotiated"`
	Passed     bool   `json:"passed"`
}

// Divergence is a step whose result differs between protocol versions.
type Divergence struct {
	Scenario string             `json:"scenario"`
	Step     string             `json:"step"`
	Results  []DivergentOutcome `json:"results"`
}

// DivergentOutcome is one protocol version's result of a divergent step.
type DivergentOutcome struct {
	ProtocolVersion string         `json:"protocolVersion"`
	Status          Status         `json:"status"`
	Outcome         config.Outcome `json:"outcome,omitempty"`
	ErrorCode       *int64         `json:"errorCode,omitempty"`
}

// runProtocols runs the suite once per protocol version and merges the
// reports into one: scenarios of each pass in turn (each tagged with its
// negotiated version), counts summed, and the steps whose status or outcome
// differ between versions listed as divergences. Steps skipped because of
// a `protocols` tag are by design not divergent.
func runProtocols(ctx context.Context, suite *config.Suite, opts Options, versions []string) (*Report, error) {
	start := time.Now()
	// Each pass has scenarios of its own; the merged report exists only at
	// the end, so the passes are not followed as they go.
	opts.OnStart, opts.OnStep, opts.OnScenario = nil, nil, nil
	var reps []*Report
	for _, v := range versions {
		s := *suite
		s.ProtocolVersion = v
		rep, err := runOne(ctx, &s, opts)
		if err != nil {
			return nil, err
		}
		// An interrupted run still gives every pass its report: the passes
		// not begun list their steps skipped, "interrupted".
		reps = append(reps, rep)
	}
	merged := &Report{
		SchemaVersion:   SchemaVersion,
		Suite:           reps[0].Suite, // named by the server in quick mode
		Target:          reps[0].Target,
		ProtocolVersion: reps[0].ProtocolVersion,
		ToolsDiscovered: []string{},
		StartedAt:       reps[0].StartedAt,
	}
	tools := map[string]bool{}
	for k, rep := range reps {
		v := versions[k]
		merged.ProtocolRuns = append(merged.ProtocolRuns, ProtocolRun{Requested: v, Negotiated: rep.ProtocolVersion, Passed: rep.Passed})
		if merged.Server == nil {
			merged.Server = rep.Server
		}
		for _, t := range rep.ToolsDiscovered {
			tools[t] = true
		}
		merged.Connections += rep.Connections
		merged.Restarts += rep.Restarts
		if merged.Failure == nil && rep.Failure != nil {
			f := *rep.Failure
			f.Message = "[" + v + "] " + f.Message
			merged.Failure = &f
		}
		if merged.TerminatedEarly == nil {
			merged.TerminatedEarly = rep.TerminatedEarly
		}
		for _, w := range rep.Warnings {
			w = "[" + v + "] " + w
			if !slices.Contains(merged.Warnings, w) {
				merged.Warnings = append(merged.Warnings, w)
			}
		}
		merged.ServerStderr = append(merged.ServerStderr, rep.ServerStderr...)
		// The contract is compared under the first version asked for.
		if merged.Summary.Drift == nil && rep.Summary.Drift != nil {
			merged.Drift, merged.Summary.Drift = rep.Drift, rep.Summary.Drift
		}
		for _, sc := range rep.Scenarios {
			sc.ProtocolVersion = rep.ProtocolVersion
			merged.Scenarios = append(merged.Scenarios, sc)
		}
	}
	for t := range tools {
		merged.ToolsDiscovered = append(merged.ToolsDiscovered, t)
	}
	sort.Strings(merged.ToolsDiscovered)
	merged.Divergences = divergences(reps)
	merged.Summary.DurationMs = ms(time.Since(start))
	merged.Tally()
	return merged, nil
}

func divergences(reps []*Report) []Divergence {
	var out []Divergence
	if len(reps) < 2 {
		return nil
	}
	for i, sc := range reps[0].Scenarios {
		for j, st := range sc.Steps {
			var results []DivergentOutcome
			differs := false
			for _, rep := range reps {
				if i >= len(rep.Scenarios) || j >= len(rep.Scenarios[i].Steps) {
					continue
				}
				o := rep.Scenarios[i].Steps[j]
				// A step not judged under one version (out of its scope,
				// or the run was interrupted) differs in nothing.
				if strings.HasPrefix(o.Reason, "not run under protocol") || interruptedStep(&o) {
					results = nil
					differs = false
					break
				}
				d := DivergentOutcome{ProtocolVersion: rep.ProtocolVersion, Status: o.Status, Outcome: o.Outcome, ErrorCode: o.ErrorCode}
				if len(results) > 0 && (d.Status != results[0].Status || d.Outcome != results[0].Outcome || fmt.Sprint(d.ErrorCode) != fmt.Sprint(results[0].ErrorCode)) {
					differs = true
				}
				results = append(results, d)
			}
			if differs {
				out = append(out, Divergence{Scenario: sc.Name, Step: st.ID, Results: results})
			}
		}
	}
	return out
}
