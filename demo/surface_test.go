package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A surface is one transport to the default profile, for the tests of
// resources, prompts, completions and notifications, which run on each.
type surface struct {
	name string
	// connect connects c to a new session, with a household of its own.
	connect func(t *testing.T, c *mcp.Client, version string) *mcp.ClientSession
	// shared is true when the surface's sessions are served by one server
	// (in memory and over HTTP; over stdio each is its own process).
	shared bool
}

// surfaces returns the three transports, each with a server of its own for
// this test.
func surfaces(t *testing.T) []surface {
	s := NewServer(Options{})
	srv := httptest.NewServer(Handler(Options{}))
	t.Cleanup(srv.Close)
	return []surface{
		{name: "memory", shared: true, connect: func(t *testing.T, c *mcp.Client, version string) *mcp.ClientSession {
			return connectClientInMemory(t, testContext(t), s, c, version)
		}},
		{name: "stdio", connect: func(t *testing.T, c *mcp.Client, version string) *mcp.ClientSession {
			cmd, _ := childCommand(t)
			cs, err := c.Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect over stdio (%s): %v", version, err)
			}
			t.Cleanup(func() { cs.Close() })
			return cs
		}},
		{name: "http", shared: true, connect: func(t *testing.T, c *mcp.Client, version string) *mcp.ClientSession {
			return connectClientHTTP(t, c, srv.URL+"/mcp", version)
		}},
	}
}

// onEverySurface runs f on every transport with every protocol version a
// client may ask for. What the session negotiated (2025-11-25 over HTTP
// whatever was asked) is negotiated(cs).
func onEverySurface(t *testing.T, f func(t *testing.T, sf surface, version string)) {
	for _, sf := range surfaces(t) {
		for _, version := range protocolVersions {
			t.Run(sf.name+"/"+version, func(t *testing.T) { f(t, sf, version) })
		}
	}
}

func negotiated(cs *mcp.ClientSession) string { return cs.InitializeResult().ProtocolVersion }

// A watcher records the server notifications that its client's sessions
// receive.
type watcher struct {
	mu       sync.Mutex
	updated  []string                                     // URIs of notifications/resources/updated
	progress map[string][]*mcp.ProgressNotificationParams // by progress token
	logs     []*mcp.LoggingMessageParams
	acks     int // notifications/subscriptions/acknowledged (2026-07-28)
	barriers int
}

func newWatcher() *watcher {
	return &watcher{progress: make(map[string][]*mcp.ProgressNotificationParams)}
}

// client returns a client whose notifications w records.
func (w *watcher) client() *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.updated = append(w.updated, req.Params.URI)
		},
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			w.mu.Lock()
			defer w.mu.Unlock()
			tok := fmt.Sprint(req.Params.ProgressToken)
			w.progress[tok] = append(w.progress[tok], req.Params)
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.logs = append(w.logs, req.Params)
		},
	})
	// The SDK has no handler for the acknowledgement of subscriptions/listen,
	// which says that the server has recorded the subscription.
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "notifications/subscriptions/acknowledged" {
				w.mu.Lock()
				w.acks++
				w.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	return c
}

// await waits until cond, called with w locked, holds.
func (w *watcher) await(t *testing.T, what string, cond func() bool) {
	t.Helper()
	eventually(t, what, func() bool {
		w.mu.Lock()
		defer w.mu.Unlock()
		return cond()
	})
}

// count returns n(), called with w locked.
func (w *watcher) count(n func() int) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return n()
}

// updates returns the URIs of the notifications/resources/updated that cs
// has received, once a barrier has passed.
func (w *watcher) updates(t *testing.T, ctx context.Context, cs *mcp.ClientSession) []string {
	t.Helper()
	w.barrier(t, ctx, cs)
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, w.updated...)
}

// barrier returns once every notification that the server sent cs before
// this call has been handled. It calls tidy_household for one step with a
// progress token of its own and waits for that progress: the client
// handles notifications in the order they come, and over stdio and in
// memory they come in the order sent. Over HTTP a resources/updated sent
// before the call travels on the standalone stream, and has arrived by the
// time a whole tools/call round trip has been made.
func (w *watcher) barrier(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	w.mu.Lock()
	w.barriers++
	tok := fmt.Sprintf("barrier-%d", w.barriers)
	w.mu.Unlock()
	p := &mcp.CallToolParams{Name: "tidy_household", Arguments: args("steps", 1)}
	p.SetProgressToken(tok)
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatalf("barrier: %v", err)
	}
	w.await(t, "the barrier's progress", func() bool { return len(w.progress[tok]) == 1 })
}

// addTask proposes and commits a task, and returns its id.
func addTask(t *testing.T, ctx context.Context, cs *mcp.ClientSession, text string) string {
	t.Helper()
	var p struct {
		ProposalID string `json:"proposalId"`
		Revision   int64  `json:"revision"`
	}
	if err := json.Unmarshal([]byte(mustOK(t, ctx, cs, "propose_task", args("text", text))), &p); err != nil {
		t.Fatal(err)
	}
	mustOK(t, ctx, cs, "commit_task", args("proposalId", p.ProposalID, "expectedRevision", p.Revision, "idempotencyKey", "key-"+p.ProposalID))
	return fmt.Sprintf("task-%d", p.Revision+1)
}

// wantRPCError checks that err is a JSON-RPC error with the given code and
// returns it.
func wantRPCError(t *testing.T, what string, err error, code int64) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("%s: error %v, want a JSON-RPC error %d", what, err, code)
	}
	if we.Code != code {
		t.Errorf("%s: code %d (%s), want %d", what, we.Code, we.Message, code)
	}
	return we
}
