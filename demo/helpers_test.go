package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Protocol versions every transport is tested with. 2026-07-28 starts with
// server/discover instead of initialize.
var protocolVersions = []string{"2025-11-25", "2026-07-28"}

// householdTools are the tools of the default profile, sorted.
var householdTools = []string{"commit_task", "get_household", "propose_task", "tidy_household"}

// testTimeout bounds a whole test's MCP traffic; generous on purpose.
const testTimeout = 30 * time.Second

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0"}, nil)
}

// connectInMemory connects a new client session to s over in-memory pipes.
func connectInMemory(t *testing.T, ctx context.Context, s *mcp.Server, version string) *mcp.ClientSession {
	t.Helper()
	return connectClientInMemory(t, ctx, s, newClient(), version)
}

// connectClientInMemory is connectInMemory with a given client.
func connectClientInMemory(t *testing.T, ctx context.Context, s *mcp.Server, c *mcp.Client, version string) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect (%s): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and fails the test on anything but a tool result.
func call(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

// mustOK calls a tool that must succeed and returns its structuredContent as
// canonical JSON (object keys sorted).
func mustOK(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res := call(t, ctx, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s: unexpected tool error: %s", tool, resultText(res))
	}
	return canonical(t, res.StructuredContent)
}

// mustToolError calls a tool that must fail with isError and returns the
// error text.
func mustToolError(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args any) string {
	t.Helper()
	res := call(t, ctx, cs, tool, args)
	if !res.IsError {
		t.Fatalf("%s: got success %s, want a tool error", tool, canonical(t, res.StructuredContent))
	}
	if res.StructuredContent != nil {
		t.Errorf("%s: tool error carries structuredContent %v", tool, res.StructuredContent)
	}
	text := resultText(res)
	if text == "" {
		t.Errorf("%s: tool error has no text", tool)
	}
	return text
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// canonical re-encodes a JSON value with sorted keys and exact numbers, so
// that two values compare equal as strings exactly when they are equal JSON
// with the same keys.
func canonical(t *testing.T, v any) string {
	t.Helper()
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			t.Fatalf("marshal %v: %v", v, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	out, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// eventually polls cond until it holds or the test timeout passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// callWithin calls tool on cs with a (nil: no arguments) within timeout
// (0: the test's own deadline).
func callWithin(t *testing.T, cs *mcp.ClientSession, tool string, a map[string]any, timeout time.Duration) (*mcp.CallToolResult, error) {
	ctx := testContext(t)
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if a == nil {
		a = args()
	}
	return cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: a})
}

// deleteSession ends cs's Streamable HTTP session at endpoint with a
// DELETE, as a client that is done does, and returns the status.
func deleteSession(t *testing.T, endpoint string, cs *mcp.ClientSession) int {
	req, err := http.NewRequest(http.MethodDelete, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Mcp-Session-Id", cs.ID())
	req.Header.Set("Mcp-Protocol-Version", cs.InitializeResult().ProtocolVersion)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// runHTTP starts Run(ctx, args) in the background and waits for its
// listening line on stderr; it returns the URL and Run's exit code.
func runHTTP(t *testing.T, ctx context.Context, stdout io.Writer, stderr *syncBuffer, args ...string) (string, <-chan int) {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, args, strings.NewReader(""), stdout, stderr) }()
	var url string
	eventually(t, "the listening line on stderr", func() bool {
		if m := listeningLine.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
			return true
		}
		select {
		case code := <-done:
			t.Fatalf("Run exited with %d before listening; stderr: %q", code, stderr.String())
		default:
		}
		return false
	})
	return url, done
}

// householdFlow runs the fixture of the seed README against one session and
// checks that state persists from call to call: a proposal, its commit, a
// replay of the commit, a stale proposal and the final list.
func householdFlow(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	steps := []struct {
		tool    string
		args    map[string]any
		want    string // canonical structuredContent; "" means a tool error
		errHas  string
		comment string
	}{
		{"get_household", map[string]any{}, `{"revision":0,"tasks":[]}`, "", "initial state"},
		{"propose_task", map[string]any{"text": "Collect the library books"}, `{"proposalId":"proposal-1","revision":0}`, "", "proposal"},
		{"propose_task", map[string]any{"text": "Water the plants"}, `{"proposalId":"proposal-2","revision":0}`, "", "second proposal at the same revision"},
		{"get_household", map[string]any{}, `{"revision":0,"tasks":[]}`, "", "proposals change nothing"},
		{"commit_task", map[string]any{"proposalId": "proposal-1", "expectedRevision": 0, "idempotencyKey": "approval-1"}, `{"replayed":false,"revision":1}`, "", "commit"},
		{"commit_task", map[string]any{"proposalId": "proposal-1", "expectedRevision": 0, "idempotencyKey": "approval-1"}, `{"replayed":true,"revision":1}`, "", "replay"},
		{"commit_task", map[string]any{"proposalId": "proposal-2", "expectedRevision": 1, "idempotencyKey": "approval-2"}, "", "stale", "stale proposal"},
		{"get_household", map[string]any{}, `{"revision":1,"tasks":[{"id":"task-1","text":"Collect the library books"}]}`, "", "final list"},
	}
	for i, s := range steps {
		if s.want == "" {
			if got := mustToolError(t, ctx, cs, s.tool, s.args); !strings.Contains(got, s.errHas) {
				t.Errorf("step %d (%s): error %q does not mention %q", i, s.comment, got, s.errHas)
			}
			continue
		}
		if got := mustOK(t, ctx, cs, s.tool, s.args); got != s.want {
			t.Errorf("step %d (%s): got %s, want %s", i, s.comment, got, s.want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader in different
// goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func args(kv ...any) map[string]any {
	if len(kv)%2 != 0 {
		panic(fmt.Sprint("odd args ", kv))
	}
	m := map[string]any{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// together makes the calls at once, after all are ready, and returns what
// came back, in order.
func together(n int, f func(i int) (*mcp.CallToolResult, error)) ([]*mcp.CallToolResult, []error) {
	results := make([]*mcp.CallToolResult, n)
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			results[i], errs[i] = f(i)
		})
	}
	close(start)
	wg.Wait()
	return results, errs
}

// len reports how many sessions currently hold state.
func (r *registry) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.households)
}

// len reports how many activations are in flight.
func (r *activations) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byToken)
}

// len reports how many sessions hold a value.
func (p *perSession[T]) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.m)
}
