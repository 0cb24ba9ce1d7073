package report_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixTimes sets what differs run to run (durations, the start) to fixed
// values, for golden files.
func fixTimes(r *report.Report) {
	r.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r.Summary.DurationMs = 1
	for i := range r.Scenarios {
		for j := range r.Scenarios[i].Steps {
			r.Scenarios[i].Steps[j].DurationMs = 1
		}
	}
}

// ciGoldens writes r as JUnit, Markdown and HTML into golden files named
// after the text golden of the same report.
func ciGoldens(t *testing.T, name string, r *report.Report) {
	t.Helper()
	fixTimes(r)
	for _, w := range []struct {
		ext   string
		write func(*bytes.Buffer) error
	}{
		{"junit.xml", func(b *bytes.Buffer) error { return report.JUnit(b, r) }},
		{"summary.md", func(b *bytes.Buffer) error { return report.Markdown(b, r) }},
		{"html", func(b *bytes.Buffer) error { return report.HTML(b, r) }},
	} {
		var b bytes.Buffer
		if err := w.write(&b); err != nil {
			t.Fatal(err)
		}
		golden(t, name+"."+w.ext+".golden", b.String())
	}
}

// TestCIGoldens: the NOTHING TESTED and n/a reports of verdicts_test.go in
// every CI format. A run that tested nothing says so (and fails no test
// case); a threshold on an n/a score is a failed test case.
func TestCIGoldens(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "household-admin", Version: "1.0.0"}, nil)
	addTool(s, "wipe_household", false, `{"type":"object","properties":{"confirm":{"type":"boolean"}},"required":["confirm"]}`)
	addTool(s, "reset_rota", false, `{"type":"object"}`)
	addTool(s, "export_tasks", true, `{"type":"object"}`)
	rep, _ := quickRun(t, s, []string{"wipe_household", "reset_rota"}, nil)
	ciGoldens(t, "nothing-tested", rep)

	s = mcp.NewServer(&mcp.Implementation{Name: "household-admin", Version: "1.0.0"}, nil)
	addTool(s, "export_tasks", true, `{"type":"object"}`)
	addTool(s, "wipe_household", false, `{"type":"object"}`)
	rep, _ = quickRun(t, s, nil, map[string]any{"generate.failUnder.schemaEnforcement": 90.0})
	ciGoldens(t, "not-applicable", rep)
	var b bytes.Buffer
	if err := report.JUnit(&b, rep); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`<testcase name="schema enforcement" classname="`)) || !bytes.Contains(b.Bytes(), []byte(`fail-under 90: NOT MET`)) {
		t.Errorf("an unmet threshold on an n/a score is no failed test case:\n%s", b.String())
	}
}
