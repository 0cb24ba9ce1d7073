package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestServerRequestDuringTask (issue 19, item 16): over stdio, demo --tasks
// --ask sends the client a ping halfway through each task, between the
// runner's polls (no request of the step's in flight). A task step alone
// lists it as its own; two task steps at once list each ping as "during"
// the other step, never as provably their own. Before, the ping came while
// no call was in flight and was listed with no step at all.
func TestServerRequestDuringTask(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tasks.yaml")
	if err := os.WriteFile(path, []byte(`name: server requests during task polling
command: [mcpcheck, demo, --tasks, --ask]
protocolVersion: "2025-11-25"
allowTools: [export_household, plan_week]
scenarios:
  - name: alone
    steps:
      - {id: export, tool: export_household, arguments: {format: text}}
  - name: together
    parallel: true
    steps:
      - {id: export, tool: export_household, arguments: {format: text}}
      - {id: plan, tool: plan_week, task: {}, arguments: {days: 2}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runCmd(t, "--config", path, "--json", "-")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var rep report.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	alone := rep.Scenarios[0].Steps[0]
	if q := alone.ServerRequests; !alone.AsTask || len(q) != 1 || q[0].Method != "ping" || q[0].Count != 1 || q[0].During != nil {
		t.Errorf("alone: %+v, want ping ×1, its own", q)
	}
	together := rep.Scenarios[1].Steps
	seen := 0
	for i, st := range together {
		other := together[1-i].ID
		for _, q := range st.ServerRequests {
			seen += q.Count
			// Whether the two tasks overlapped when a ping came depends on
			// the machine; a ping that came while both were going on is
			// never one step's own.
			if len(q.During) > 0 && (len(q.During) != 1 || !strings.Contains(q.During[0], "step "+other+" of")) {
				t.Errorf("together, %s: %+v", st.ID, q)
			}
		}
	}
	if seen == 0 {
		t.Errorf("together: no ping listed with either step: %+v", together)
	}
}
