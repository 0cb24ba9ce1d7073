package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

func TestTwoProtocols(t *testing.T) {
	s := parse(t, `
name: versions
command: [mcpcheck, demo]
allowTools: [get_household, modern]
scenarios:
  - name: both
    steps:
      - {id: read, tool: get_household}
      - {id: legacy-only, tool: get_household, protocols: ["2025-11-25"]}
      - {id: modern, tool: modern}
  - name: legacy scenario
    protocols: ["2025-11-25"]
    steps: [{id: read, tool: get_household}]
`)
	opts := inMemory(nil)
	opts.Protocols = []string{"2025-11-25", "2026-07-28"}
	rep := mustRun(t, s, opts)
	want := "both/read=passed:ok both/legacy-only=passed:ok both/modern=passed:ok legacy scenario/read=passed:ok " +
		"both/read=passed:ok both/legacy-only=skipped both/modern=failed:tool_error legacy scenario/read=skipped"
	if got := statuses(rep); got != want {
		t.Fatalf("statuses:\n got %s\nwant %s", got, want)
	}
	if len(rep.ProtocolRuns) != 2 || rep.ProtocolRuns[1].Negotiated != "2026-07-28" || rep.ProtocolRuns[0].Passed != true || rep.ProtocolRuns[1].Passed {
		t.Errorf("protocol runs = %+v", rep.ProtocolRuns)
	}
	if rep.Scenarios[2].ProtocolVersion != "2026-07-28" {
		t.Errorf("scenario protocol = %q", rep.Scenarios[2].ProtocolVersion)
	}
	if r := rep.Scenarios[2].Steps[1].Reason; !strings.HasPrefix(r, "not run under protocol 2026-07-28") {
		t.Errorf("tag reason = %q", r)
	}
	if len(rep.Divergences) != 1 || rep.Divergences[0].Step != "modern" || rep.Divergences[0].Results[1].Outcome != "tool_error" {
		t.Errorf("divergences = %+v", rep.Divergences)
	}
	if rep.Connections != 2 {
		t.Errorf("connections = %d", rep.Connections)
	}
}

// A step whose result reads the same under both versions is no
// divergence, even when it carries an error code (each pass holds its own
// copy of the code: the values are compared, not where they are stored);
// a step whose result differs is one.
func TestDivergencesCompareValues(t *testing.T) {
	s := parse(t, `
name: versions
command: [mcpcheck, demo]
allowTools: [get_household, modern]
scenarios:
  - name: both
    steps:
      - {id: read, tool: get_household}
      - {id: missing, resource: "household://tasks/no-such-task", expect: {outcome: protocol_error}}
      - {id: modern, tool: modern}
`)
	opts := inMemory(nil)
	opts.Protocols = []string{"2025-11-25", "2026-07-28"}
	rep := mustRun(t, s, opts)
	var codes []int64
	for _, sc := range rep.Scenarios {
		if st := sc.Steps[1]; st.ErrorCode != nil {
			codes = append(codes, *st.ErrorCode)
		}
	}
	if len(codes) != 2 || codes[0] != codes[1] {
		t.Fatalf("the missing resource's error codes = %v, want the same code under both versions\n%s", codes, statuses(rep))
	}
	var got []string
	for _, d := range rep.Divergences {
		got = append(got, d.Scenario+" / "+d.Step)
	}
	if want := []string{"both / modern"}; !slices.Equal(got, want) {
		t.Errorf("divergences = %q, want %q", got, want)
	}
}

// defectsInMemory connects each session to a fresh in-memory demo server
// with its planted defects.
func defectsInMemory() Options {
	return Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		if _, err := demo.NewServer(demo.Options{Defects: true}).Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
}

// A run under two protocol versions keeps its generated checks: each
// version's findings, scores and skipped tools are the ones a run under
// that version alone gives, marked with the version, and each version's
// verdict is its own.
func TestTwoProtocolsKeepGeneratedChecks(t *testing.T) {
	suite := func() *config.Suite {
		// Tools with a defect each that answer at once (a hanging or
		// crashing tool would only make the test slow), and one that is
		// not read-only: the others are skipped as not allowed.
		s := parse(t, `
name: gen
command: [x]
timeoutMs: 10000
allowTools: [get_household, format_address, convert_units, exchange_rate, export_catalog, weather_report, commit_task]
scenarios: [{name: fixture, steps: [{id: one, tool: get_household}]}]
`)
		s.Generate = &config.Generate{Fuzz: true, Fidelity: true, Probes: true, FuzzCases: config.DefaultFuzzCases,
			FailUnder: map[config.ScoreName]float64{config.ScoreCrashResilience: 50}}
		return s
	}
	versions := []string{"2025-11-25", "2026-07-28"}
	alone := map[string]*report.Report{}
	for _, v := range versions {
		opts := defectsInMemory()
		opts.Protocols = []string{v}
		alone[v] = mustRun(t, suite(), opts)
	}
	opts := defectsInMemory()
	opts.Protocols = versions
	both := mustRun(t, suite(), opts)

	// What a version's run judged, without what timing decides (the
	// latency probe) or the sizes it measured (in the messages).
	findings := func(fs []report.Finding, v string) []string {
		var out []string
		for _, f := range fs {
			if f.ProtocolVersion != v || f.Kind == "latency" {
				continue
			}
			if f.Origin == config.OriginProbe {
				f.Message = ""
			}
			f.ProtocolVersion = ""
			out = append(out, fmt.Sprintf("%+v", f))
		}
		return out
	}
	scores := func(ss []report.Score, v string) []string {
		var out []string
		for _, s := range ss {
			if s.ProtocolVersion == v && s.Name != config.ScoreLatency {
				out = append(out, fmt.Sprintf("%s %d/%d (%d inconclusive) met=%v", s.Name, s.Passed, s.Total, s.Inconclusive, s.Met != nil && *s.Met))
			}
		}
		return out
	}
	skipped := func(ts []report.SkippedTool, v string) []string {
		var out []string
		for _, s := range ts {
			if s.ProtocolVersion == v {
				out = append(out, s.Tool+": "+s.Reason)
			}
		}
		return out
	}
	for k, v := range versions {
		one := alone[v]
		if len(one.Findings) == 0 || len(one.Summary.Scores) == 0 || len(one.SkippedTools) == 0 {
			t.Fatalf("%s alone: %d findings, %d scores, %d skipped tools: the defects were not found", v, len(one.Findings), len(one.Summary.Scores), len(one.SkippedTools))
		}
		if got, want := findings(both.Findings, v), findings(one.Findings, ""); !slices.Equal(got, want) {
			t.Errorf("%s: findings of the two-version run\n%s\nwant those of its run alone\n%s", v, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if got, want := scores(both.Summary.Scores, v), scores(one.Summary.Scores, ""); !slices.Equal(got, want) {
			t.Errorf("%s: scores %q, want %q", v, got, want)
		}
		if got, want := skipped(both.SkippedTools, v), skipped(one.SkippedTools, ""); !slices.Equal(got, want) {
			t.Errorf("%s: skipped tools %q, want %q", v, got, want)
		}
		if got := both.ProtocolRuns[k].Passed; got != one.Passed {
			t.Errorf("%s: the pass's verdict is %v, its run alone's %v", v, got, one.Passed)
		}
	}
	if both.Tokens == nil {
		t.Error("no token estimate")
	}
	if len(both.Divergences) != 0 {
		t.Errorf("divergences between two versions the demo answers alike: %+v", both.Divergences)
	}
}
