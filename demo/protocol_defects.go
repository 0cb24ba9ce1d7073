package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol defects (Options.ProtocolDefects) planted on top of the
// SDK's own handling, one for each protocol probe of mcpcheck that the
// go-sdk alone would pass. See the list in protocol.go.

// knownVersions are the protocol versions the planted initialize check
// accepts (the SDK negotiates among them); any other is refused instead
// of negotiated.
var knownVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

// clientFaultDefects is a receiving middleware that gets the client's
// mistakes wrong the way hand-written servers do: an unknown tool, prompt
// or resource and resources/read without a uri are answered -32603
// (internal error) rather than -32602/-32002; a tools/list cursor it
// cannot read is ignored (the first page comes back); initialize with a
// version it does not know is refused rather than negotiated; a second
// initialize is answered as if it were the first.
func clientFaultDefects(info *mcp.Implementation, caps *mcp.ServerCapabilities) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch p := req.GetParams().(type) {
			case *mcp.InitializeParams:
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.InitializeParams() != nil {
					return &mcp.InitializeResult{ProtocolVersion: ss.InitializeParams().ProtocolVersion, ServerInfo: info, Capabilities: caps}, nil
				}
				if !slices.Contains(knownVersions, p.ProtocolVersion) {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unsupported protocol version " + p.ProtocolVersion}
				}
			case *mcp.ListToolsParams:
				res, err := next(ctx, method, req)
				if err != nil && p.Cursor != "" {
					p.Cursor = ""
					return next(ctx, method, req)
				}
				return res, err
			}
			res, err := next(ctx, method, req)
			var je *jsonrpc.Error
			if err != nil && (method == "tools/call" || method == "prompts/get" || method == "resources/read") &&
				errors.As(err, &je) && (je.Code == jsonrpc.CodeInvalidParams || je.Code == mcp.CodeResourceNotFound) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: je.Message}
			}
			return res, err
		}
	}
}

// autoInitID is the id of the initialize that defectStdio sends for a
// client that did not; its answer is dropped.
const autoInitID = `"demo-auto-initialize"`

// defectStdio plants two stdio defects around the SDK: a session whose
// first request is not initialize (nor server/discover) is initialized
// behind the client's back, so that request is answered with a result;
// and an unknown method is answered -32603 rather than -32601.
func defectStdio(in io.Reader, out io.Writer) (io.Reader, io.Writer) {
	first := true
	r := passLines(in, func(line []byte) []byte {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if first && json.Unmarshal(line, &m) == nil && m.Method != "" && len(m.ID) > 0 {
			first = false
			// A 2026-07-28 request names its version itself: no session to
			// initialize.
			if m.Method != "initialize" && m.Method != "server/discover" && !bytes.Contains(line, []byte(metaVersionKey)) {
				return append([]byte(`{"jsonrpc":"2.0","id":`+autoInitID+`,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"unknown","version":"0"}}}`+"\n"+
					`{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"), line...)
			}
		}
		return line
	})
	return r, &lineRewriter{w: out, rewrite: misreport}
}

// misreport drops the answer to the hidden initialize and turns -32601
// into -32603.
func misreport(line []byte) []byte {
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(line, &m) == nil {
		switch {
		case string(m.ID) == autoInitID:
			return nil
		case m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound:
			return bytes.Replace(line, []byte(`"code":-32601`), []byte(`"code":-32603`), 1)
		}
	}
	return line
}

// forgetDeletedSessions (protocol defects, HTTP) answers a request for a
// session the client deleted with 400 rather than 404, so a client cannot
// tell that it has to initialize again.
type forgetDeletedSessions struct {
	next    http.Handler
	mu      sync.Mutex
	deleted map[string]bool // at most maxForgotten session ids
}

// maxForgotten bounds the deleted session ids remembered; past it the
// oldest are forgotten all at once (and get the SDK's 404 again).
const maxForgotten = 4096

func (f *forgetDeletedSessions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("Mcp-Session-Id")
	if id == "" {
		f.next.ServeHTTP(w, r)
		return
	}
	f.mu.Lock()
	gone := f.deleted[id]
	f.mu.Unlock()
	if gone {
		http.Error(w, "Bad Request: invalid session", http.StatusBadRequest)
		return
	}
	if r.Method != http.MethodDelete {
		f.next.ServeHTTP(w, r)
		return
	}
	sw := &statusWriter{ResponseWriter: w}
	f.next.ServeHTTP(sw, r)
	if sw.status < 300 {
		f.mu.Lock()
		if f.deleted == nil || len(f.deleted) >= maxForgotten {
			f.deleted = make(map[string]bool)
		}
		f.deleted[id] = true
		f.mu.Unlock()
	}
}

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(p)
}

// blameServer (protocol defects, HTTP) answers a body that is not JSON, or
// whose "jsonrpc" is not "2.0", as its own fault: HTTP 500 with -32603,
// where the spec has -32700 or -32600 (or a 4xx).
type blameServer struct{ next http.Handler }

func (b blameServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		b.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
	}
	bad := err != nil || !json.Valid(body)
	if !bad && json.Unmarshal(body, &m) == nil && m.JSONRPC != "2.0" {
		bad = true
	}
	if bad {
		id := m.ID
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		out, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": jsonrpc.CodeInternalError, "message": "internal error"}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write(out)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	b.next.ServeHTTP(w, r)
}
