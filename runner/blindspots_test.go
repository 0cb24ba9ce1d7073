package runner

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestCancellationAsksForProgress (issue 19 item 8): the cancellation
// probe's call asks for progress, so slow_status (protocol defects), which
// ignores notifications/cancelled, answers late and reports progress after
// its result, is a failed probe naming both; over HTTP, where the probe
// reads the POST's answer only, the late answer stays a note.
func TestCancellationAsksForProgress(t *testing.T) {
	rep := mustRun(t, protocolSuite(t, "protocol-defects", ""), stdioOptions())
	var f *report.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Kind == "cancellation" {
			f = &rep.Findings[i]
		}
	}
	if f == nil || f.Status != report.StatusFailed || f.Tool != "slow_status" || !strings.Contains(f.Got, "a result after the cancellation") ||
		!strings.Contains(f.Got, "progress notification(s) after its result") || !strings.HasPrefix(f.Reference, "MCP 2025-11-25 basic/utilities/cancellation, Behavior Requirements: \"Receivers of cancellation notifications SHOULD") {
		t.Fatalf("cancellation finding = %+v", f)
	}
}

// TestNullArgumentsWithoutReadOnlyTools (issue 19 item 8): a server whose
// allowed tools are none of them read-only still gets the null and omitted
// arguments probes, on a tool with required properties (the call is
// invalid either way), and its -32603 is found.
func TestNullArgumentsWithoutReadOnlyTools(t *testing.T) {
	s := protocolSuite(t, "protocol-defects", "")
	s.AllowTools = []string{"commit_task"} // required properties; readOnlyHint false
	rep := mustRun(t, s, stdioOptions())
	found := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Kind == "null-arguments" || f.Kind == "omitted-arguments" {
			found[string(f.Kind)] = true
			if f.Tool != "commit_task" || f.Status != report.StatusFailed || f.Score != config.ScoreProtocol || !strings.Contains(f.Got, "-32603") {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if len(found) != 2 {
		t.Errorf("null/omitted-arguments findings: %v, want both", found)
	}
	// No other tool was called.
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			if strings.HasPrefix(st.Target, "tools/call ") && st.Target != "tools/call commit_task" && st.Target != "tools/call mcpcheck-no-such-tool" {
				t.Errorf("%s called %s", st.ID, st.Target)
			}
		}
	}
}

// TestRebindingAndPriming (issue 19 item 13): over HTTP on a loopback
// address the probes also send a foreign Host header and read whether an
// SSE answer begins with a priming event. The clean demo (go-sdk with an
// event store and its DNS rebinding protection) passes both; the protocol
// defects (protection off, no event store) are a risk note and a should
// note, each saying what came back.
func TestRebindingAndPriming(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  demo.Options
		notes bool
	}{
		{"clean", demo.Options{}, false},
		{"protocol defects", demo.Options{ProtocolDefects: true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(demo.Handler(c.opts))
			defer srv.Close()
			rep := mustRun(t, protocolSuite(t, "", srv.URL+"/mcp"), stdioOptions())
			seen := map[string]report.StepResult{}
			for _, st := range rep.Scenarios[0].Steps {
				seen[st.ID] = st
			}
			host, prime := seen["foreign-host"], seen["sse-priming"]
			if host.Status != report.StatusPassed || prime.Status != report.StatusPassed || host.Flagged != c.notes || prime.Flagged != c.notes {
				t.Fatalf("foreign-host %s flagged %v %v, sse-priming %s flagged %v %v", host.Status, host.Flagged, host.Notes, prime.Status, prime.Flagged, prime.Notes)
			}
			if c.notes && (!strings.HasPrefix(host.Notes[0], "risk: ") || !strings.Contains(host.Notes[0], "rebound") ||
				!strings.Contains(prime.Notes[0], "no priming event") || !strings.Contains(prime.Notes[0], "2025-11-25 basic/transports")) {
				t.Errorf("notes: %q, %q", host.Notes, prime.Notes)
			}
		})
	}
}
