package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Level is how much a probe's answer departs from the spec.
type Level uint8

const (
	Pass Level = iota
	Note       // a SHOULD not followed
	Fail       // a MUST broken, or the server died
)

// probe is one protocol probe, as generation plans it.
type Probe struct {
	Name string // the report's case
	// StdioOnly probes are not planned over HTTP.
	StdioOnly bool
	// Fresh probes need a connection that has not initialized: a stdio
	// server process of their own, or (HTTP) a POST without a session.
	Fresh bool
	// Message is the raw JSON-RPC to send; ID, when it is a request, is
	// its id as a JSON text.
	Message []byte
	ID      string
	// Edit changes the HTTP headers of the probe's POST.
	Edit func(h http.Header)
	// Before runs first, on the probe's HTTP connection (deleting the
	// session the probe then uses).
	Before func(c *HTTP) string
	// Judge reads what came back.
	Judge func(e *Exchange) Verdict
	// Reference is where the spec says what the answer must be, without
	// the version: "server/tools", "JSON-RPC 2.0 §5.1".
	Reference string
	// Cancel: the probe is a slow call, cancelled after CancelAfter.
	Cancel bool
	// target is what the report shows it addressing, when its message
	// does not say (bytes that are not a request).
	target string
	// Run, for a probe of 2026-07-28 (era.go), sends what the probe needs
	// itself on the connection and returns what came back, or why it
	// could not run.
	Run func(ctx context.Context, c Conn, wait time.Duration) (Exchange, string)
}

// Verdict is a probe's judgement: expected and got in the runner's words.
type Verdict struct {
	Level    Level
	Expected string
	Got      string
	// Risk marks a note about exposure rather than conformance.
	Risk bool
}

// Probe ids are JSON strings no client would send by chance.
func probeID(name string) string { return strconv.Quote("mcpcheck-probe-" + name) }

// Target is what planning the probes needs to know of the server.
type Target struct {
	HTTP    bool   // Streamable HTTP; else stdio
	Version string // negotiated
	Caps    *mcp.ServerCapabilities
	// Loopback: the HTTP endpoint is on a loopback address (see
	// rebinding.go).
	Loopback bool
}

// Target is what the report shows the probe addressing.
func (p *Probe) Target() string {
	if p.target != "" {
		return p.target
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(p.Message, &m) == nil && m.Method != "" {
		if m.Method == "tools/call" && m.Params.Name != "" {
			return m.Method + " " + m.Params.Name
		}
		return m.Method
	}
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(p.Message), []byte("[")):
		return "batch"
	}
	return ""
}

// request renders a JSON-RPC request with the probe's id.
func request(name, method, params string) ([]byte, string) {
	id := probeID(name)
	if params == "" {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method), id
	}
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params), id
}

// batchRemoved reports whether version is one without JSON-RPC batches
// (removed in 2025-06-18).
func batchRemoved(version string) bool { return version >= "2025-06-18" }

// Catalogue is every probe that applies to the target; tool is the tool
// the tools/call probes call ("" none).
func Catalogue(t Target, tool string) []Probe {
	caps := t.Caps
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	var out []Probe
	add := func(p Probe) {
		if !p.StdioOnly || !t.HTTP {
			out = append(out, quoted(p, t.Version))
		}
	}
	req := func(name, method, params, ref string, judge func(*Exchange) Verdict) Probe {
		msg, id := request(name, method, params)
		return Probe{Name: name, Message: msg, ID: id, Reference: ref, Judge: judge}
	}
	if tool != "" {
		tj, _ := json.Marshal(tool)
		add(req("null-arguments", "tools/call", `{"name":`+string(tj)+`,"arguments":null}`, "server/tools", toolArgs))
		add(req("omitted-arguments", "tools/call", `{"name":`+string(tj)+`}`, "server/tools", toolArgs))
	}
	add(req("unknown-tool", "tools/call", `{"name":"mcpcheck-no-such-tool","arguments":{}}`, "server/tools", unknownTool))
	add(req("unknown-method", "mcpcheck/no-such-method", "", "JSON-RPC 2.0 §5.1", codes("-32601 (method not found)", Fail, Note, []int64{-32601})))
	if caps.Logging != nil {
		add(req("invalid-log-level", "logging/setLevel", `{"level":"mcpcheck-no-such-level"}`, "server/utilities/logging", codes("-32602 (invalid params)", Note, Note, []int64{-32602})))
	}
	if caps.Resources != nil {
		add(req("read-without-uri", "resources/read", `{}`, "server/resources", codes("-32602 (invalid params)", Note, Note, []int64{-32602})))
		add(req("unknown-resource", "resources/read", `{"uri":"mcpcheck://no-such-resource"}`, "server/resources", codes("-32002 (resource not found), or -32602 as SEP-2164 has it from 2026-07-28", Note, Note, []int64{-32002, -32602})))
	}
	if caps.Prompts != nil {
		add(req("unknown-prompt", "prompts/get", `{"name":"mcpcheck-no-such-prompt"}`, "server/prompts", codes("-32602 (invalid params)", Note, Note, []int64{-32602})))
	}
	add(req("invalid-cursor", "tools/list", `{"cursor":"mcpcheck-invalid-cursor"}`, "server/utilities/pagination", codes("-32602 (invalid params)", Note, Note, []int64{-32602})))
	add(Probe{Name: "malformed-json", target: "malformed JSON", Message: []byte(`{"jsonrpc":"2.0","id":"mcpcheck-probe-malformed-json","method":"ping",`), Reference: "JSON-RPC 2.0 §5.1", Judge: malformed(-32700, "-32700 (parse error) or no answer")})
	add(Probe{Name: "missing-method", target: "a request without method", Message: []byte(`{"jsonrpc":"2.0","id":"mcpcheck-probe-missing-method","params":{}}`), ID: probeID("missing-method"), Reference: "JSON-RPC 2.0 §4, §5.1", Judge: malformed(-32600, "-32600 (invalid request)")})
	add(Probe{Name: "bad-jsonrpc", target: `"jsonrpc": "1.0"`, Message: []byte(`{"jsonrpc":"1.0","id":"mcpcheck-probe-bad-jsonrpc","method":"ping"}`), ID: probeID("bad-jsonrpc"), Reference: "JSON-RPC 2.0 §4, §5.1", Judge: malformed(-32600, "-32600 (invalid request)")})
	batch, bid := request("batch", "ping", "")
	if batchRemoved(t.Version) {
		add(Probe{Name: "batch", Message: append(append([]byte("["), batch...), ']'), ID: bid, Reference: "basic (batching removed in 2025-06-18)", Judge: batchRefused})
	}
	add(req("second-initialize", "initialize", `{"protocolVersion":`+strconv.Quote(t.Version)+`,"capabilities":{},"clientInfo":{"name":"mcpcheck","version":"0"}}`, "basic/lifecycle", survives("the server lives, whatever it answers (a second initialize: the spec states no server requirement for it)")))
	init, iid := request("unsupported-version", "initialize", `{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"mcpcheck","version":"0"}}`)
	add(Probe{Name: "unsupported-version", Fresh: true, Message: init, ID: iid, Reference: "basic/lifecycle (version negotiation)", Judge: negotiates})
	early, eid := request("before-initialize", "tools/list", "")
	add(Probe{Name: "before-initialize", StdioOnly: true, Fresh: true, Message: early, ID: eid, Reference: "basic/lifecycle", Judge: survives("the server lives, whatever it answers (a request before initialize: basic/lifecycle says only that the client SHOULD NOT send one)")})
	if t.HTTP && t.Version >= "2025-06-18" {
		ping := func(name string) ([]byte, string) { return request(name, "ping", "") }
		m, id := ping("missing-protocol-version")
		add(Probe{Name: "missing-protocol-version", Message: m, ID: id, Reference: "basic/transports (protocol version header)", Edit: func(h http.Header) { h.Del("MCP-Protocol-Version") },
			Judge: status("accepted (the server assumes 2025-03-26)", Note, func(s int) bool { return s < 300 })})
		m, id = ping("invalid-protocol-version")
		add(Probe{Name: "invalid-protocol-version", Message: m, ID: id, Reference: "basic/transports (protocol version header)", Edit: func(h http.Header) { h.Set("MCP-Protocol-Version", "1999-01-01") },
			Judge: status("HTTP 400", Fail, func(s int) bool { return s == http.StatusBadRequest })})
		m, id = ping("missing-session-id")
		add(Probe{Name: "missing-session-id", Message: m, ID: id, Reference: "basic/transports (session management)", Edit: func(h http.Header) { h.Del("Mcp-Session-Id") },
			Judge: status("HTTP 400", Note, func(s int) bool { return s == http.StatusBadRequest })})
		m, id = ping("foreign-origin")
		add(Probe{Name: "foreign-origin", Message: m, ID: id, Reference: "basic/transports (security: Origin)", Edit: func(h http.Header) { h.Set("Origin", "http://mcpcheck-foreign.example") },
			Judge: foreignOrigin})
		for _, p := range rebindingProbes(t) {
			add(p)
		}
		m, id = ping("deleted-session")
		add(Probe{Name: "deleted-session", Message: m, ID: id, Reference: "basic/transports (session management)", Before: deleteSession,
			Judge: status("HTTP 404", Fail, func(s int) bool { return s == http.StatusNotFound })})
	}
	return out
}

// judged is a verdict on e at level l.
func judged(l Level, want string, e *Exchange) Verdict {
	return Verdict{Level: l, Expected: want, Got: Describe(e)}
}

// Describe says what came back in an exchange, in the runner's words.
func Describe(e *Exchange) string {
	r := e.Reply()
	var parts []string
	if e.Status != 0 {
		parts = append(parts, "HTTP "+strconv.Itoa(e.Status))
	}
	switch {
	case e.Gone && e.ExitStatus != "":
		parts = append(parts, "the server exited ("+e.ExitStatus+")")
	case e.Gone:
		parts = append(parts, "the server went away")
	case r == nil:
		parts = append(parts, "no answer")
	case r.Batch != nil:
		parts = append(parts, fmt.Sprintf("a batch of %d responses", len(r.Batch)))
	case r.Bad:
		parts = append(parts, "a message that is not JSON")
	case r.Err != nil:
		parts = append(parts, "JSON-RPC error "+strconv.FormatInt(r.Err.Code, 10))
	case IsErrorResult(r.Result):
		parts = append(parts, "a result with isError: true")
	default:
		parts = append(parts, "a result")
	}
	return strings.Join(parts, ", ")
}

// IsErrorResult reports whether a tools/call result says isError: true.
func IsErrorResult(raw json.RawMessage) bool {
	var v struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &v) == nil && v.IsError
}

// died is the verdict on a server the probe killed.
func died(e *Exchange, expected string) (Verdict, bool) {
	switch {
	case e.Gone:
		return Verdict{Level: Fail, Expected: expected + ", and the server lives", Got: Describe(e)}, true
	case e.Stuck:
		return Verdict{Level: Fail, Expected: expected + ", and the server lives", Got: Describe(e) + ", and the server stopped answering"}, true
	}
	return Verdict{}, false
}

// alive makes a judge of level, which reads the answer of a server that
// lived through the probe (r is its reply, nil when none came): a server
// the probe killed, or that stopped answering, fails whatever the answer.
// want is what the spec asks, in the report's words.
func alive(want string, level func(e *Exchange, r *Message) Level) func(*Exchange) Verdict {
	return func(e *Exchange) Verdict {
		if v, ok := died(e, want); ok {
			return v
		}
		return judged(level(e, e.Reply()), want, e)
	}
}

// toolArgs judges tools/call with null or omitted arguments: a result or
// -32602, never -32603 (typescript-sdk #2012).
var toolArgs = alive("a result, or -32602 (invalid params); never -32603", func(_ *Exchange, r *Message) Level {
	if r != nil && (r.Err == nil || r.Err.Code == -32602) {
		return Pass
	}
	return Fail
})

// unknownTool: -32602 or an isError result, never -32601 or -32603.
var unknownTool = alive("-32602 (invalid params) or a result with isError: true", func(_ *Exchange, r *Message) Level {
	switch {
	case r == nil:
		return Fail
	case r.Err != nil && r.Err.Code == -32602, r.Err == nil && IsErrorResult(r.Result):
		return Pass
	case r.Err != nil && r.Err.Code != -32601 && r.Err.Code != -32603:
		return Note
	}
	return Fail
})

// codes judges a request that must be refused with one of want: a result
// is resultLevel, another code otherLevel, no answer a failure (a request
// is always answered).
func codes(words string, resultLevel, otherLevel Level, want []int64) func(*Exchange) Verdict {
	return alive(words, func(e *Exchange, r *Message) Level {
		switch {
		case r == nil && e.Status >= 400:
			// Refused, but at the HTTP level rather than in JSON-RPC.
			return Note
		case r == nil:
			return Fail
		case r.Err == nil:
			return resultLevel
		case slices.Contains(want, r.Err.Code):
			return Pass
		}
		return otherLevel
	})
}

// malformed judges a message that is not valid JSON-RPC: the server lives;
// code is the answer JSON-RPC names, and no answer is a note (or, for
// bytes that are not JSON, allowed: there is no id to answer).
func malformed(code int64, words string) func(*Exchange) Verdict {
	return alive(words, func(e *Exchange, r *Message) Level {
		switch {
		case r != nil && r.Err != nil && r.Err.Code == code,
			r == nil && code == -32700,
			e.Status >= 400 && e.Status < 500:
			return Pass
		}
		return Note
	})
}

// batchRefused: since 2025-06-18 a batch is refused (an error, or no
// answer) and the server lives.
var batchRefused = alive("refused (an error or no answer): batching was removed in 2025-06-18", func(e *Exchange, r *Message) Level {
	switch {
	case r == nil, r.Err != nil, e.Status >= 400:
		return Pass
	case r.Batch != nil:
		for _, m := range r.Batch {
			if m.Result != nil {
				return Note
			}
		}
		return Pass
	}
	return Note
})

// survives judges a message the spec asks a client not to send and says
// nothing of how a server answers: a second initialize, a request before
// initialize. basic/lifecycle's rules there are the client's ("The client
// SHOULD NOT send requests other than pings before the server has
// responded to the initialize request"), so a result, an error and
// silence all pass; only a server that dies or stops answering fails, as
// on any probe. A server finding needs a sentence that binds the server.
func survives(want string) func(*Exchange) Verdict {
	return alive(want, func(*Exchange, *Message) Level { return Pass })
}

// negotiates: initialize with a version the server cannot support gets a
// result with a version it supports.
func negotiates(e *Exchange) Verdict {
	const want = "a result naming a version the server supports (not 1999-01-01)"
	if v, ok := died(e, want); ok {
		return v
	}
	r := e.Reply()
	if r == nil || r.Err != nil || r.Result == nil {
		return judged(Fail, want, e)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	bad := json.Unmarshal(r.Result, &res) != nil || res.ProtocolVersion == "" || res.ProtocolVersion == "1999-01-01"
	v := Verdict{Level: Pass, Expected: want, Got: "a result with protocolVersion " + strconv.Quote(res.ProtocolVersion)}
	if bad {
		v.Level = Fail
	}
	return v
}

// status judges an HTTP probe by its status; a miss is miss.
func status(words string, miss Level, ok func(int) bool) func(*Exchange) Verdict {
	return alive(words, func(e *Exchange, _ *Message) Level {
		if ok(e.Status) {
			return Pass
		}
		return miss
	})
}

// foreignOrigin: a request from another site's page is refused with 403
// (DNS rebinding protection); accepting it is a risk worth a look.
func foreignOrigin(e *Exchange) Verdict {
	v := status("HTTP 403 (DNS rebinding protection)", Note, func(s int) bool { return s == http.StatusForbidden })(e)
	if v.Level == Note && e.Status < 300 {
		v.Got += ": a web page on another site could reach this server through the browser"
		v.Risk = true
	}
	return v
}

// deleteSession deletes the probe connection's session; the probe then
// uses its id. It says why the probe cannot run, or "".
func deleteSession(c *HTTP) string {
	if c.session == "" {
		return "the server issued no session id (stateless), so there is no session to delete"
	}
	return ""
}

// slowWords are tool names that promise a call slow enough to cancel.
var slowWords = regexp.MustCompile(`(?i)(delay|sleep|slow|long|wait)`)

// Slow reports whether a tool's name promises a call slow enough to cancel.
func Slow(tool string) bool { return slowWords.MatchString(tool) }

// Cancellation is the cancellation probe: a call of tool with args (valid
// arguments, JSON), cancelled once it has run CancelAfter without an answer;
// no answer may come after that (basic/utilities/cancellation; python-sdk
// #1419). A call that answers sooner was too fast to cancel: the probe is
// skipped.
func Cancellation(tool string, args []byte) Probe {
	tj, _ := json.Marshal(tool)
	msg, id := request("cancellation", "tools/call", `{"name":`+string(tj)+`,"arguments":`+string(args)+`,"_meta":{"progressToken":`+cancelToken+`}}`)
	return Probe{Name: "cancellation", Message: msg, ID: id, Cancel: true, Reference: "basic/utilities/cancellation, Behavior Requirements: " + quoteCancelReceiver, Judge: cancelled}
}

// cancelled: after notifications/cancelled no response to the request
// arrives, and the work stops (SHOULDs of basic/utilities/cancellation:
// a note); progress after the call's own result breaks a MUST of
// basic/utilities/progress (a token is only referenced while its
// operation is in progress: a failure).
//
// Progress after the cancellation when no result comes is judged by a
// fixed rule that does not depend on the machine's speed: only the
// notifications that came after the server had answered the observer sent
// right after the cancellation (so it had read the cancellation: one
// stdin is read in order; over HTTP the observer's POST came after the
// cancellation's), and within ProgressWindow of the cancellation, count.
// One or more is a note that says how many; those sent before the
// observer's answer may have been in flight and are not judged. A tool
// that reports less often than ProgressWindow (server-everything's long
// operation: every 2 s) shows none in the window and passes, every run.
func cancelled(e *Exchange) Verdict {
	const want = "no response after notifications/cancelled"
	if v, ok := died(e, want); ok {
		return v
	}
	got := "no response"
	if e.Reply() != nil {
		got = Describe(e) + " after the cancellation"
	}
	if n := e.ProgressAfterResult; n > 0 {
		got += fmt.Sprintf(", then %d progress notification(s) after its result (basic/utilities/progress: %s)", n, quoteProgressActive)
		return Verdict{Level: Fail, Expected: want + ", and no progress after the result", Got: got}
	}
	if e.Reply() != nil {
		return Verdict{Level: Note, Expected: want, Got: got}
	}
	if n := e.ProgressAfterCancel; n > 0 {
		got = fmt.Sprintf("no response, but %d progress notification(s) in the %s after notifications/cancelled, after the server had answered a request sent after the cancellation: the cancelled call went on", n, ProgressWindow)
		if e.ProgressInFlight > 0 {
			got += fmt.Sprintf(" (and %d before that answer, maybe in flight, not counted)", e.ProgressInFlight)
		}
		return Verdict{Level: Note, Expected: want + ", and no more progress on it: the server stops processing it", Got: got}
	}
	return Verdict{Level: Pass, Expected: want, Got: got}
}
