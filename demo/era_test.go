package demo

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingClient answers every elicitation with name, counting them.
func askingClient(name string, asked *int) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			*asked++
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
		},
	})
}

// TestAskAssigneeBothEras: ask_assignee asks the client for a name and
// returns it, under 2026-07-28 as a multi-round-trip request (the SDK's
// client answers the input-required result and retries) and under
// 2025-11-25 as an elicitation/create the SDK's server sends; a client
// that declares no elicitation gets -32021 in both.
func TestAskAssigneeBothEras(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			s := NewServer(Options{Ask: true})
			asked := 0
			cs := connectClientInMemory(t, ctx, s, askingClient("Robin", &asked), version)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Fatalf("negotiated %s", got)
			}
			if got := mustOK(t, ctx, cs, askTool, args("task", "Water the plants")); got != `{"answered":true,"assignee":"Robin","task":"Water the plants"}` {
				t.Errorf("structured = %s", got)
			}
			if asked != 1 {
				t.Errorf("asked %d times", asked)
			}
			plain := connectInMemory(t, ctx, s, version) // no elicitation declared
			_, err := plain.CallTool(ctx, &mcp.CallToolParams{Name: askTool, Arguments: args("task", "x")})
			var we *jsonrpc.Error
			if !errors.As(err, &we) || we.Code != mcp.CodeMissingRequiredClientCapabilities {
				t.Errorf("without elicitation: %v", err)
			}
		})
	}
}

// TestAskAssigneeStatelessHTTP: over stateless HTTP, 2026-07-28 is served
// and the multi-round-trip request completes (each round a POST of its
// own: the signed requestState carries what the retry needs).
func TestAskAssigneeStatelessHTTP(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{Ask: true, Stateless: true}))
	defer srv.Close()
	ctx := testContext(t)
	asked := 0
	cs, err := askingClient("Sam", &asked).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Fatalf("negotiated %s", got)
	}
	if got := mustOK(t, ctx, cs, askTool, args("task", "Take out the bins")); got != `{"answered":true,"assignee":"Sam","task":"Take out the bins"}` {
		t.Errorf("structured = %s", got)
	}
}

// TestAskStateChecks: a retry whose requestState was changed, or was
// answered already, is refused; with the protocol defects both are taken.
func TestAskStateChecks(t *testing.T) {
	for _, lax := range []bool{false, true} {
		a := newAsker(lax)
		st := a.state("dishes")
		changed := st[:len(st)/2] + "x" + st[len(st)/2+1:]
		if st[len(st)/2] == 'x' {
			changed = st[:len(st)/2] + "y" + st[len(st)/2+1:]
		}
		tampered, first, replay := a.take(changed, "dishes"), a.take(st, "dishes"), a.take(st, "dishes")
		other := a.take(a.state("laundry"), "dishes")
		if lax != (tampered == "") || first != "" || lax != (replay == "") || lax != (other == "") {
			t.Errorf("lax %v: tampered %q, first %q, replay %q, other task %q", lax, tampered, first, replay, other)
		}
	}
}
