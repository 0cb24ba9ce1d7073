package demo

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connectHTTP(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	return connectClientHTTP(t, newClient(), url, version)
}

// connectClientHTTP is connectHTTP with a given client.
func connectClientHTTP(t *testing.T, c *mcp.Client, url, version string) *mcp.ClientSession {
	t.Helper()
	cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s (%s): %v", url, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTP runs the household flow over Streamable HTTP. A client asking for
// 2026-07-28 is told in server/discover that this stateful endpoint serves
// only the older versions, and falls back to initialize with 2025-11-25; the
// session, and so the household, then lives under its Mcp-Session-Id.
func TestHTTP(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			cs := connectHTTP(t, srv.URL+"/mcp", version)
			if got, want := cs.InitializeResult().ProtocolVersion, "2025-11-25"; got != want {
				t.Errorf("negotiated %q, want %q", got, want)
			}
			if cs.ID() == "" {
				t.Error("no Mcp-Session-Id")
			}
			if info := cs.InitializeResult().ServerInfo; info == nil || info.Name != "mcpcheck-demo" {
				t.Errorf("server info %+v", info)
			}
			householdFlow(t, testContext(t), cs)
		})
	}
}

func TestHTTPSessionIsolation(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	for _, version := range protocolVersions {
		t.Run(version, func(t *testing.T) {
			ctx := testContext(t)
			a := connectHTTP(t, srv.URL+"/mcp", version)
			b := connectHTTP(t, srv.URL+"/mcp", version)
			if a.ID() == b.ID() {
				t.Fatalf("both sessions have id %q", a.ID())
			}
			mustOK(t, ctx, a, "propose_task", args("text", "a's task"))
			mustOK(t, ctx, a, "commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k"))
			if got, want := mustOK(t, ctx, b, "get_household", args()), `{"revision":0,"tasks":[]}`; got != want {
				t.Errorf("b sees %s, want %s", got, want)
			}
			if got, want := mustOK(t, ctx, a, "get_household", args()), `{"revision":1,"tasks":[{"id":"task-1","text":"a's task"}]}`; got != want {
				t.Errorf("a sees %s, want %s", got, want)
			}
		})
	}
}

// TestHTTPSessionDeletedOnClose checks that closing the client deletes the
// session on the server (its id is then unknown) and drops its household.
func TestHTTPSessionDeletedOnClose(t *testing.T) {
	s, reg := newServer(Options{})
	srv := httptest.NewServer(handlerFor(s, nil, Options{}))
	defer srv.Close()
	ctx := testContext(t)
	cs := connectHTTP(t, srv.URL+"/mcp", "2025-11-25")
	mustOK(t, ctx, cs, "propose_task", args("text", "t"))
	if n := reg.len(); n != 1 {
		t.Fatalf("%d households held, want 1", n)
	}
	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	eventually(t, "the household to be dropped", func() bool { return reg.len() == 0 })

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST with the closed session's id: status %d, want 404", resp.StatusCode)
	}
}

func TestHTTPOnlyAtMCPPath(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	for _, path := range []string{"/", "/mcp/", "/other"} {
		resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s: status %d, want 404", path, resp.StatusCode)
		}
	}
}

// TestHTTPRefuses2026Requests documents what a client that does not fall
// back to initialize gets: go-sdk's stateful handler refuses a 2026-07-28
// request with a JSON-RPC error listing the versions it serves.
func TestHTTPRefuses2026Requests(t *testing.T) {
	srv := httptest.NewServer(Handler(Options{}))
	defer srv.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_household","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(testContext(t), http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var msg struct {
		Error *struct {
			Code int64 `json:"code"`
			Data struct {
				Supported []string `json:"supported"`
			} `json:"data"`
		} `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		t.Fatalf("status %d, body not JSON: %v", resp.StatusCode, err)
	}
	if msg.Error == nil || msg.Error.Code != mcp.CodeUnsupportedProtocolVersion {
		t.Fatalf("status %d, error %+v; want code %d", resp.StatusCode, msg.Error, mcp.CodeUnsupportedProtocolVersion)
	}
	if slices.Contains(msg.Error.Data.Supported, "2026-07-28") || !slices.Contains(msg.Error.Data.Supported, "2025-11-25") {
		t.Errorf("supported versions %v, want 2025-11-25 and not 2026-07-28", msg.Error.Data.Supported)
	}
}

// TestStatelessHTTPLosesState records why Handler is stateful: go-sdk v1.8.0
// negotiates 2026-07-28 over HTTP only with a stateless handler, which gives
// every POST a fresh session, so nothing persists from one call to the next.
// If this test fails, the SDK has changed and the package doc's section on
// 2026-07-28 needs revisiting.
func TestStatelessHTTPLosesState(t *testing.T) {
	s := NewServer(Options{})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := testContext(t)
	cs := connectHTTP(t, srv.URL, "2026-07-28")
	if got := cs.InitializeResult().ProtocolVersion; got != "2026-07-28" {
		t.Errorf("stateless handler negotiated %q, want 2026-07-28", got)
	}
	if cs.ID() != "" {
		t.Errorf("stateless handler gave session id %q", cs.ID())
	}
	mustOK(t, ctx, cs, "propose_task", args("text", "t"))
	mustToolError(t, ctx, cs, "commit_task", args("proposalId", "proposal-1", "expectedRevision", 0, "idempotencyKey", "k"))
}
