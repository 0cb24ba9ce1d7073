package report

import "github.com/mcpcheck/mcpcheck/internal/safetext"

// behaviourChecks are the behaviour checks' verdicts, one per tool and
// annotation: verified passes, violated fails, not verifiable is skipped
// (never a pass). A retry that applies a change twice is no claim broken:
// it passes with its flag, as a flagged finding does.
func behaviourChecks(r *Report) []check {
	var cs []check
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		for _, v := range sc.Behaviour {
			c := check{Name: versionTag(sc.ProtocolVersion) + v.Tool + " " + string(v.Rule), Status: StatusPassed, Message: string(v.Status) + ": " + v.Reason}
			switch {
			case v.Status == BehaviourNotVerifiable:
				c.Status = StatusSkipped
			case v.Status == BehaviourViolated && v.Rule == RuleRetry:
				c.Message = "flag: " + v.Reason
			case v.Status == BehaviourViolated:
				c.Status = StatusFailed
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// changes writes what a behaviour finding's call changed, with the old
// and new values (human report only; already redacted and shortened).
func (t *textWriter) changes(list []ObservedChange) {
	for _, ch := range list {
		line := "      " + ch.Source + " " + ch.Path + " " + ch.Kind
		switch {
		case ch.Old != "" && ch.New != "":
			line += ": " + ch.Old + " → " + ch.New
		case ch.Old != "":
			line += ": was " + ch.Old
		case ch.New != "":
			line += ": " + ch.New
		}
		t.printf("%s\n", safetext.Clean(line, 600))
	}
}
