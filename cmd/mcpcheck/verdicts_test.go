package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestNoToolTested: quick mode on the demo with only commit_task allowed,
// which is not read-only: the protocol probes run, no tool is called, and
// the headline says so instead of PASS; the exit code stays 0, as for
// NOTHING TESTED (issue 19 item 14).
func TestNoToolTested(t *testing.T) {
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
}
