package runner

import (
	"context"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/demo"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// eraProbeSuite runs only the protocol probes under 2026-07-28.
func eraProbeSuite(t *testing.T, childMode, endpoint string) *config.Suite {
	t.Helper()
	s := protocolSuite(t, childMode, endpoint)
	s.ProtocolVersion = config.ProtocolVersion2026
	return s
}

// eraProbeNames are the probes of 2026-07-28 over stdio; HTTP adds its own.
var (
	eraStdioProbes = []string{"cache-hints", "discover", "discover-capabilities", "list-stable", "listen-ack", "meta-missing-capability", "meta-unsupported-version",
		"removed-ping", "removed-set-level", "removed-subscribe", "resource-not-found", "result-type", "state-replayed", "state-tampered"}
	eraHTTPProbes = append(slices.Clone(eraStdioProbes), "get-delete-405", "meta-header-mismatch", "no-session-id")
)

// probeIDs lists the probe steps of the report's first scenario, sorted,
// with their statuses.
func probeIDs(rep *report.Report) (ids []string, notPassed []string) {
	for _, st := range rep.Scenarios[0].Steps {
		if strings.HasSuffix(st.ID, ".alive") {
			continue
		}
		ids = append(ids, st.ID)
		if st.Status != report.StatusPassed || st.Flagged {
			notPassed = append(notPassed, st.ID+": "+string(st.Status)+" "+st.Reason+strings.Join(st.Notes, " "))
		}
	}
	slices.Sort(ids)
	return ids, notPassed
}

// TestEraProbesCleanDemo: under 2026-07-28 the demo (with ask_assignee,
// its multi-round-trip tool) passes every probe of the revision over
// stdio and over stateless HTTP, each one run, none skipped.
func TestEraProbesCleanDemo(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Ask: true, Stateless: true}))
	defer srv.Close()
	for _, c := range []struct {
		name, mode, endpoint string
		probes               []string
	}{
		{"stdio", "demo-ask", "", eraStdioProbes},
		{"http-stateless", "", srv.URL + "/mcp", eraHTTPProbes},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := mustRun(t, eraProbeSuite(t, c.mode, c.endpoint), stdioOptions())
			if rep.ProtocolVersion != config.ProtocolVersion2026 {
				t.Fatalf("negotiated %s", rep.ProtocolVersion)
			}
			want := slices.Clone(c.probes)
			slices.Sort(want)
			ids, bad := probeIDs(rep)
			if !rep.Passed || len(bad) > 0 || !slices.Equal(ids, want) {
				t.Fatalf("passed %v, probes %v (want %v), not passed %v: %s", rep.Passed, ids, want, bad, statuses(rep))
			}
			if sc := protocolScore(t, rep); sc.Percent == nil || *sc.Percent != 100 || sc.Total != len(want) {
				t.Errorf("score %+v", sc)
			}
		})
	}
}

// TestEraProbesPlantedDefects: every 2026-07-28 defect the demo plants is
// found, each by its probe, as a failure or a note, with the revision's
// reference; every probe has one.
func TestEraProbesPlantedDefects(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{ProtocolDefects: true, Stateless: true}))
	defer srv.Close()
	common := []string{"cache-hints", "list-stable", "listen-ack", "meta-missing-capability", "meta-unsupported-version", "removed-ping", "removed-set-level", "result-type", "state-tampered"}
	notes := []string{"discover", "discover-capabilities", "removed-subscribe", "resource-not-found", "state-replayed"}
	httpFailed := append(slices.Clone(common), "get-delete-405", "meta-header-mismatch", "no-session-id")
	slices.Sort(httpFailed)
	for _, c := range []struct {
		name, mode, endpoint string
		failed               []string
	}{
		{"stdio", "protocol-defects", "", common},
		{"http-stateless", "", srv.URL + "/mcp", httpFailed},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := mustRun(t, eraProbeSuite(t, c.mode, c.endpoint), stdioOptions())
			failed, gotNotes := probeKinds(rep)
			if rep.Passed || !slices.Equal(failed, c.failed) || !slices.Equal(gotNotes, notes) {
				t.Fatalf("passed %v, failed %v (want %v), notes %v (want %v): %s", rep.Passed, failed, c.failed, gotNotes, notes, statuses(rep))
			}
			if probes := len(rep.Scenarios[0].Steps) / 2; len(failed)+len(gotNotes) != probes {
				t.Errorf("%d findings for %d probes: a probe without a planted defect", len(failed)+len(gotNotes), probes)
			}
			for _, f := range rep.Findings {
				if f.Origin == config.OriginProtocol && !strings.HasPrefix(f.Reference, "MCP 2026-07-28 ") {
					t.Errorf("finding %s cites %q", f.Kind, f.Reference)
				}
				if f.Kind == "state-tampered" && (f.Status != report.StatusFailed || !strings.Contains(f.Got, "a result")) {
					t.Errorf("state-tampered finding %+v", f)
				}
			}
		})
	}
}

// TestEraOverStatefulHTTP: the stateful demo (go-sdk serves 2026-07-28
// over HTTP only without sessions) negotiates 2025-11-25 when asked for
// 2026-07-28; the run checks that era, passes, and says so in a note.
func TestEraOverStatefulHTTP(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Ask: true}))
	defer srv.Close()
	rep := mustRun(t, eraProbeSuite(t, "", srv.URL+"/mcp"), stdioOptions())
	if !rep.Passed || rep.ProtocolVersion != config.DefaultProtocolVersion {
		t.Fatalf("passed %v, negotiated %s: %s", rep.Passed, rep.ProtocolVersion, statuses(rep))
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, "asked for protocol 2026-07-28") && strings.Contains(n, "negotiated 2025-11-25") && strings.Contains(n, "not a failure")
	}) {
		t.Errorf("notes %q", rep.Notes)
	}
	ids, _ := probeIDs(rep)
	if !slices.Contains(ids, "second-initialize") || slices.Contains(ids, "discover") {
		t.Errorf("probes %v: want the 2025-11-25 catalogue", ids)
	}
}

// TestEraFixtureBothEras: a fixture whose protocolVersion is a list runs
// in each era over the demo's stdio; a ping or setLogLevel step fails
// under 2026-07-28 without being sent, saying the revision removed it, and
// passes under 2025-11-25; a step limited to 2025-11-25 is left alone.
func TestEraFixtureBothEras(t *testing.T) {
	s := parse(t, `name: both eras
command: [mcpcheck]
protocolVersion: ["2025-11-25", "2026-07-28"]
allowTools: [get_household]
scenarios:
  - name: removed methods
    steps:
      - {id: ping, ping: {}}
  - name: removed logging
    steps:
      - {id: level, setLogLevel: info}
  - name: tagged
    steps:
      - {id: ping, ping: {}, protocols: ["2025-11-25"]}
      - {id: read, tool: get_household, expect: {structuredEquals: {revision: 0, tasks: []}}}
`)
	s.Env = map[string]string{childEnvVar: "demo"}
	rep := mustRun(t, s, stdioOptions())
	if len(rep.ProtocolRuns) != 2 || rep.ProtocolRuns[0].Negotiated != "2025-11-25" || rep.ProtocolRuns[1].Negotiated != "2026-07-28" {
		t.Fatalf("protocol runs %+v", rep.ProtocolRuns)
	}
	if !rep.ProtocolRuns[0].Passed || rep.ProtocolRuns[1].Passed || rep.Passed {
		t.Fatalf("passes %+v, passed %v: %s", rep.ProtocolRuns, rep.Passed, statuses(rep))
	}
	for k, method := range []string{"ping", "logging/setLevel"} {
		st := rep.Scenarios[3+k].Steps[0] // the 2026-07-28 pass's
		if rep.Scenarios[3+k].ProtocolVersion != "2026-07-28" || st.Status != report.StatusFailed ||
			!strings.Contains(st.Reason, method+" is not in 2026-07-28") || !strings.Contains(st.Reason, "nothing was sent") {
			t.Errorf("%s under 2026-07-28: %+v", method, st)
		}
	}
	tagged := rep.Scenarios[5]
	if tagged.Steps[0].Status != report.StatusSkipped || tagged.Steps[1].Status != report.StatusPassed {
		t.Errorf("tagged scenario under 2026-07-28: %s", statuses(rep))
	}
	if len(rep.Divergences) != 2 || rep.Divergences[0].Step != "ping" || rep.Divergences[1].Step != "level" {
		t.Errorf("divergences %+v", rep.Divergences)
	}
}

// TestErasDivergeByValue: a run in both eras compares each step's answers
// by value. A tool whose answer names the era diverges, in the members
// that differ; the demo's get_household, whose 2026-07-28 results also
// carry resultType, caching hints and the server's identity in _meta (what
// the revision added), does not. The digests say nothing of the values.
func TestErasDivergeByValue(t *testing.T) {
	s := parse(t, `name: value divergence
command: [mcpcheck]
protocolVersion: ["2025-11-25", "2026-07-28"]
allowTools: [get_household, which_era]
scenarios:
  - name: same
    steps:
      - {id: read, tool: get_household}
  - name: era
    steps:
      - {id: which, tool: which_era}
`)
	opts := Options{Dial: func(ctx context.Context) (mcp.Transport, error) {
		srv := demo.NewServer(demo.Options{})
		mcp.AddTool(srv, &mcp.Tool{Name: "which_era", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
				return nil, map[string]any{"era": req.ProtocolVersion()}, nil
			})
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}}
	rep := mustRun(t, s, opts)
	if !rep.Passed || len(rep.ProtocolRuns) != 2 || rep.ProtocolRuns[1].Negotiated != "2026-07-28" {
		t.Fatalf("passed %v, runs %+v: %s", rep.Passed, rep.ProtocolRuns, statuses(rep))
	}
	if len(rep.Divergences) != 1 {
		t.Fatalf("divergences %+v", rep.Divergences)
	}
	d := rep.Divergences[0]
	if d.Scenario != "era" || d.Step != "which" || !slices.Equal(d.Values, []string{"content", "structuredContent"}) {
		t.Errorf("divergence %+v", d)
	}
	for _, sc := range rep.Scenarios {
		for _, st := range sc.Steps {
			for k, v := range st.AnswerDigests {
				if strings.Contains(v, "2025") || strings.Contains(v, "revision") || len(v) != 16 {
					t.Errorf("%s digest %s = %q", st.ID, k, v)
				}
			}
		}
	}
	// Analysis is a function of the report: read back, the same.
	again := *rep
	again.Divergences = nil
	Analyze(&again)
	if len(again.Divergences) != 1 || !slices.Equal(again.Divergences[0].Values, d.Values) {
		t.Errorf("re-analysed: %+v", again.Divergences)
	}
}

// TestEraStatelessHTTPClientBlock: over stateless HTTP under 2026-07-28 a
// fixture with a client block calls a multi-round-trip tool, answered
// from the block; the session does not wait for a standalone stream the
// revision does not have (it waited out initTimeoutMs: 30 s by default).
func TestEraStatelessHTTPClientBlock(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Ask: true, Stateless: true}))
	defer srv.Close()
	s := parse(t, `name: ask over stateless HTTP
endpoint: http://127.0.0.1:1/mcp
protocolVersion: "2026-07-28"
initTimeoutMs: 120000
allowTools: [ask_assignee]
client:
  elicitation: {action: accept, content: {name: Robin}}
scenarios:
  - name: ask
    steps:
      - {id: ask, tool: ask_assignee, arguments: {task: Dust}, expect: {structuredEquals: {task: Dust, assignee: Robin, answered: true}}}
`)
	s.Endpoint = srv.URL + "/mcp"
	rep := mustRun(t, s, Options{})
	if !rep.Passed || rep.ProtocolVersion != "2026-07-28" {
		t.Fatalf("passed %v under %s: %s", rep.Passed, rep.ProtocolVersion, statuses(rep))
	}
	if rep.Summary.DurationMs > 60_000 {
		t.Errorf("the run took %.0f ms: it waited for a stream that does not exist", rep.Summary.DurationMs)
	}
}
