package report

import (
	"fmt"
)

// check is a verdict a report holds beside its steps: the run's own failure,
// a score against its threshold, a generated finding. JUnit writes each as a
// test case of its group's test suite, so a failed threshold shows in a CI
// test tab; the Markdown summary, the HTML page and the annotations read the
// same list.
type check struct {
	Name    string
	Status  Status
	Message string
	// Pos is where the check's subject is written, if anywhere (the line to
	// annotate).
	Pos *Position
}

// checkGroup is a named list of checks: "run", "scores", "findings".
type checkGroup struct {
	Name   string
	Checks []check
}

// checkGroups are r's checks by group, in a fixed order; groups without a
// check are left out. A new kind of verdict (contract drift) is one more
// group here, and every writer shows it.
func checkGroups(r *Report) []checkGroup {
	var gs []checkGroup
	for _, g := range []checkGroup{
		{"run", runChecks(r)},
		{"scores", scoreChecks(r)},
		{"findings", findingChecks(r)},
		{"annotation honesty", behaviourChecks(r)},
		{"baseline", baselineChecks(r)},
		{"contract drift", driftChecks(r)},
	} {
		if len(g.Checks) > 0 {
			gs = append(gs, g)
		}
	}
	return gs
}

// runChecks are the verdicts on the run as a whole: the suite's failure, a
// run that tested nothing, an early termination.
func runChecks(r *Report) []check {
	var cs []check
	if f := r.Failure; f != nil {
		cs = append(cs, check{Name: string(f.Stage), Status: StatusFailed, Message: f.Message})
	}
	switch n := r.NothingTested; {
	case n != nil && n.Ran != "":
		// The server was probed, its tools were not: skipped, as below.
		cs = append(cs, check{Name: "no tool tested", Status: StatusSkipped,
			Message: n.Reason + "; what ran: " + n.Ran + "; to test the tools: " + n.Fix})
	case n != nil:
		// Not a failure, but never a pass either: a skipped test in CI's tab.
		cs = append(cs, check{Name: "nothing tested", Status: StatusSkipped,
			Message: "no call was made: " + n.Reason + "; to test something: " + n.Fix})
	}
	if te := r.TerminatedEarly; te != nil {
		cs = append(cs, check{Name: "terminated early", Status: StatusFailed,
			Message: fmt.Sprintf("the run terminated early after step %s of %q: %s", te.Step, te.Scenario, te.Reason)})
	}
	return cs
}

// scoreChecks are the scores: failed when a threshold is not met, skipped
// when there was no case to judge and no threshold asked for one.
func scoreChecks(r *Report) []check {
	var cs []check
	for _, sc := range r.Summary.Scores {
		c := check{Name: versionTag(sc.ProtocolVersion) + scoreTitles[sc.Name], Status: StatusPassed, Message: scoreText(&sc)}
		switch {
		case sc.Met != nil && !*sc.Met:
			c.Status = StatusFailed
		case sc.Percent == nil:
			c.Status = StatusSkipped
		}
		cs = append(cs, c)
	}
	return cs
}

// scoreText is a score in words: "86.67% B (13/15); fail-under 90: NOT MET".
func scoreText(sc *Score) string {
	s := "n/a (no case to judge)"
	if sc.TooFew != "" {
		s = fmt.Sprintf("n/a (%d/%d; %s)", sc.Passed, sc.Total, sc.TooFew)
	}
	if sc.Percent != nil {
		s = fmt.Sprintf("%.2f%% %s (%d/%d)", *sc.Percent, sc.Grade, sc.Passed, sc.Total)
	}
	if sc.Inconclusive > 0 && sc.TooFew == "" {
		s += fmt.Sprintf("; %d inconclusive", sc.Inconclusive)
	}
	if sc.FailUnder != nil {
		met := "met"
		if sc.Met != nil && !*sc.Met {
			met = "NOT MET"
		}
		s += fmt.Sprintf("; fail-under %.4g: %s", *sc.FailUnder, met)
	}
	return s
}

// findingChecks are the findings no step carries (the others repeat a
// step's verdict): failed, or passed with a flag worth a look.
func findingChecks(r *Report) []check {
	var cs []check
	for _, f := range r.Findings {
		if f.Step != "" {
			continue
		}
		c := check{Name: versionTag(f.ProtocolVersion) + f.Tool + " " + string(f.Origin) + " " + string(f.Kind), Status: StatusPassed, Message: f.Message}
		if f.Status == StatusFailed {
			c.Status = StatusFailed
		} else if f.Flagged {
			c.Message = "flag: " + f.Message
		}
		cs = append(cs, c)
	}
	return cs
}

// baselineChecks are the stale entries of the baseline of known failures,
// each failed at the entry's line: the failure it listed is gone.
func baselineChecks(r *Report) []check {
	var cs []check
	for _, e := range r.StaleBaseline {
		name := e.Scenario
		if e.Step != "" {
			name += " / " + e.Step
		}
		cs = append(cs, check{Name: name, Status: StatusFailed, Pos: e.Position,
			Message: "stale baseline: listed as an expected failure, and now passes; remove the entry (or --update-expected-failures)"})
	}
	return cs
}
