package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file is the only place where the demo server writes what the SDK
// would not: responses that break JSON-RPC, duplicated or missing responses,
// dropped connections and lost sessions. There is one fault layer per
// transport, under the SDK's own:
//
//   - stdio: rawStdioConn, a Connection around the SDK's IOTransport that
//     shares one locked writer with it;
//   - Streamable HTTP: faultHandler, middleware in front of the SDK's
//     handler, with a faultWriter around the ResponseWriter of each POST
//     that carries a fault call.
//
// Each layer tags the tools/call requests of activated tools with an
// activation (activation.go), which the handler looks up; the layer then
// writes that call's response the way the handler asked (rawResponses).

// A responseFault says how the transport writes the response to a call.
type responseFault int

const (
	respondNormally       responseFault = iota
	dropResponse                        // write nothing
	duplicateResponse                   // write the same response twice
	missingJSONRPC                      // omit "jsonrpc"
	invalidJSONRPCVersion               // "jsonrpc": "1.0"
	resultWithError                     // both "result" and "error"
)

// rawFaults is the registry of responses that break JSON-RPC: each renders
// one JSON text from the response's id and result. Both transports use it,
// so the bytes are the same on stdio and over HTTP.
var rawFaults = map[responseFault]func(id, result []byte) []byte{
	missingJSONRPC: func(id, result []byte) []byte {
		return fmt.Appendf(nil, `{"id":%s,"result":%s}`, id, result)
	},
	invalidJSONRPCVersion: func(id, result []byte) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"1.0","id":%s,"result":%s}`, id, result)
	},
	resultWithError: func(id, result []byte) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s,"error":{"code":%d,"message":"malformed_message: this response has both result and error"}}`,
			id, result, jsonrpc.CodeInternalError)
	},
}

// rawResponses returns the JSON texts to send, in order, for resp under f.
// A response that carries an error rather than a result (the handler failed
// after all) is sent normally.
func rawResponses(resp *jsonrpc.Response, f responseFault) ([][]byte, error) {
	if f == dropResponse {
		return nil, nil
	}
	normal, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return nil, err
	}
	render, raw := rawFaults[f]
	switch {
	case f == duplicateResponse:
		return [][]byte{normal, normal}, nil
	case !raw || resp.Error != nil || resp.Result == nil:
		return [][]byte{normal}, nil
	}
	id, err := json.Marshal(resp.ID.Raw())
	if err != nil {
		return nil, err
	}
	return [][]byte{render(id, resp.Result)}, nil
}

// toolCallName returns the tool name of a tools/call request, or "".
func toolCallName(req *jsonrpc.Request) string {
	if req.Method != "tools/call" || !req.IsCall() {
		return ""
	}
	var p struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return ""
	}
	return p.Name
}

// errDisconnected ends a stdio connection that the disconnect tool closed.
var errDisconnected = errors.New("closed by the disconnect tool")

// lockedWriter serialises the SDK's writes and the fault layer's raw writes,
// so that every message is one whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// writeLines writes each message as one line, all under one lock.
func (w *lockedWriter) writeLines(msgs [][]byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range msgs {
		if _, err := w.w.Write(append(m, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// rawStdioTransport is the stdio transport of a server with the fault
// profile: newline-delimited JSON-RPC on in and out through the SDK's
// IOTransport, with a rawStdioConn around it.
type rawStdioTransport struct {
	in   io.Reader
	out  io.Writer
	acts *activations
}

func (t *rawStdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	out := &lockedWriter{w: t.out}
	inner, err := (&mcp.IOTransport{Reader: io.NopCloser(t.in), Writer: nopWriteCloser{out}}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rawStdioConn{Connection: inner, out: out, acts: t.acts, byID: make(map[jsonrpc.ID]*activation)}, nil
}

// rawStdioConn tags the calls of activated tools as they are read, and
// writes their responses as their handlers asked.
type rawStdioConn struct {
	mcp.Connection
	out  *lockedWriter
	acts *activations

	mu           sync.Mutex
	byID         map[jsonrpc.ID]*activation // activations by request id, until answered
	disconnected bool
	closed       bool
}

func (c *rawStdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.mu.Lock()
		d := c.disconnected
		c.mu.Unlock()
		if d {
			return nil, errDisconnected
		}
		return nil, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		if tool := toolCallName(req); activatedTools[tool] {
			c.tag(req, tool)
		}
	}
	return msg, nil
}

// tag gives req an activation, or marks it refused when too many are in
// flight. A request whose id is already in flight is left to the SDK, which
// refuses it.
func (c *rawStdioConn) tag(req *jsonrpc.Request, tool string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.byID[req.ID] != nil {
		return
	}
	a := newActivation(req.ID, "", tool)
	a.rawResponses = true
	a.endConnection = c.disconnect
	token := activationRefused
	if c.acts.add(a) {
		c.byID[req.ID] = a
		token = a.token
	}
	req.Extra = &mcp.RequestExtra{Header: http.Header{activationHeader: {token}}}
}

func (c *rawStdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	c.mu.Lock()
	if c.disconnected {
		c.mu.Unlock()
		return nil // dropped: the connection is gone as far as the client can tell
	}
	var a *activation
	if ok {
		if a = c.byID[resp.ID]; a != nil {
			delete(c.byID, resp.ID)
		}
	}
	c.mu.Unlock()
	if a == nil {
		return c.Connection.Write(ctx, msg)
	}
	// Removed once the response is out, so that no activation in flight
	// means no fault response still to be written.
	defer c.acts.remove(a)
	msgs, err := rawResponses(resp, a.takeResponse())
	if err != nil {
		return err
	}
	return c.out.writeLines(msgs)
}

// disconnect ends the connection as the disconnect tool asks: nothing more
// is written, reading stops at once, and every call in flight is cancelled
// (the SDK cancels them when reading fails). ServeStdio then returns, and
// "mcpcheck demo" exits, which is what closes stdout for the client.
func (c *rawStdioConn) disconnect() {
	c.mu.Lock()
	c.disconnected = true
	c.mu.Unlock()
	c.Connection.Close()
}

// Close ends every activation still in flight; it may be called more than
// once.
func (c *rawStdioConn) Close() error {
	c.mu.Lock()
	c.closed = true
	pending := c.byID
	c.byID = make(map[jsonrpc.ID]*activation)
	c.mu.Unlock()
	for _, a := range pending {
		c.acts.remove(a)
	}
	return c.Connection.Close()
}

// maxInspectedBody bounds the POST bodies the HTTP fault layer reads to find
// fault calls; larger ones pass through untouched.
const maxInspectedBody = 1 << 20

// maxEventBytes bounds the part of an SSE event a faultWriter holds back
// while waiting for its end.
const maxEventBytes = 1 << 20

// faultHandler is the Streamable HTTP fault layer, in front of the SDK's
// handler (next). It activates each POST that carries one call of an
// activated tool, answers for sessions that session_loss invalidated, and
// stops the fault calls of a session that is being deleted.
type faultHandler struct {
	next http.Handler
	acts *activations

	mu   sync.Mutex
	lost map[string]bool // session ids invalidated by session_loss and not yet closed
}

func newFaultHandler(next http.Handler, acts *activations) *faultHandler {
	return &faultHandler{next: next, acts: acts, lost: make(map[string]bool)}
}

func (h *faultHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get(activationHeader) != "" {
		r = r.Clone(r.Context())
		r.Header.Del(activationHeader)
	}
	sessionID := r.Header.Get("Mcp-Session-Id")
	if sessionID != "" && h.isLost(sessionID) {
		// What the SDK answers for a session it no longer has; it will, once
		// the lost session is closed.
		http.Error(w, "session not found", http.StatusNotFound)
		return
	}
	switch r.Method {
	case http.MethodDelete:
		if sessionID != "" {
			// The SDK's session Close waits for the calls in flight, so the
			// fault calls of this session must stop first.
			h.acts.haltWhere(func(a *activation) bool { return a.sessionID == sessionID })
		}
	case http.MethodPost:
		if id, tool, ok := h.faultCall(r); ok {
			h.serveFaultCall(w, r, id, tool, sessionID)
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

// faultCall reports whether r is a POST of one tools/call request of an
// activated tool, and its request id and tool. It leaves r's body readable.
func (h *faultHandler) faultCall(r *http.Request) (id jsonrpc.ID, tool string, ok bool) {
	if r.Body == nil {
		return id, "", false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxInspectedBody+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || len(body) > maxInspectedBody {
		return id, "", false
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return id, "", false // a batch, or not JSON-RPC: the SDK answers
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return id, "", false
	}
	tool = toolCallName(req)
	return req.ID, tool, activatedTools[tool]
}

// serveFaultCall serves a POST carrying a fault call through the SDK with an
// activation, and ends the activation when the POST ends.
func (h *faultHandler) serveFaultCall(w http.ResponseWriter, r *http.Request, id jsonrpc.ID, tool, sessionID string) {
	r = r.Clone(r.Context())
	a := newActivation(id, sessionID, tool)
	fw := &faultWriter{w: w, act: a}
	a.rawResponses = true
	a.closeStream = fw.closeStream
	if sessionID != "" {
		a.loseSession = func(ss *mcp.ServerSession, during bool) { h.loseSession(a, ss, during) }
	}
	if !h.acts.add(a) {
		r.Header.Set(activationHeader, activationRefused)
		h.next.ServeHTTP(w, r)
		return
	}
	defer h.acts.remove(a)
	// The call's waits stop when the client goes away without cancelling.
	stop := context.AfterFunc(r.Context(), a.halt)
	defer stop()
	r.Header.Set(activationHeader, a.token)
	h.next.ServeHTTP(fw, r)
}

// loseSession invalidates a's session for session_loss: from now on every
// request with its id gets 404, its other fault calls stop, and the SDK's
// session is closed, at once (during) or once a's response is out.
func (h *faultHandler) loseSession(a *activation, ss *mcp.ServerSession, during bool) {
	id := a.sessionID
	h.mu.Lock()
	h.lost[id] = true
	h.mu.Unlock()
	closeSession := func() {
		h.acts.haltWhere(func(o *activation) bool { return o.sessionID == id })
		go func() {
			// Close waits for the session's calls in flight, this one
			// included, and then removes the session from the SDK's handler,
			// which answers 404 for it by itself from then on.
			ss.Close()
			h.mu.Lock()
			delete(h.lost, id)
			h.mu.Unlock()
		}()
	}
	if during {
		a.respond(dropResponse)
		closeSession()
		return
	}
	a.onEnd(closeSession)
}

func (h *faultHandler) isLost(sessionID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lost[sessionID]
}

// shutdown stops every fault call in flight, so that a server shutting
// down need not wait for hangs.
func (h *faultHandler) shutdown() {
	h.acts.haltWhere(func(*activation) bool { return true })
}

// faultWriter is the ResponseWriter of a POST carrying a fault call. It
// passes the SDK's SSE events through one by one, except the response to
// the call, which it writes as the handler asked; and it can drop the
// POST's connection. All its methods are safe for the SDK's goroutines and
// the handler's to call at once.
//
// It never exposes the underlying ResponseWriter (no Unwrap), so that
// nothing bypasses it. The SDK's handler answers calls with SSE unless
// JSONResponse is set, which Handler never does; a JSON body passes through
// unchanged.
type faultWriter struct {
	w   http.ResponseWriter
	act *activation

	mu          sync.Mutex
	pending     []byte // the start of an SSE event not yet complete
	wroteHeader bool
	closed      bool
}

var errStreamClosed = errors.New("the stream was closed by a fault tool")

func (fw *faultWriter) Header() http.Header { return fw.w.Header() }

func (fw *faultWriter) WriteHeader(code int) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.closed || fw.wroteHeader {
		return
	}
	fw.wroteHeader = true
	fw.w.WriteHeader(code)
}

func (fw *faultWriter) Write(p []byte) (int, error) {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.closed {
		return 0, errStreamClosed
	}
	fw.wroteHeader = true
	if !isEventStream(fw.w.Header()) {
		return fw.w.Write(p)
	}
	fw.pending = append(fw.pending, p...)
	for {
		// The SDK ends every event with a blank line, "\n\n".
		i := bytes.Index(fw.pending, []byte("\n\n"))
		if i < 0 {
			break
		}
		event := fw.pending[:i+2]
		fw.pending = fw.pending[i+2:]
		if err := fw.writeEvent(event); err != nil {
			return 0, err
		}
	}
	if len(fw.pending) > maxEventBytes {
		fw.closeLocked()
		return 0, fmt.Errorf("SSE event longer than %d bytes", maxEventBytes)
	}
	return len(p), nil
}

// writeEvent writes one complete SSE event, rewriting it if it is the
// response to the fault call.
func (fw *faultWriter) writeEvent(event []byte) error {
	head, data := splitEvent(event)
	msg, err := jsonrpc.DecodeMessage(data)
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || resp.ID != fw.act.id {
		_, err := fw.w.Write(event)
		return err
	}
	msgs, err := rawResponses(resp, fw.act.takeResponse())
	if err != nil {
		return err
	}
	for _, m := range msgs {
		var b bytes.Buffer
		b.Write(head)
		b.WriteString("data: ")
		b.Write(m)
		b.WriteString("\n\n")
		if _, err := fw.w.Write(b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// splitEvent splits an SSE event into its lines other than data (kept as
// they are) and its data, the data lines joined by newlines.
func splitEvent(event []byte) (head, data []byte) {
	var datas [][]byte
	for line := range bytes.Lines(event) {
		trimmed := bytes.TrimRight(line, "\r\n")
		switch {
		case len(trimmed) == 0:
		case bytes.HasPrefix(trimmed, []byte("data:")):
			d := trimmed[len("data:"):]
			datas = append(datas, bytes.TrimPrefix(d, []byte(" ")))
		default:
			head = append(head, line...)
		}
	}
	return head, bytes.Join(datas, []byte("\n"))
}

func isEventStream(h http.Header) bool {
	ct := h.Get("Content-Type")
	return len(ct) >= len("text/event-stream") && ct[:len("text/event-stream")] == "text/event-stream"
}

// Flush makes http.ResponseController's Flush, which the SDK calls after
// every event, reach the underlying writer.
func (fw *faultWriter) Flush() {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if !fw.closed {
		http.NewResponseController(fw.w).Flush()
	}
}

// closeStream drops the POST's connection mid-stream: the status line and
// headers go out first (200, text/event-stream, as the SDK set them), so the
// client is reading an SSE stream when the connection closes under it. The
// call's response, and anything else for this stream, is then dropped.
// Where the connection cannot be taken over (HTTP/2), the stream instead
// ends without the response once the call is done.
//
// The SDK's handler (go-sdk v1.8.0) sends a call's status line and SSE
// headers only with the stream's first event, hence the explicit
// WriteHeader. A POST stream that ends, or whose connection drops, without
// the response makes a go-sdk client report "request terminated without
// response" and keep the session: the listener, the session and other
// sessions stay up.
func (fw *faultWriter) closeStream() {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	fw.closeLocked()
}

func (fw *faultWriter) closeLocked() {
	if fw.closed {
		return
	}
	fw.closed = true
	if !fw.wroteHeader {
		fw.w.WriteHeader(http.StatusOK)
	}
	rc := http.NewResponseController(fw.w)
	rc.Flush()
	if conn, _, err := rc.Hijack(); err == nil {
		conn.Close()
	}
}
