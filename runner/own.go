package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/sse"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The runner's own requests on a live session: methods the SDK does not
// know (go-sdk v1.8.0 has no tasks: tasks/get, tasks/result, tasks/cancel)
// and a tools/call with a task field, which its CallToolParams cannot
// carry. They travel on the session's own connection, so the server sees
// one client:
//
//   - over stdio, legacy SSE and in memory the tapped connection writes
//     them beside the SDK's messages and takes their responses out of the
//     stream before the SDK reads it; their ids are strings
//     ("mcpcheck-own-N") where the SDK's are numbers, so they never meet;
//   - over Streamable HTTP each is a POST of its own with the session's
//     Mcp-Session-Id and MCP-Protocol-Version, read as the raw probes read
//     theirs (a JSON body or an event stream, both bounded).
//
// A JSON-RPC error comes back as *jsonrpc.Error, so classify sees it as it
// sees the SDK's.

// ownCalls routes the responses to the runner's own requests on a tapped
// connection.
type ownCalls struct {
	mu      sync.Mutex
	seq     uint64
	waiting map[jsonrpc.ID]chan *jsonrpc.Response
}

// ownIDPrefix starts the id of every request the runner sends itself.
const ownIDPrefix = "mcpcheck-own-"

func (o *ownCalls) open() (jsonrpc.ID, chan *jsonrpc.Response) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seq++
	id, _ := jsonrpc.MakeID(ownIDPrefix + strconv.FormatUint(o.seq, 10))
	if o.waiting == nil {
		o.waiting = map[jsonrpc.ID]chan *jsonrpc.Response{}
	}
	ch := make(chan *jsonrpc.Response, 1)
	o.waiting[id] = ch
	return id, ch
}

func (o *ownCalls) drop(id jsonrpc.ID) {
	o.mu.Lock()
	delete(o.waiting, id)
	o.mu.Unlock()
}

// deliver takes a response to one of the runner's own requests out of the
// stream, and reports whether it did. A late one (its request gave up) is
// taken out too: the SDK never sent that id.
func (o *ownCalls) deliver(resp *jsonrpc.Response) bool {
	s, ok := resp.ID.Raw().(string)
	if !ok || len(s) <= len(ownIDPrefix) || s[:len(ownIDPrefix)] != ownIDPrefix {
		return false
	}
	o.mu.Lock()
	ch := o.waiting[resp.ID]
	delete(o.waiting, resp.ID)
	o.mu.Unlock()
	if ch != nil {
		ch <- resp
	}
	return true
}

// readOwn reads the next message for the SDK, taking out the responses to
// the runner's own requests on the way.
func (c *tapConn) readOwn(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if resp, ok := msg.(*jsonrpc.Response); ok && err == nil && c.own.deliver(resp) {
			continue
		}
		return msg, err
	}
}

// request sends one request on the tapped connection and waits for its
// answer, the end of ctx or the end of the connection.
func (c *tapConn) request(ctx context.Context, closed <-chan struct{}, method string, params json.RawMessage) (json.RawMessage, error) {
	id, ch := c.own.open()
	defer c.own.drop(id)
	if t := tapFrom(ctx); t != nil {
		c.mu.Lock()
		if c.ownTaps == nil {
			c.ownTaps = map[jsonrpc.ID]*tap{}
		}
		c.ownTaps[id] = t
		c.mu.Unlock()
		defer func() {
			c.mu.Lock()
			delete(c.ownTaps, id)
			c.mu.Unlock()
		}()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The write does not end with the step's deadline: a write cut off
	// there (the deadline passing between two polls' bytes) would end the
	// whole connection (see stdioConn.Write). It gets the connection's own
	// bound for a write, and the wait for the answer ends with ctx.
	if err := c.Connection.Write(context.WithoutCancel(ctx), &jsonrpc.Request{ID: id, Method: method, Params: params}); err != nil {
		return nil, err
	}
	select {
	case resp := <-ch:
		return responseResult(resp.Result, resp.Error)
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-closed:
		return nil, fmt.Errorf("%s: %w", method, mcp.ErrConnectionClosed)
	}
}

// responseResult is a response's result, or its error as *jsonrpc.Error.
func responseResult(result json.RawMessage, err error) (json.RawMessage, error) {
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			return nil, we
		}
		return nil, err
	}
	if result == nil {
		return nil, errors.New("the response has neither result nor error")
	}
	return result, nil
}

// ownHTTP makes the runner's own requests of a Streamable HTTP session:
// each a POST with the session's headers through a client of its own (the
// suite's headers, the origin check, bodies bounded by maxMessageBytes).
type ownHTTP struct {
	// answers are the fixture's client block, which answers the server's
	// requests on these POSTs' streams as the session's SDK client does on
	// its own; inbox records them.
	answers  *config.Client
	inbox    *inbox
	endpoint string
	limit    int
	session  string // Mcp-Session-Id, "" for a stateless server
	version  string // MCP-Protocol-Version
	mk       func() *http.Client
	once     sync.Once
	client   *http.Client
	mu       sync.Mutex
	seq      uint64
}

// attachOwnHTTP lets sess carry the runner's own requests over HTTP: a
// client of its own (made at the first request), closed with the session.
func (d *dialer) attachOwnHTTP(sess *session) {
	o := &ownHTTP{endpoint: d.suite.Endpoint, limit: messageLimit(d.suite), session: sess.cs.ID(), answers: d.suite.Client, inbox: sess.inbox}
	if sess.init != nil {
		o.version = sess.init.ProtocolVersion
	}
	o.mk = func() *http.Client {
		return httpClient(d.suite.Endpoint, d.sec.headers, ms2d(d.suite.InitTimeoutMs), nil, o.limit)
	}
	sess.ownHTTP = o
	abort := sess.abort
	sess.abort = func() {
		if abort != nil {
			abort()
		}
		o.mu.Lock()
		c := o.client
		o.mu.Unlock()
		if c != nil {
			abortFunc(c)()
		}
	}
}

func (o *ownHTTP) request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	o.once.Do(func() {
		c := o.mk()
		o.mu.Lock()
		o.client = c
		o.mu.Unlock()
	})
	o.mu.Lock()
	o.seq++
	id := strconv.Quote(ownIDPrefix + strconv.FormatUint(o.seq, 10))
	o.mu.Unlock()
	msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
	// The step's tap is for the SDK's call: the HTTP client would feed it
	// these responses too (and count them as duplicates). It still owns
	// the server's requests on this POST's stream (attribute).
	owner := tapFrom(ctx)
	ctx = withTap(ctx, nil)
	resp, err := o.post(ctx, msg)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %w: %v", method, mcp.ErrConnectionClosed, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound && o.session != "" {
		return nil, fmt.Errorf("%s: %w", method, mcp.ErrSessionMissing)
	}
	// The body is bounded by the client (boundedBody): a JSON body is
	// read whole, an event stream message by message until the answer.
	var found json.RawMessage
	var ferr error
	take := func(msgs [][]byte) bool {
		for _, b := range msgs {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
				Error  *jsonrpc.Error  `json:"error"`
			}
			if json.Unmarshal(b, &m) != nil {
				continue
			}
			if m.Method != "" {
				// The server's own messages on this call's stream (a task's
				// elicitation rides tasks/result): seen like any other, and
				// a request answered as the session's client would.
				o.inbox.add(m.Method, m.Params, len(m.ID) > 0, owner, nil)
				if len(m.ID) > 0 {
					o.answer(ctx, m.ID, m.Method)
				}
				continue
			}
			if string(bytes.TrimSpace(m.ID)) != id {
				continue
			}
			found, ferr = responseResult(m.Result, nilIfEmpty(m.Error))
			return true
		}
		return false
	}
	if isEventStream(resp.Header.Get("Content-Type")) {
		p := sse.Parser{Max: o.limit}
		buf := make([]byte, 32<<10)
		for {
			n, rerr := resp.Body.Read(buf)
			if n > 0 {
				msgs, _ := p.Feed(buf[:n])
				if take(msgs) {
					return found, ferr
				}
			}
			if rerr != nil {
				break
			}
		}
		if d := p.Flush(); d != nil && take([][]byte{d}) {
			return found, ferr
		}
	} else if body, rerr := io.ReadAll(resp.Body); rerr == nil && take(jsonx.Messages(body)) {
		return found, ferr
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("%s: HTTP %d without a response to the request", method, resp.StatusCode)
}

// nilIfEmpty keeps a decoded error only when it was there: a typed nil
// would read as an error.
func nilIfEmpty(e *jsonrpc.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// errNoOwnRequests is a session that cannot carry the runner's own
// requests.
var errNoOwnRequests = errors.New("this connection cannot carry requests the SDK does not make")

// request sends method with params on the session, beside the SDK's calls.
// Under 2026-07-28 a request carries its protocol version in _meta, which
// these do not: tasks there are an extension with other methods, which
// this runner does not speak yet.
func (s *session) request(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if newProtocol(s) {
		return nil, errTasksNewEra
	}
	switch {
	case s.taps != nil:
		return s.taps.request(ctx, s.closed, method, params)
	case s.ownHTTP != nil:
		return s.ownHTTP.request(ctx, method, params)
	}
	return nil, errNoOwnRequests
}

// errTasksNewEra is a task asked of a 2026-07-28 session.
var errTasksNewEra = errors.New("tasks under " + config.ProtocolVersion2026 + " (the io.modelcontextprotocol/tasks extension) are not supported yet; run the step under 2025-11-25")

// answer posts the client's answer to a server request that came on one of
// the runner's own streams: what the fixture's client block offers
// (newClient answers the same on the SDK's streams), else method not found.
func (o *ownHTTP) answer(ctx context.Context, id json.RawMessage, method string) {
	result := clientAnswer(o.answers, method)
	var body []byte
	if result == nil {
		body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"the client does not offer %s"}}`, id, method)
	} else {
		body = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
	}
	if resp, err := o.post(ctx, body); err == nil {
		io.Copy(io.Discard, resp.Body) // bounded by the client
		resp.Body.Close()
	}
}

// post sends one JSON-RPC message with the session's headers.
func (o *ownHTTP) post(ctx context.Context, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if o.session != "" {
		req.Header.Set("Mcp-Session-Id", o.session)
	}
	if o.version != "" {
		req.Header.Set("MCP-Protocol-Version", o.version)
	}
	return o.client.Do(req)
}

// clientAnswer is the result the fixture's client block gives method, or
// nil when it offers nothing for it.
func clientAnswer(c *config.Client, method string) []byte {
	if method == "ping" {
		return []byte(`{}`)
	}
	if c == nil {
		return nil
	}
	var v any
	switch {
	case method == "elicitation/create" && c.Elicitation != nil:
		e := map[string]any{"action": c.Elicitation.Action}
		if c.Elicitation.Content != nil {
			e["content"] = c.Elicitation.Content
		}
		v = e
	case method == "sampling/createMessage" && c.Sampling != nil:
		model, stop := c.Sampling.Model, c.Sampling.StopReason
		if model == "" {
			model = defaultSamplingModel
		}
		if stop == "" {
			stop = defaultStopReason
		}
		v = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": c.Sampling.Text}, "model": model, "stopReason": stop}
	case method == "roots/list" && len(c.Roots) > 0:
		roots := make([]map[string]any, len(c.Roots))
		for i, r := range c.Roots {
			roots[i] = map[string]any{"uri": r.URI}
			if r.Name != "" {
				roots[i]["name"] = r.Name
			}
		}
		v = map[string]any{"roots": roots}
	default:
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// The sampling answer's model and stop reason when the client block names
// none (newClient's too).
const (
	defaultSamplingModel = "mcpcheck-sampling"
	defaultStopReason    = "endTurn"
)
