package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2026-07-28 protocol defects (Options.ProtocolDefects), one for each
// of mcpcheck's probes of that era (the probe in brackets). They apply to
// requests that name 2026-07-28 in their _meta only, so the 2025-11-25
// probes see the defects listed in protocol.go and nothing else:
//
//   - server/discover does not declare prompts, which prompts/list serves
//     [discover-capabilities];
//   - server/discover does not say which server it is [discover];
//   - an unsupported version's -32022 lists no supported versions
//     [unsupported-version];
//   - ask_assignee asks a client that declared no elicitation, and takes
//     a changed or an already answered requestState [missing-capability,
//     state-tampered, state-replayed];
//   - ping, logging/setLevel and resources/subscribe are served as in
//     2025-11-25 [removed-ping, removed-set-level, removed-subscribe];
//   - tools/list results carry no resultType [result-type], and caching
//     hints are out of range (ttlMs -1, cacheScope "everyone")
//     [cache-hints];
//   - tools/list differs from one listing to the next [list-stable];
//   - subscriptions/listen is acknowledged for every type, asked for or
//     not [listen-ack];
//   - HTTP: a MCP-Protocol-Version header that disagrees with the _meta
//     version is taken [header-mismatch]; responses carry an
//     Mcp-Session-Id, GET is 400 and DELETE 204 rather than 405
//     [no-session].

// metaVersionKey is the _meta key of a request's protocol version.
const metaVersionKey = "io.modelcontextprotocol/protocolVersion"

// versioned is a request that knows the protocol version it follows.
type versioned interface{ ProtocolVersion() string }

func newEra(req mcp.Request) bool {
	v, ok := req.(versioned)
	return ok && v.ProtocolVersion() >= "2026-07-28"
}

// eraDefects is the receiving middleware of the 2026-07-28 defects.
func eraDefects() mcp.Middleware {
	var listings atomic.Int64
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if !newEra(req) {
				return next(ctx, method, req)
			}
			switch method {
			case "server/discover":
				res, err := next(ctx, method, req)
				if r, ok := res.(*mcp.DiscoverResult); ok && err == nil && r.Capabilities != nil {
					cp, caps := *r, *r.Capabilities
					caps.Prompts = nil
					cp.Capabilities = &caps
					return &cp, nil
				}
				return res, err
			case "tools/list":
				res, err := next(ctx, method, req)
				if r, ok := res.(*mcp.ListToolsResult); ok && err == nil && len(r.Tools) > 0 {
					cp := *r
					cp.Tools = append([]*mcp.Tool(nil), r.Tools...)
					first := *cp.Tools[0]
					first.Description += fmt.Sprintf(" (listing %d)", listings.Add(1))
					cp.Tools[0] = &first
					return &cp, nil
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

// badCacheHints (defects) sets caching hints out of their range.
func badCacheHints(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
	c.TTLMs, c.CacheScope = -1, "everyone"
}

// removedMethods are the methods 2026-07-28 removed.
var removedMethods = map[string]bool{"ping": true, "logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true}

// eraDefectRequest rewrites one request: a removed method loses its
// version _meta, so the SDK serves it as 2025-11-25 would. It reports
// whether it did.
func eraDefectRequest(msg []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg, false
	}
	var method string
	if json.Unmarshal(m["method"], &method) != nil || !removedMethods[method] || !bytes.Contains(m["params"], []byte(metaVersionKey)) {
		return msg, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(m["params"], &params) != nil {
		return msg, false
	}
	delete(params, "_meta")
	m["params"], _ = json.Marshal(params)
	out, err := json.Marshal(m)
	if err != nil {
		return msg, false
	}
	return out, true
}

// eraDefectResponse rewrites one response: -32022 loses its data (the
// supported versions), a tools/list result its resultType, a discover
// result its _meta (the server's identity).
func eraDefectResponse(msg []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	changed := false
	if string(m["method"]) == `"notifications/subscriptions/acknowledged"` {
		// Every type acknowledged, whatever was asked for.
		m["params"] = json.RawMessage(`{"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}`)
		changed = true
	}
	if e := m["error"]; e != nil && bytes.Contains(e, []byte("-32022")) {
		var em map[string]json.RawMessage
		if json.Unmarshal(e, &em) == nil && string(em["code"]) == "-32022" {
			delete(em, "data")
			m["error"], _ = json.Marshal(em)
			changed = true
		}
	}
	if r := m["result"]; r != nil && bytes.Contains(r, []byte(`"resultType"`)) && bytes.Contains(r, []byte(`"tools"`)) {
		var rm map[string]json.RawMessage
		if json.Unmarshal(r, &rm) == nil && rm["tools"] != nil {
			delete(rm, "resultType")
			m["result"], _ = json.Marshal(rm)
			changed = true
		}
	}
	if r := m["result"]; r != nil && bytes.Contains(r, []byte(`"supportedVersions"`)) {
		var rm map[string]json.RawMessage
		if json.Unmarshal(r, &rm) == nil && rm["_meta"] != nil {
			delete(rm, "_meta")
			m["result"], _ = json.Marshal(rm)
			changed = true
		}
	}
	if !changed {
		return msg
	}
	out, err := json.Marshal(m)
	if err != nil {
		return msg
	}
	return out
}

// eraDefectStdio applies the request and response rewrites to a stdio
// server's lines.
func eraDefectStdio(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	r := passLines(in, func(line []byte) []byte {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		if m, ok := eraDefectRequest(bytes.TrimSpace(line)); ok {
			return append(m, '\n')
		}
		return line
	})
	return r, &lineRewriter{w: out, rewrite: eraDefectResponse}
}

// eraDefectHTTP plants the HTTP defects of 2026-07-28 in front of the
// SDK's handler, and the request and response rewrites.
type eraDefectHTTP struct{ next http.Handler }

func (h eraDefectHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Mcp-Session-Id", "demo-defect-session")
	switch r.Method {
	case http.MethodGet:
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodPost:
	default:
		h.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	json.Unmarshal(body, &m)
	if v, _ := m.Params.Meta[metaVersionKey].(string); v != "" {
		// The header is made to agree with the body, whatever it said.
		r.Header.Set("MCP-Protocol-Version", v)
	}
	if nb, ok := eraDefectRequest(body); ok {
		body = nb
		r.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if m.Method == "subscriptions/listen" {
		// A stream: passed on as it comes, event line by event line.
		h.next.ServeHTTP(&streamRewriter{ResponseWriter: w}, r)
		return
	}
	rewriteWhole(w, r, h.next, eraDefectResponse)
}

// streamRewriter passes an event stream on line by line, each data line
// through eraDefectResponse, flushing as the SDK does.
type streamRewriter struct {
	http.ResponseWriter
	buf []byte
}

func (s *streamRewriter) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := s.buf[:i+1]
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			line = append(append([]byte("data: "), eraDefectResponse(bytes.TrimSpace(d))...), '\n')
		}
		if _, err := s.ResponseWriter.Write(line); err != nil {
			return len(p), err
		}
		s.buf = s.buf[i+1:]
	}
}

func (s *streamRewriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
