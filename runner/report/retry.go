package report

import (
	"fmt"
	"strings"
)

// What the reports say of a scenario that was run again (retries): a
// flaky one passed on a retry, and says how many runs failed first; one
// that failed every run says so. JUnit carries the failed runs as
// Surefire does, so the test tabs that read it show flakiness: on a
// testcase that passed in the end, each earlier failure of that step is a
// flakyFailure; on one that still failed, a rerunFailure.

// flaky reports whether sc passed after runs that failed. It reads the
// steps, so the terminal stream, which hears of a scenario before the
// report is tallied, says the same as the report.
func flaky(sc *ScenarioResult) bool {
	if len(sc.Attempts) == 0 {
		return false
	}
	for _, st := range sc.Steps {
		if st.Status == StatusFailed {
			return false
		}
	}
	return true
}

// attemptsLine is the line under a retried scenario's steps ("" for one
// that ran once).
func attemptsLine(sc *ScenarioResult) string {
	n := len(sc.Attempts)
	if n == 0 {
		return ""
	}
	var failed []string
	for _, a := range sc.Attempts {
		for _, st := range a.Steps {
			if st.Status == StatusFailed {
				failed = append(failed, st.ID)
				break
			}
		}
	}
	if flaky(sc) {
		return fmt.Sprintf("flaky: passed on run %d of %d, after failing at %s", n+1, n+1, strings.Join(failed, ", "))
	}
	return fmt.Sprintf("failed all %d runs (retried %d times; earlier runs failed at %s)", n+1, n, strings.Join(failed, ", "))
}

// attempts writes a retried scenario's line.
func (t *textWriter) attempts(sc *ScenarioResult) {
	line := attemptsLine(sc)
	if line == "" {
		return
	}
	mark := t.paint(red, "RETRIED")
	if flaky(sc) {
		mark = t.paint(yellow+bold, "FLAKY")
	}
	t.printf("  %s %s\n", mark, line)
}

// junitAttempts adds to c, the testcase of step j of sc, the failures of
// that step in the runs before the last.
func junitAttempts(sc *ScenarioResult, j int, c *junitCase) {
	for _, a := range sc.Attempts {
		if j >= len(a.Steps) || a.Steps[j].Status != StatusFailed {
			continue
		}
		st := &a.Steps[j]
		typ := string(st.Outcome)
		if typ == "" {
			typ = "none"
		}
		res := junitResult{Message: why(st), Type: typ, Body: xmlText(strings.Join(failureLines(st), "\n"))}
		switch {
		case c.Failure != nil:
			c.RerunFailures = append(c.RerunFailures, res)
		case c.Skipped == nil:
			c.FlakyFailures = append(c.FlakyFailures, res)
		}
	}
}
