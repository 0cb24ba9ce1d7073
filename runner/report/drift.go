package report

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/safetext"
)

// driftValueChars bounds an old or new value in the human report.
const driftValueChars = 300

// drift writes the contract drift grouped by severity, breaking first,
// each change with its subject, kind, path and old and new values.
func (t *textWriter) drift(r *Report) {
	sum := r.Summary.Drift
	if sum == nil {
		return
	}
	if len(r.Drift) == 0 {
		t.printf("\nContract: no drift.\n")
		return
	}
	t.printf("\nContract drift: %s", driftCounts(sum))
	switch {
	case sum.Updated:
		t.printf(" (contract file updated)")
	case sum.FailOn == config.FailOnNone:
		t.printf(" (failOn none: listed only)")
	default:
		t.printf(" (fails on %s and above)", sum.FailOn)
	}
	t.printf("\n")
	for _, sev := range Severities {
		first := true
		for _, d := range r.Drift {
			if d.Severity != sev {
				continue
			}
			if first {
				t.printf("  %s\n", t.paint(severityColor(sev, d.Failing), string(sev)))
				first = false
			}
			what := string(d.Subject)
			if d.Name != "" {
				what += " " + d.Name
			}
			t.printf("    %s: %s at %s\n", what, strings.ReplaceAll(string(d.Kind), "_", " "), d.Path)
			if d.Old != "" {
				t.printf("      old: %s\n", safetext.Clean(d.Old, driftValueChars))
			}
			if d.New != "" {
				t.printf("      new: %s\n", safetext.Clean(d.New, driftValueChars))
			}
		}
	}
}

func severityColor(sev Severity, failing bool) string {
	switch {
	case failing:
		return red + bold
	case sev == SeverityBreaking || sev == SeverityRisky:
		return yellow
	}
	return dim
}

// driftCounts is "1 breaking, 2 risky, 0 compatible, 1 info".
func driftCounts(s *DriftSummary) string {
	return fmt.Sprintf("%d breaking, %d risky, %d compatible, %d info", s.Breaking, s.Risky, s.Compatible, s.Info)
}

// driftChecks are the contract's verdicts for the CI writers: one per
// change, failed when it is at or above failOn, or one passed check when
// the contract was compared and nothing changed.
func driftChecks(r *Report) []check {
	if r.Summary.Drift == nil {
		return nil
	}
	if len(r.Drift) == 0 {
		return []check{{Name: "no drift", Status: StatusPassed, Message: "the live contract matches the contract file"}}
	}
	cs := make([]check, 0, len(r.Drift))
	for _, d := range r.Drift {
		what := string(d.Subject)
		if d.Name != "" {
			what += " " + d.Name
		}
		msg := fmt.Sprintf("%s: %s at %s", what, strings.ReplaceAll(string(d.Kind), "_", " "), d.Path)
		if d.Old != "" {
			msg += "; old: " + safetext.Clean(d.Old, driftValueChars)
		}
		if d.New != "" {
			msg += "; new: " + safetext.Clean(d.New, driftValueChars)
		}
		c := check{Name: string(d.Severity) + " " + what + " " + d.Path, Status: StatusPassed, Message: msg}
		if d.Failing {
			c.Status = StatusFailed
		}
		cs = append(cs, c)
	}
	return cs
}
