package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
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

// eraVersion is the revision the era probes judge.
const eraVersion = config.ProtocolVersion2026

// eraRef is where the revision says it: its changelog entry or section.
const (
	refDiscover  = "changelog (SEP-2575: server/discover)"
	refMeta      = "changelog (SEP-2575: _meta protocol version and client capabilities)"
	refSessions  = "changelog (SEP-2567: no sessions)"
	refRemoved   = "changelog (removed: ping, logging/setLevel, resources/subscribe)"
	refCacheable = "changelog (SEP-2549: cacheable results)"
	refResource  = "server/resources (SEP-2164: resource not found)"
	refMRTR      = "basic/patterns/mrtr (SEP-2322)"
)

// Client capabilities the probes declare: all that a multi-round-trip
// tool may ask for, or none.
var (
	allClientCaps = map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
	noClientCaps  = map[string]any{}
)

// eraTool is a read-only tool and valid arguments for it, a candidate for
// the multi-round-trip probes.
type eraTool struct {
	name string
	args json.RawMessage
}

// eraProbes plans the probes of 2026-07-28 (see the list above).
func (c *generator) eraProbes(t protocolTarget, caps *mcp.ServerCapabilities, readOnly []tool) []probe {
	var cands []eraTool
	for _, tl := range readOnly {
		args, notes := c.values.Valid(tl.Name, c.input(tl.Name))
		if len(notes) > 0 || args == nil {
			continue
		}
		a, err := json.Marshal(args)
		if err != nil {
			continue
		}
		cands = append(cands, eraTool{name: tl.Name, args: a})
	}
	if len(cands) > maxEraCandidates {
		cands = cands[:maxEraCandidates]
	}
	rt := &inputRound{cands: cands}
	probeTool := c.probeTool(readOnly)
	var out []probe
	add := func(name, ref string, only TargetTransport, run eraRun) {
		if only == "" || only == t.transport {
			out = append(out, probe{name: name, reference: ref, run: run, target: eraTargets[name], judge: eraJudged})
		}
	}
	add("discover", refDiscover, "", probeDiscover)
	add("discover-capabilities", refDiscover, "", probeCapabilities)
	add("meta-unsupported-version", refMeta, "", probeUnsupportedVersion)
	add("meta-header-mismatch", refMeta, TargetHTTP, probeHeaderMismatch)
	add("no-session-id", refSessions, TargetHTTP, probeNoSessionID)
	add("get-delete-405", refSessions, TargetHTTP, probeGetDelete)
	add("removed-ping", refRemoved, "", removed("ping", nil))
	add("removed-set-level", refRemoved, "", removed("logging/setLevel", map[string]any{"level": "info"}))
	add("removed-subscribe", refRemoved, "", removed("resources/subscribe", map[string]any{"uri": "mcpcheck://no-such-resource"}))
	add("result-type", refMeta, "", probeResultType)
	add("cache-hints", refCacheable, "", probeCacheHints)
	add("list-stable", refSessions, "", listStable(probeTool))
	if caps.Resources != nil {
		add("resource-not-found", refResource, "", probeResourceNotFound)
	}
	add("meta-missing-capability", refMeta, "", rt.missingCapability)
	add("state-tampered", refMRTR, "", rt.tampered)
	add("state-replayed", refMRTR, "", rt.replayed)
	return out
}

// maxEraCandidates bounds the read-only tools called to find one that
// asks for input.
const maxEraCandidates = 8

// eraTargets is what the report shows each era probe addressing.
var eraTargets = map[string]string{
	"discover": "server/discover", "discover-capabilities": "server/discover and the list methods",
	"meta-unsupported-version": "tools/list", "meta-header-mismatch": "tools/list", "no-session-id": "tools/list",
	"get-delete-405": "GET and DELETE", "removed-ping": "ping", "removed-set-level": "logging/setLevel",
	"removed-subscribe": "resources/subscribe", "result-type": "tools/list", "cache-hints": "list results",
	"list-stable": "tools/list", "resource-not-found": "resources/read", "meta-missing-capability": "tools/call",
	"state-tampered": "tools/call", "state-replayed": "tools/call",
}

// eraRun is an era probe: it sends what it needs on c and returns the
// exchange the report classifies, its verdict, or why it could not run.
type eraRun func(ctx context.Context, c rawConn, wait time.Duration) (exchange, verdict, string)

// eraJudged is the judge of every era probe: the verdict its run made.
func eraJudged(e *exchange) verdict { return *e.verdict }

// eraCall is one request of the revision: params with the _meta that
// names version and declares caps. header, when not "", is the
// MCP-Protocol-Version header sent instead of version (HTTP).
type eraCall struct {
	method  string
	params  map[string]any
	version string
	caps    map[string]any
	header  string
}

// send sends the call with id (a name; quoted here) on c.
func (e eraCall) send(ctx context.Context, c rawConn, id string, wait time.Duration) (http.Header, exchange) {
	params := map[string]any{}
	for k, v := range e.params {
		params[k] = v
	}
	version, caps := e.version, e.caps
	if version == "" {
		version = eraVersion
	}
	if caps == nil {
		caps = allClientCaps
	}
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "mcpcheck", "version": Version},
	}
	qid := probeID(id)
	p, _ := json.Marshal(params)
	msg := []byte(`{"jsonrpc":"2.0","id":` + qid + `,"method":` + strconv.Quote(e.method) + `,"params":` + string(p) + `}`)
	h, ok := c.(*rawHTTP)
	if !ok {
		return nil, c.send(ctx, msg, qid, wait)
	}
	return h.post(ctx, msg, qid, func(hd http.Header) {
		hd.Set("MCP-Protocol-Version", version)
		if e.header != "" {
			hd.Set("MCP-Protocol-Version", e.header)
		}
		hd.Set("Mcp-Method", e.method)
		switch e.method {
		case "tools/call", "prompts/get":
			if n, ok := e.params["name"].(string); ok {
				hd.Set("Mcp-Name", n)
			}
		case "resources/read":
			if u, ok := e.params["uri"].(string); ok {
				hd.Set("Mcp-Name", u)
			}
		}
	}, wait)
}

// inputRound finds, once, the read-only tool that asks for input, for the
// multi-round-trip probes.
type inputRound struct {
	cands []eraTool
	mu    sync.Mutex
	done  bool
	tool  *eraTool
}

// find calls the candidates in turn (all client capabilities declared)
// until one answers an input-required result; it returns that tool, or
// nil.
func (r *inputRound) find(ctx context.Context, c rawConn, wait time.Duration) *eraTool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return r.tool
	}
	for i := range r.cands {
		t := &r.cands[i]
		_, ex := t.call(nil, "", allClientCaps).send(ctx, c, "find-"+strconv.Itoa(i), wait)
		if ctx.Err() != nil {
			return nil
		}
		if rep := ex.reply(); rep != nil && rep.err == nil && inputRequired(rep.result) != nil {
			r.tool = t
			break
		}
	}
	r.done = true
	return r.tool
}

// call is a tools/call of t, with answers and state when this is a retry.
func (t *eraTool) call(answers map[string]any, state string, caps map[string]any) eraCall {
	p := map[string]any{"name": t.name, "arguments": t.args}
	if answers != nil {
		p["inputResponses"] = answers
		p["requestState"] = state
	}
	return eraCall{method: "tools/call", params: p, caps: caps}
}

// eraFallback is the report's note when a run asked for 2026-07-28 and the
// server negotiated an older version: a server of the older era (the
// TypeScript SDK's stop at 2025-11-25; go-sdk serves 2026-07-28 over HTTP
// only without sessions) is not failed for it, and the report says what
// was checked instead.
func eraFallback(requested, negotiated string) string {
	if requested != eraVersion || negotiated == "" || negotiated == eraVersion {
		return ""
	}
	return "asked for protocol " + eraVersion + "; the server does not serve it here and negotiated " + negotiated +
		", so the run checked " + negotiated + " (not a failure: the server speaks the older era)"
}

// notInEra is a fixture step whose method 2026-07-28 removed: it is not
// sent. (A subscribe step is carried by subscriptions/listen instead, as
// go-sdk does: the revision replaced the method, not the need.)
func notInEra(method string) error {
	return errBadParams{fmt.Errorf("%s is not in %s (the revision removed it); limit the step with protocols: [2025-11-25]", method, eraVersion)}
}
