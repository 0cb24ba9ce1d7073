package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

func TestMarkdownHostileStrings(t *testing.T) {
	var b bytes.Buffer
	if err := report.Markdown(&b, hostile()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"<img", "<script", "<tool>", "| <"} {
		if strings.Contains(out, bad) {
			t.Errorf("summary carries raw markup %q:\n%s", bad, out)
		}
	}
	for _, want := range []string{"### ❌ FAIL: s", "#### Failing steps", "one &lt;img src=x onerror=alert(1)&gt;",
		"#### Scores", "| ❌ | crash resilience | 50.00% F (1/2); fail-under 80: NOT MET |",
		"#### Findings", "| ❌ | &lt;tool&gt; probe slow | &lt;script&gt;slow&lt;/script&gt; |"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// Every table row has as many cells as its header: no server string
	// adds a column or a line.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "| ") {
			cells := strings.Count(strings.ReplaceAll(l, `\|`, ""), "|")
			if cells != 4 && cells != 5 {
				t.Errorf("row with %d separators: %q", cells, l)
			}
		}
	}
}

// TestEveryCheckGroupHasATitle: a group the summary and the page cannot
// name would head its table with nothing.
func TestEveryCheckGroupHasATitle(t *testing.T) {
	r := hostile()
	r.Failure = &report.SuiteFailure{Stage: "connect", Message: "refused"}
	r.Tally()
	groups := report.CheckGroups(r)
	if len(groups) != 3 {
		t.Fatalf("groups %+v", groups)
	}
	for _, g := range groups {
		if report.CheckGroupTitles[g.Name] == "" {
			t.Errorf("check group %q has no title in checkGroupTitles", g.Name)
		}
	}
}
