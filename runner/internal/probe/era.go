package probe

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// The era probes test what the 2026-07-28 revision changed, when that is
// the negotiated version. The revision has no handshake and no sessions:
// every request names its version and the client's capabilities in its
// _meta, so the probes run on a raw connection that never initializes (a
// stdio server process of its own; over HTTP, POSTs without a session),
// and each builds its requests with that _meta. Each cites the revision's
// changelog entry (its SEP) or section:
//
//   - discover: server/discover answers without a handshake, listing the
//     negotiated version among its supported ones, with capabilities;
//   - discover-capabilities: a capability declared there has a list
//     method that answers (a failure otherwise); one not declared whose
//     method answers anyway is a note;
//   - meta-unsupported-version: a version the server cannot serve gets
//     -32022 with the supported versions (HTTP 400; another status is a
//     note);
//   - meta-header-mismatch (HTTP): a MCP-Protocol-Version header other than
//     the _meta version gets -32020 (HTTP 400);
//   - no-session-id, get-delete-405 (HTTP): no Mcp-Session-Id is issued;
//     GET and DELETE are 405;
//   - removed-ping, removed-set-level, removed-subscribe: the methods the
//     revision removed are -32601 (another error is a note);
//   - result-type: results carry resultType; cache-hints: ttlMs is an
//     integer ≥ 0 and cacheScope public or private, where sent;
//   - list-stable: tools/list is the same before and after other requests
//     (lists no longer vary per connection);
//   - listen-ack (a server that declares tools listChanged):
//     subscriptions/listen for tool list changes is acknowledged first on
//     its stream, naming only the requested types;
//   - resource-not-found: reading a resource that does not exist is
//     -32602 (-32002, the older code, is a note), never empty contents;
//   - multi-round-trip: the first read-only tool (by name) whose call
//     answers an input-required result is asked again with a client that
//     declared no capabilities (meta-missing-capability: -32021, or a
//     result that asks for nothing undeclared), answered with a tampered
//     requestState (state-tampered: must be refused) and answered twice
//     with the genuine one (state-replayed: the second should be refused;
//     a server that keeps no state cannot tell, so it is a note). A server
//     with no such tool skips them.

// EraVersion is the revision the era probes judge.
const EraVersion = "2026-07-28"

// Where the revision says it: its changelog entry (SEP) or section.
const (
	refDiscover  = "changelog (SEP-2575: server/discover)"
	refMeta      = "changelog (SEP-2575: _meta protocol version and client capabilities)"
	refSessions  = "changelog (SEP-2567: no sessions)"
	refRemoved   = "changelog (removed: ping, logging/setLevel, resources/subscribe)"
	refCacheable = "changelog (SEP-2549: cacheable results)"
	refResource  = "server/resources (SEP-2164: resource not found)"
	refMRTR      = "basic/patterns/mrtr (SEP-2322)"
	refListen    = "changelog (subscriptions/listen replaces the GET stream and resources/subscribe)"
)

// Client capabilities the probes declare: all that a multi-round-trip
// tool may ask for, or none.
var (
	allClientCaps = map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	noClientCaps  = map[string]any{}
)

// Candidate is a read-only tool and valid arguments for it: one the
// multi-round-trip probes may call to find a tool that asks for input.
type Candidate struct {
	Name string
	Args json.RawMessage
}

// MaxCandidates bounds the read-only tools called to find one that asks
// for input.
const MaxCandidates = 8

// era is what the era probes of one plan share: mcpcheck's version (its
// clientInfo), the tool for list-stable's call, and the search for a tool
// that asks for input, made once.
type era struct {
	client    string
	probeTool string
	cands     []Candidate
	mu        sync.Mutex
	done      bool
	tool      *Candidate
}

// Era is every probe of 2026-07-28 that applies to the target (see the
// list above): client is mcpcheck's version, probeTool a read-only tool
// with no required argument ("" when none), cands the read-only tools
// with valid arguments (at most MaxCandidates are called).
func Era(t Target, client, probeTool string, cands []Candidate) []Probe {
	e := &era{client: client, probeTool: probeTool, cands: cands[:min(len(cands), MaxCandidates)]}
	var out []Probe
	add := func(name, ref, target string, httpOnly bool, f run) {
		if httpOnly && !t.HTTP {
			return
		}
		out = append(out, Probe{Name: name, Reference: ref, target: target, Judge: eraJudged,
			Run: func(ctx context.Context, c Conn, wait time.Duration) (Exchange, string) {
				ex, v, skip := f(ctx, c, wait)
				ex.verdict = &v
				return ex, skip
			}})
	}
	add("discover", refDiscover, "server/discover", false, e.discover)
	add("discover-capabilities", refDiscover, "server/discover and the list methods", false, e.capabilities)
	add("meta-unsupported-version", refMeta, "tools/list", false, e.badVersion)
	add("meta-header-mismatch", refMeta, "tools/list", true, e.headerMismatch)
	add("no-session-id", refSessions, "tools/list", true, e.noSessionID)
	add("get-delete-405", refSessions, "GET and DELETE", true, e.getDelete)
	add("removed-ping", refRemoved, "ping", false, e.removed("ping", nil))
	add("removed-set-level", refRemoved, "logging/setLevel", false, e.removed("logging/setLevel", map[string]any{"level": "info"}))
	add("removed-subscribe", refRemoved, "resources/subscribe", false, e.removed("resources/subscribe", map[string]any{"uri": "mcpcheck://no-such-resource"}))
	add("result-type", refMeta, "tools/list", false, e.resultType)
	add("cache-hints", refCacheable, "list results", false, e.cacheHints)
	add("list-stable", refSessions, "tools/list", false, e.listStable)
	if t.Caps != nil && t.Caps.Tools != nil && t.Caps.Tools.ListChanged {
		add("listen-ack", refListen, "subscriptions/listen", false, e.listen)
	}
	if t.Caps != nil && t.Caps.Resources != nil {
		add("resource-not-found", refResource, "resources/read", false, e.resourceNotFound)
	}
	add("meta-missing-capability", refMeta, "tools/call", false, e.missingCapability)
	add("state-tampered", refMRTR, "tools/call", false, e.tampered)
	add("state-replayed", refMRTR, "tools/call", false, e.replayed)
	return out
}

// run is an era probe: it sends what it needs on c and returns the
// exchange the report classifies, its verdict, or why it could not run.
type run func(ctx context.Context, c Conn, wait time.Duration) (Exchange, Verdict, string)

// eraJudged is the judge of every era probe: the verdict its run made.
func eraJudged(e *Exchange) Verdict { return *e.verdict }

// eraCall is one request of the revision: params with the _meta that
// names version (EraVersion when "") and declares caps (all when nil).
// header, when not "", is the MCP-Protocol-Version header sent instead of
// version (HTTP).
type eraCall struct {
	method  string
	params  map[string]any
	version string
	caps    map[string]any
	header  string
}

// message is call as a request with id (a name; quoted here), and that
// id as a JSON text.
func (e *era) message(call eraCall, id string) ([]byte, string) {
	params := map[string]any{}
	for k, v := range call.params {
		params[k] = v
	}
	version, caps := call.version, call.caps
	if version == "" {
		version = EraVersion
	}
	if caps == nil {
		caps = allClientCaps
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpcheck", "version": e.client},
	}
	qid := probeID(id)
	p, _ := json.Marshal(params)
	return []byte(`{"jsonrpc":"2.0","id":` + qid + `,"method":` + strconv.Quote(call.method) + `,"params":` + string(p) + `}`), qid
}

// headers sets the revision's HTTP headers of call: MCP-Protocol-Version,
// Mcp-Method and Mcp-Name.
func (call eraCall) headers(hd http.Header) {
	version := call.version
	if version == "" {
		version = EraVersion
	}
	hd.Set("MCP-Protocol-Version", version)
	if call.header != "" {
		hd.Set("MCP-Protocol-Version", call.header)
	}
	hd.Set("Mcp-Method", call.method)
	switch call.method {
	case "tools/call", "prompts/get":
		if n, ok := call.params["name"].(string); ok {
			hd.Set("Mcp-Name", n)
		}
	case "resources/read":
		if u, ok := call.params["uri"].(string); ok {
			hd.Set("Mcp-Name", u)
		}
	}
}

// send sends call with id on c and reads its answer.
func (e *era) send(ctx context.Context, c Conn, call eraCall, id string, wait time.Duration) (http.Header, Exchange) {
	msg, qid := e.message(call, id)
	h, ok := c.(*HTTP)
	if !ok {
		return nil, c.Send(ctx, msg, qid, wait)
	}
	return h.Post(ctx, msg, qid, call.headers, wait)
}

// find calls the candidates in turn (all client capabilities declared)
// until one answers an input-required result; it returns that tool, or
// nil. The search is made once.
func (e *era) find(ctx context.Context, c Conn, wait time.Duration) *Candidate {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return e.tool
	}
	for i := range e.cands {
		t := &e.cands[i]
		_, ex := e.send(ctx, c, t.call(nil, "", allClientCaps), "find-"+strconv.Itoa(i), wait)
		if ctx.Err() != nil {
			return nil
		}
		if rep := ex.Reply(); rep != nil && rep.Err == nil && inputRequired(rep.Result) != nil {
			e.tool = t
			break
		}
	}
	e.done = true
	return e.tool
}

// call is a tools/call of t, with answers and state when it is a retry.
func (t *Candidate) call(answers map[string]any, state string, caps map[string]any) eraCall {
	p := map[string]any{"name": t.Name, "arguments": t.Args}
	if answers != nil {
		p["inputResponses"] = answers
		p["requestState"] = state
	}
	return eraCall{method: "tools/call", params: p, caps: caps}
}

// Sessionless is a raw connection to a Streamable HTTP server of
// 2026-07-28: no initialize, no session; each request names its version.
func Sessionless(client *http.Client, endpoint string, limit int) *HTTP {
	return &HTTP{client: client, endpoint: endpoint, limit: limit, version: EraVersion}
}
