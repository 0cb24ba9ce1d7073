package runner

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestBehaviourReadBack runs the behaviour checks against the demo's
// pantry in memory, with other generated checks beside them (concurrently,
// four scenarios at once): the liars are found, and analysing the report
// read back from JSON gives the same findings, score and notes (the
// verdicts are data; only the observed values stay behind).
func TestBehaviourReadBack(t *testing.T) {
	s := parse(t, `
name: behaviour
command: [x]
concurrency: 4
allowTools: [list_pantry, peek_pantry, restock_item, clear_item, add_item, stock_item, get_household, propose_task]
scenarios: [{name: fixture, steps: [{id: one, tool: list_pantry}]}]
`)
	s.Generate = &config.Generate{Fuzz: true, Behaviour: true, FuzzCases: 5}
	rep := mustRun(t, s, defectsInMemory())
	summary := func(r *report.Report) string {
		var b strings.Builder
		for _, f := range r.Findings {
			if f.Origin != config.OriginBehaviour {
				continue
			}
			fmt.Fprintf(&b, "finding %s %s %s %s\n", f.Tool, f.Kind, f.Status, f.Message)
			for _, c := range f.Changes {
				fmt.Fprintf(&b, "  %s %s %s\n", c.Source, c.Path, c.Kind)
			}
		}
		for _, sc := range r.Summary.Scores {
			if sc.Name == config.ScoreAnnotationHonesty {
				fmt.Fprintf(&b, "score %d/%d inconclusive=%d\n", sc.Passed, sc.Total, sc.Inconclusive)
			}
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "note %s\n", n)
		}
		return b.String()
	}
	want := summary(rep)
	for _, liar := range []string{"finding peek_pantry readOnly failed", "finding restock_item idempotent failed",
		"finding clear_item nonDestructive failed", "finding add_item idempotencyKey failed"} {
		if !strings.Contains(want, liar) {
			t.Errorf("no %q:\n%s", liar, want)
		}
	}
	for _, honest := range []string{"list_pantry", "stock_item", "get_household", "propose_task"} {
		if strings.Contains(want, "finding "+honest+" ") {
			t.Errorf("an honest tool was flagged:\n%s", want)
		}
	}
	if !strings.Contains(want, "score 8/12 inconclusive=0") {
		t.Errorf("score:\n%s", want)
	}
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "peeked at flour") {
		t.Error("the JSON report carries an observed value")
	}
	var back report.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	Analyze(&back)
	if got := summary(&back); got != want {
		t.Errorf("analysed from JSON:\n%s\nthe run's:\n%s", got, want)
	}
}
