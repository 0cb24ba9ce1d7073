package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

func TestGitHubAnnotations(t *testing.T) {
	r := hostile()
	st := &r.Scenarios[0].Steps[0]
	st.Pos = config.Pos{File: "fixtures/a,b.yaml", Line: 12, Col: 9}
	st.Position = &report.Position{File: st.Pos.File, Line: 12, Column: 9}
	r.Scenarios[0].Name = "100% done: yes, really"
	var b bytes.Buffer
	if err := report.GitHubAnnotations(&b, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	// The step, the score under its threshold, the finding: one line each,
	// whatever the messages hold.
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), b.String())
	}
	want := "::error file=fixtures/a%2Cb.yaml,line=12,col=9,title=mcpcheck%3A 100%25 done%3A yes%2C really / one::structuredEquals /x: value differs%0A  expected: 1%0A"
	if !strings.HasPrefix(lines[0], want) {
		t.Errorf("step annotation:\n got %s\nwant %s…", lines[0], want)
	}
	if !strings.Contains(lines[0], "server said: line one ]]> <b>bold</b>") || !strings.Contains(lines[0], "%0A  ::error::forged") || strings.Contains(lines[0], "\r") {
		t.Errorf("server text not escaped into one command: %q", lines[0])
	}
	if lines[1] != "::error title=mcpcheck%3A scores / crash resilience::50.00%25 F (1/2); fail-under 80: NOT MET" {
		t.Errorf("score annotation %q", lines[1])
	}
	if !strings.HasPrefix(lines[2], "::error title=mcpcheck%3A findings / <tool> probe slow::") {
		t.Errorf("finding annotation %q", lines[2])
	}
}

// TestAnnotationsAndSummaryBounded: GitHub shows 10 error annotations per
// step, so more failures end in one warning that counts them; the summary
// lists 50 failing steps and says how many more there are.
func TestAnnotationsAndSummaryBounded(t *testing.T) {
	r := &report.Report{Suite: "many", Target: report.Target{Transport: "stdio", Program: "srv"}}
	var steps []report.StepResult
	for i := range 60 {
		steps = append(steps, report.StepResult{ID: fmt.Sprintf("s%d", i), Tool: "t", Origin: "fixture", Status: report.StatusFailed, Reason: "no"})
	}
	r.Scenarios = []report.ScenarioResult{{Name: "sc", Steps: steps}}
	r.Tally()
	var b bytes.Buffer
	report.GitHubAnnotations(&b, r)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != report.MaxAnnotations+1 || strings.Count(b.String(), "::error ") != report.MaxAnnotations ||
		lines[report.MaxAnnotations] != "::warning title=mcpcheck%3A more failures::50 more failures are not annotated (GitHub shows 10 errors per step); the report lists them all" {
		t.Errorf("annotations:\n%s", b.String())
	}
	b.Reset()
	report.Markdown(&b, r)
	if n := strings.Count(b.String(), "| sc | s"); n != report.MaxSummaryRows || !strings.Contains(b.String(), "… and 10 more failing steps") {
		t.Errorf("%d rows in the summary:\n%s", n, b.String())
	}
}
