package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The probes of 2026-07-28, each a run that sends its own requests and
// judges what came back (the list and the rules are in era.go).

// eraVerdict is a verdict on ex at level l.
func eraVerdict(ex Exchange, l Level, want, got string) (Exchange, Verdict, string) {
	return ex, Verdict{Level: l, Expected: want, Got: got}, ""
}

// eraGone is the verdict on a probe whose server went away, or false.
func eraGone(ex Exchange, want string) (Exchange, Verdict, string, bool) {
	if v, ok := died(&ex, want); ok {
		return ex, v, "", true
	}
	return ex, Verdict{}, "", false
}

func (e *era) discover(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "a result without any handshake, listing " + EraVersion + " among supportedVersions, with capabilities"
	_, ex := e.send(ctx, c, eraCall{method: "server/discover"}, "discover", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	if r == nil || r.Err != nil || r.Result == nil {
		return eraVerdict(ex, Fail, want, Describe(&ex))
	}
	var res struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Meta              map[string]any  `json:"_meta"`
		ServerInfo        any             `json:"serverInfo"`
	}
	if json.Unmarshal(r.Result, &res) != nil {
		return eraVerdict(ex, Fail, want, "a result that is not a discover result")
	}
	switch {
	case !slices.Contains(res.SupportedVersions, EraVersion):
		return eraVerdict(ex, Fail, want, fmt.Sprintf("supportedVersions %q", res.SupportedVersions))
	case len(bytes.TrimSpace(res.Capabilities)) == 0 || bytes.TrimSpace(res.Capabilities)[0] != '{':
		return eraVerdict(ex, Fail, want, "a result without a capabilities object")
	case res.Meta["io.modelcontextprotocol/serverInfo"] == nil && res.ServerInfo == nil:
		return eraVerdict(ex, Note, want+" and the server's identity (_meta io.modelcontextprotocol/serverInfo, a SHOULD)", "a result that does not say which server it is")
	}
	return eraVerdict(ex, Pass, want, "a result listing "+EraVersion)
}

// probeCapabilities compares what discover declares with what answers:
// tools/list, prompts/list and resources/list.
func (e *era) capabilities(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "every declared capability's list method answers with a result"
	_, ex := e.send(ctx, c, eraCall{method: "server/discover"}, "discover-capabilities", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	if r == nil || r.Err != nil {
		return ex, Verdict{}, "server/discover did not answer with a result (see probe discover)"
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	json.Unmarshal(r.Result, &res)
	var broken, extra []string
	for k, family := range []string{"tools", "prompts", "resources"} {
		_, lx := e.send(ctx, c, eraCall{method: family + "/list"}, "discover-capabilities-"+strconv.Itoa(k), wait)
		if ex, v, s, gone := eraGone(lx, want); gone {
			return ex, v, s
		}
		lr := lx.Reply()
		ok := lr != nil && lr.Err == nil && lr.Result != nil
		switch _, declared := res.Capabilities[family]; {
		case declared && !ok:
			broken = append(broken, fmt.Sprintf("%s declared, but %s/list answered %s", family, family, Describe(&lx)))
		case !declared && ok:
			extra = append(extra, fmt.Sprintf("%s not declared, but %s/list answered with a result", family, family))
		}
	}
	switch {
	case len(broken) > 0:
		return eraVerdict(ex, Fail, want, strings.Join(broken, "; "))
	case len(extra) > 0:
		return eraVerdict(ex, Note, want+", and no undeclared one does", strings.Join(extra, "; "))
	}
	return eraVerdict(ex, Pass, want, "declared and answering methods agree")
}

// unsupportedVersion is a version no server can support yet: later than
// every revision, so that servers read it as one of the new era's.
const unsupportedVersion = "2099-01-01"

func (e *era) badVersion(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "JSON-RPC error -32022 (unsupported protocol version) whose data lists the supported versions, with HTTP 400"
	_, ex := e.send(ctx, c, eraCall{method: "tools/list", version: unsupportedVersion}, "meta-unsupported-version", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	switch {
	case r == nil || r.Err == nil:
		return eraVerdict(ex, Fail, want, Describe(&ex))
	case r.Err.Code != -32022:
		return eraVerdict(ex, Fail, want, Describe(&ex))
	}
	var body struct {
		Error struct {
			Data struct {
				Supported []string `json:"supported"`
			} `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal(r.Raw, &body)
	if len(body.Error.Data.Supported) == 0 {
		return eraVerdict(ex, Fail, want, Describe(&ex)+" without the supported versions")
	}
	if _, isHTTP := c.(*HTTP); isHTTP && ex.Status != http.StatusBadRequest {
		return eraVerdict(ex, Note, want, Describe(&ex))
	}
	return eraVerdict(ex, Pass, want, Describe(&ex)+" listing "+strings.Join(body.Error.Data.Supported, ", "))
}

func (e *era) headerMismatch(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "JSON-RPC error -32020 (header mismatch), HTTP 400: the MCP-Protocol-Version header says 2025-11-25, the _meta " + EraVersion
	_, ex := e.send(ctx, c, eraCall{method: "tools/list", header: "2025-11-25"}, "meta-header-mismatch", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	switch {
	case r != nil && r.Err != nil && r.Err.Code == -32020 && ex.Status == http.StatusBadRequest:
		return eraVerdict(ex, Pass, want, Describe(&ex))
	case r != nil && r.Err != nil, r == nil && ex.Status >= 400:
		return eraVerdict(ex, Note, want, Describe(&ex))
	}
	return eraVerdict(ex, Fail, want, Describe(&ex))
}

func (e *era) noSessionID(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "a response without an Mcp-Session-Id header"
	h, ex := e.send(ctx, c, eraCall{method: "tools/list"}, "no-session-id", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	if id := h.Get("Mcp-Session-Id"); id != "" {
		return eraVerdict(ex, Fail, want, Describe(&ex)+" with an Mcp-Session-Id header")
	}
	return eraVerdict(ex, Pass, want, Describe(&ex)+" without a session id")
}

func (e *era) getDelete(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "HTTP 405 (method not allowed) to GET and to DELETE"
	h := c.(*HTTP)
	edit := func(hd http.Header) {
		hd.Set("MCP-Protocol-Version", EraVersion)
		hd.Set("Accept", "text/event-stream")
	}
	_, g := h.Do(ctx, http.MethodGet, nil, "", edit, wait)
	_, d := h.Do(ctx, http.MethodDelete, nil, "", edit, wait)
	if g.Gone || d.Gone {
		d.Gone = true
		return eraVerdict(d, Fail, want+", and the server lives", "the server could not be reached")
	}
	words := fmt.Sprintf("GET: HTTP %d, DELETE: HTTP %d", g.Status, d.Status)
	if g.Status == http.StatusMethodNotAllowed && d.Status == http.StatusMethodNotAllowed {
		return eraVerdict(d, Pass, want, words)
	}
	return eraVerdict(d, Fail, want, words)
}

// removed judges a method the revision removed, sent with its _meta.
func (e *era) removed(method string, params map[string]any) run {
	return func(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
		want := "JSON-RPC error -32601 (method not found): " + method + " is not in " + EraVersion
		_, ex := e.send(ctx, c, eraCall{method: method, params: params}, "removed-"+method, wait)
		if ex, v, s, gone := eraGone(ex, want); gone {
			return ex, v, s
		}
		r := ex.Reply()
		switch {
		case r != nil && r.Err != nil && r.Err.Code == -32601:
			return eraVerdict(ex, Pass, want, Describe(&ex))
		case r != nil && r.Err == nil:
			return eraVerdict(ex, Fail, want, Describe(&ex)+": served as before the revision")
		case r == nil && ex.Status == 0:
			return eraVerdict(ex, Fail, want, Describe(&ex))
		}
		return eraVerdict(ex, Note, want, Describe(&ex))
	}
}

// listings are the results the cache and result-type probes read.
func (e *era) listings(ctx context.Context, c Conn, wait time.Duration, name string) ([]Exchange, []string) {
	var out []Exchange
	var methods []string
	for k, m := range []string{"server/discover", "tools/list", "prompts/list", "resources/list"} {
		_, ex := e.send(ctx, c, eraCall{method: m}, name+"-"+strconv.Itoa(k), wait)
		out, methods = append(out, ex), append(methods, m)
		if ex.Gone {
			break
		}
	}
	return out, methods
}

func (e *era) resultType(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = `resultType "complete" on every result`
	_, ex := e.send(ctx, c, eraCall{method: "tools/list"}, "result-type", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	if r == nil || r.Err != nil {
		return ex, Verdict{}, "tools/list did not answer with a result"
	}
	var res struct {
		ResultType *string `json:"resultType"`
	}
	json.Unmarshal(r.Result, &res)
	switch {
	case res.ResultType == nil:
		return eraVerdict(ex, Fail, want, "a tools/list result without resultType")
	case *res.ResultType != "complete":
		return eraVerdict(ex, Fail, want, "a tools/list result with resultType "+strconv.Quote(*res.ResultType))
	}
	return eraVerdict(ex, Pass, want, `resultType "complete"`)
}

func (e *era) cacheHints(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "ttlMs an integer ≥ 0 and cacheScope public or private, where sent"
	exs, methods := e.listings(ctx, c, wait, "cache-hints")
	last := exs[len(exs)-1]
	if ex, v, s, gone := eraGone(last, want); gone {
		return ex, v, s
	}
	var bad []string
	sent := 0
	for k := range exs {
		r := exs[k].Reply()
		if r == nil || r.Err != nil {
			continue
		}
		var res struct {
			TTL   *json.Number `json:"ttlMs"`
			Scope *string      `json:"cacheScope"`
		}
		if json.Unmarshal(r.Result, &res) != nil {
			bad = append(bad, methods[k]+": ttlMs is not a number")
			continue
		}
		if res.TTL != nil {
			sent++
			if n, err := strconv.ParseInt(res.TTL.String(), 10, 64); err != nil || n < 0 {
				bad = append(bad, fmt.Sprintf("%s: ttlMs %s", methods[k], res.TTL.String()))
			}
		}
		if res.Scope != nil {
			sent++
			if *res.Scope != "public" && *res.Scope != "private" {
				bad = append(bad, fmt.Sprintf("%s: cacheScope %q", methods[k], *res.Scope))
			}
		}
	}
	if len(bad) > 0 {
		return eraVerdict(exs[1], Fail, want, strings.Join(bad, "; "))
	}
	if sent == 0 {
		return eraVerdict(exs[1], Pass, want, "no caching hints (they are optional)")
	}
	return eraVerdict(exs[1], Pass, want, "well-formed hints")
}

// listStable lists the tools, makes other requests (a call of the probe
// tool, when there is one; resources/list), and lists them again.
func (e *era) listStable(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	tool := e.probeTool
	{
		const want = "the same tools/list before and after other requests (lists no longer vary per connection)"
		_, first := e.send(ctx, c, eraCall{method: "tools/list"}, "list-stable-0", wait)
		if ex, v, s, gone := eraGone(first, want); gone {
			return ex, v, s
		}
		if tool != "" {
			e.send(ctx, c, eraCall{method: "tools/call", params: map[string]any{"name": tool, "arguments": map[string]any{}}}, "list-stable-1", wait)
		}
		e.send(ctx, c, eraCall{method: "resources/list"}, "list-stable-2", wait)
		_, second := e.send(ctx, c, eraCall{method: "tools/list"}, "list-stable-3", wait)
		if ex, v, s, gone := eraGone(second, want); gone {
			return ex, v, s
		}
		a, b := first.Reply(), second.Reply()
		if a == nil || b == nil || a.Err != nil || b.Err != nil {
			return first, Verdict{}, "tools/list did not answer with a result"
		}
		if where := toolsDiffer(a.Result, b.Result); where != "" {
			return eraVerdict(second, Fail, want, "the second listing differs: "+where)
		}
		return eraVerdict(second, Pass, want, "the same listing")
	}
}

// toolsDiffer compares two tools/list results' tools, by value (key order
// aside); it names the first tool that differs, or "".
func toolsDiffer(a, b json.RawMessage) string {
	var x, y struct {
		Tools []any `json:"tools"`
	}
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	if len(x.Tools) != len(y.Tools) {
		return fmt.Sprintf("%d tools, then %d", len(x.Tools), len(y.Tools))
	}
	for i := range x.Tools {
		ea, _ := json.Marshal(x.Tools[i])
		eb, _ := json.Marshal(y.Tools[i])
		if !bytes.Equal(ea, eb) {
			name, _ := x.Tools[i].(map[string]any)["name"].(string)
			return "tool " + strconv.Quote(name)
		}
	}
	return ""
}

func (e *era) resourceNotFound(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "JSON-RPC error -32602 (invalid params) for a resource that does not exist, never empty contents"
	_, ex := e.send(ctx, c, eraCall{method: "resources/read", params: map[string]any{"uri": "mcpcheck://no-such-resource"}}, "resource-not-found", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.Reply()
	switch {
	case r != nil && r.Err != nil && r.Err.Code == -32602:
		return eraVerdict(ex, Pass, want, Describe(&ex))
	case r != nil && r.Err == nil:
		return eraVerdict(ex, Fail, want, Describe(&ex))
	case r == nil && ex.Status == 0:
		return eraVerdict(ex, Fail, want, Describe(&ex))
	}
	return eraVerdict(ex, Note, want, Describe(&ex))
}

// inputRequest is one request of an input-required result.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// pending is an input-required result: what it asks, and its state.
type pending struct {
	requests map[string]inputRequest
	state    string
}

// inputRequired reads an input-required result, or nil for another.
func inputRequired(result json.RawMessage) *pending {
	var r struct {
		ResultType    string                  `json:"resultType"`
		InputRequests map[string]inputRequest `json:"inputRequests"`
		RequestState  string                  `json:"requestState"`
	}
	if json.Unmarshal(result, &r) != nil || r.ResultType != "input_required" {
		return nil
	}
	return &pending{requests: r.InputRequests, state: r.RequestState}
}

// answers are the client's answers to p's requests: an accepted form
// filled from its schema, a sampled text, no roots. It says which method
// it cannot answer.
func (p *pending) answers() (map[string]any, string) {
	out := map[string]any{}
	for k, r := range p.requests {
		switch r.Method {
		case "elicitation/create":
			var e struct {
				Schema struct {
					Properties map[string]map[string]any `json:"properties"`
				} `json:"requestedSchema"`
			}
			json.Unmarshal(r.Params, &e)
			content := map[string]any{}
			for name, s := range e.Schema.Properties {
				content[name] = formValue(s)
			}
			out[k] = map[string]any{"action": "accept", "content": content}
		case "sampling/createMessage":
			out[k] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "mcpcheck"}, "model": "mcpcheck"}
		case "roots/list":
			out[k] = map[string]any{"roots": []any{}}
		default:
			return nil, r.Method
		}
	}
	return out, ""
}

// formValue is a value for one field of an elicitation form.
func formValue(s map[string]any) any {
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	switch s["type"] {
	case "number", "integer":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 0
	case "boolean":
		return false
	}
	return "mcpcheck"
}

// tamper changes the middle character of a state.
func tamper(s string) string {
	b := []byte(s)
	i := len(b) / 2
	switch {
	case b[i] >= '0' && b[i] < '9', b[i] >= 'a' && b[i] < 'z', b[i] >= 'A' && b[i] < 'Z':
		b[i]++
	case b[i] == '9':
		b[i] = '0'
	default:
		b[i] = 'a'
	}
	return string(b)
}

// start finds the tool that asks for input and calls it; it returns the
// tool and its pending request, or why the probe cannot run.
func (e *era) start(ctx context.Context, c Conn, wait time.Duration, name string) (*Candidate, *pending, Exchange, string) {
	t := e.find(ctx, c, wait)
	if t == nil {
		return nil, nil, Exchange{}, "no read-only tool answered with an input-required result (multi-round-trip)"
	}
	_, ex := e.send(ctx, c, t.call(nil, "", allClientCaps), name+"-0", wait)
	rep := ex.Reply()
	if rep == nil || rep.Err != nil {
		return nil, nil, ex, "the call of " + t.Name + " was not answered with a result this time"
	}
	p := inputRequired(rep.Result)
	if p == nil {
		return nil, nil, ex, t.Name + " did not ask for input this time"
	}
	return t, p, ex, ""
}

// capabilityOf is the client capability an input request needs.
var capabilityOf = map[string]string{"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}

func (e *era) missingCapability(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	t := e.find(ctx, c, wait)
	if t == nil {
		return Exchange{}, Verdict{}, "no read-only tool answered with an input-required result (multi-round-trip)"
	}
	const want = "JSON-RPC error -32021 (missing required client capability), or a result that asks for nothing the client did not declare"
	_, ex := e.send(ctx, c, t.call(nil, "", noClientCaps), "meta-missing-capability", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	rep := ex.Reply()
	switch {
	case rep == nil:
		return eraVerdict(ex, Fail, want, Describe(&ex))
	case rep.Err != nil && rep.Err.Code == -32021:
		return eraVerdict(ex, Pass, want, Describe(&ex))
	case rep.Err != nil:
		return eraVerdict(ex, Note, want, Describe(&ex))
	}
	if p := inputRequired(rep.Result); p != nil {
		var asked []string
		for _, q := range p.requests {
			if cp := capabilityOf[q.Method]; cp != "" && !slices.Contains(asked, cp) {
				asked = append(asked, cp)
			}
		}
		if len(asked) > 0 {
			slices.Sort(asked)
			return eraVerdict(ex, Fail, want, "an input-required result asking a client that declared no capabilities for "+strings.Join(asked, ", "))
		}
	}
	return eraVerdict(ex, Pass, want, Describe(&ex))
}

func (e *era) tampered(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "the retry refused (an error or isError): its requestState was changed by the client"
	t, p, ex, skip := e.start(ctx, c, wait, "state-tampered")
	if skip != "" {
		if ex, v, s, gone := eraGone(ex, want); gone {
			return ex, v, s
		}
		return ex, Verdict{}, skip
	}
	if p.state == "" {
		return ex, Verdict{}, t.Name + " keeps no requestState"
	}
	ans, cannot := p.answers()
	if cannot != "" {
		return ex, Verdict{}, t.Name + " asks for " + cannot + ", which mcpcheck cannot answer"
	}
	_, ex = e.send(ctx, c, t.call(ans, tamper(p.state), allClientCaps), "state-tampered-1", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	return eraVerdict(ex, refusedLevel(&ex, Fail), want, Describe(&ex))
}

func (e *era) replayed(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string) {
	const want = "the second retry with the same requestState refused (an error or isError)"
	t, p, ex, skip := e.start(ctx, c, wait, "state-replayed")
	if skip != "" {
		if ex, v, s, gone := eraGone(ex, want); gone {
			return ex, v, s
		}
		return ex, Verdict{}, skip
	}
	ans, cannot := p.answers()
	if cannot != "" {
		return ex, Verdict{}, t.Name + " asks for " + cannot + ", which mcpcheck cannot answer"
	}
	retry := t.call(ans, p.state, allClientCaps)
	_, first := e.send(ctx, c, retry, "state-replayed-1", wait)
	if ex, v, s, gone := eraGone(first, want); gone {
		return ex, v, s
	}
	if refusedLevel(&first, Fail) == Pass {
		return first, Verdict{}, "the genuine retry was refused (" + Describe(&first) + "): nothing to replay"
	}
	_, ex = e.send(ctx, c, retry, "state-replayed-2", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	v := Verdict{Level: refusedLevel(&ex, Note), Expected: want, Got: Describe(&ex)}
	if v.Level == Note {
		v.Risk, v.Got = true, v.Got+": an answer can be replayed"
	}
	return ex, v, ""
}

// refusedLevel is Pass when ex was refused (a JSON-RPC error, an
// isError result, an HTTP error, or another input-required result), else
// taken.
func refusedLevel(ex *Exchange, taken Level) Level {
	r := ex.Reply()
	switch {
	case r == nil && ex.Status >= 400:
		return Pass
	case r == nil:
		return Fail
	case r.Err != nil, IsErrorResult(r.Result), inputRequired(r.Result) != nil:
		return Pass
	}
	return taken
}
