package runner

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/demo"
)

// TestGuardedCall makes real calls to the demo's defects over Streamable
// HTTP through the go-sdk client and judges each as an agent's gate would.
func TestGuardedCall(t *testing.T) {
	ctx, cs, tools := gateSession(t, demo.Options{Defects: true})
	tests := []struct {
		tool    string
		args    map[string]any
		outcome config.Outcome
		flagged string // a word of the reason, "" for not flagged
		note    string
		timeout time.Duration
	}{
		{tool: "lookup_city", args: map[string]any{"city": "Lisbon"}, outcome: config.OutcomeOK},
		{tool: "weather_report", args: map[string]any{"city": "Lisbon"}, outcome: config.OutcomeOK, flagged: "refusal"},
		{tool: "list_reminders", args: map[string]any{}, outcome: config.OutcomeOK, flagged: "empty content"},
		{tool: "exchange_rate", args: map[string]any{"from": "EUR", "to": "USD"}, outcome: config.OutcomeOutputInvalid, flagged: "outputSchema"},
		{tool: "echo_profile", args: map[string]any{"name": "Ada Lovelace"}, outcome: config.OutcomeOK, note: "echo mismatch"},
		{tool: "get_note", args: map[string]any{"note_id": "no-such-note"}, outcome: config.OutcomeToolError},
		{tool: "convert_units", args: map[string]any{"value": "ten", "from": "km", "to": "mi"}, outcome: config.OutcomeProtocolError},
		{tool: "search_notes", args: map[string]any{"query": "milk", "limit": "five"}, outcome: config.OutcomeTimeout, timeout: 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			tool := tools[tt.tool]
			if tool == nil {
				t.Fatalf("the demo lists no %s", tt.tool)
			}
			callCtx := ctx
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				callCtx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			g := GuardedCall(callCtx, cs, tool, tt.args)
			if g.Outcome != tt.outcome {
				t.Fatalf("outcome %s (%s), want %s", g.Outcome, g.Detail, tt.outcome)
			}
			if g.Flagged != (tt.flagged != "") || (tt.flagged != "" && !strings.Contains(strings.Join(g.Reasons, "; "), tt.flagged)) {
				t.Errorf("flagged=%v reasons=%q, want %q", g.Flagged, g.Reasons, tt.flagged)
			}
			if tt.note != "" && !strings.Contains(strings.Join(g.Notes, "; "), tt.note) {
				t.Errorf("notes %q lack %q", g.Notes, tt.note)
			}
			if (g.Result != nil) != (tt.outcome == config.OutcomeOK || tt.outcome == config.OutcomeToolError || tt.outcome == config.OutcomeOutputInvalid) {
				t.Errorf("result %v with outcome %s", g.Result, g.Outcome)
			}
		})
	}
	// The session survives all of it: the gate never breaks the caller's session.
	if g := GuardedCall(ctx, cs, tools["lookup_city"], map[string]any{"city": "Lisbon"}); g.Outcome != config.OutcomeOK || g.Flagged {
		t.Errorf("after the gate's calls: %+v", g)
	}
}

// TestLatencyGate: real calls to the demo's fault tools over Streamable
// HTTP. The relative rule compares a call with the same tool's own history
// (delay: three fast calls, then a slow one), the absolute one holds from
// the first call, and failed calls are neither judged nor remembered.
func TestLatencyGate(t *testing.T) {
	ctx, cs, tools := gateSession(t, demo.Options{Faults: true, Defects: true})
	var lg LatencyGate
	call := func(name string, args map[string]any) Gate {
		t.Helper()
		g := lg.Call(ctx, cs, tools[name], args)
		if g.Outcome != config.OutcomeOK {
			t.Fatalf("%s: outcome %s (%s)", name, g.Outcome, g.Detail)
		}
		return g
	}
	for range 3 {
		if g := call("delay", map[string]any{"delayMs": 1}); g.Flagged {
			t.Fatalf("a fast call flagged: %q", g.Reasons)
		}
	}
	// 2 s: flagged unless the 1 ms calls took over 666 ms each.
	g := call("delay", map[string]any{"delayMs": 2000})
	if !g.Flagged || !strings.Contains(strings.Join(g.Reasons, ";"), "latency: ") || !strings.Contains(strings.Join(g.Reasons, ";"), "earlier calls") {
		t.Errorf("2 s after three 1 ms calls: flagged=%v %q", g.Flagged, g.Reasons)
	}
	// Another tool has no history yet: a first call is judged by the
	// absolute thresholds only.
	if g := call("slow_search", map[string]any{"query": "milk"}); g.Flagged {
		t.Errorf("slow_search's first call (1.2 s, under 5 s) flagged: %q", g.Reasons)
	}
	if g := call("export_catalog", map[string]any{}); !g.Flagged || !strings.Contains(strings.Join(g.Reasons, ";"), "response size: ") {
		t.Errorf("export_catalog (60,539 characters): flagged=%v %q", g.Flagged, g.Reasons)
	}
	strict := LatencyGate{SlowMs: 1000}
	if g := strict.Call(ctx, cs, tools["slow_search"], map[string]any{"query": "milk"}); !g.Flagged || !strings.Contains(g.Reasons[0], "absolute threshold 1000") {
		t.Errorf("slow_search above a 1000 ms threshold: flagged=%v %q", g.Flagged, g.Reasons)
	}
	// A failed call is not remembered: the delay history stays at four.
	hang, hangCancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer hangCancel()
	if g := lg.Call(hang, cs, tools["hang"], nil); g.Outcome != config.OutcomeTimeout || g.Flagged {
		t.Errorf("hang: %s flagged=%v", g.Outcome, g.Flagged)
	}
	if n := len(lg.hist["hang"].msOrNil()); n != 0 {
		t.Errorf("a timed-out call was remembered (%d samples)", n)
	}
}

func (h *gateHistory) msOrNil() []float64 {
	if h == nil {
		return nil
	}
	return h.ms
}

// gateSession serves the demo with opts over Streamable HTTP and returns a
// go-sdk client session on it and its tools by name; all are closed when
// the test ends.
func gateSession(t *testing.T, opts demo.Options) (context.Context, *mcp.ClientSession, map[string]*mcp.Tool) {
	t.Helper()
	srv := httptest.NewServer(demo.Handler(opts))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	client := mcp.NewClient(&mcp.Implementation{Name: "gate-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	return ctx, cs, tools
}
