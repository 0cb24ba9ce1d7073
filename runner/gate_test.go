package runner

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/demo"
)

// TestGuardedCall makes real calls to the demo's defects over Streamable
// HTTP through the go-sdk client and judges each as an agent's gate would.
func TestGuardedCall(t *testing.T) {
	srv := httptest.NewServer(demo.Handler(demo.Options{Defects: true}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "gate-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools[tool.Name] = tool
	}
	tests := []struct {
		tool    string
		args    map[string]any
		outcome string
		flagged string // a word of the reason, "" for not flagged
		note    string
		timeout time.Duration
	}{
		{tool: "lookup_city", args: map[string]any{"city": "Lisbon"}, outcome: assert.OutcomeOK},
		{tool: "weather_report", args: map[string]any{"city": "Lisbon"}, outcome: assert.OutcomeOK, flagged: "refusal"},
		{tool: "list_reminders", args: map[string]any{}, outcome: assert.OutcomeOK, flagged: "empty content"},
		{tool: "exchange_rate", args: map[string]any{"from": "EUR", "to": "USD"}, outcome: assert.OutcomeOutputInvalid, flagged: "outputSchema"},
		{tool: "echo_profile", args: map[string]any{"name": "Ada Lovelace"}, outcome: assert.OutcomeOK, note: "echo mismatch"},
		{tool: "get_note", args: map[string]any{"note_id": "no-such-note"}, outcome: assert.OutcomeToolError},
		{tool: "convert_units", args: map[string]any{"value": "ten", "from": "km", "to": "mi"}, outcome: assert.OutcomeProtocolError},
		{tool: "search_notes", args: map[string]any{"query": "milk", "limit": "five"}, outcome: assert.OutcomeTimeout, timeout: 300 * time.Millisecond},
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
			if (g.Result != nil) != (tt.outcome == assert.OutcomeOK || tt.outcome == assert.OutcomeToolError || tt.outcome == assert.OutcomeOutputInvalid) {
				t.Errorf("result %v with outcome %s", g.Result, g.Outcome)
			}
		})
	}
	// The session survives all of it: the gate never breaks the caller's session.
	if g := GuardedCall(ctx, cs, tools["lookup_city"], map[string]any{"city": "Lisbon"}); g.Outcome != assert.OutcomeOK || g.Flagged {
		t.Errorf("after the gate's calls: %+v", g)
	}
}
