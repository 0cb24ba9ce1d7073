package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
)

// The protocol probes test the layer below a server's tools: its SDK and
// transport. Each probe is one raw JSON-RPC message (or one HTTP request)
// that a server must survive, judged against the pinned protocol version,
// and each is followed by an observer (ping, or tools/list where ping is
// unknown) that shows whether the server still works. A stdio server that
// died is a failure of the probe that killed it, and is relaunched; an HTTP
// server that went away ends the run early. A MUST of the spec that is
// broken fails the probe; a SHOULD that is not followed is a note. Only
// read-only tools are called.

// kindRaw is the report's kind of a protocol probe: a raw JSON-RPC message,
// which no fixture step kind can send.
const kindRaw config.StepKind = "raw"

// level is how much a probe's answer departs from the spec.
type level uint8

const (
	levelPass level = iota
	levelNote       // a SHOULD not followed
	levelFail       // a MUST broken, or the server died
)

// probe is one protocol probe, as generation plans it.
type probe struct {
	name string // the report's case
	// only limits it to one transport: TargetStdio or TargetHTTP ("" both).
	only TargetTransport
	// fresh probes need a connection that has not initialized: a stdio
	// server process of their own, or (HTTP) a POST without a session.
	fresh bool
	// message is the raw JSON-RPC to send; id, when it is a request, is
	// its id as a JSON text.
	message []byte
	id      string
	// edit changes the HTTP headers of the probe's POST.
	edit func(h http.Header)
	// before runs first, on the probe's HTTP connection (deleting the
	// session the probe then uses).
	before func(c *rawHTTP) string
	// judge reads what came back.
	judge func(e *exchange) verdict
	// reference is where the spec says what the answer must be, without
	// the version: "server/tools", "JSON-RPC 2.0 §5.1".
	reference string
	// cancel: the probe is a slow call, cancelled after cancelAfter.
	cancel bool
	// target is what the report shows it addressing, when its message
	// does not say (bytes that are not a request).
	target string
	// run, for an era probe (era.go), sends what it needs itself.
	run eraRun
}

// verdict is a probe's judgement: expected and got in the runner's words.
type verdict struct {
	level    level
	expected string
	got      string
	// risk marks a note about exposure rather than conformance.
	risk bool
}

// Probe ids are JSON strings no client would send by chance.
func probeID(name string) string { return strconv.Quote("mcpcheck-probe-" + name) }

// protocolTarget is what generation needs to know to plan the probes.
type protocolTarget struct {
	transport TargetTransport
	version   string // negotiated
	caps      *mcp.ServerCapabilities
}

// protocol plans the probes as one scenario of their own (a connection,
// over stdio a server process, of its own): probe, observer, probe, ...
func (c *generator) protocol(t protocolTarget, readOnly []tool) {
	switch {
	case t.transport != TargetStdio && t.transport != TargetHTTP:
		c.note("protocol probes: not run over %s (they speak raw JSON-RPC over stdio or Streamable HTTP)", t.transport)
		return
	}
	caps := t.caps
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	var probes []probe
	if t.version == config.ProtocolVersion2026 {
		// No handshake, no sessions: the revision's own probes.
		probes = c.eraProbes(t, caps, readOnly)
	} else {
		probes = catalogue(t, caps, c.probeTool(readOnly))
		if p, ok := c.cancellation(readOnly); ok {
			probes = append(probes, p)
		}
	}
	sc := c.scenario("protocol: " + string(t.transport))
	sc.mode, sc.isolation, sc.continueOnFailure = rawProbes, config.IsolationScenario, true
	for i := range probes {
		p := &probes[i]
		spec := &config.Step{ID: p.name, Origin: config.OriginProtocol}
		st := newStep(spec, c.suite.TimeoutMs)
		st.call = call{kind: kindRaw, name: probeTarget(p)}
		st.caseName, st.score, st.probe = p.name, config.ScoreProtocol, p
		obs := newStep(&config.Step{ID: p.name + ".alive", Kind: config.KindPing, Origin: config.OriginProtocol}, c.suite.TimeoutMs)
		obs.call.name = "after " + p.name
		obs.caseName = "observer"
		sc.steps = append(sc.steps, st, obs)
	}
	c.add(sc)
}

// onlyProtocol reports whether the protocol probes are all g generates:
// they need no offered inputs.
func onlyProtocol(g *config.Generate) bool {
	return g.Protocol && !g.Fuzz && !g.Fidelity && !g.Probes && !g.Lifecycle && len(g.LifecycleGroups) == 0 && g.Concurrency < 2
}

// probeTool is the read-only tool the tools/call probes use: the first
// (by name) with no required property, else the first. "" when none.
func (c *generator) probeTool(readOnly []tool) string {
	for _, t := range readOnly {
		var s struct {
			Required []string `json:"required"`
		}
		if json.Unmarshal(t.InputSchema, &s) == nil && len(s.Required) == 0 {
			return t.Name
		}
	}
	if len(readOnly) > 0 {
		return readOnly[0].Name
	}
	return ""
}

// probeTarget is what the report shows a probe addressing.
func probeTarget(p *probe) string {
	if p.target != "" {
		return p.target
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal(p.message, &m) == nil && m.Method != "" {
		if m.Method == "tools/call" && m.Params.Name != "" {
			return m.Method + " " + m.Params.Name
		}
		return m.Method
	}
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(p.message), []byte("[")):
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

// catalogue is every probe that applies to the target.
func catalogue(t protocolTarget, caps *mcp.ServerCapabilities, tool string) []probe {
	var out []probe
	add := func(p probe) {
		if p.only == "" || p.only == t.transport {
			out = append(out, p)
		}
	}
	req := func(name, method, params, ref string, judge func(*exchange) verdict) probe {
		msg, id := request(name, method, params)
		return probe{name: name, message: msg, id: id, reference: ref, judge: judge}
	}
	if tool != "" {
		tj, _ := json.Marshal(tool)
		add(req("null-arguments", "tools/call", `{"name":`+string(tj)+`,"arguments":null}`, "server/tools", toolArgs))
		add(req("omitted-arguments", "tools/call", `{"name":`+string(tj)+`}`, "server/tools", toolArgs))
	}
	add(req("unknown-tool", "tools/call", `{"name":"mcpcheck-no-such-tool","arguments":{}}`, "server/tools", unknownTool))
	add(req("unknown-method", "mcpcheck/no-such-method", "", "JSON-RPC 2.0 §5.1", codes("-32601 (method not found)", levelFail, levelNote, []int64{-32601})))
	if caps.Logging != nil {
		add(req("invalid-log-level", "logging/setLevel", `{"level":"mcpcheck-no-such-level"}`, "server/utilities/logging", codes("-32602 (invalid params)", levelNote, levelNote, []int64{-32602})))
	}
	if caps.Resources != nil {
		add(req("read-without-uri", "resources/read", `{}`, "server/resources", codes("-32602 (invalid params)", levelNote, levelNote, []int64{-32602})))
		add(req("unknown-resource", "resources/read", `{"uri":"mcpcheck://no-such-resource"}`, "server/resources", codes("-32002 (resource not found), or -32602 as SEP-2164 has it from 2026-07-28", levelNote, levelNote, []int64{-32002, -32602})))
	}
	if caps.Prompts != nil {
		add(req("unknown-prompt", "prompts/get", `{"name":"mcpcheck-no-such-prompt"}`, "server/prompts", codes("-32602 (invalid params)", levelNote, levelNote, []int64{-32602})))
	}
	add(req("invalid-cursor", "tools/list", `{"cursor":"mcpcheck-invalid-cursor"}`, "server/utilities/pagination", codes("-32602 (invalid params)", levelNote, levelNote, []int64{-32602})))
	add(probe{name: "malformed-json", target: "malformed JSON", message: []byte(`{"jsonrpc":"2.0","id":"mcpcheck-probe-malformed-json","method":"ping",`), reference: "JSON-RPC 2.0 §5.1", judge: malformed(-32700, "-32700 (parse error) or no answer")})
	add(probe{name: "missing-method", target: "a request without method", message: []byte(`{"jsonrpc":"2.0","id":"mcpcheck-probe-missing-method","params":{}}`), id: probeID("missing-method"), reference: "JSON-RPC 2.0 §4, §5.1", judge: malformed(-32600, "-32600 (invalid request)")})
	add(probe{name: "bad-jsonrpc", target: `"jsonrpc": "1.0"`, message: []byte(`{"jsonrpc":"1.0","id":"mcpcheck-probe-bad-jsonrpc","method":"ping"}`), id: probeID("bad-jsonrpc"), reference: "JSON-RPC 2.0 §4, §5.1", judge: malformed(-32600, "-32600 (invalid request)")})
	batch, bid := request("batch", "ping", "")
	if batchRemoved(t.version) {
		add(probe{name: "batch", message: append(append([]byte("["), batch...), ']'), id: bid, reference: "basic (batching removed in 2025-06-18)", judge: batchRefused})
	}
	add(req("second-initialize", "initialize", `{"protocolVersion":`+strconv.Quote(t.version)+`,"capabilities":{},"clientInfo":{"name":"mcpcheck","version":"0"}}`, "basic/lifecycle", refusedOrIgnored("an error, or no answer (the session is initialized already)")))
	init, iid := request("unsupported-version", "initialize", `{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"mcpcheck","version":"0"}}`)
	add(probe{name: "unsupported-version", fresh: true, message: init, id: iid, reference: "basic/lifecycle (version negotiation)", judge: negotiates})
	early, eid := request("before-initialize", "tools/list", "")
	add(probe{name: "before-initialize", only: TargetStdio, fresh: true, message: early, id: eid, reference: "basic/lifecycle", judge: refusedOrIgnored("an error (or no answer): the session is not initialized")})
	if t.transport == TargetHTTP && t.version >= "2025-06-18" {
		ping := func(name string) ([]byte, string) { return request(name, "ping", "") }
		m, id := ping("missing-protocol-version")
		add(probe{name: "missing-protocol-version", message: m, id: id, reference: "basic/transports (protocol version header)", edit: func(h http.Header) { h.Del("MCP-Protocol-Version") },
			judge: status("accepted (the server assumes 2025-03-26)", levelNote, func(s int) bool { return s < 300 })})
		m, id = ping("invalid-protocol-version")
		add(probe{name: "invalid-protocol-version", message: m, id: id, reference: "basic/transports (protocol version header)", edit: func(h http.Header) { h.Set("MCP-Protocol-Version", "1999-01-01") },
			judge: status("HTTP 400", levelFail, func(s int) bool { return s == http.StatusBadRequest })})
		m, id = ping("missing-session-id")
		add(probe{name: "missing-session-id", message: m, id: id, reference: "basic/transports (session management)", edit: func(h http.Header) { h.Del("Mcp-Session-Id") },
			judge: status("HTTP 400", levelNote, func(s int) bool { return s == http.StatusBadRequest })})
		m, id = ping("foreign-origin")
		add(probe{name: "foreign-origin", message: m, id: id, reference: "basic/transports (security: Origin)", edit: func(h http.Header) { h.Set("Origin", "http://mcpcheck-foreign.example") },
			judge: foreignOrigin})
		m, id = ping("deleted-session")
		add(probe{name: "deleted-session", message: m, id: id, reference: "basic/transports (session management)", before: deleteSession,
			judge: status("HTTP 404", levelFail, func(s int) bool { return s == http.StatusNotFound })})
	}
	return out
}

// judged is a verdict on e at level l.
func judged(l level, want string, e *exchange) verdict {
	return verdict{level: l, expected: want, got: got(e)}
}

// got describes an exchange in the runner's words.
func got(e *exchange) string {
	r := e.reply()
	var parts []string
	if e.status != 0 {
		parts = append(parts, "HTTP "+strconv.Itoa(e.status))
	}
	switch {
	case e.gone && e.exitStatus != "":
		parts = append(parts, "the server exited ("+e.exitStatus+")")
	case e.gone:
		parts = append(parts, "the server went away")
	case r == nil:
		parts = append(parts, "no answer")
	case r.batch != nil:
		parts = append(parts, fmt.Sprintf("a batch of %d responses", len(r.batch)))
	case r.bad:
		parts = append(parts, "a message that is not JSON")
	case r.err != nil:
		parts = append(parts, "JSON-RPC error "+strconv.FormatInt(r.err.Code, 10))
	case isErrorResult(r.result):
		parts = append(parts, "a result with isError: true")
	default:
		parts = append(parts, "a result")
	}
	return strings.Join(parts, ", ")
}

func isErrorResult(raw json.RawMessage) bool {
	var v struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(raw, &v) == nil && v.IsError
}

// died is the verdict on a server the probe killed.
func died(e *exchange, expected string) (verdict, bool) {
	switch {
	case e.gone:
		return verdict{level: levelFail, expected: expected + ", and the server lives", got: got(e)}, true
	case e.stuck:
		return verdict{level: levelFail, expected: expected + ", and the server lives", got: got(e) + ", and the server stopped answering"}, true
	}
	return verdict{}, false
}

// toolArgs judges tools/call with null or omitted arguments: a result or
// -32602, never -32603 (typescript-sdk #2012).
func toolArgs(e *exchange) verdict {
	const want = "a result, or -32602 (invalid params); never -32603"
	if v, ok := died(e, want); ok {
		return v
	}
	r := e.reply()
	switch {
	case r == nil:
		return judged(levelFail, want, e)
	case r.err == nil || r.err.Code == -32602:
		return judged(levelPass, want, e)
	}
	return judged(levelFail, want, e)
}

// unknownTool: -32602 or an isError result, never -32601 or -32603.
func unknownTool(e *exchange) verdict {
	const want = "-32602 (invalid params) or a result with isError: true"
	if v, ok := died(e, want); ok {
		return v
	}
	r := e.reply()
	switch {
	case r == nil:
		return judged(levelFail, want, e)
	case r.err != nil && r.err.Code == -32602, r.err == nil && isErrorResult(r.result):
		return judged(levelPass, want, e)
	case r.err != nil && r.err.Code != -32601 && r.err.Code != -32603:
		return judged(levelNote, want, e)
	}
	return judged(levelFail, want, e)
}

// codes judges a request that must be refused with one of want: a result
// is resultLevel, another code otherLevel, no answer a failure (a request
// is always answered).
func codes(words string, resultLevel, otherLevel level, want []int64) func(*exchange) verdict {
	return func(e *exchange) verdict {
		if v, ok := died(e, words); ok {
			return v
		}
		r := e.reply()
		switch {
		case r == nil && e.status >= 400:
			// Refused, but at the HTTP level rather than in JSON-RPC.
			return judged(levelNote, words, e)
		case r == nil:
			return judged(levelFail, words, e)
		case r.err == nil:
			return judged(resultLevel, words, e)
		case slices.Contains(want, r.err.Code):
			return judged(levelPass, words, e)
		}
		return judged(otherLevel, words, e)
	}
}

// malformed judges a message that is not valid JSON-RPC: the server lives;
// code is the answer JSON-RPC names, and no answer is a note (or, for
// bytes that are not JSON, allowed: there is no id to answer).
func malformed(code int64, words string) func(*exchange) verdict {
	return func(e *exchange) verdict {
		if v, ok := died(e, words); ok {
			return v
		}
		r := e.reply()
		switch {
		case r != nil && r.err != nil && r.err.Code == code:
			return judged(levelPass, words, e)
		case r == nil && code == -32700:
			return judged(levelPass, words, e)
		case e.status >= 400 && e.status < 500:
			return judged(levelPass, words, e)
		}
		return judged(levelNote, words, e)
	}
}

// batchRefused: since 2025-06-18 a batch is refused (an error, or no
// answer) and the server lives.
func batchRefused(e *exchange) verdict {
	const want = "refused (an error or no answer): batching was removed in 2025-06-18"
	if v, ok := died(e, want); ok {
		return v
	}
	r := e.reply()
	switch {
	case r == nil, r.err != nil, e.status >= 400:
		return judged(levelPass, want, e)
	case r.batch != nil:
		for _, m := range r.batch {
			if m.result != nil {
				return judged(levelNote, want, e)
			}
		}
		return judged(levelPass, want, e)
	}
	return judged(levelNote, want, e)
}

// refusedOrIgnored judges a request the server is not ready for: an
// error, or no answer; a result is a note; the server lives.
func refusedOrIgnored(want string) func(*exchange) verdict {
	return func(e *exchange) verdict {
		if v, ok := died(e, want); ok {
			return v
		}
		if r := e.reply(); r != nil && r.err == nil {
			return judged(levelNote, want, e)
		}
		return judged(levelPass, want, e)
	}
}

// negotiates: initialize with a version the server cannot support gets a
// result with a version it supports.
func negotiates(e *exchange) verdict {
	const want = "a result naming a version the server supports (not 1999-01-01)"
	if v, ok := died(e, want); ok {
		return v
	}
	r := e.reply()
	if r == nil || r.err != nil || r.result == nil {
		return judged(levelFail, want, e)
	}
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(r.result, &res) != nil || res.ProtocolVersion == "" || res.ProtocolVersion == "1999-01-01" {
		return verdict{level: levelFail, expected: want, got: "a result with protocolVersion " + strconv.Quote(res.ProtocolVersion)}
	}
	return verdict{level: levelPass, expected: want, got: "a result with protocolVersion " + strconv.Quote(res.ProtocolVersion)}
}

// status judges an HTTP probe by its status; a miss is miss.
func status(words string, miss level, ok func(int) bool) func(*exchange) verdict {
	return func(e *exchange) verdict {
		if v, gone := died(e, words); gone {
			return v
		}
		if ok(e.status) {
			return judged(levelPass, words, e)
		}
		return judged(miss, words, e)
	}
}

// foreignOrigin: a request from another site's page is refused with 403
// (DNS rebinding protection); accepting it is a risk worth a look.
func foreignOrigin(e *exchange) verdict {
	v := status("HTTP 403 (DNS rebinding protection)", levelNote, func(s int) bool { return s == http.StatusForbidden })(e)
	if v.level == levelNote && e.status < 300 {
		v.got += ": a web page on another site could reach this server through the browser"
		v.risk = true
	}
	return v
}

// deleteSession deletes the probe connection's session; the probe then
// uses its id. It says why the probe cannot run, or "".
func deleteSession(c *rawHTTP) string {
	if c.session == "" {
		return "the server issued no session id (stateless), so there is no session to delete"
	}
	return ""
}

// slowWords are tool names that promise a call slow enough to cancel.
var slowWords = regexp.MustCompile(`(?i)(delay|sleep|slow|long|wait)`)

// cancellation plans the cancellation probe on the first read-only tool
// whose name promises a slow call, with valid arguments: the call is
// cancelled once it has run cancelAfter without an answer, and no answer
// may come after that (basic/utilities/cancellation; python-sdk #1419). A
// call that answers sooner was too fast to cancel: the probe is skipped.
func (c *generator) cancellation(readOnly []tool) (probe, bool) {
	for _, t := range readOnly {
		if !slowWords.MatchString(t.Name) {
			continue
		}
		args, notes := c.values.Valid(t.Name, c.input(t.Name))
		if len(notes) > 0 || args == nil {
			continue
		}
		a, err := json.Marshal(args)
		if err != nil {
			continue
		}
		tj, _ := json.Marshal(t.Name)
		msg, id := request("cancellation", "tools/call", `{"name":`+string(tj)+`,"arguments":`+string(a)+`}`)
		return probe{name: "cancellation", message: msg, id: id, cancel: true, reference: "basic/utilities/cancellation", judge: cancelled}, true
	}
	return probe{}, false
}

// cancelled: after notifications/cancelled no response to the request
// arrives (a SHOULD).
func cancelled(e *exchange) verdict {
	const want = "no response after notifications/cancelled"
	if v, ok := died(e, want); ok {
		return v
	}
	if e.reply() != nil {
		return verdict{level: levelNote, expected: want, got: got(e) + " after the cancellation"}
	}
	return verdict{level: levelPass, expected: want, got: "no response"}
}
