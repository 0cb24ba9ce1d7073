package demo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rawStdioClient drives runStdio with hand-written JSON-RPC lines and reads
// the server's lines as they are, so tests can check the bytes of responses
// that a real client would refuse or hide.
type rawStdioClient struct {
	t     *testing.T
	f     *faults
	in    *io.PipeWriter
	lines chan string
}

func newRawStdioClient(t *testing.T) *rawStdioClient {
	t.Helper()
	s, _, f := buildServer(Options{Faults: true}, stdioTransport)
	sin, in := io.Pipe()
	out, sout := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- runStdio(context.Background(), s, f, sin, sout); sout.Close() }()
	c := &rawStdioClient{t: t, f: f, in: in, lines: make(chan string, 100)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		if err := <-done; err != nil {
			t.Errorf("runStdio: %v", err)
		}
	})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	c.next()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawStdioClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawStdioClient) call(id int, tool string, args string) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args))
}

func (c *rawStdioClient) cancel(id int) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"test"}}`, id))
}

// next returns the server's next line.
func (c *rawStdioClient) next() string {
	c.t.Helper()
	select {
	case line, ok := <-c.lines:
		if !ok {
			c.t.Fatal("server output ended")
		}
		return line
	case <-time.After(testTimeout):
		c.t.Fatal("no line from the server")
	}
	return ""
}

// decodeKeys decodes a JSON object and returns it with its sorted keys.
func decodeKeys(t *testing.T, line string) (map[string]json.RawMessage, []string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("%q is not a JSON object: %v", line, err)
	}
	return m, sortedKeys(m)
}

// TestStdioRawFaultBytes checks the bytes the stdio fault layer writes for
// each raw fault, and that every later response is plain JSON-RPC again.
func TestStdioRawFaultBytes(t *testing.T) {
	c := newRawStdioClient(t)
	structured := func(t *testing.T, result json.RawMessage) string {
		var r struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(result, &r); err != nil {
			t.Fatalf("result %s: %v", result, err)
		}
		return canonical(t, r.StructuredContent)
	}

	for _, tt := range []struct {
		id      int
		variant string
		keys    []string
		version string // of the jsonrpc member, if any
	}{
		{2, "missing-jsonrpc", []string{"id", "result"}, ""},
		{3, "invalid-jsonrpc-version", []string{"id", "jsonrpc", "result"}, `"1.0"`},
		{4, "result-with-error", []string{"error", "id", "jsonrpc", "result"}, `"2.0"`},
	} {
		c.call(tt.id, "malformed_message", fmt.Sprintf(`{"variant":%q}`, tt.variant))
		line := c.next()
		m, keys := decodeKeys(t, line)
		if !slices.Equal(keys, tt.keys) {
			t.Errorf("%s: keys %v, want %v in %s", tt.variant, keys, tt.keys, line)
		}
		if got := string(m["id"]); got != fmt.Sprint(tt.id) {
			t.Errorf("%s: id %s, want %d", tt.variant, got, tt.id)
		}
		if got := string(m["jsonrpc"]); got != tt.version {
			t.Errorf("%s: jsonrpc %s, want %s", tt.variant, got, tt.version)
		}
		if got, want := structured(t, m["result"]), fmt.Sprintf(`{"variant":%q}`, tt.variant); got != want {
			t.Errorf("%s: result %s, want %s", tt.variant, got, want)
		}
		if tt.variant == "result-with-error" {
			if got := canonical(t, m["error"]); !strings.Contains(got, `"code":-32603`) {
				t.Errorf("error member %s, want code -32603", got)
			}
		}
	}

	c.call(5, "duplicate_response", `{}`)
	first, second := c.next(), c.next()
	if first != second {
		t.Errorf("duplicate differs:\n%s\n%s", first, second)
	}
	id5, _ := jsonrpc.MakeID(float64(5))
	if msg, err := jsonrpc.DecodeMessage([]byte(first)); err != nil || msg.(*jsonrpc.Response).ID != id5 {
		t.Errorf("duplicate %s is not the JSON-RPC response to 5 (%v)", first, err)
	}

	// Consumed once: the next response is plain JSON-RPC.
	c.call(6, "ping", `{}`)
	if line := c.next(); !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":6,"result":`) {
		t.Errorf("ping after the faults: %s", line)
	}

	// A cancelled hang is never answered; response_after_cancellation
	// answers after its cancellation. Cancellations are sent once the
	// handlers run, so the cancelled calls reach them.
	c.call(7, "hang", `{}`)
	eventually(t, "hang to run", func() bool { return c.f.running.Load() == 1 })
	c.cancel(7)
	eventually(t, "hang to stop", func() bool { return c.f.running.Load() == 0 && c.f.acts.len() == 0 })
	c.call(8, "response_after_cancellation", `{}`)
	eventually(t, "response_after_cancellation to run", func() bool { return c.f.running.Load() == 1 })
	c.cancel(8)
	late := c.next()
	m, _ := decodeKeys(t, late)
	if string(m["id"]) != "8" || structured(t, m["result"]) != `{"status":"late_result_after_cancellation"}` {
		t.Errorf("late result %s, want the result to 8", late)
	}
	c.call(9, "ping", `{}`)
	if line := c.next(); !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":9,"result":`) {
		t.Errorf("after the cancelled calls: %s, want the answer to 9 (nothing for the hang, 7)", line)
	}
}

// rawHTTPClient speaks Streamable HTTP by hand to one session.
type rawHTTPClient struct {
	t         *testing.T
	url       string
	sessionID string
}

func newRawHTTPClient(t *testing.T, url string) *rawHTTPClient {
	c := &rawHTTPClient{t: t, url: url}
	resp, _ := c.post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`, nil)
	c.sessionID = resp.Header.Get("Mcp-Session-Id")
	if c.sessionID == "" {
		t.Fatal("no session id")
	}
	if resp, _ := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: status %d", resp.StatusCode)
	}
	return c
}

// post sends body and returns the response and its body.
func (c *rawHTTPClient) post(body string, header http.Header) (*http.Response, []byte) {
	c.t.Helper()
	resp, data, err := c.postErr(body, header)
	if err != nil {
		c.t.Fatalf("reading the response body: %v", err)
	}
	return resp, data
}

// postErr is post, also returning the error from reading the body.

func (c *rawHTTPClient) postErr(body string, header http.Header) (*http.Response, []byte, error) {
	c.t.Helper()
	req, err := http.NewRequestWithContext(testContext(c.t), http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sessionID != "" {
		req.Header.Set("Mcp-Session-Id", c.sessionID)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, data, err
}

// sseData returns the data of each SSE event in body, and fails the test on
// events that are not "message" events.
func sseData(t *testing.T, body []byte) []string {
	t.Helper()
	var out []string
	for event := range strings.SplitSeq(strings.TrimSuffix(string(body), "\n\n"), "\n\n") {
		if event == "" {
			continue
		}
		head, data := splitEvent([]byte(event + "\n\n"))
		if string(head) != "event: message\n" {
			t.Errorf("event %q: want only 'event: message' besides data", event)
		}
		out = append(out, string(data))
	}
	return out
}

// TestHTTPRawFaultBytes checks the SSE events the HTTP fault layer writes
// for each raw fault, and that a client cannot forge an activation.
func TestHTTPRawFaultBytes(t *testing.T) {
	fc := connectFaultsHTTP(t, newClient(), "2025-11-25")
	c := newRawHTTPClient(t, fc.url)

	for _, tt := range []struct {
		args string
		want string
	}{
		{`{"variant":"missing-jsonrpc"}`, `{"id":2,"result":{"content":[{"type":"text","text":"{\"variant\":\"missing-jsonrpc\"}"}],"structuredContent":{"variant":"missing-jsonrpc"}}}`},
		{`{"variant":"invalid-jsonrpc-version"}`, `{"jsonrpc":"1.0","id":2,"result":{"content":[{"type":"text","text":"{\"variant\":\"invalid-jsonrpc-version\"}"}],"structuredContent":{"variant":"invalid-jsonrpc-version"}}}`},
		{`{"variant":"result-with-error"}`, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"variant\":\"result-with-error\"}"}],"structuredContent":{"variant":"result-with-error"}},"error":{"code":-32603,"message":"malformed_message: this response has both result and error"}}`},
	} {
		resp, body := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"malformed_message","arguments":`+tt.args+`}}`, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("%s: status %d, Content-Type %q", tt.args, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if got := sseData(t, body); !slices.Equal(got, []string{tt.want}) {
			t.Errorf("%s: events\n%q\nwant\n%q", tt.args, got, tt.want)
		}
	}

	_, body := c.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"duplicate_response","arguments":{}}}`, nil)
	events := sseData(t, body)
	if len(events) != 2 || events[0] != events[1] || !strings.HasPrefix(events[0], `{"jsonrpc":"2.0","id":3,"result":`) {
		t.Errorf("duplicate_response events %q, want the same response twice", events)
	}

	// A client-supplied activation header is ignored.
	_, body = c.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delay","arguments":{"delayMs":0}}}`,
		http.Header{activationHeader: {activationRefused}})
	if events := sseData(t, body); len(events) != 1 || !strings.Contains(events[0], `"structuredContent":{"delayedMs":0}`) {
		t.Errorf("delay with a forged activation header: %q", events)
	}

	// disconnect: 200 and the SSE headers, then the connection drops.
	resp, data, err := c.postErr(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"disconnect","arguments":{}}}`, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || !errors.Is(err, io.ErrUnexpectedEOF) || len(data) > 0 {
		t.Errorf("disconnect: status %d, Content-Type %q, body %q, read error %v; want 200, an SSE stream and io.ErrUnexpectedEOF",
			resp.StatusCode, resp.Header.Get("Content-Type"), data, err)
	}

	_, body = c.post(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ping","arguments":{}}}`, nil)
	if events := sseData(t, body); len(events) != 1 || !strings.HasPrefix(events[0], `{"jsonrpc":"2.0","id":6,"result":`) {
		t.Errorf("ping after the faults: %q", events)
	}
	// The disconnect's activation ends when its handler returns, which
	// may be after the client saw the connection drop and sent the ping:
	// what must hold is that none is left once the handlers are done.
	for deadline := time.Now().Add(time.Minute); fc.f.acts.len() != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := fc.f.acts.len(); n != 0 {
		t.Errorf("%d activations left", n)
	}
}

// TestHTTPSessionLoss checks what a lost session's id gets, and that the
// fault layer hands the 404 over to the SDK once the session is closed.
func TestHTTPSessionLoss(t *testing.T) {
	for _, activation := range []string{"during_request", "after_response"} {
		t.Run(activation, func(t *testing.T) {
			fc := connectFaultsHTTP(t, newClient(), "2025-11-25")
			mustOK(t, testContext(t), fc.cs, "propose_task", args("text", "lost with the session"))
			c := newRawHTTPClient(t, fc.url)
			_, body := c.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"session_loss","arguments":{"activation":"`+activation+`"}}}`, nil)
			events := sseData(t, body)
			switch activation {
			case "during_request":
				if len(events) != 0 {
					t.Errorf("during_request answered %q, want no event", events)
				}
			case "after_response":
				if len(events) != 1 || !strings.Contains(events[0], `"structuredContent":{"status":"session_lost_after_response"}`) {
					t.Errorf("after_response answered %q", events)
				}
			}
			for _, body := range []string{
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ping","arguments":{}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			} {
				if resp, data := c.post(body, nil); resp.StatusCode != http.StatusNotFound || string(data) != "session not found\n" {
					t.Errorf("after the loss: status %d %q, want 404 session not found", resp.StatusCode, data)
				}
			}
			eventually(t, "the lost session to be closed", func() bool {
				fc.h.faults.mu.Lock()
				defer fc.h.faults.mu.Unlock()
				return len(fc.h.faults.lost) == 0
			})
			if resp, _ := c.post(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"ping","arguments":{}}}`, nil); resp.StatusCode != http.StatusNotFound {
				t.Errorf("once closed: status %d, want 404 from the SDK", resp.StatusCode)
			}
			// The other session, with its household, is untouched.
			if got := mustOK(t, testContext(t), fc.cs, "get_household", args()); got != `{"revision":0,"tasks":[]}` {
				t.Errorf("other session: %s", got)
			}
			if got := mustOK(t, testContext(t), fc.cs, "propose_task", args("text", "t")); got != `{"proposalId":"proposal-2","revision":0}` {
				t.Errorf("other session lost its proposals: %s", got)
			}
		})
	}
}

// TestFaultCallsStopOnCancel checks that cancelling a waiting fault call
// stops its handler on the server, on every transport.
func TestFaultCallsStopOnCancel(t *testing.T) {
	for _, target := range faultTargets {
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"hang", args()},
			{"delay", args("delayMs", 30000)},
			{"protocol_ping_liveness", args("pingAfterMs", 30000, "livenessTimeoutMs", 1)},
		} {
			t.Run(target.name+"/"+c.tool, func(t *testing.T) {
				fc := target.connect(t, newClient(), "2025-11-25")
				ctx, cancel := context.WithCancel(testContext(t))
				done := make(chan error, 1)
				go func() {
					_, err := fc.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
					done <- err
				}()
				eventually(t, c.tool+" to run", func() bool { return fc.f.running.Load() == 1 })
				cancel()
				if err := <-done; !errors.Is(err, context.Canceled) {
					t.Errorf("call: %v, want context.Canceled", err)
				}
				// Well before any of the waits would end by itself.
				eventuallyWithin(t, 10*time.Second, "the handler to stop", func() bool {
					return fc.f.running.Load() == 0 && fc.f.acts.len() == 0
				})
				checkObservation(t, "ping", call(t, testContext(t), fc.cs, "ping", args()), nil, pingOK)
			})
		}
	}
}

// TestActivationBound fills the server with maxActivations hangs and checks
// that the next activated call is refused, that other tools still work, and
// that the slots come back when the hangs are cancelled.
func TestActivationBound(t *testing.T) {
	for _, target := range faultTargets {
		t.Run(target.name, func(t *testing.T) {
			fc := target.connect(t, newClient(), "2025-11-25")
			ctx, cancel := context.WithCancel(testContext(t))
			defer cancel()
			var wg sync.WaitGroup
			errs := make(chan error, maxActivations)
			for range maxActivations {
				wg.Go(func() {
					_, err := fc.cs.CallTool(ctx, &mcp.CallToolParams{Name: "hang", Arguments: args()})
					errs <- err
				})
			}
			eventually(t, "the hangs to run", func() bool { return fc.f.running.Load() == maxActivations })

			for _, c := range []struct {
				tool string
				args map[string]any
			}{{"hang", args()}, {"delay", args("delayMs", 0)}} {
				res := call(t, testContext(t), fc.cs, c.tool, c.args)
				if !res.IsError || !strings.Contains(resultText(res), "at most 128 may be pending") {
					t.Errorf("%s with %d in flight: isError %v %q, want the bound", c.tool, maxActivations, res.IsError, resultText(res))
				}
			}
			checkObservation(t, "ping", call(t, testContext(t), fc.cs, "ping", args()), nil, pingOK)

			cancel()
			wg.Wait()
			close(errs)
			for err := range errs {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("hang: %v, want context.Canceled", err)
				}
			}
			eventually(t, "the hangs to stop", func() bool { return fc.f.running.Load() == 0 && fc.f.acts.len() == 0 })
			if got := mustOK(t, testContext(t), fc.cs, "delay", args("delayMs", 0)); got != `{"delayedMs":0}` {
				t.Errorf("delay after the hangs: %s", got)
			}
		})
	}
}

// TestFaultCleanupOnClose lets the client's side of the transport go away
// while fault calls are pending, without cancelling them, and checks that
// the server ends them and forgets their activations. (The go-sdk client's
// own Close would wait for the calls first; see the package documentation.)
func TestFaultCleanupOnClose(t *testing.T) {
	for _, target := range faultTargets {
		t.Run(target.name, func(t *testing.T) {
			fc := target.connect(t, newClient(), "2025-11-25")
			var wg sync.WaitGroup
			for _, c := range []struct {
				tool string
				args map[string]any
			}{{"hang", args()}, {"hang", args()}, {"delay", args("delayMs", 30000)}} {
				wg.Go(func() { fc.cs.CallTool(testContext(t), &mcp.CallToolParams{Name: c.tool, Arguments: c.args}) })
			}
			eventually(t, "the calls to run", func() bool { return fc.f.running.Load() == 3 })
			// Over HTTP the SDK's session Close, which DELETE starts, waits
			// for the session's calls: the fault calls must not hold it.
			fc.drop()
			eventuallyWithin(t, 10*time.Second, "the calls to stop", func() bool {
				return fc.f.running.Load() == 0 && fc.f.acts.len() == 0
			})
			wg.Wait()
		})
	}
}

// TestStdioDisconnectEndsServe checks, in process, that disconnect makes
// runStdio return nil at once, stopping the other calls in flight.
func TestStdioDisconnectEndsServe(t *testing.T) {
	s, _, f := buildServer(Options{Faults: true}, stdioTransport)
	cs, serve := connectStdioInProcess(t, s, f, newClient(), "2025-11-25")
	hang := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "hang", Arguments: args()})
		hang <- err
	}()
	eventually(t, "hang to run", func() bool { return f.running.Load() == 1 })
	_, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "disconnect", Arguments: args()})
	checkObservation(t, "disconnect", nil, err, observation{err: true, errIs: io.EOF, errText: `calling "tools/call": EOF`})
	<-serve.done
	if serve.err != nil {
		t.Errorf("runStdio = %v, want nil", serve.err)
	}
	if err := <-hang; !errors.Is(err, io.EOF) {
		t.Errorf("hang: %v, want io.EOF", err)
	}
	if f.running.Load() != 0 || f.acts.len() != 0 {
		t.Errorf("%d handlers running, %d activations left", f.running.Load(), f.acts.len())
	}
	// Nothing was written after the requests in flight were cut off.
	if strings.Contains(serve.out.String(), "disconnect") {
		t.Errorf("output mentions the disconnect call: %q", serve.out.String())
	}
}

// pingAnswer is how a test client answers the server's protocol pings.
type pingAnswer int

const (
	answerPing pingAnswer = iota
	refusePing            // -32601 method not found
	failPing              // -32603 internal error
	ignorePing            // never answers
)

// pingClient returns a client that answers pings as told and counts them.
// A client that ignores pings holds each until the server cancels it or
// release is closed: over Streamable HTTP the server's cancellation may
// never arrive (see the package documentation).
func pingClient(answer pingAnswer, pings *atomic.Int64, release <-chan struct{}) *mcp.Client {
	c := newClient()
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "ping" {
				return next(ctx, method, req)
			}
			pings.Add(1)
			switch answer {
			case refusePing:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no ping here"}
			case failPing:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "ping broke"}
			case ignorePing:
				select {
				case <-ctx.Done():
				case <-release:
				}
				return nil, errors.New("ping ignored")
			}
			return next(ctx, method, req)
		}
	})
	return c
}

// TestProtocolPingLivenessOutcomes checks each ping outcome and closure
// policy on every transport, with clients that answer pings differently.
func TestProtocolPingLivenessOutcomes(t *testing.T) {
	result := func(isError bool, status, ping, transport string) observation {
		return observation{isError: isError, result: fmt.Sprintf(`{"protocolPing":{"outcome":%q},"status":%q,"transport":{"outcome":%q}}`, ping, status, transport)}
	}
	failed := func(ping, transport string) observation { return result(true, pingFailed, ping, transport) }
	terminated := observation{err: true, errText: `calling "tools/call": request terminated without response`}
	tests := []struct {
		name      string
		answer    pingAnswer
		close     bool
		version   string
		want      observation
		wantHTTP  observation // when it differs over HTTP; zero means want
		wantPings int64
	}{
		{name: "answered", answer: answerPing, want: result(false, pingSucceeded, pingSuccess, transportRetained), wantPings: 1},
		{name: "method not found", answer: refusePing, want: failed(pingUnsupported, transportRetained), wantPings: 1},
		{name: "error", answer: failPing, want: failed(pingInvalidResponse, transportRetained), wantPings: 1},
		{name: "no answer", answer: ignorePing, want: failed(pingTimeout, transportRetained), wantPings: 1},
		{name: "closeOnFailure", answer: refusePing, close: true, want: failed(pingUnsupported, transportClosureUnavailable), wantHTTP: terminated, wantPings: 1},
		{name: "closeOnFailure after success", answer: answerPing, close: true, want: result(false, pingSucceeded, pingSuccess, transportRetained), wantPings: 1},
		// 2026-07-28 has no server-to-client ping; over HTTP the client
		// falls back to 2025-11-25.
		{name: "2026-07-28", answer: answerPing, version: "2026-07-28", want: failed(pingUnsupported, transportRetained),
			wantHTTP: result(false, pingSucceeded, pingSuccess, transportRetained), wantPings: 0},
	}
	for _, target := range faultTargets {
		for _, tt := range tests {
			t.Run(target.name+"/"+tt.name, func(t *testing.T) {
				version := tt.version
				if version == "" {
					version = "2025-11-25"
				}
				want, pings := tt.want, tt.wantPings
				if target.name == "http" && tt.wantHTTP != (observation{}) {
					want = tt.wantHTTP
					if tt.version != "" {
						pings = 1
					}
				}
				var n atomic.Int64
				release := make(chan struct{})
				fc := target.connect(t, pingClient(tt.answer, &n, release), version)
				t.Cleanup(func() { close(release) }) // before the session's Close
				res, err := fc.cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "protocol_ping_liveness",
					Arguments: args("pingAfterMs", 1, "livenessTimeoutMs", 200, "completionDelayMs", 1, "closeOnFailure", tt.close)})
				checkObservation(t, "protocol_ping_liveness", res, err, want)
				if got := n.Load(); got != pings {
					t.Errorf("%d pings sent, want %d", got, pings)
				}
				// The session survives, whatever happened to the stream.
				checkObservation(t, "ping", call(t, testContext(t), fc.cs, "ping", args()), nil, pingOK)
			})
		}
	}
}

// TestFaultToolsWithoutTransportLayer checks what the transport-level tools
// do where nothing carries them: on a server built for stdio or HTTP but
// served over in-memory pipes, they are listed and refuse as tool errors.
func TestFaultToolsWithoutTransportLayer(t *testing.T) {
	for _, kind := range []transportKind{stdioTransport, httpTransport} {
		s, _, _ := buildServer(Options{Faults: true}, kind)
		cs := connectInMemory(t, testContext(t), s, "2025-11-25")
		for tool, a := range map[string]map[string]any{
			"disconnect":         args(),
			"malformed_message":  args("variant", "missing-jsonrpc"),
			"duplicate_response": args(),
		} {
			if got := mustToolError(t, testContext(t), cs, tool, a); !strings.Contains(got, "needs a request of its own") {
				t.Errorf("%s: %q", tool, got)
			}
		}
		if kind == httpTransport {
			if got := mustToolError(t, testContext(t), cs, "session_loss", args("activation", "after_response")); !strings.Contains(got, "needs a stateful Streamable HTTP session") {
				t.Errorf("session_loss: %q", got)
			}
		}
		checkObservation(t, "ping", call(t, testContext(t), cs, "ping", args()), nil, pingOK)
	}
}

// TestRunHTTPFaultsShutdown serves --faults --http with a hang in flight and
// checks that cancelling Run still ends it cleanly: the hang is stopped, so
// the graceful shutdown need not wait for it.
func TestRunHTTPFaultsShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	var stderr syncBuffer
	url, done := runHTTP(t, ctx, io.Discard, &stderr, "--faults", "--http", "127.0.0.1:0")
	cs := connectHTTP(t, url, "2025-11-25")
	res, err := cs.ListTools(testContext(t), nil)
	if err != nil || !slices.ContainsFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "session_loss" }) {
		t.Fatalf("tools/list: %v, want the HTTP fault tools", err)
	}
	hang := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(testContext(t), &mcp.CallToolParams{Name: "hang", Arguments: args()})
		hang <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the hang reach the server

	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit code %d, want 0; stderr %q", code, stderr.String())
	}
	if got := stderr.String(); !listeningLine.MatchString(got) {
		t.Errorf("stderr %q, want only the listening line", got)
	}
	if err := <-hang; err == nil {
		t.Error("hang returned a result")
	}
}

// eventuallyWithin is eventually with a deadline of its own, for waits that
// must end well before some other event would end them anyway.
func eventuallyWithin(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s did not happen within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
