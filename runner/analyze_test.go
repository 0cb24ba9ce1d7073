package runner

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// Analysis is a function of the report: a report written as JSON and read
// back (as merge reads a shard's) analyses to the findings, scores, notes
// and verdict the run gave — crossed responses and a tool with no
// reference answer included, whose answers the report does not keep.
func TestAnalyzeReportReadBack(t *testing.T) {
	s := parse(t, `
name: gen
command: [x]
timeoutMs: 10000
concurrency: 4
allowTools: [get_household, format_address, convert_units, exchange_rate, export_catalog, shared_cache_get, ticket_counter, weather_report, commit_task]
scenarios: [{name: fixture, steps: [{id: one, tool: get_household}]}]
`)
	s.Generate = &config.Generate{Fuzz: true, Fidelity: true, Probes: true, Concurrency: 3, FuzzCases: config.DefaultFuzzCases,
		FailUnder: map[config.ScoreName]float64{config.ScoreConcurrency: 100}}
	t.Setenv("TMPDIR", t.TempDir()) // ticket_counter's lock
	rep := mustRun(t, s, defectsInMemory())

	summary := func(r *report.Report) string {
		var b strings.Builder
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "finding %+v\n", f)
		}
		for _, sc := range r.Summary.Scores {
			fmt.Fprintf(&b, "score %s %d/%d inconclusive=%d met=%v\n", sc.Name, sc.Passed, sc.Total, sc.Inconclusive, sc.Met != nil && *sc.Met)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "note %s\n", n)
		}
		fmt.Fprintf(&b, "tokens %+v\npassed %v\n", r.Tokens, r.Passed)
		return b.String()
	}
	want := summary(rep)
	for _, origin := range []config.Origin{config.OriginFuzz, config.OriginFidelity, config.OriginProbe, config.OriginConcurrency} {
		if !slices.ContainsFunc(rep.Findings, func(f report.Finding) bool { return f.Origin == origin }) {
			t.Errorf("no %s finding: the planted defects were not found\n%s", origin, want)
		}
	}
	if !strings.Contains(want, "crossed-responses check skipped") || !strings.Contains(want, "responses crossed") {
		t.Errorf("no crossed-responses verdict, or no note on a tool without a reference answer\n%s", want)
	}

	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	Analyze(&back)
	if got := summary(&back); got != want {
		t.Errorf("analysed from JSON:\n%s\nthe run's:\n%s", got, want)
	}
	// Analysing again replaces what the first analysis added.
	Analyze(&back)
	if got := summary(&back); got != want {
		t.Errorf("analysed twice:\n%s\nthe run's:\n%s", got, want)
	}
}
