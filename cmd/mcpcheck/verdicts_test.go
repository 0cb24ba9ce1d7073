package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestNoToolTested: quick mode on the demo with only commit_task allowed,
// which is not read-only: the protocol probes run, no tool is called, and
// the headline says so instead of PASS; the exit code stays 0, as for
// NOTHING TESTED (issue 19 item 14).
func TestNoToolTested(t *testing.T) {
	parallel(t)
	r := runCmd(t, "--allow-tools", "commit_task", "--json", "-", "--", os.Args[0], "demo")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (nothing failed)\n%s", r.code, r.stderr)
	}
	var rep struct {
		Passed        bool `json:"passed"`
		NothingTested *struct {
			Reason, Fix, Ran string
		} `json:"nothingTested"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	n := rep.NothingTested
	if n == nil || !strings.HasPrefix(n.Reason, "0 of 4 tools called: ") || !strings.Contains(n.Ran, "protocol probe messages") || !strings.Contains(n.Fix, "--include-destructive") {
		t.Fatalf("nothingTested %+v", n)
	}
	if !strings.HasPrefix(r.stderr, "NO TOOL TESTED ") || strings.Contains(r.stderr, "PASS") {
		t.Errorf("headline:\n%s", r.stderr)
	}
	// One tool called is a test of the tools: no such verdict.
	r = runCmd(t, "--allow-tools", "get_household", "--json", "-", "--", os.Args[0], "demo")
	if r.code != 0 || strings.Contains(r.stdout, `"nothingTested"`) || !strings.HasPrefix(r.stderr, "PASS ") {
		t.Errorf("get_household allowed: exit %d\n%s", r.code, r.stderr)
	}
	// ... and its headline says what it covered, right under the verdict.
	const covered = "1 of 4 tools called; 3 not: not in allowTools, which bounds generated calls — name it in --allow-tools"
	if lines := strings.SplitN(r.stderr, "\n", 3); len(lines) < 2 || strings.TrimSpace(lines[1]) != covered {
		t.Errorf("coverage line: want %q under the verdict, got:\n%s", covered, r.stderr)
	}
	if !strings.Contains(r.stdout, `"coverage": "`+covered+`"`) {
		t.Errorf("the JSON report's coverage is not %q", covered)
	}
}

// attributionFixture asks for roots in a call alone, then in a call that
// runs at once with another (the demo's count_roots asks 300 ms into its
// call; kitchen_timer runs 700 ms and asks nothing).
const attributionFixture = `name: server requests by step
command: [mcpcheck, demo, --defects]
allowTools: [count_roots, kitchen_timer]
timeoutMs: 10000
client:
  roots: [{uri: "file:///srv/household", name: household}]
scenarios:
  - name: alone
    steps:
      - {id: roots, tool: count_roots, expect: {text: {contains: "1 folder"}}}
  - name: together
    parallel: true
    steps:
      - {id: roots, tool: count_roots}
      - {id: timer, tool: kitchen_timer, arguments: {delayMs: 700}}
`

// TestServerRequestAttribution: a request the server makes of the client
// is listed with a step only when it is provably that step's (its own
// HTTP stream, or the only call in flight); else as "during" the steps in
// flight. kitchen_timer never asks, so it never shows roots/list as its
// own, whatever the timing (issue 19 item 16).
func TestServerRequestAttribution(t *testing.T) {
	parallel(t)
	path := filepath.Join(t.TempDir(), "attribution.yaml")
	if err := os.WriteFile(path, []byte(attributionFixture), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(demo.Handler(demo.Options{Defects: true}))
	defer srv.Close()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			args := []string{"--config", path, "--json", "-"}
			if transport == "http" {
				args = append(args, "--url", srv.URL+"/mcp")
			}
			r := runCmd(t, args...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			var rep report.Report
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			alone, together := rep.Scenarios[0].Steps[0], rep.Scenarios[1].Steps
			if q := alone.ServerRequests; len(q) != 1 || q[0].Method != "roots/list" || q[0].Count != 1 || q[0].During != nil {
				t.Errorf("alone: %+v, want roots/list ×1, its own", q)
			}
			roots, timer := together[0], together[1]
			if q := roots.ServerRequests; len(q) != 1 || q[0].Method != "roots/list" || q[0].Count != 1 {
				t.Errorf("together, roots: %+v, want roots/list ×1", q)
			}
			for _, q := range timer.ServerRequests {
				if len(q.During) != 1 || !strings.Contains(q.During[0], `step roots of "together"`) {
					t.Errorf("together, timer: %+v: kitchen_timer shown asking what count_roots asked", q)
				}
			}
			t.Logf("%s: roots %+v, timer %+v", transport, roots.ServerRequests, timer.ServerRequests)
		})
	}
}
