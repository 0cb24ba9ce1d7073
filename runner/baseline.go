package runner

import (
	"github.com/mcpcheck/mcpcheck/config"
)

// ApplyBaseline judges rep against a baseline of known failures: a failed
// step an entry names (or any failed step of a scenario an entry names
// without a step) is marked expected and no longer fails the run; an entry
// whose step passed, or whose scenario ran and passed, is stale and fails
// the run. An entry whose scenario or step did not run (left out by
// selection or another shard, or skipped) is not judged. It replaces the
// marks of an earlier call and tallies rep again.
func ApplyBaseline(rep *Report, entries []config.ExpectedFailure) {
	rep.StaleBaseline = nil
	for i := range rep.Scenarios {
		for j := range rep.Scenarios[i].Steps {
			rep.Scenarios[i].Steps[j].Expected = nil
		}
	}
	for _, e := range entries {
		stale := false
		for i := range rep.Scenarios {
			sc := &rep.Scenarios[i]
			if sc.Name != e.Scenario || sc.NotSelected != "" {
				continue
			}
			ran, failed := false, false
			for j := range sc.Steps {
				st := &sc.Steps[j]
				if e.Step != "" && st.ID != e.Step {
					continue
				}
				switch st.Status {
				case StatusFailed:
					st.Expected = &Expected{Reason: e.Reason}
					ran, failed = true, true
				case StatusPassed:
					ran = true
				}
			}
			stale = stale || (ran && !failed)
		}
		if stale {
			rep.StaleBaseline = append(rep.StaleBaseline, StaleEntry{Scenario: e.Scenario, Step: e.Step, Reason: e.Reason, Position: positionOf(e.Pos)})
		}
	}
	rep.Tally()
	// The reasons come from a file: through the edge again (only what
	// changed is written; redact.go, "What reaches an output").
	(*redactor)(nil).report(rep)
}

// Baseline is the baseline of known failures that rep would pass against
// as it stands (--update-expected-failures): an entry for each failed step
// of the fixture's scenarios, the whole-scenario entries of old that still
// meet a failure kept as they are, every kept entry's reason kept.
func Baseline(rep *Report, old []config.ExpectedFailure) []config.ExpectedFailure {
	var out []config.ExpectedFailure
	reason := func(scenario, step string) (string, bool) {
		for _, e := range old {
			if e.Scenario == scenario && e.Step == step {
				return e.Reason, true
			}
		}
		return "", false
	}
	for i := range rep.Scenarios {
		sc := &rep.Scenarios[i]
		whole, wholeListed := reason(sc.Name, "")
		added := false
		for j := range sc.Steps {
			st := &sc.Steps[j]
			if st.Status != StatusFailed || st.Origin != config.OriginFixture {
				continue
			}
			switch {
			case wholeListed && !added:
				out = append(out, config.ExpectedFailure{Scenario: sc.Name, Reason: whole})
				added = true
			case !wholeListed:
				r, _ := reason(sc.Name, st.ID)
				out = append(out, config.ExpectedFailure{Scenario: sc.Name, Step: st.ID, Reason: r})
			}
		}
	}
	// Entries this run could not judge (their steps did not run) stay.
	for _, e := range old {
		if !ranFor(rep, e) {
			out = append(out, e)
		}
	}
	return out
}

// ranFor reports whether a step e names ran (passed or failed).
func ranFor(rep *Report, e config.ExpectedFailure) bool {
	for i := range rep.Scenarios {
		sc := &rep.Scenarios[i]
		if sc.Name != e.Scenario || sc.NotSelected != "" {
			continue
		}
		for _, st := range sc.Steps {
			if (e.Step == "" || st.ID == e.Step) && st.Status != StatusSkipped {
				return true
			}
		}
	}
	return false
}
