package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// A faultConn is a client session with a demo server that has the fault
// profile, served in this process so that tests can see its fault state.
type faultConn struct {
	cs *mcp.ClientSession
	f  *faults
	// drop ends the client's side of the transport without cancelling
	// anything, as a client that goes away does: the in-memory pipe or the
	// stdio input is closed, or the HTTP session is deleted.
	drop func()
	url  string       // Streamable HTTP only: the endpoint
	h    *httpHandler // Streamable HTTP only
}

// recordingTransport remembers the connection it made.
type recordingTransport struct {
	mcp.Transport
	conn mcp.Connection
}

func (t *recordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	t.conn = c
	return c, err
}

// faultTargets connect a client to a fresh fault-profile server over each
// transport, in this process. The stdio one runs runStdio over pipes; the
// tests with a real child process are TestStdioFaults and its kin.
var faultTargets = []struct {
	name    string
	connect func(t *testing.T, c *mcp.Client, version string) faultConn
}{
	{"in-memory", connectFaultsInMemory},
	{"stdio", connectFaultsStdio},
	{"http", connectFaultsHTTP},
}

func connectFaultsInMemory(t *testing.T, c *mcp.Client, version string) faultConn {
	t.Helper()
	ctx := testContext(t)
	s, _, f := buildServer(Options{Faults: true}, anyTransport)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	rt := &recordingTransport{Transport: ct}
	cs, err := c.Connect(ctx, rt, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return faultConn{cs: cs, f: f, drop: func() { rt.conn.Close() }}
}

func connectFaultsStdio(t *testing.T, c *mcp.Client, version string) faultConn {
	t.Helper()
	s, _, f := buildServer(Options{Faults: true}, stdioTransport)
	f.exit = func(code int) { t.Errorf("crash called exit(%d) in the test process", code) }
	cs, serve := connectStdioInProcess(t, s, f, c, version)
	return faultConn{cs: cs, f: f, drop: func() { serve.in.Close() }}
}

// stdioServe is a runStdio in this process: its end and what it wrote.
type stdioServe struct {
	done chan struct{}  // closed when runStdio has returned
	err  error          // what it returned
	out  syncBuffer     // every byte it wrote
	in   *io.PipeWriter // the client's end of the server's input
}

// connectStdioInProcess serves s with runStdio over pipes and connects c to
// it.
func connectStdioInProcess(t *testing.T, s *mcp.Server, f *faults, c *mcp.Client, version string) (*mcp.ClientSession, *stdioServe) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sin, cout := io.Pipe()
	cin, sout := io.Pipe()
	serve := &stdioServe{done: make(chan struct{}), in: cout}
	go func() {
		serve.err = runStdio(ctx, s, f, sin, sout)
		sout.Close() // what the process exit does for a real server
		close(serve.done)
	}()
	t.Cleanup(func() {
		cancel()
		cout.Close()
		select {
		case <-serve.done:
		case <-time.After(testTimeout):
			t.Error("runStdio did not return")
		}
	})
	cs, err := c.Connect(testContext(t), &mcp.IOTransport{
		Reader: struct {
			io.Reader
			io.Closer
		}{io.TeeReader(cin, &serve.out), cin},
		Writer: cout,
	}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, serve
}

func connectFaultsHTTP(t *testing.T, c *mcp.Client, version string) faultConn {
	t.Helper()
	s, _, f := buildServer(Options{Faults: true}, httpTransport)
	h := handlerFor(s, f, Options{})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cs, err := c.Connect(testContext(t), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	drop := func() {
		if code := deleteSession(t, srv.URL+"/mcp", cs); code != http.StatusNoContent {
			t.Errorf("DELETE: status %d", code)
		}
	}
	return faultConn{cs: cs, f: f, drop: drop, url: srv.URL + "/mcp", h: h}
}

// An observation is what the go-sdk client returns for one tools/call.
// Either a result (err nil) or an error is expected; an expected error
// matches exactly the classes named (errors.Is target, *jsonrpc.Error code)
// and none of the others in errorClasses.
type observation struct {
	result  string // canonical structuredContent; okPing for the ping tool's
	isError bool
	text    string // the result's text contains this

	err     bool
	errIs   error  // errors.Is(err, errIs)
	code    int64  // errors.As(err, *jsonrpc.Error) with this code
	errText string // err.Error() contains this
}

// okPing stands for a successful result of the ping tool, whose timestamp
// varies.
const okPing = "ping ok"

var (
	pingOK      = observation{result: okPing}
	connClosed  = observation{err: true, errIs: mcp.ErrConnectionClosed}
	deadline    = observation{err: true, errIs: context.DeadlineExceeded, errText: "context deadline exceeded"}
	unknownTool = func(name string) observation {
		return observation{err: true, code: jsonrpc.CodeInvalidParams, errText: fmt.Sprintf("unknown tool %q", name)}
	}
	errorClasses = []error{io.EOF, mcp.ErrConnectionClosed, mcp.ErrSessionMissing, context.DeadlineExceeded, context.Canceled}
)

func checkObservation(t *testing.T, what string, res *mcp.CallToolResult, err error, want observation) {
	t.Helper()
	if !want.err {
		if err != nil {
			t.Errorf("%s: error %v, want a result", what, err)
			return
		}
		if res.IsError != want.isError {
			t.Errorf("%s: isError %v, want %v (text %q)", what, res.IsError, want.isError, resultText(res))
		}
		if want.text != "" && !strings.Contains(resultText(res), want.text) {
			t.Errorf("%s: text %q does not contain %q", what, resultText(res), want.text)
		}
		switch want.result {
		case "":
			if res.StructuredContent != nil {
				t.Errorf("%s: structuredContent %s, want none", what, canonical(t, res.StructuredContent))
			}
		case okPing:
			m, _ := res.StructuredContent.(map[string]any)
			ts, _ := m["timestamp"].(string)
			if m["status"] != "ok" || !strings.HasSuffix(ts, "Z") {
				t.Errorf("%s: %v, want status ok and a UTC timestamp", what, res.StructuredContent)
			} else if _, err := time.Parse(time.RFC3339, ts); err != nil {
				t.Errorf("%s: timestamp %q is not RFC 3339: %v", what, ts, err)
			}
		default:
			if got := canonical(t, res.StructuredContent); got != want.result {
				t.Errorf("%s: structuredContent %s, want %s", what, got, want.result)
			}
		}
		return
	}
	if err == nil {
		t.Errorf("%s: result (isError %v, %q), want an error", what, res.IsError, resultText(res))
		return
	}
	for _, class := range errorClasses {
		if is := errors.Is(err, class); is != (class == want.errIs) {
			t.Errorf("%s: errors.Is(%q, %v) = %v, want %v", what, err, class, is, !is)
		}
	}
	var rpcErr *jsonrpc.Error
	switch isRPC := errors.As(err, &rpcErr); {
	case want.code == 0 && isRPC:
		t.Errorf("%s: %q is a JSON-RPC error of code %d, want none", what, err, rpcErr.Code)
	case want.code != 0 && !isRPC:
		t.Errorf("%s: %q (%T) is not a JSON-RPC error, want code %d", what, err, err, want.code)
	case want.code != 0 && rpcErr.Code != want.code:
		t.Errorf("%s: JSON-RPC error code %d, want %d", what, rpcErr.Code, want.code)
	}
	if !strings.Contains(err.Error(), want.errText) {
		t.Errorf("%s: error %q does not contain %q", what, err, want.errText)
	}
}

// A faultCase is one call of a fault tool, what the client observes, and
// what an observer call of ping on the same session observes afterwards.
type faultCase struct {
	name     string
	tool     string
	args     map[string]any
	timeout  time.Duration // for the call; 0 means testTimeout
	call     observation
	observer observation
	// argsCheck marks a case about the SDK's validation of arguments, which
	// no transport changes; the child process tests skip it.
	argsCheck bool
}

const shortCall = 300 * time.Millisecond

// unsupportedPing is protocol_ping_liveness under 2026-07-28, which has no
// server-to-client requests: no ping is sent.
var unsupportedPing = observation{isError: true, result: `{"protocolPing":{"outcome":"unsupported"},"status":"protocol_ping_failed","transport":{"outcome":"retained"}}`}

// transportNeutralCases behave the same on every transport.
func transportNeutralCases() []faultCase {
	return []faultCase{
		{name: "ping", tool: "ping", call: pingOK, observer: pingOK},
		{name: "tool_error", tool: "tool_error", call: observation{isError: true, text: "tool_error: this tool always fails"}, observer: pingOK},
		{name: "protocol_error", tool: "protocol_error",
			call:     observation{err: true, code: jsonrpc.CodeInternalError, errText: `calling "tools/call": protocol_error: this tool always answers with a JSON-RPC error`},
			observer: pingOK},
		{name: "bad_output", tool: "bad_output", call: observation{result: `{"id":"not-an-int"}`}, observer: pingOK},
		{name: "local_ref", tool: "local_ref", args: args("item", args("name", "Kitchen")), call: observation{result: `{"name":"Kitchen"}`}, observer: pingOK},
		{name: "remote_ref", tool: "remote_ref", args: args("item", map[string]any{"any": "thing"}), call: observation{result: `{"ok":true}`}, observer: pingOK},
		{name: "delay", tool: "delay", args: args("delayMs", 5), call: observation{result: `{"delayedMs":5}`}, observer: pingOK},
		{name: "hang", tool: "hang", timeout: shortCall, call: deadline, observer: pingOK},
		{name: "protocol_ping_liveness", tool: "protocol_ping_liveness", args: args("pingAfterMs", 0, "livenessTimeoutMs", 5000, "completionDelayMs", 1),
			call:     observation{result: `{"protocolPing":{"outcome":"success"},"status":"protocol_ping_succeeded","transport":{"outcome":"retained"}}`},
			observer: pingOK},
		// Arguments outside the strict inputSchemas are tool errors.
		{name: "delay too long", tool: "delay", args: args("delayMs", 30001), call: observation{isError: true, text: "validating"}, observer: pingOK, argsCheck: true},
		{name: "delay extra property", tool: "delay", args: args("delayMs", 1, "x", 1), call: observation{isError: true, text: "additional properties"}, observer: pingOK, argsCheck: true},
		{name: "local_ref without name", tool: "local_ref", args: args("item", args()), call: observation{isError: true, text: "validating"}, observer: pingOK, argsCheck: true},
		{name: "protocol_error with arguments", tool: "protocol_error", args: args("x", 1), call: observation{isError: true, text: `unexpected additional properties ["x"]`}, observer: pingOK, argsCheck: true},
		{name: "remote_ref extra property", tool: "remote_ref", args: args("other", 1), call: observation{isError: true, text: `unexpected additional properties ["other"]`}, observer: pingOK, argsCheck: true},
		{name: "liveness timeout 0", tool: "protocol_ping_liveness", args: args("pingAfterMs", 0, "livenessTimeoutMs", 0), call: observation{isError: true, text: "validating"}, observer: pingOK, argsCheck: true},
	}
}

// runFaultCase makes the case's call on cs and then the observer call.
func runFaultCase(t *testing.T, cs *mcp.ClientSession, c faultCase) {
	t.Helper()
	res, err := callWithin(t, cs, c.tool, c.args, c.timeout)
	checkObservation(t, c.tool, res, err, c.call)
	res, err = callWithin(t, cs, "ping", nil, 0)
	checkObservation(t, "observer ping after "+c.tool, res, err, c.observer)
}

// TestFaultsInMemory runs the transport-neutral fault tools over in-memory
// pipes (NewServer with Faults), where the transport-level ones are not
// listed.
func TestFaultsInMemory(t *testing.T) {
	cases := transportNeutralCases()
	for _, tool := range []string{"disconnect", "malformed_message", "duplicate_response", "response_after_cancellation", "session_loss", "crash"} {
		cases = append(cases, faultCase{name: tool, tool: tool, call: unknownTool(tool), observer: pingOK})
	}
	for _, version := range protocolVersions {
		for _, c := range cases {
			if c.name == "protocol_ping_liveness" && version == "2026-07-28" {
				c.call = unsupportedPing
			}
			t.Run(version+"/"+c.name, func(t *testing.T) {
				runFaultCase(t, connectFaultsInMemory(t, newClient(), version).cs, c)
			})
		}
	}
}

// stdioCases are the stdio fault profile's cases besides the neutral ones.
func stdioCases() []faultCase {
	return []faultCase{
		{name: "disconnect", tool: "disconnect",
			call: observation{err: true, errIs: io.EOF, errText: `calling "tools/call": EOF`}, observer: connClosed},
		{name: "malformed missing-jsonrpc", tool: "malformed_message", args: args("variant", "missing-jsonrpc"),
			call: observation{err: true, errText: `calling "tools/call": invalid message version tag ""; expected "2.0"`}, observer: connClosed},
		{name: "malformed invalid-jsonrpc-version", tool: "malformed_message", args: args("variant", "invalid-jsonrpc-version"),
			call: observation{err: true, errText: `calling "tools/call": invalid message version tag "1.0"; expected "2.0"`}, observer: connClosed},
		{name: "malformed result-with-error", tool: "malformed_message", args: args("variant", "result-with-error"),
			call: observation{err: true, code: jsonrpc.CodeInternalError, errText: `calling "tools/call": malformed_message: this response has both result and error`}, observer: pingOK},
		{name: "malformed unknown variant", tool: "malformed_message", args: args("variant", "bogus"), call: observation{isError: true, text: "validating"}, observer: pingOK},
		{name: "duplicate_response", tool: "duplicate_response", call: observation{result: `{"status":"duplicated"}`}, observer: pingOK},
		{name: "response_after_cancellation", tool: "response_after_cancellation", timeout: shortCall, call: deadline, observer: pingOK},
		{name: "session_loss", tool: "session_loss", args: args("activation", "during_request"), call: unknownTool("session_loss"), observer: pingOK},
		{name: "crash", tool: "crash", call: observation{err: true, errIs: io.EOF, errText: `calling "tools/call": EOF`}, observer: connClosed},
	}
}

// TestStdioFaults runs every fault tool against "mcpcheck demo --faults" in
// a child process, through real pipes.
func TestStdioFaults(t *testing.T) {
	cases := append(transportNeutralCases(), stdioCases()...)
	for _, version := range protocolVersions {
		for _, c := range cases {
			if c.argsCheck {
				continue
			}
			if c.name == "protocol_ping_liveness" && version == "2026-07-28" {
				c.call = unsupportedPing
			}
			t.Run(version+"/"+c.name, func(t *testing.T) {
				t.Parallel() // each case has a child process of its own
				cmd, stderr := childCommand(t, "--faults")
				cs, err := newClient().Connect(testContext(t), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				runFaultCase(t, cs, c)

				// Close reports how the child ended: exit status 0, even after
				// disconnect, except for crash.
				err = cs.Close()
				if c.tool == "crash" {
					var exit *exec.ExitError
					if !errors.As(err, &exit) || exit.ExitCode() != crashExitCode {
						t.Errorf("close: %v, want exit status %d", err, crashExitCode)
					}
					if got, want := stderr.String(), "mcpcheck demo: crash tool called; exiting with status 3\n"; got != want {
						t.Errorf("stderr %q, want %q", got, want)
					}
					return
				}
				if err != nil {
					t.Errorf("close: %v (stderr %q)", err, stderr.String())
				}
				if stderr.Len() > 0 {
					t.Errorf("unexpected stderr %q", stderr.String())
				}
			})
		}
	}
}

// httpCases are the Streamable HTTP fault profile's cases besides the
// neutral ones.
func httpCases() []faultCase {
	terminated := observation{err: true, errText: `calling "tools/call": request terminated without response`}
	sessionMissing := observation{err: true, errIs: mcp.ErrSessionMissing, errText: "session not found"}
	return []faultCase{
		{name: "disconnect", tool: "disconnect", call: terminated, observer: pingOK},
		{name: "malformed missing-jsonrpc", tool: "malformed_message", args: args("variant", "missing-jsonrpc"),
			call: observation{err: true, errText: `calling "tools/call": sending "tools/call": failed to decode event: invalid message version tag ""; expected "2.0"`}, observer: connClosed},
		{name: "malformed invalid-jsonrpc-version", tool: "malformed_message", args: args("variant", "invalid-jsonrpc-version"),
			call: observation{err: true, errText: `calling "tools/call": sending "tools/call": failed to decode event: invalid message version tag "1.0"; expected "2.0"`}, observer: connClosed},
		{name: "malformed result-with-error", tool: "malformed_message", args: args("variant", "result-with-error"),
			call: observation{err: true, code: jsonrpc.CodeInternalError, errText: `calling "tools/call": malformed_message: this response has both result and error`}, observer: pingOK},
		{name: "duplicate_response", tool: "duplicate_response", call: observation{result: `{"status":"duplicated"}`}, observer: pingOK},
		{name: "session_loss during_request", tool: "session_loss", args: args("activation", "during_request"), call: terminated, observer: sessionMissing},
		{name: "session_loss after_response", tool: "session_loss", args: args("activation", "after_response"),
			call: observation{result: `{"status":"session_lost_after_response"}`}, observer: sessionMissing},
		{name: "session_loss bad activation", tool: "session_loss", args: args("activation", "later"), call: observation{isError: true, text: "validating"}, observer: pingOK},
		{name: "response_after_cancellation", tool: "response_after_cancellation", call: unknownTool("response_after_cancellation"), observer: pingOK},
		{name: "crash", tool: "crash", call: unknownTool("crash"), observer: pingOK},
	}
}

// TestHTTPFaults runs every fault tool over Streamable HTTP. Whatever
// happens to one session, another session on the same server keeps working.
// A client asking for 2026-07-28 negotiates 2025-11-25 here, so both
// versions behave alike.
func TestHTTPFaults(t *testing.T) {
	cases := append(transportNeutralCases(), httpCases()...)
	for _, version := range protocolVersions {
		for _, c := range cases {
			t.Run(version+"/"+c.name, func(t *testing.T) {
				t.Parallel() // each case has a server of its own
				fc := connectFaultsHTTP(t, newClient(), version)
				other := connectHTTP(t, fc.url, version)
				runFaultCase(t, fc.cs, c)
				res, err := other.CallTool(testContext(t), &mcp.CallToolParams{Name: "ping", Arguments: args()})
				checkObservation(t, "ping on another session", res, err, pingOK)
			})
		}
	}
}

// TestFaultToolContracts checks every fault tool's declared contract: a
// strict inputSchema, an outputSchema exactly where it returns structured
// content, and its annotations.
func TestFaultToolContracts(t *testing.T) {
	readOnly := map[string]bool{"ping": true, "delay": true, "hang": true, "local_ref": true, "remote_ref": true}
	withOutput := map[string]bool{
		"ping": true, "protocol_ping_liveness": true, "delay": true, "malformed_message": true, "duplicate_response": true,
		"response_after_cancellation": true, "session_loss": true, "bad_output": true, "local_ref": true, "remote_ref": true,
	}
	required := map[string][]string{
		"protocol_ping_liveness": {"pingAfterMs", "livenessTimeoutMs"},
		"delay":                  {"delayMs"},
		"malformed_message":      {"variant"},
		"session_loss":           {"activation"},
		"local_ref":              {"item"},
	}
	seen := map[string]bool{}
	for _, kind := range []transportKind{stdioTransport, httpTransport} {
		s, _, _ := buildServer(Options{Faults: true}, kind)
		cs := connectInMemory(t, testContext(t), s, "2025-11-25")
		res, err := cs.ListTools(testContext(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if slices.Contains(householdTools, tool.Name) || seen[tool.Name] {
				continue
			}
			seen[tool.Name] = true
			checkStrictObject(t, tool.Name+" inputSchema", tool.InputSchema, required[tool.Name])
			if withOutput[tool.Name] != (tool.OutputSchema != nil) {
				t.Errorf("%s: outputSchema %v, want one: %v", tool.Name, tool.OutputSchema, withOutput[tool.Name])
			}
			if m, ok := tool.OutputSchema.(map[string]any); ok && m["additionalProperties"] != false {
				t.Errorf("%s: outputSchema allows additional properties", tool.Name)
			}
			if tool.Description == "" || tool.Annotations == nil {
				t.Errorf("%s: no description or annotations", tool.Name)
				continue
			}
			if got := tool.Annotations.ReadOnlyHint; got != readOnly[tool.Name] {
				t.Errorf("%s: readOnlyHint %v, want %v", tool.Name, got, readOnly[tool.Name])
			}
			if ow := tool.Annotations.OpenWorldHint; ow == nil || *ow {
				t.Errorf("%s: openWorldHint %v, want false", tool.Name, ow)
			}
		}
	}
	if len(seen) != 15 {
		t.Errorf("checked %d fault tools, want 15", len(seen))
	}
}

// TestFaultOutputsMatchDeclaredSchemas validates the structured results of
// the fault tools against their declared outputSchemas, compiled the way the
// runner does; bad_output's must fail.
func TestFaultOutputsMatchDeclaredSchemas(t *testing.T) {
	fc := connectFaultsHTTP(t, newClient(), "2025-11-25")
	ctx := testContext(t)
	schemas := outputSchemas(t, ctx, fc.cs)
	for _, c := range []struct {
		tool  string
		args  map[string]any
		valid bool
	}{
		{"ping", args(), true},
		{"delay", args("delayMs", 0), true},
		{"local_ref", args("item", args("name", "n")), true},
		{"remote_ref", args(), true},
		{"protocol_ping_liveness", args("pingAfterMs", 0, "livenessTimeoutMs", 5000), true},
		{"duplicate_response", args(), true},
		{"session_loss", args("activation", "after_response"), true}, // last: it ends the session
		{"bad_output", args(), false},
	} {
		cs := fc.cs
		if c.tool == "bad_output" {
			cs = connectHTTP(t, fc.url, "2025-11-25")
		}
		res := call(t, ctx, cs, c.tool, c.args)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(canonical(t, res.StructuredContent)))
		if err != nil {
			t.Fatal(err)
		}
		if err := schemas[c.tool].Validate(inst); (err == nil) != c.valid {
			t.Errorf("%s: validating %s: %v, want valid %v", c.tool, canonical(t, res.StructuredContent), err, c.valid)
		}
	}
}

// TestRemoteRefNeverFetched points remote_ref's $ref at a server that counts
// requests, lists and calls the tool, and checks that nothing fetched it.
func TestRemoteRefNeverFetched(t *testing.T) {
	var fetches syncBuffer
	ref := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		fetches.Write([]byte(r.URL.Path + "\n"))
	}))
	t.Cleanup(ref.Close)
	refURL := ref.URL + "/schema.json"

	srv := httptest.NewServer(Handler(Options{Faults: true, RemoteRefURL: refURL}))
	t.Cleanup(srv.Close) // after the client sessions' cleanups
	for _, cs := range []*mcp.ClientSession{
		connectInMemory(t, testContext(t), NewServer(Options{Faults: true, RemoteRefURL: refURL}), "2025-11-25"),
		connectHTTP(t, srv.URL+"/mcp", "2025-11-25"),
	} {
		res, err := cs.ListTools(testContext(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "remote_ref" })
		if i < 0 {
			t.Fatal("no remote_ref tool")
		}
		props := res.Tools[i].InputSchema.(map[string]any)["properties"].(map[string]any)
		if got := props["item"].(map[string]any)["$ref"]; got != refURL {
			t.Errorf("remote_ref item $ref = %v, want %s", got, refURL)
		}
		if got := mustOK(t, testContext(t), cs, "remote_ref", args("item", "x")); got != `{"ok":true}` {
			t.Errorf("remote_ref = %s", got)
		}
	}
	if fetches.String() != "" {
		t.Errorf("the remote schema was fetched: %q", fetches.String())
	}
	if u, _ := url.Parse(defaultRemoteRefURL); u.Port() != "9" {
		t.Errorf("default remote_ref URL %s is not on the discard port", defaultRemoteRefURL)
	}
}
