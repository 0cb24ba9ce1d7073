package runner

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

// The era probes' runs and verdicts (the list is in era.go).

// eraVerdict is a verdict on ex at level l.
func eraVerdict(ex exchange, l level, want, got string) (exchange, verdict, string) {
	return ex, verdict{level: l, expected: want, got: got}, ""
}

// eraGone is the verdict on a probe whose server went away, or false.
func eraGone(ex exchange, want string) (exchange, verdict, string, bool) {
	if v, ok := died(&ex, want); ok {
		return ex, v, "", true
	}
	return ex, verdict{}, "", false
}

// answered describes what came back, in the runner's words.
func answered(ex *exchange) string { return got(ex) }

func probeDiscover(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "a result without any handshake, listing " + eraVersion + " among supportedVersions, with capabilities"
	_, ex := eraCall{method: "server/discover"}.send(ctx, c, "discover", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.reply()
	if r == nil || r.err != nil || r.result == nil {
		return eraVerdict(ex, levelFail, want, answered(&ex))
	}
	var res struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
		Meta              map[string]any  `json:"_meta"`
		ServerInfo        any             `json:"serverInfo"`
	}
	if json.Unmarshal(r.result, &res) != nil {
		return eraVerdict(ex, levelFail, want, "a result that is not a discover result")
	}
	switch {
	case !slices.Contains(res.SupportedVersions, eraVersion):
		return eraVerdict(ex, levelFail, want, fmt.Sprintf("supportedVersions %q", res.SupportedVersions))
	case len(bytes.TrimSpace(res.Capabilities)) == 0 || bytes.TrimSpace(res.Capabilities)[0] != '{':
		return eraVerdict(ex, levelFail, want, "a result without a capabilities object")
	case res.Meta["io.modelcontextprotocol/serverInfo"] == nil && res.ServerInfo == nil:
		return eraVerdict(ex, levelNote, want+" and the server's identity (_meta io.modelcontextprotocol/serverInfo, a SHOULD)", "a result that does not say which server it is")
	}
	return eraVerdict(ex, levelPass, want, "a result listing "+eraVersion)
}

// probeCapabilities compares what discover declares with what answers:
// tools/list, prompts/list and resources/list.
func probeCapabilities(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "every declared capability's list method answers with a result"
	_, ex := eraCall{method: "server/discover"}.send(ctx, c, "discover-capabilities", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.reply()
	if r == nil || r.err != nil {
		return ex, verdict{}, "server/discover did not answer with a result (see probe discover)"
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	json.Unmarshal(r.result, &res)
	var broken, extra []string
	for k, family := range []string{"tools", "prompts", "resources"} {
		_, lx := eraCall{method: family + "/list"}.send(ctx, c, "discover-capabilities-"+strconv.Itoa(k), wait)
		if ex, v, s, gone := eraGone(lx, want); gone {
			return ex, v, s
		}
		lr := lx.reply()
		ok := lr != nil && lr.err == nil && lr.result != nil
		switch _, declared := res.Capabilities[family]; {
		case declared && !ok:
			broken = append(broken, fmt.Sprintf("%s declared, but %s/list answered %s", family, family, got(&lx)))
		case !declared && ok:
			extra = append(extra, fmt.Sprintf("%s not declared, but %s/list answered with a result", family, family))
		}
	}
	switch {
	case len(broken) > 0:
		return eraVerdict(ex, levelFail, want, strings.Join(broken, "; "))
	case len(extra) > 0:
		return eraVerdict(ex, levelNote, want+", and no undeclared one does", strings.Join(extra, "; "))
	}
	return eraVerdict(ex, levelPass, want, "declared and answering methods agree")
}

// unsupportedVersion is a version no server can support yet: later than
// every revision, so that servers read it as one of the new era's.
const unsupportedVersion = "2099-01-01"

func probeUnsupportedVersion(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "JSON-RPC error -32022 (unsupported protocol version) whose data lists the supported versions, with HTTP 400"
	_, ex := eraCall{method: "tools/list", version: unsupportedVersion}.send(ctx, c, "meta-unsupported-version", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.reply()
	switch {
	case r == nil || r.err == nil:
		return eraVerdict(ex, levelFail, want, answered(&ex))
	case r.err.Code != -32022:
		return eraVerdict(ex, levelFail, want, answered(&ex))
	}
	var e struct {
		Error struct {
			Data struct {
				Supported []string `json:"supported"`
			} `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal(r.raw, &e)
	if len(e.Error.Data.Supported) == 0 {
		return eraVerdict(ex, levelFail, want, answered(&ex)+" without the supported versions")
	}
	if _, isHTTP := c.(*rawHTTP); isHTTP && ex.status != http.StatusBadRequest {
		return eraVerdict(ex, levelNote, want, answered(&ex))
	}
	return eraVerdict(ex, levelPass, want, answered(&ex)+" listing "+strings.Join(e.Error.Data.Supported, ", "))
}

func probeHeaderMismatch(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "JSON-RPC error -32020 (header mismatch), HTTP 400: the MCP-Protocol-Version header says 2025-11-25, the _meta " + eraVersion
	_, ex := eraCall{method: "tools/list", header: "2025-11-25"}.send(ctx, c, "meta-header-mismatch", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.reply()
	switch {
	case r != nil && r.err != nil && r.err.Code == -32020 && ex.status == http.StatusBadRequest:
		return eraVerdict(ex, levelPass, want, answered(&ex))
	case r != nil && r.err != nil, r == nil && ex.status >= 400:
		return eraVerdict(ex, levelNote, want, answered(&ex))
	}
	return eraVerdict(ex, levelFail, want, answered(&ex))
}

func probeNoSessionID(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "a response without an Mcp-Session-Id header"
	h, ex := eraCall{method: "tools/list"}.send(ctx, c, "no-session-id", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	if id := h.Get("Mcp-Session-Id"); id != "" {
		return eraVerdict(ex, levelFail, want, answered(&ex)+" with an Mcp-Session-Id header")
	}
	return eraVerdict(ex, levelPass, want, answered(&ex)+" without a session id")
}

func probeGetDelete(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "HTTP 405 (method not allowed) to GET and to DELETE"
	h := c.(*rawHTTP)
	edit := func(hd http.Header) {
		hd.Set("MCP-Protocol-Version", eraVersion)
		hd.Set("Accept", "text/event-stream")
	}
	_, g := h.do(ctx, http.MethodGet, nil, "", edit, wait)
	_, d := h.do(ctx, http.MethodDelete, nil, "", edit, wait)
	if g.gone || d.gone {
		d.gone = true
		return eraVerdict(d, levelFail, want+", and the server lives", "the server could not be reached")
	}
	words := fmt.Sprintf("GET: HTTP %d, DELETE: HTTP %d", g.status, d.status)
	if g.status == http.StatusMethodNotAllowed && d.status == http.StatusMethodNotAllowed {
		return eraVerdict(d, levelPass, want, words)
	}
	return eraVerdict(d, levelFail, want, words)
}

// removed judges a method the revision removed, sent with its _meta.
func removed(method string, params map[string]any) eraRun {
	return func(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
		want := "JSON-RPC error -32601 (method not found): " + method + " is not in " + eraVersion
		_, ex := eraCall{method: method, params: params}.send(ctx, c, "removed-"+method, wait)
		if ex, v, s, gone := eraGone(ex, want); gone {
			return ex, v, s
		}
		r := ex.reply()
		switch {
		case r != nil && r.err != nil && r.err.Code == -32601:
			return eraVerdict(ex, levelPass, want, answered(&ex))
		case r != nil && r.err == nil:
			return eraVerdict(ex, levelFail, want, answered(&ex)+": served as before the revision")
		case r == nil && ex.status == 0:
			return eraVerdict(ex, levelFail, want, answered(&ex))
		}
		return eraVerdict(ex, levelNote, want, answered(&ex))
	}
}

// listings are the results the cache and result-type probes read.
func listings(ctx context.Context, c rawConn, wait time.Duration, name string) ([]exchange, []string) {
	var out []exchange
	var methods []string
	for k, m := range []string{"server/discover", "tools/list", "prompts/list", "resources/list"} {
		_, ex := eraCall{method: m}.send(ctx, c, name+"-"+strconv.Itoa(k), wait)
		out, methods = append(out, ex), append(methods, m)
		if ex.gone {
			break
		}
	}
	return out, methods
}

func probeResultType(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = `resultType "complete" on every result`
	_, ex := eraCall{method: "tools/list"}.send(ctx, c, "result-type", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.reply()
	if r == nil || r.err != nil {
		return ex, verdict{}, "tools/list did not answer with a result"
	}
	var res struct {
		ResultType *string `json:"resultType"`
	}
	json.Unmarshal(r.result, &res)
	switch {
	case res.ResultType == nil:
		return eraVerdict(ex, levelFail, want, "a tools/list result without resultType")
	case *res.ResultType != "complete":
		return eraVerdict(ex, levelFail, want, "a tools/list result with resultType "+strconv.Quote(*res.ResultType))
	}
	return eraVerdict(ex, levelPass, want, `resultType "complete"`)
}

func probeCacheHints(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "ttlMs an integer ≥ 0 and cacheScope public or private, where sent"
	exs, methods := listings(ctx, c, wait, "cache-hints")
	last := exs[len(exs)-1]
	if ex, v, s, gone := eraGone(last, want); gone {
		return ex, v, s
	}
	var bad []string
	sent := 0
	for k := range exs {
		r := exs[k].reply()
		if r == nil || r.err != nil {
			continue
		}
		var res struct {
			TTL   *json.Number `json:"ttlMs"`
			Scope *string      `json:"cacheScope"`
		}
		if json.Unmarshal(r.result, &res) != nil {
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
		return eraVerdict(exs[1], levelFail, want, strings.Join(bad, "; "))
	}
	if sent == 0 {
		return eraVerdict(exs[1], levelPass, want, "no caching hints (they are optional)")
	}
	return eraVerdict(exs[1], levelPass, want, "well-formed hints")
}

// listStable lists the tools, makes other requests (a call of the probe
// tool, when there is one; resources/list), and lists them again.
func listStable(tool string) eraRun {
	return func(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
		const want = "the same tools/list before and after other requests (lists no longer vary per connection)"
		_, first := eraCall{method: "tools/list"}.send(ctx, c, "list-stable-0", wait)
		if ex, v, s, gone := eraGone(first, want); gone {
			return ex, v, s
		}
		if tool != "" {
			eraCall{method: "tools/call", params: map[string]any{"name": tool, "arguments": map[string]any{}}}.send(ctx, c, "list-stable-1", wait)
		}
		eraCall{method: "resources/list"}.send(ctx, c, "list-stable-2", wait)
		_, second := eraCall{method: "tools/list"}.send(ctx, c, "list-stable-3", wait)
		if ex, v, s, gone := eraGone(second, want); gone {
			return ex, v, s
		}
		a, b := first.reply(), second.reply()
		if a == nil || b == nil || a.err != nil || b.err != nil {
			return first, verdict{}, "tools/list did not answer with a result"
		}
		if where := toolsDiffer(a.result, b.result); where != "" {
			return eraVerdict(second, levelFail, want, "the second listing differs: "+where)
		}
		return eraVerdict(second, levelPass, want, "the same listing")
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

func probeResourceNotFound(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "JSON-RPC error -32602 (invalid params) for a resource that does not exist, never empty contents"
	_, ex := eraCall{method: "resources/read", params: map[string]any{"uri": "mcpcheck://no-such-resource"}}.send(ctx, c, "resource-not-found", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	r := ex.reply()
	switch {
	case r != nil && r.err != nil && r.err.Code == -32602:
		return eraVerdict(ex, levelPass, want, answered(&ex))
	case r != nil && r.err == nil:
		return eraVerdict(ex, levelFail, want, answered(&ex))
	case r == nil && ex.status == 0:
		return eraVerdict(ex, levelFail, want, answered(&ex))
	}
	return eraVerdict(ex, levelNote, want, answered(&ex))
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
func (r *inputRound) start(ctx context.Context, c rawConn, wait time.Duration, name string) (*eraTool, *pending, exchange, string) {
	t := r.find(ctx, c, wait)
	if t == nil {
		return nil, nil, exchange{}, "no read-only tool answered with an input-required result (multi-round-trip)"
	}
	_, ex := t.call(nil, "", allClientCaps).send(ctx, c, name+"-0", wait)
	rep := ex.reply()
	if rep == nil || rep.err != nil {
		return nil, nil, ex, "the call of " + t.name + " was not answered with a result this time"
	}
	p := inputRequired(rep.result)
	if p == nil {
		return nil, nil, ex, t.name + " did not ask for input this time"
	}
	return t, p, ex, ""
}

// capabilityOf is the client capability an input request needs.
var capabilityOf = map[string]string{"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}

func (r *inputRound) missingCapability(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	t := r.find(ctx, c, wait)
	if t == nil {
		return exchange{}, verdict{}, "no read-only tool answered with an input-required result (multi-round-trip)"
	}
	const want = "JSON-RPC error -32021 (missing required client capability), or a result that asks for nothing the client did not declare"
	_, ex := t.call(nil, "", noClientCaps).send(ctx, c, "meta-missing-capability", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	rep := ex.reply()
	switch {
	case rep == nil:
		return eraVerdict(ex, levelFail, want, answered(&ex))
	case rep.err != nil && rep.err.Code == -32021:
		return eraVerdict(ex, levelPass, want, answered(&ex))
	case rep.err != nil:
		return eraVerdict(ex, levelNote, want, answered(&ex))
	}
	if p := inputRequired(rep.result); p != nil {
		var asked []string
		for _, q := range p.requests {
			if cp := capabilityOf[q.Method]; cp != "" && !slices.Contains(asked, cp) {
				asked = append(asked, cp)
			}
		}
		if len(asked) > 0 {
			slices.Sort(asked)
			return eraVerdict(ex, levelFail, want, "an input-required result asking a client that declared no capabilities for "+strings.Join(asked, ", "))
		}
	}
	return eraVerdict(ex, levelPass, want, answered(&ex))
}

func (r *inputRound) tampered(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "the retry refused (an error or isError): its requestState was changed by the client"
	t, p, ex, skip := r.start(ctx, c, wait, "state-tampered")
	if skip != "" {
		if ex, v, s, gone := eraGone(ex, want); gone {
			return ex, v, s
		}
		return ex, verdict{}, skip
	}
	if p.state == "" {
		return ex, verdict{}, t.name + " keeps no requestState"
	}
	ans, cannot := p.answers()
	if cannot != "" {
		return ex, verdict{}, t.name + " asks for " + cannot + ", which mcpcheck cannot answer"
	}
	_, ex = t.call(ans, tamper(p.state), allClientCaps).send(ctx, c, "state-tampered-1", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	return eraVerdict(ex, refusedLevel(&ex, levelFail), want, answered(&ex))
}

func (r *inputRound) replayed(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string) {
	const want = "the second retry with the same requestState refused (an error or isError)"
	t, p, ex, skip := r.start(ctx, c, wait, "state-replayed")
	if skip != "" {
		if ex, v, s, gone := eraGone(ex, want); gone {
			return ex, v, s
		}
		return ex, verdict{}, skip
	}
	ans, cannot := p.answers()
	if cannot != "" {
		return ex, verdict{}, t.name + " asks for " + cannot + ", which mcpcheck cannot answer"
	}
	retry := t.call(ans, p.state, allClientCaps)
	_, first := retry.send(ctx, c, "state-replayed-1", wait)
	if ex, v, s, gone := eraGone(first, want); gone {
		return ex, v, s
	}
	if refusedLevel(&first, levelFail) == levelPass {
		return first, verdict{}, "the genuine retry was refused (" + got(&first) + "): nothing to replay"
	}
	_, ex = retry.send(ctx, c, "state-replayed-2", wait)
	if ex, v, s, gone := eraGone(ex, want); gone {
		return ex, v, s
	}
	v := verdict{level: refusedLevel(&ex, levelNote), expected: want, got: answered(&ex)}
	if v.level == levelNote {
		v.risk, v.got = true, v.got+": an answer can be replayed"
	}
	return ex, v, ""
}

// refusedLevel is levelPass when ex was refused (a JSON-RPC error, an
// isError result, an HTTP error, or another input-required result), else
// taken.
func refusedLevel(ex *exchange, taken level) level {
	r := ex.reply()
	switch {
	case r == nil && ex.status >= 400:
		return levelPass
	case r == nil:
		return levelFail
	case r.err != nil, isErrorResult(r.result), inputRequired(r.result) != nil:
		return levelPass
	}
	return taken
}
