package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/sse"
	"github.com/mcpcheck/mcpcheck/internal/stdio"
)

// A raw connection carries the protocol probes: JSON-RPC written byte for
// byte, malformed on purpose where a probe asks for it, over the runner's
// own transports (the stdio child's pipes, the endpoint's HTTP client). The
// SDK's client would refuse to send most of it, and would end its session
// on some of the answers (a batch, an id that is null), so the probes never
// go through a session's client; they get a connection of their own.

// Message is one JSON-RPC message read back, decoded enough to route it.
type Message struct {
	Raw    []byte
	ID     json.RawMessage // as sent: "null" for a parse error's response
	Method string
	Result json.RawMessage
	Err    *RPCError
	Batch  []Message // a JSON array: its members
	Bad    bool      // not a JSON object or array
}

type RPCError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func Parse(b []byte) Message {
	m := Message{Raw: b}
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(b, &items) != nil {
			m.Bad = true
			return m
		}
		for _, it := range items {
			m.Batch = append(m.Batch, Parse(it))
		}
		return m
	}
	var v struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *RPCError       `json:"error"`
	}
	if json.Unmarshal(b, &v) != nil {
		m.Bad = true
		return m
	}
	m.ID, m.Method, m.Result, m.Err = v.ID, v.Method, v.Result, v.Error
	return m
}

// isResponse reports whether m answers the request with id (a JSON text).
func (m *Message) IsResponse(id string) bool {
	return m.Method == "" && string(bytes.TrimSpace(m.ID)) == id && (m.Result != nil || m.Err != nil)
}

// nullResponse reports whether m is a response without an id the client
// could have sent (a parse error or an invalid request), or a batch.
func (m *Message) Unaddressed() bool {
	if m.Batch != nil || m.Bad {
		return true
	}
	id := string(bytes.TrimSpace(m.ID))
	return m.Method == "" && (id == "" || id == "null") && (m.Result != nil || m.Err != nil)
}

// Exchange is what came back for one probe.
type Exchange struct {
	// Replies are the messages that answer the probe: responses with its
	// id, and responses no request could be matched to (id null, a batch).
	Replies []Message
	// Status is the HTTP status of the probe's POST (0 over stdio).
	Status int
	// Gone: the server exited (stdio) or could not be reached (HTTP).
	Gone       bool
	ExitStatus string
	// Stuck: over stdio, not even the observer sent after the probe was
	// answered within the wait.
	Stuck bool
	Err   error
	// SSEHead is the start of the answer's body when it was an SSE stream
	// (at most sseHeadMax bytes; nil for any other answer).
	SSEHead []byte
	// ProgressAfterResult counts the cancellation probe's progress
	// notifications (stdio) that came after the call's own (late) result.
	ProgressAfterResult int
	// ProgressAfterCancel counts the cancellation probe's progress
	// notifications that came before any result, after the server had
	// answered the observer sent right after notifications/cancelled, and
	// within ProgressWindow of the cancellation (see progress.go);
	// ProgressInFlight those that came before that answer (sent, maybe,
	// before the server read the cancellation: not judged).
	ProgressAfterCancel, ProgressInFlight int
	// verdict is a probe of 2026-07-28's own judgement (era.go).
	verdict *Verdict
}

// reply is the first response that answers the probe, or nil.
func (e *Exchange) Reply() *Message {
	if len(e.Replies) == 0 {
		return nil
	}
	return &e.Replies[0]
}

// Conn is one raw connection to the server under test.
type Conn interface {
	// Send writes msg and collects what answers the request id (a JSON
	// text; "" when msg is not a request), waiting at most wait.
	Send(ctx context.Context, msg []byte, id string, wait time.Duration) Exchange
	// Alive sends the observer request and reports whether any JSON-RPC
	// answer came back within wait.
	Alive(ctx context.Context, wait time.Duration) (ok bool, gone bool, exitStatus string)
	Close()
}

// Hello is what a raw connection's initialize says: the protocol version
// it asks for, and mcpcheck's own version as the client's.
type Hello struct {
	Version, Client string
}

// initializeMessage is an initialize request.
func initializeMessage(id string, h Hello) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpcheck","version":%q}}}`,
		id, h.Version, h.Client)
}

const initializedMessage = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// observerGrace is how long a probe's answer is still waited for once the
// observer sent after it has been answered: a server that handles messages
// in order has answered the probe by then, or ignores it.
const observerGrace = 150 * time.Millisecond

// Stdio is a raw connection to a stdio server process of its own.
type Stdio struct {
	proc  *stdio.Process
	lines chan []byte // closed when stdout ends
	mu    sync.Mutex
	seq   int
	// observer is the method that shows the server still works: ping,
	// or tools/list where the server does not know ping.
	observer string
	// starting bounds the first Send's wait for a new process to read
	// (see Starting); 0 once it has.
	starting time.Duration
}

// NewStdio reads p's stdout as lines of at most maxLine bytes (a longer
// one is dropped: the probe sees no answer, and the reader never holds
// more than the limit of it). Lines that are not JSON-RPC ([stdio.Noise])
// go to noise, when set, instead. The connection has not initialized.
func NewStdio(p *stdio.Process, maxLine int, noise func(line []byte)) *Stdio {
	c := &Stdio{proc: p, lines: make(chan []byte, 64), observer: "ping"}
	go func() {
		defer close(c.lines)
		r := stdio.NewLineReader(p.Stdout, maxLine)
		for {
			line, err := r.ReadLine()
			if errors.Is(err, stdio.ErrLineTooLong) {
				continue
			}
			if err != nil {
				return
			}
			switch {
			case len(bytes.TrimSpace(line)) == 0:
			case stdio.Noise(line):
				// Not JSON-RPC at all (a banner, a log line): skipped,
				// as a client skips it, and handed to noise.
				if noise != nil {
					noise(line)
				}
			default:
				c.lines <- bytes.Clone(line)
			}
		}
	}()
	return c
}

// Initialize makes the handshake, waiting at most wait for each answer,
// and learns the observer (tools/list where the server does not know
// ping). On failure it closes the connection.
func (c *Stdio) Initialize(ctx context.Context, h Hello, wait time.Duration) error {
	ex := c.Send(ctx, initializeMessage(`"mcpcheck-raw-init"`, h), `"mcpcheck-raw-init"`, wait)
	if r := ex.Reply(); r == nil || r.Result == nil {
		c.Close()
		switch {
		case ex.Gone:
			return fmt.Errorf("the server exited during initialize (%s)", ex.ExitStatus)
		case r != nil:
			return fmt.Errorf("initialize: JSON-RPC error %d", r.Err.Code)
		}
		return fmt.Errorf("initialize: no answer within %s", wait)
	}
	c.Write([]byte(initializedMessage))
	if ex := c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-raw-ping","method":"ping"}`), `"mcpcheck-raw-ping"`, wait); ex.Reply() != nil && ex.Reply().Err != nil && ex.Reply().Err.Code == -32601 {
		c.observer = "tools/list"
	}
	return nil
}

// Observer is the method the connection asks to see the server works.
func (c *Stdio) Observer() string { return c.observer }

// rawWriteTimeout bounds one write of a probe to a stdio server.
const rawWriteTimeout = 10 * time.Second

func (c *Stdio) Write(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A server that died has closed its stdin: the write fails, and the
	// read side says so. One that stopped reading fails it at the
	// deadline: the probe then sees no answer.
	c.proc.Stdin.SetWriteDeadline(time.Now().Add(rawWriteTimeout))
	_, _ = c.proc.Stdin.Write(append(bytes.TrimRight(msg, "\n"), '\n'))
}

// Drain drops what arrived since the last exchange: late answers to
// earlier probes and notifications.
func (c *Stdio) Drain() {
	for {
		select {
		case _, ok := <-c.lines:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// Send writes msg and reads until the request id is answered, the wait is
// over, or the server's output ends. A probe that is not answered at once
// may be one the server ignores: send then also asks the observer, and
// stops a moment after the observer's answer.
func (c *Stdio) Send(ctx context.Context, msg []byte, id string, wait time.Duration) Exchange {
	c.Drain()
	c.Write(msg)
	if c.starting > 0 {
		c.awaitRead(ctx, c.starting)
		c.starting = 0
	}
	c.seq++
	obs := fmt.Sprintf(`"mcpcheck-raw-observe-%d"`, c.seq)
	observed := false
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var cpu uint64
	c.proc.Worked(&cpu)
	extra := time.Duration(0)
	var grace <-chan time.Time
	var ex Exchange
	// The observer goes out once the probe has had a moment: a server
	// that handles requests at once answers both in order.
	ask := time.After(50 * time.Millisecond)
	for {
		select {
		case <-ctx.Done():
			ex.Err = ctx.Err()
			return ex
		case <-timer.C:
			if !observed && extra < busyExtra && c.proc.Worked(&cpu) {
				extra += busyStep // slow, not silent (see start.go)
				timer.Reset(busyStep)
				continue
			}
			// Not even the observer was answered: the server stopped
			// working (or is about to exit).
			ex.Stuck = !observed
			return ex
		case <-grace:
			return ex
		case <-ask:
			c.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q}`, obs, c.observer))
		case line, ok := <-c.lines:
			if !ok {
				c.ended(&ex)
				if !ex.Gone {
					ex.Err = errors.New("the server closed its stdout")
				}
				return ex
			}
			m := Parse(line)
			switch {
			case id != "" && m.IsResponse(id), m.Unaddressed():
				ex.Replies = append(ex.Replies, m)
				if m.IsResponse(id) {
					return ex
				}
			case m.IsResponse(obs) && !observed:
				observed = true
				grace = time.After(observerGrace)
			}
		}
	}
}

// Alive asks the observer and waits for any answer.
func (c *Stdio) Alive(ctx context.Context, wait time.Duration) (bool, bool, string) {
	c.seq++
	id := fmt.Sprintf(`"mcpcheck-raw-alive-%d"`, c.seq)
	if c.proc.Exited(0) {
		return false, true, c.proc.ExitStatus()
	}
	ex := c.sendOnly(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q}`, id, c.observer), id, wait)
	return ex.Reply() != nil, ex.Gone, ex.ExitStatus
}

// sendOnly is send without the observer: it stops at the first response
// to id.
func (c *Stdio) sendOnly(ctx context.Context, msg []byte, id string, wait time.Duration) Exchange {
	c.Drain()
	c.Write(msg)
	return c.read(ctx, id, wait, true)
}

// Watch reads for up to d and returns the responses to id that arrived.
func (c *Stdio) Watch(ctx context.Context, id string, d time.Duration) []Message {
	return c.read(ctx, id, d, false).Replies
}

// read collects the responses to id for up to wait (until the first, with
// first), noting a server whose output ended.
func (c *Stdio) read(ctx context.Context, id string, wait time.Duration, first bool) Exchange {
	return c.readUntil(ctx, wait, func(line []byte, ex *Exchange) bool {
		if m := Parse(line); m.IsResponse(id) {
			ex.Replies = append(ex.Replies, m)
			return first
		}
		return false
	})
}

// readUntil reads the server's lines for up to wait, handing each to take
// until take says it is done, the context ends, or the server's output
// ends (noted in the exchange): the one reading loop of the probes that
// only listen.
func (c *Stdio) readUntil(ctx context.Context, wait time.Duration, take func(line []byte, ex *Exchange) (done bool)) Exchange {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var ex Exchange
	for {
		select {
		case <-ctx.Done():
			ex.Err = ctx.Err()
			return ex
		case <-timer.C:
			return ex
		case line, ok := <-c.lines:
			if !ok {
				c.ended(&ex)
				return ex
			}
			if take(line, &ex) {
				return ex
			}
		}
	}
}

func (c *Stdio) Close() { c.proc.Close() }

// ended notes in ex how the server's output ended: its exit (waited for a
// moment) and exit status.
func (c *Stdio) ended(ex *Exchange) {
	ex.Gone = c.proc.Exited(2 * time.Second)
	ex.ExitStatus = c.proc.ExitStatus()
}

// HTTP is a raw Streamable HTTP session: POSTs with the suite's
// headers through the runner's HTTP client (no proxy, no redirects).
type HTTP struct {
	client   *http.Client
	endpoint string
	session  string // Mcp-Session-Id, "" for a stateless server
	version  string // the negotiated version, for MCP-Protocol-Version
	seq      int
	limit    int // maxMessageBytes: the client cuts a body there, see boundedBody
}

// OpenHTTP initializes a new HTTP session at endpoint, through client
// (which bounds every body at limit bytes).
func OpenHTTP(ctx context.Context, client *http.Client, endpoint string, limit int, h Hello, wait time.Duration) (*HTTP, error) {
	c := &HTTP{client: client, endpoint: endpoint, limit: limit}
	resp, ex := c.Post(ctx, initializeMessage(`"mcpcheck-raw-init"`, h), `"mcpcheck-raw-init"`, nil, wait)
	r := ex.Reply()
	if ex.Err != nil || r == nil || r.Result == nil {
		switch {
		case ex.Err != nil:
			return nil, fmt.Errorf("initialize: %v", ex.Err)
		case r != nil && r.Err != nil:
			return nil, fmt.Errorf("initialize: JSON-RPC error %d", r.Err.Code)
		}
		return nil, fmt.Errorf("initialize: HTTP %d without a result", ex.Status)
	}
	c.session = resp.Get("Mcp-Session-Id")
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(r.Result, &res)
	c.version = res.ProtocolVersion
	c.Post(ctx, []byte(initializedMessage), "", nil, wait)
	return c, nil
}

// Session is the session id the server issued ("" when stateless).
func (c *HTTP) Session() string { return c.session }

// Forget returns a connection to the session id on the same endpoint, for
// closing a session a probe's initialize made.
func (c *HTTP) Forget(session string) *HTTP {
	return &HTTP{client: c.client, endpoint: c.endpoint, session: session, limit: c.limit}
}

// headers are the protocol headers of a request on the session; a probe
// changes them through edit.
func (c *HTTP) headers() http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		h.Set("Mcp-Session-Id", c.session)
	}
	if c.version != "" {
		h.Set("MCP-Protocol-Version", c.version)
	}
	return h
}

// Post sends one POST and reads its answer until the response to id (or
// the end of the body, or the wait).
func (c *HTTP) Post(ctx context.Context, body []byte, id string, edit func(http.Header), wait time.Duration) (http.Header, Exchange) {
	return c.Do(ctx, http.MethodPost, body, id, edit, wait)
}

func (c *HTTP) Do(ctx context.Context, method string, body []byte, id string, edit func(http.Header), wait time.Duration) (http.Header, Exchange) {
	return c.do(ctx, method, body, id, edit, wait, nil)
}

// do is Do, handing see each message of an SSE answer as it arrives
// (nil: none), up to the response to id.
func (c *HTTP) do(ctx context.Context, method string, body []byte, id string, edit func(http.Header), wait time.Duration, see func(msg []byte)) (http.Header, Exchange) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var ex Exchange
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint, bytes.NewReader(body))
	if err != nil {
		ex.Err = err
		return nil, ex
	}
	req.Header = c.headers()
	if edit != nil {
		edit(req.Header)
		if h := req.Header.Get("Host"); h != "" {
			// net/http sends req.Host, never a Host header.
			req.Host = h
			req.Header.Del("Host")
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		ex.Err = err
		if ctx.Err() == nil {
			ex.Gone = true
		}
		return nil, ex
	}
	defer resp.Body.Close()
	ex.Status = resp.StatusCode
	ctype := resp.Header.Get("Content-Type")
	stream := strings.HasPrefix(ctype, "text/event-stream")
	p := sse.Parser{Max: c.limit}
	var whole bytes.Buffer
	buf := make([]byte, 32<<10)
	found := func(msgs [][]byte) bool {
		for _, b := range msgs {
			if see != nil {
				see(b)
			}
			m := Parse(b)
			if m.Bad {
				continue // an HTTP error's text, not a message
			}
			if (id != "" && m.IsResponse(id)) || m.Unaddressed() {
				ex.Replies = append(ex.Replies, m)
				if id != "" && m.IsResponse(id) {
					return true
				}
			}
		}
		return false
	}
	for {
		n, err := resp.Body.Read(buf)
		if stream && n > 0 {
			if len(ex.SSEHead) < sseHeadMax {
				ex.SSEHead = append(ex.SSEHead, buf[:min(n, sseHeadMax-len(ex.SSEHead))]...)
			}
			msgs, _ := p.Feed(buf[:n]) // the body ends at the bound with sse.ErrOversized
			if found(msgs) {
				return resp.Header, ex
			}
		} else if n > 0 {
			whole.Write(buf[:n]) // bounded: the client cuts the body at c.limit
		}
		if err != nil {
			break
		}
	}
	if stream {
		if d := p.Flush(); d != nil {
			found([][]byte{d})
		}
	} else if whole.Len() > 0 {
		found(jsonx.Messages(whole.Bytes()))
	}
	return resp.Header, ex
}

func (c *HTTP) Send(ctx context.Context, msg []byte, id string, wait time.Duration) Exchange {
	_, ex := c.Post(ctx, msg, id, nil, wait)
	return ex
}

func (c *HTTP) Alive(ctx context.Context, wait time.Duration) (bool, bool, string) {
	c.seq++
	id := fmt.Sprintf(`"mcpcheck-raw-alive-%d"`, c.seq)
	msg, edit := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id), func(http.Header) {}
	if c.version >= EraVersion {
		// 2026-07-28 has no ping: server/discover, which every server of
		// the revision answers, with the request's _meta and headers.
		msg = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":%q,"io.modelcontextprotocol/clientCapabilities":{}}}}`, id, c.version)
		edit = func(h http.Header) { h.Set("Mcp-Method", "server/discover") }
	}
	_, ex := c.Post(ctx, msg, id, edit, wait)
	return ex.Reply() != nil, ex.Gone, ""
}

// Close deletes the session.
func (c *HTTP) Close() {
	if c.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Do(ctx, http.MethodDelete, nil, "", nil, 5*time.Second)
}
