package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol guard is what the demo adds in front of the go-sdk (v1.8.0)
// so that its MCP layer survives what a client may send by mistake. Without
// it, over stdio, the SDK ends the session on a line that is not JSON or on
// a "jsonrpc" other than "2.0", and answers a JSON-RPC batch although
// 2025-06-18 removed batching; over Streamable HTTP it accepts a request
// without the session id and one from a foreign Origin. With the guard:
//
//   - stdio: a line that is not JSON is answered with -32700 (id null), a
//     batch with -32600, an object that is not a JSON-RPC 2.0 request,
//     notification or response with -32600; the session goes on;
//   - HTTP: a body that is not one JSON-RPC 2.0 message gets 400 with the
//     same error, a request without Mcp-Session-Id (other than initialize)
//     400, and one whose Origin is not a loopback address 403 (DNS
//     rebinding protection);
//   - logging/setLevel with a level the spec does not name is -32602.
//
// Options.ProtocolDefects removes the guard and plants protocol defects for
// mcpcheck's protocol probes to find, one for every probe (the probe in
// brackets; a MUST it breaks fails, a SHOULD is a note):
//
//   - the SDK's own handling without the guard: over stdio a line that is
//     not JSON or has "jsonrpc": "1.0" ends the process [malformed-json,
//     bad-jsonrpc], a request without method is not answered
//     [missing-method], a batch is answered [batch], any logging/setLevel
//     level is accepted [invalid-log-level]; over HTTP a request without
//     Mcp-Session-Id [missing-session-id] and from a foreign Origin
//     [foreign-origin] are served, and an unknown method gets HTTP 400
//     [unknown-method, as on the clean demo: the SDK answers before any
//     layer of the demo];
//   - tools/call with null or no arguments is -32603 [null-arguments,
//     omitted-arguments], and so is an unknown tool [unknown-tool], an
//     unknown prompt [unknown-prompt] or resource [unknown-resource] and
//     resources/read without uri [read-without-uri];
//   - a tools/list cursor the server cannot read is ignored: the first page
//     comes back [invalid-cursor];
//   - initialize with a version the server does not know is refused with
//     -32602 instead of negotiated [unsupported-version], and a second
//     initialize is answered with a result [second-initialize: a
//     look-alike since issue 19, the spec binds only the client there];
//   - slow_status answers after its call was cancelled, and reports
//     progress after its result [cancellation];
//   - stdio: a session whose first request is not initialize is initialized
//     behind the client's back, so that request gets a result
//     [before-initialize: a look-alike too, for the same reason], and an unknown method is -32603, not -32601
//     [unknown-method];
//   - HTTP: a body that is not JSON, or whose "jsonrpc" is not "2.0", gets
//     HTTP 500 with -32603 [malformed-json, bad-jsonrpc]; an invalid
//     MCP-Protocol-Version is accepted
//     [invalid-protocol-version], a POST without one refused with 400
//     [missing-protocol-version], and a request on a deleted session gets
//     400, not 404 [deleted-session].

// logLevels are the levels logging/setLevel accepts (RFC 5424's).
var logLevels = map[mcp.LoggingLevel]bool{
	"debug": true, "info": true, "notice": true, "warning": true, "error": true, "critical": true, "alert": true, "emergency": true,
}

// guardLevels refuses logging/setLevel with an unknown level.
func guardLevels(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" && !logLevels[p.Level] {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid log level " + string(p.Level)}
		}
		return next(ctx, method, req)
	}
}

// nullArgumentsDefect answers tools/call with "arguments": null, or
// without "arguments", with -32603, as servers built on the TypeScript SDK
// do (typescript-sdk #2012).
func nullArgumentsDefect(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
			switch string(bytes.TrimSpace(p.Arguments)) {
			case "null":
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "invalid input: expected record, received null"}
			case "":
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "invalid input: expected record, received undefined"}
			}
		}
		return next(ctx, method, req)
	}
}

// addSlowStatus adds slow_status (protocol defects): a read-only tool that
// takes a second and ignores cancellation, so its answer comes after the
// client cancelled the call. Asked for progress, it reports it while it
// works, and once more after its result (progress on a request that is
// over: a MUST of basic/utilities/progress broken).
func addSlowStatus(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "slow_status", Description: "Report the household service status (takes a second).",
		Annotations: &mcp.ToolAnnotations{Title: "Slow status", ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, map[string]any, error) {
			token := req.Params.GetProgressToken()
			progress := func(p float64) {
				if token != nil {
					// A background context: ctx is ignored, the defect.
					req.Session.NotifyProgress(context.Background(), &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Total: 4, Message: "checking services"})
				}
			}
			for i := 1; i <= 3; i++ {
				progress(float64(i))
				time.Sleep(time.Second / 3) // ctx is ignored: the planted defect
			}
			if token != nil {
				go func() {
					time.Sleep(100 * time.Millisecond) // after the result is written
					progress(4)
				}()
			}
			return nil, map[string]any{"status": "ok"}, nil
		})
}

// guardStdio returns a reader of the lines of in that are JSON-RPC 2.0
// messages; every other line is answered on out and dropped.
func guardStdio(in io.Reader, out *lockedWriter) io.Reader {
	return passLines(in, func(line []byte) []byte {
		if answer := refusal(line); answer != nil {
			out.writeLines([][]byte{answer})
			return nil
		}
		return line
	})
}

// refusal is the error response to a line that is not one JSON-RPC 2.0
// message, or nil for a line to pass on (blank lines included).
func refusal(line []byte) []byte {
	b := bytes.TrimSpace(line)
	if len(b) == 0 {
		return nil
	}
	errorResponse := func(id json.RawMessage, code int64, msg string) []byte {
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
		return out
	}
	if !json.Valid(b) {
		return errorResponse(nil, jsonrpc.CodeParseError, "parse error")
	}
	if b[0] == '[' {
		return errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (removed in 2025-06-18)")
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &m) != nil {
		return errorResponse(nil, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON object")
	}
	id := m.ID
	if len(id) > 0 && id[0] != '"' && (id[0] < '0' || id[0] > '9') && id[0] != '-' {
		id = nil // only a string or a number can be echoed as an id
	}
	switch {
	case m.JSONRPC != "2.0":
		return errorResponse(id, jsonrpc.CodeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	case m.Method == "" && m.Result == nil && m.Error == nil:
		return errorResponse(id, jsonrpc.CodeInvalidRequest, "invalid request: no method")
	}
	return nil
}

// guardHTTP refuses, in front of the SDK's handler, requests from a
// foreign Origin (403) and requests other than initialize without a
// session id (400).
type guardHTTP struct {
	next http.Handler
	// stateless: no request carries a session id, so none is asked for.
	stateless bool
}

func (g guardHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
		http.Error(w, "Forbidden: foreign Origin", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost {
		g.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		http.Error(w, "Bad Request", http.StatusBadRequest)
		return
	}
	if answer := refusal(body); answer != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		w.Write(answer)
		return
	}
	var m struct {
		Method string `json:"method"`
	}
	// Under 2026-07-28 there are no sessions; before it the header says
	// which version a request is for.
	v := r.Header.Get("MCP-Protocol-Version")
	if !g.stateless && v != "" && v < "2026-07-28" && r.Header.Get("Mcp-Session-Id") == "" && json.Unmarshal(body, &m) == nil && m.Method != "" && m.Method != "initialize" && m.Method != "server/discover" {
		http.Error(w, "Bad Request: missing Mcp-Session-Id", http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	g.next.ServeHTTP(w, r)
}

func loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	switch u.Hostname() {
	case "localhost", "127.0.0.1", "::1":
		return true
	}
	return false
}

// ignoreVersionHeader (protocol defects) drops the MCP-Protocol-Version
// header before the SDK checks it, so an invalid one is accepted; yet a
// POST without it (other than initialize) is refused with 400, where the
// spec has the server assume 2025-03-26.
type ignoreVersionHeader struct{ next http.Handler }

func (h ignoreVersionHeader) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("MCP-Protocol-Version") >= "2026-07-28" {
		// 2026-07-28 names its version in every request's _meta too; its
		// defects are era_defects.go's.
		h.next.ServeHTTP(w, r)
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("MCP-Protocol-Version") == "" {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		var m struct {
			Method string `json:"method"`
		}
		if err != nil || json.Unmarshal(body, &m) != nil || m.Method != "initialize" {
			http.Error(w, "Bad Request: missing MCP-Protocol-Version", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	r.Header.Del("MCP-Protocol-Version")
	h.next.ServeHTTP(w, r)
}
