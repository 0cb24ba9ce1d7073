package runner

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// normalizedJSON is the report's JSON with durations zeroed.
func normalizedJSON(t *testing.T, r *report.Report) string {
	t.Helper()
	c := *r
	c.Summary.DurationMs = 0
	c.Scenarios = make([]report.ScenarioResult, len(r.Scenarios))
	for i, sc := range r.Scenarios {
		sc.Steps = append([]report.StepResult(nil), sc.Steps...)
		for j := range sc.Steps {
			sc.Steps[j].DurationMs = 0
		}
		c.Scenarios[i] = sc
	}
	b, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
