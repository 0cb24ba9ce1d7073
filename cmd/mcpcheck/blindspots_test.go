package main

// Blind spots (issue 19): defects that mcpcheck could not see before,
// planted in the demo and found end to end through the real CLI.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blindReport is what these tests read of a JSON report.
type blindReport struct {
	Passed   bool `json:"passed"`
	Findings []struct {
		Tool, Origin, Kind, Status, Message, Reference string
		Flagged                                        bool
	} `json:"findings"`
	StdoutNoise *struct {
		Lines []string `json:"lines"`
		Count int      `json:"count"`
	} `json:"stdoutNoise"`
	Scenarios []struct {
		Name  string `json:"name"`
		Steps []struct {
			ID, Tool, Status, Outcome, Case, Reason string
			ErrorCode                               *int64 `json:"errorCode"`
		} `json:"steps"`
	} `json:"scenarios"`
	Summary struct {
		Scores []struct {
			Name    string  `json:"name"`
			Percent float64 `json:"percent"`
		} `json:"scores"`
	} `json:"summary"`
}

func decodeBlind(t *testing.T, data string) blindReport {
	t.Helper()
	validReport(t, data)
	var r blindReport
	if err := json.Unmarshal([]byte(data), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r blindReport) score(name string) float64 {
	for _, s := range r.Summary.Scores {
		if s.Name == name {
			return s.Percent
		}
	}
	return -1
}

// TestPlainCallsWithoutMeta (item 7): calls carry no _meta unless a step
// asks for progress. scan_inbox dereferences the progress token and
// answers -32603 without it: quick mode finds that (crash resilience is
// no longer 100 %), while a fixture step that expects progress asks for it
// and passes, and the same call without the expectation is the plain one.
func TestPlainCallsWithoutMeta(t *testing.T) {
	r := runCmd(t, "--json", "-", "--no-protocol-probes", "--allow-tools", "scan_inbox", "--", "mcpcheck", "demo", "--defects")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\n%s", r.code, r.stderr)
	}
	q := decodeBlind(t, r.stdout)
	if pct := q.score("crashResilience"); pct < 0 || pct >= 100 {
		t.Errorf("crash resilience %.2f%%, want under 100", pct)
	}
	crashed := 0
	for _, sc := range q.Scenarios {
		for _, st := range sc.Steps {
			if st.Tool == "scan_inbox" && st.Outcome == "protocol_error" && st.ErrorCode != nil && *st.ErrorCode == -32603 {
				crashed++
			}
		}
	}
	if crashed == 0 {
		t.Errorf("no scan_inbox call answered -32603:\n%s", r.stdout)
	}

	fixture := filepath.Join(t.TempDir(), "progress.yaml")
	os.WriteFile(fixture, []byte(`name: progress only where asked
command: [mcpcheck, demo, --defects]
allowTools: [scan_inbox]
scenarios:
  - name: asks for progress
    steps:
      - tool: scan_inbox
        arguments: {folder: inbox}
        expect:
          notifications: [{method: notifications/progress, count: 2}]
          structuredEquals: {folder: inbox, unread: 5}
  - name: a plain call
    steps:
      - tool: scan_inbox
        arguments: {folder: inbox}
        expect: {outcome: protocol_error, errorCode: -32603}
`), 0o600)
	// The step that asks for progress passes its own expectations, and its
	// call made once more without _meta (the check under it) crashes: the
	// step fails on that alone (TestProgressTwin).
	r = runCmd(t, "--config", fixture)
	if r.code != 1 || !strings.Contains(r.stdout, "without _meta: the same call without _meta") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestErrorReportedAsSuccess (item 9): find_template answers an unknown
// name with {"error": "Template '…' not found"} and isError absent;
// fidelity fails it, naming the server's words, and flags nothing else.
func TestErrorReportedAsSuccess(t *testing.T) {
	r := runCmd(t, "--json", "-", "--no-protocol-probes", "--allow-tools", "find_template,lookup_city,get_forecast", "--", "mcpcheck", "demo", "--defects")
	q := decodeBlind(t, r.stdout)
	found := 0
	for _, f := range q.Findings {
		if !strings.Contains(f.Message, "error reported as success") {
			continue
		}
		found++
		if f.Tool != "find_template" || f.Status != "failed" || f.Origin != "fidelity" || !strings.Contains(f.Message, `not found`) {
			t.Errorf("finding %+v", f)
		}
	}
	if found != 1 {
		t.Errorf("%d error-as-success findings, want 1 (find_template)\n%s", found, r.stdout)
	}
}

// TestStdoutNoise (item 11): a server that writes a banner and a log line
// on stdout is no longer "exited during initialize": the lines are
// skipped, every check runs and passes, and one failed finding says what
// the server wrote, citing the stdio transport's MUST.
func TestStdoutNoise(t *testing.T) {
	r := runCmd(t, "--json", "-", "--", "mcpcheck", "demo", "--banner")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (the finding)\n%s", r.code, r.stderr)
	}
	q := decodeBlind(t, r.stdout)
	if q.StdoutNoise == nil || q.StdoutNoise.Count < 2 || len(q.StdoutNoise.Lines) != 2 ||
		q.StdoutNoise.Lines[0] != "Starting household demo server on stdio..." || q.StdoutNoise.Lines[1] != "household demo: client connected" {
		t.Fatalf("stdoutNoise = %+v", q.StdoutNoise)
	}
	failed := 0
	for _, f := range q.Findings {
		if f.Status != "failed" {
			continue
		}
		failed++
		if f.Kind != "stdout-noise" || !strings.HasPrefix(f.Message, `the server wrote non-JSON-RPC to stdout: "Starting household demo server on stdio..."`) ||
			!strings.Contains(f.Reference, "MUST NOT write anything to its stdout") {
			t.Errorf("finding %+v", f)
		}
	}
	if failed != 1 {
		t.Errorf("%d failed findings, want 1", failed)
	}
	steps := 0
	for _, sc := range q.Scenarios {
		for _, st := range sc.Steps {
			steps++
			if st.Status == "failed" {
				t.Errorf("%s / %s failed: %s", sc.Name, st.ID, st.Reason)
			}
		}
	}
	if steps < 20 {
		t.Errorf("%d steps ran", steps)
	}
}
