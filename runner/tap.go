package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tap captures the raw bytes of one request's result as they came off the
// wire. The SDK decodes results into float64-number maps, which would round
// integers beyond 2^53 and hide what the server really sent; assertions,
// $ref values and size probes read the tapped bytes instead.
//
// The tap travels in the call's context. Over stdio (and in memory) the
// runner's connection wrapper sees the request's id on Write and the
// matching response on Read. Over HTTP the connection cannot be wrapped
// without losing the SDK's session hooks, so the HTTP client's RoundTripper
// copies the POST's response body, JSON or event stream, and the response
// is picked out of it afterwards.
type tap struct {
	mu     sync.Mutex
	result json.RawMessage // the response's "result" member
	got    bool

	// HTTP only: the POST response.
	body        bytes.Buffer
	bodyCut     bool
	contentType string
}

type tapKey struct{}

// maxTapBody bounds the HTTP body kept per call.
const maxTapBody = 64 << 20

func withTap(ctx context.Context, t *tap) context.Context {
	return context.WithValue(ctx, tapKey{}, t)
}

func tapFrom(ctx context.Context) *tap {
	t, _ := ctx.Value(tapKey{}).(*tap)
	return t
}

func (t *tap) setResult(raw json.RawMessage) {
	t.mu.Lock()
	if !t.got {
		t.result, t.got = raw, true
	}
	t.mu.Unlock()
}

// Result returns the raw result, or nil if none was captured.
func (t *tap) Result() json.RawMessage {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.got {
		return t.result
	}
	if t.body.Len() == 0 || t.bodyCut {
		return nil
	}
	raw := firstResult(t.contentType, t.body.Bytes())
	if raw != nil {
		t.result, t.got = raw, true
	}
	return raw
}

// firstResult finds the first JSON-RPC response with a result in an HTTP
// response body: a JSON object or batch, or a text/event-stream whose
// message events carry JSON-RPC messages. The first wins, as in the SDK.
func firstResult(contentType string, body []byte) json.RawMessage {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "text/event-stream" {
		var data []byte
		flush := func() json.RawMessage {
			defer func() { data = data[:0] }()
			return resultOf(data)
		}
		sc := bufio.NewScanner(bytes.NewReader(body))
		sc.Buffer(make([]byte, 64<<10), maxTapBody)
		for sc.Scan() {
			line := sc.Bytes()
			switch {
			case len(line) == 0:
				if r := flush(); r != nil {
					return r
				}
			case bytes.HasPrefix(line, []byte("data:")):
				if len(data) > 0 {
					data = append(data, '\n')
				}
				data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
			}
		}
		return flush()
	}
	return resultOf(body)
}

// resultOf returns the "result" member of a JSON-RPC response (or of the
// first response carrying one in a batch).
func resultOf(msg []byte) json.RawMessage {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return nil
	}
	if msg[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(msg, &batch) != nil {
			return nil
		}
		for _, m := range batch {
			if r := resultOf(m); r != nil {
				return r
			}
		}
		return nil
	}
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &resp) != nil || len(resp.Result) == 0 || len(resp.Error) > 0 {
		return nil
	}
	return resp.Result
}

// tapConn wraps a stdio or in-memory connection and feeds taps.
type tapConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]*tap
}

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if t := tapFrom(ctx); t != nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending[req.ID] = t
			c.mu.Unlock()
		}
	}
	return c.Connection.Write(ctx, msg)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		t := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if t != nil && resp.Error == nil {
			t.setResult(resp.Result)
		}
	}
	return msg, err
}

// tapTransport wraps a Transport's connections in tapConn.
type tapTransport struct{ inner mcp.Transport }

func (t tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, pending: map[jsonrpc.ID]*tap{}}, nil
}

// tapBody copies an HTTP response body into the request's tap as the SDK
// reads it.
type tapBody struct {
	io.ReadCloser
	t *tap
}

func (b *tapBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.t.mu.Lock()
		if b.t.body.Len()+n > maxTapBody {
			b.t.bodyCut = true
		} else {
			b.t.body.Write(p[:n])
		}
		b.t.mu.Unlock()
	}
	return n, err
}

func tapResponse(req *http.Request, resp *http.Response) {
	t := tapFrom(req.Context())
	if t == nil || req.Method != http.MethodPost || resp == nil || resp.Body == nil {
		return
	}
	t.mu.Lock()
	t.contentType = resp.Header.Get("Content-Type")
	t.mu.Unlock()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		resp.Body = &tapBody{ReadCloser: resp.Body, t: t}
	}
}
