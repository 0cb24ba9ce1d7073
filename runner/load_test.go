package runner

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/hist"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// loadSuite is a read-only fixture against the demo over real stdio (the
// test binary serves it: see TestMain).
func loadSuite(t *testing.T, extra string) *config.Suite {
	t.Helper()
	s := parse(t, `name: load
command: [mcpcheck]
allowTools: [get_household]
scenarios:
  - name: read
    steps:
      - id: household
        tool: get_household
        expect: {structuredIncludes: {revision: 0}}
      - id: again
        tool: get_household
        expect: {structuredIncludes: {revision: 0}}
`+extra)
	s.Env = map[string]string{childEnvVar: "demo"}
	return s
}

func runLoad(t *testing.T, s *config.Suite, o LoadOptions) *report.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o.SelfCommand, o.TerminateGrace = []string{os.Args[0]}, 500*time.Millisecond
	rep, err := Load(ctx, s, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failure != nil {
		t.Fatalf("failure: %+v", rep.Failure)
	}
	return rep
}

// TestLoadClosedIterations: N users share out exactly the iterations
// asked for; every call is counted once, by step and overall, and the
// histograms hold exactly the calls.
func TestLoadClosedIterations(t *testing.T) {
	rep := runLoad(t, loadSuite(t, ""), LoadOptions{LoadRun: config.LoadRun{VUs: 3, Iterations: 30}})
	l := rep.Load
	if l == nil || l.Model != "closed" || l.Iterations != 30 {
		t.Fatalf("load = %+v", l)
	}
	if len(l.Steps) != 2 || l.Steps[0].Calls != 30 || l.Steps[1].Calls != 30 || l.Overall.Calls != 60 {
		t.Fatalf("calls: %+v / %+v", l.Steps, l.Overall)
	}
	if l.Overall.Errors != 0 || l.Overall.Outcomes["ok"] != 60 || !rep.Passed || !l.Passed {
		t.Fatalf("errors %d outcomes %v passed %v", l.Overall.Errors, l.Overall.Outcomes, rep.Passed)
	}
	if l.Overall.Histogram.Count != 60 || l.Overall.Latency.P50 <= 0 || l.Overall.Latency.P99 < l.Overall.Latency.P50 {
		t.Fatalf("latency %+v, histogram count %d", l.Overall.Latency, l.Overall.Histogram.Count)
	}
	if len(l.Thresholds) != 1 || !l.Thresholds[0].Default || !l.Thresholds[0].Met {
		t.Fatalf("default threshold: %+v", l.Thresholds)
	}
	if l.SessionsOpened != 3 || len(rep.Scenarios) != 0 {
		t.Fatalf("sessions %d, scenarios listed %d", l.SessionsOpened, len(rep.Scenarios))
	}
}

// TestLoadThresholdsAndErrors: expectations are checked on every call; a
// failed one is an error, named by outcome; a threshold on errors and one
// on latency are judged, an unmet one fails the run.
func TestLoadThresholdsAndErrors(t *testing.T) {
	s := loadSuite(t, `  - name: wrong
    continueOnFailure: true
    steps:
      - id: bad
        tool: get_household
        expect: {structuredIncludes: {revision: 7}}
`)
	rules := []config.Threshold{}
	for _, r := range []string{"errors<60%", "read/household: p99<30s", "wrong: errors<1", "rps>0"} {
		th, err := config.ParseThreshold(r)
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, th)
	}
	rep := runLoad(t, s, LoadOptions{LoadRun: config.LoadRun{VUs: 2, Iterations: 10, Thresholds: rules}})
	l := rep.Load
	if l.Overall.Calls != 30 || l.Overall.Errors != 10 || l.Overall.Failed != 10 {
		t.Fatalf("overall %+v", l.Overall)
	}
	// The errors count comes with the first of them, in the words of a
	// failed step, for the whole run and for its step.
	if e := l.Overall.FirstError; e == nil || e.Outcome != "ok" || !strings.Contains(e.Message, "revision") {
		t.Errorf("overall first error %+v, want the wrong step's failed expectation on revision", e)
	}
	for _, st := range l.Steps {
		if (st.FirstError != nil) != (st.Scenario == "wrong") {
			t.Errorf("step %s/%s: first error %+v", st.Scenario, st.Step, st.FirstError)
		}
	}
	met := map[string]bool{}
	for _, th := range l.Thresholds {
		met[th.Rule] = th.Met
	}
	want := map[string]bool{"errors<60%": true, "read/household: p99<30s": true, "wrong: errors<1": false, "rps>0": true}
	for k, v := range want {
		if met[k] != v {
			t.Errorf("threshold %q met = %v, want %v (%+v)", k, met[k], v, l.Thresholds)
		}
	}
	if rep.Passed {
		t.Error("a run with an unmet threshold passed")
	}
}

// TestLoadSegmentsMergeExactly: two segments of a load, merged, hold
// exactly the calls of both, bucket for bucket, and judge the thresholds
// on the whole.
func TestLoadSegmentsMergeExactly(t *testing.T) {
	th, _ := config.ParseThreshold("p99<30s")
	var parts []Part
	var steps [][]report.LoadStats
	for k := 1; k <= 2; k++ {
		rep := runLoad(t, loadSuite(t, ""), LoadOptions{LoadRun: config.LoadRun{VUs: 4, Iterations: 21, Thresholds: []config.Threshold{th}}, Segment: &report.Shard{Index: k, Total: 2}})
		if rep.Load.Segment == nil || rep.Load.VUs != 2 {
			t.Fatalf("segment %d: %+v", k, rep.Load)
		}
		// Through JSON, as merge reads files; the report is the schema's.
		data, _ := json.Marshal(rep)
		if err := schemas.Validate(schemas.ReportURL, jsonx.Value(data)); err != nil {
			t.Fatalf("segment report against the schema: %v", err)
		}
		var back report.Report
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, Part{Source: "seg" + string(rune('0'+k)), Report: &back})
		steps = append(steps, back.Load.Steps)
	}
	if got := parts[0].Report.Load.Iterations + parts[1].Report.Load.Iterations; got != 21 {
		t.Fatalf("segments ran %d iterations, want 21 (10 + 11)", got)
	}
	m, err := Merge(parts, false)
	if err != nil {
		t.Fatal(err)
	}
	for j := range m.Load.Steps {
		a, _ := hist.Decode(steps[0][j].Histogram)
		b, _ := hist.Decode(steps[1][j].Histogram)
		a.Merge(b)
		want, got := a.Encode(), m.Load.Steps[j].Histogram
		want.Sum, got.Sum = 0, 0
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) || m.Load.Steps[j].Calls != 21 {
			t.Errorf("step %d: merged histogram differs or calls %d", j, m.Load.Steps[j].Calls)
		}
	}
	if m.Load.Overall.Calls != 42 || m.Load.VUs != 4 || !m.Passed || m.Load.Segment != nil {
		t.Fatalf("merged %+v passed %v", m.Load.Overall, m.Passed)
	}
	if _, err := Merge(parts[:1], false); err == nil || !strings.Contains(err.Error(), "1 of 2 segments") {
		t.Errorf("a missing segment: %v", err)
	}
}

// TestLoadOpenModel: at a fixed rate the run starts about rate×duration
// iterations (never more), and times each first call from its intended
// start.
func TestLoadOpenModel(t *testing.T) {
	rep := runLoad(t, loadSuite(t, ""), LoadOptions{LoadRun: config.LoadRun{Rate: 20, Duration: 2 * time.Second, MaxVUs: 10}})
	l := rep.Load
	if l.Model != "open" || l.Rate != 20 {
		t.Fatalf("%+v", l)
	}
	started := l.Iterations + l.Dropped
	if started > 41 || started < 5 {
		t.Errorf("%d iterations started at 20/s over 2 s", started)
	}
	if len(l.Series.Windows) == 0 {
		t.Error("no series")
	}
}
