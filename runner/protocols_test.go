package runner

import (
	"strings"
	"testing"
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
