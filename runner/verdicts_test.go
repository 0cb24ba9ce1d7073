package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
)

// scoreOf returns rep's score called name, failing t when there is none.
func scoreOf(t *testing.T, rep *Report, name config.ScoreName) Score {
	t.Helper()
	for _, sc := range rep.Summary.Scores {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no %s score in %+v", name, rep.Summary.Scores)
	return Score{}
}

// TestGradeNeedsData: fidelity "100 % A" from 2 judged calls and 8
// inconclusive was a grade without data (issue 19 item 15). Analysis is a
// function of the steps, so a report of such steps is judged here as it
// would be after a run; a threshold on the ungraded score is not met.
func TestGradeNeedsData(t *testing.T) {
	for _, c := range []struct {
		judged, inconclusive int
		graded               bool
	}{
		{2, 8, false}, {2, 0, false}, {3, 4, false}, {3, 3, true}, {5, 0, true}, {10, 10, true},
	} {
		t.Run(fmt.Sprintf("%d judged %d inconclusive", c.judged, c.inconclusive), func(t *testing.T) {
			var steps []StepResult
			for i := range c.judged + c.inconclusive {
				st := StepResult{ID: fmt.Sprint("valid-", i), Kind: config.KindTool, Tool: fmt.Sprint("tool", i), Origin: config.OriginFidelity,
					Case: caseValid, Score: config.ScoreResponseFidelity, Status: StatusPassed, Outcome: config.OutcomeOK}
				if i >= c.judged {
					st.Outcome, st.Flagged, st.Notes = config.OutcomeToolError, true, []string{"fidelity: an honest error"}
				}
				steps = append(steps, st)
			}
			rep := &Report{Analysis: &AnalysisSettings{FailUnder: map[config.ScoreName]float64{config.ScoreResponseFidelity: 50}},
				Scenarios: []ScenarioResult{{Name: "generated", Status: StatusPassed, Steps: steps}}}
			Analyze(rep)
			sc := scoreOf(t, rep, config.ScoreResponseFidelity)
			if sc.Passed != c.judged || sc.Total != c.judged || sc.Inconclusive != c.inconclusive {
				t.Errorf("counts %d/%d, %d inconclusive", sc.Passed, sc.Total, sc.Inconclusive)
			}
			if graded := sc.Percent != nil; graded != c.graded || (sc.TooFew == "") != c.graded || (sc.Grade == "n/a") == c.graded {
				t.Fatalf("graded %v (grade %s, tooFew %q), want %v", graded, sc.Grade, sc.TooFew, c.graded)
			}
			if met := sc.Met != nil && *sc.Met; met != c.graded || rep.Passed != c.graded {
				t.Errorf("threshold met %v, run passed %v; want both %v", met, rep.Passed, c.graded)
			}
		})
	}
}

// TestGradeNeedsDataDemo: one tool measured is no latency grade. The
// clean demo's get_household, alone, over the real SDK.
func TestGradeNeedsDataDemo(t *testing.T) {
	s := parse(t, "name: gen\ncommand: [x]\nallowTools: [get_household]\ngenerate: {fidelity: true, probes: true}\n")
	rep := mustRun(t, s, demoInMemory(demo.Options{}))
	for _, name := range []config.ScoreName{config.ScoreLatency, config.ScoreResponseSize} {
		sc := scoreOf(t, rep, name)
		if sc.Percent != nil || sc.Passed != 1 || sc.Total != 1 || !strings.Contains(sc.TooFew, "1 judged of 1 tried") {
			t.Errorf("%s: %+v, want n/a with 1/1 and why", name, sc)
		}
	}
	// The valid call, two resources and a prompt: enough for fidelity.
	if sc := scoreOf(t, rep, config.ScoreResponseFidelity); sc.Percent == nil || sc.Total < minGraded {
		t.Errorf("fidelity: %+v, want a grade", sc)
	}
}

// demoInMemory dials a demo server of opts in memory, one per connection.
func demoInMemory(opts demo.Options) Options {
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := demo.NewServer(opts).Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}
