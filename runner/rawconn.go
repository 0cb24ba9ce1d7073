package runner

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

	"github.com/mcpcheck/mcpcheck/internal/sse"
	"github.com/mcpcheck/mcpcheck/internal/stdio"
)

// A raw connection carries the protocol probes: JSON-RPC written byte for
// byte, malformed on purpose where a probe asks for it, over the runner's
// own transports (the stdio child's pipes, the endpoint's HTTP client). The
// SDK's client would refuse to send most of it, and would end its session
// on some of the answers (a batch, an id that is null), so the probes never
// go through a session's client; they get a connection of their own.

// rawMessage is one JSON-RPC message read back, decoded enough to route it.
type rawMessage struct {
	raw    []byte
	id     json.RawMessage // as sent: "null" for a parse error's response
	method string
	result json.RawMessage
	err    *rawError
	batch  []rawMessage // a JSON array: its members
	bad    bool         // not a JSON object or array
}

type rawError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func parseRawMessage(b []byte) rawMessage {
	m := rawMessage{raw: b}
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '[' {
		var items []json.RawMessage
		if json.Unmarshal(b, &items) != nil {
			m.bad = true
			return m
		}
		for _, it := range items {
			m.batch = append(m.batch, parseRawMessage(it))
		}
		return m
	}
	var v struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *rawError       `json:"error"`
	}
	if json.Unmarshal(b, &v) != nil {
		m.bad = true
		return m
	}
	m.id, m.method, m.result, m.err = v.ID, v.Method, v.Result, v.Error
	return m
}

// isResponse reports whether m answers the request with id (a JSON text).
func (m *rawMessage) isResponse(id string) bool {
	return m.method == "" && string(bytes.TrimSpace(m.id)) == id && (m.result != nil || m.err != nil)
}

// nullResponse reports whether m is a response without an id the client
// could have sent (a parse error or an invalid request), or a batch.
func (m *rawMessage) unaddressed() bool {
	if m.batch != nil || m.bad {
		return true
	}
	id := string(bytes.TrimSpace(m.id))
	return m.method == "" && (id == "" || id == "null") && (m.result != nil || m.err != nil)
}

// exchange is what came back for one probe.
type exchange struct {
	// replies are the messages that answer the probe: responses with its
	// id, and responses no request could be matched to (id null, a batch).
	replies []rawMessage
	// status is the HTTP status of the probe's POST (0 over stdio).
	status int
	// gone: the server exited (stdio) or could not be reached (HTTP).
	gone       bool
	exitStatus string
	// stuck: over stdio, not even the observer sent after the probe was
	// answered within the wait.
	stuck bool
	err   error
	// verdict is an era probe's own judgement (era.go).
	verdict *verdict
}

// reply is the first response that answers the probe, or nil.
func (e *exchange) reply() *rawMessage {
	if len(e.replies) == 0 {
		return nil
	}
	return &e.replies[0]
}

// rawConn is one raw connection to the server under test.
type rawConn interface {
	// send writes msg and collects what answers the request id (a JSON
	// text; "" when msg is not a request), waiting at most wait.
	send(ctx context.Context, msg []byte, id string, wait time.Duration) exchange
	// alive sends the observer request and reports whether any JSON-RPC
	// answer came back within wait.
	alive(ctx context.Context, wait time.Duration) (ok bool, gone bool, exitStatus string)
	close()
}

// initializeMessage is an initialize request for version.
func initializeMessage(id, version string) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpcheck","version":%q}}}`,
		id, version, Version)
}

const initializedMessage = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// observerGrace is how long a probe's answer is still waited for once the
// observer sent after it has been answered: a server that handles messages
// in order has answered the probe by then, or ignores it.
const observerGrace = 150 * time.Millisecond

// rawStdio is a raw connection to a stdio server process of its own.
type rawStdio struct {
	proc  *process
	lines chan []byte // closed when stdout ends
	mu    sync.Mutex
	seq   int
	// observer is the method that shows the server still works: ping,
	// or tools/list where the server does not know ping.
	observer string
}

// openRawStdio starts the server and, unless bare, initializes it.
func (d *dialer) openRawStdio(ctx context.Context, tmp string, bare bool) (*rawStdio, error) {
	p, err := d.start(tmp)
	if err != nil {
		return nil, err
	}
	c := &rawStdio{proc: p, lines: make(chan []byte, 64), observer: "ping"}
	go func() {
		defer close(c.lines)
		// A line over the limit is dropped (the probe sees no answer);
		// the reader never holds more than the limit of it.
		r := stdio.NewLineReader(p.Stdout, p.maxLine)
		for {
			line, err := r.ReadLine()
			if errors.Is(err, stdio.ErrLineTooLong) {
				continue
			}
			if err != nil {
				return
			}
			if len(bytes.TrimSpace(line)) > 0 {
				c.lines <- bytes.Clone(line)
			}
		}
	}()
	if bare {
		return c, nil
	}
	wait := ms2d(d.suite.InitTimeoutMs)
	ex := c.send(ctx, initializeMessage(`"mcpcheck-raw-init"`, d.version), `"mcpcheck-raw-init"`, wait)
	if r := ex.reply(); r == nil || r.result == nil {
		c.close()
		switch {
		case ex.gone:
			return nil, fmt.Errorf("the server exited during initialize (%s)", ex.exitStatus)
		case r != nil:
			return nil, fmt.Errorf("initialize: JSON-RPC error %d", r.err.Code)
		}
		return nil, fmt.Errorf("initialize: no answer within %s", wait)
	}
	c.write([]byte(initializedMessage))
	if ex := c.send(ctx, []byte(`{"jsonrpc":"2.0","id":"mcpcheck-raw-ping","method":"ping"}`), `"mcpcheck-raw-ping"`, wait); ex.reply() != nil && ex.reply().err != nil && ex.reply().err.Code == -32601 {
		c.observer = "tools/list"
	}
	return c, nil
}

// rawWriteTimeout bounds one write of a probe to a stdio server.
const rawWriteTimeout = 10 * time.Second

func (c *rawStdio) write(msg []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	// A server that died has closed its stdin: the write fails, and the
	// read side says so. One that stopped reading fails it at the
	// deadline: the probe then sees no answer.
	c.proc.Stdin.SetWriteDeadline(time.Now().Add(rawWriteTimeout))
	_, _ = c.proc.Stdin.Write(append(bytes.TrimRight(msg, "\n"), '\n'))
}

// drain drops what arrived since the last exchange: late answers to
// earlier probes and notifications.
func (c *rawStdio) drain() {
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

// send writes msg and reads until the request id is answered, the wait is
// over, or the server's output ends. A probe that is not answered at once
// may be one the server ignores: send then also asks the observer, and
// stops a moment after the observer's answer.
func (c *rawStdio) send(ctx context.Context, msg []byte, id string, wait time.Duration) exchange {
	c.drain()
	c.write(msg)
	c.seq++
	obs := fmt.Sprintf(`"mcpcheck-raw-observe-%d"`, c.seq)
	observed := false
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var grace <-chan time.Time
	var ex exchange
	// The observer goes out once the probe has had a moment: a server
	// that handles requests at once answers both in order.
	ask := time.After(50 * time.Millisecond)
	for {
		select {
		case <-ctx.Done():
			ex.err = ctx.Err()
			return ex
		case <-timer.C:
			// Not even the observer was answered: the server stopped
			// working (or is about to exit).
			ex.stuck = !observed
			return ex
		case <-grace:
			return ex
		case <-ask:
			c.write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q}`, obs, c.observer))
		case line, ok := <-c.lines:
			if !ok {
				ex.gone = c.proc.Exited(2 * time.Second)
				ex.exitStatus = c.proc.ExitStatus()
				if !ex.gone {
					ex.err = errors.New("the server closed its stdout")
				}
				return ex
			}
			m := parseRawMessage(line)
			switch {
			case id != "" && m.isResponse(id), m.unaddressed():
				ex.replies = append(ex.replies, m)
				if m.isResponse(id) {
					return ex
				}
			case m.isResponse(obs) && !observed:
				observed = true
				grace = time.After(observerGrace)
			}
		}
	}
}

// alive asks the observer and waits for any answer.
func (c *rawStdio) alive(ctx context.Context, wait time.Duration) (bool, bool, string) {
	c.seq++
	id := fmt.Sprintf(`"mcpcheck-raw-alive-%d"`, c.seq)
	if c.proc.Exited(0) {
		return false, true, c.proc.ExitStatus()
	}
	ex := c.sendOnly(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q}`, id, c.observer), id, wait)
	return ex.reply() != nil, ex.gone, ex.exitStatus
}

// sendOnly is send without the observer: it stops at the first response
// to id.
func (c *rawStdio) sendOnly(ctx context.Context, msg []byte, id string, wait time.Duration) exchange {
	c.drain()
	c.write(msg)
	return c.read(ctx, id, wait, true)
}

// watch reads for up to d and returns the responses to id that arrived.
func (c *rawStdio) watch(ctx context.Context, id string, d time.Duration) []rawMessage {
	return c.read(ctx, id, d, false).replies
}

// read collects the responses to id for up to wait (until the first, with
// first), noting a server whose output ended.
func (c *rawStdio) read(ctx context.Context, id string, wait time.Duration, first bool) exchange {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	var ex exchange
	for {
		select {
		case <-ctx.Done():
			ex.err = ctx.Err()
			return ex
		case <-timer.C:
			return ex
		case line, ok := <-c.lines:
			if !ok {
				ex.gone = c.proc.Exited(2 * time.Second)
				ex.exitStatus = c.proc.ExitStatus()
				return ex
			}
			if m := parseRawMessage(line); m.isResponse(id) {
				ex.replies = append(ex.replies, m)
				if first {
					return ex
				}
			}
		}
	}
}

func (c *rawStdio) close() { c.proc.Close() }

// rawHTTP is a raw Streamable HTTP session: POSTs with the suite's
// headers through the runner's HTTP client (no proxy, no redirects).
type rawHTTP struct {
	client   *http.Client
	endpoint string
	session  string // Mcp-Session-Id, "" for a stateless server
	version  string // the negotiated version, for MCP-Protocol-Version
	seq      int
	limit    int // maxMessageBytes: the client cuts a body there, see boundedBody
}

// openRawHTTP initializes a new HTTP session.
func (d *dialer) openRawHTTP(ctx context.Context) (*rawHTTP, error) {
	c := &rawHTTP{client: httpClient(d.suite.Endpoint, d.sec.headers, ms2d(d.suite.InitTimeoutMs), nil, messageLimit(d.suite)), endpoint: d.suite.Endpoint, limit: messageLimit(d.suite)}
	wait := ms2d(d.suite.InitTimeoutMs)
	resp, ex := c.post(ctx, initializeMessage(`"mcpcheck-raw-init"`, d.version), `"mcpcheck-raw-init"`, nil, wait)
	r := ex.reply()
	if ex.err != nil || r == nil || r.result == nil {
		switch {
		case ex.err != nil:
			return nil, fmt.Errorf("initialize: %v", ex.err)
		case r != nil && r.err != nil:
			return nil, fmt.Errorf("initialize: JSON-RPC error %d", r.err.Code)
		}
		return nil, fmt.Errorf("initialize: HTTP %d without a result", ex.status)
	}
	c.session = resp.Get("Mcp-Session-Id")
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(r.result, &res)
	c.version = res.ProtocolVersion
	c.post(ctx, []byte(initializedMessage), "", nil, wait)
	return c, nil
}

// sessionlessHTTP is a raw connection to a server of 2026-07-28: no
// initialize, no session; its requests name the version themselves.
func (d *dialer) sessionlessHTTP() *rawHTTP {
	return &rawHTTP{client: httpClient(d.suite.Endpoint, d.sec.headers, ms2d(d.suite.InitTimeoutMs), nil, messageLimit(d.suite)), endpoint: d.suite.Endpoint,
		limit: messageLimit(d.suite), version: eraVersion}
}

// headers are the protocol headers of a request on the session; a probe
// changes them through edit.
func (c *rawHTTP) headers() http.Header {
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

// post sends one POST and reads its answer until the response to id (or
// the end of the body, or the wait).
func (c *rawHTTP) post(ctx context.Context, body []byte, id string, edit func(http.Header), wait time.Duration) (http.Header, exchange) {
	return c.do(ctx, http.MethodPost, body, id, edit, wait)
}

func (c *rawHTTP) do(ctx context.Context, method string, body []byte, id string, edit func(http.Header), wait time.Duration) (http.Header, exchange) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	var ex exchange
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint, bytes.NewReader(body))
	if err != nil {
		ex.err = err
		return nil, ex
	}
	req.Header = c.headers()
	if edit != nil {
		edit(req.Header)
	}
	resp, err := c.client.Do(req)
	if err != nil {
		ex.err = err
		if ctx.Err() == nil {
			ex.gone = true
		}
		return nil, ex
	}
	defer resp.Body.Close()
	ex.status = resp.StatusCode
	ctype := resp.Header.Get("Content-Type")
	stream := strings.HasPrefix(ctype, "text/event-stream")
	p := sse.Parser{Max: c.limit}
	var whole bytes.Buffer
	buf := make([]byte, 32<<10)
	found := func(msgs [][]byte) bool {
		for _, b := range msgs {
			m := parseRawMessage(b)
			if m.bad {
				continue // an HTTP error's text, not a message
			}
			if (id != "" && m.isResponse(id)) || m.unaddressed() {
				ex.replies = append(ex.replies, m)
				if id != "" && m.isResponse(id) {
					return true
				}
			}
		}
		return false
	}
	for {
		n, err := resp.Body.Read(buf)
		if stream && n > 0 {
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
		found(jsonMessages(whole.Bytes()))
	}
	return resp.Header, ex
}

func (c *rawHTTP) send(ctx context.Context, msg []byte, id string, wait time.Duration) exchange {
	_, ex := c.post(ctx, msg, id, nil, wait)
	return ex
}

func (c *rawHTTP) alive(ctx context.Context, wait time.Duration) (bool, bool, string) {
	c.seq++
	id := fmt.Sprintf(`"mcpcheck-raw-alive-%d"`, c.seq)
	_, ex := c.post(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"ping"}`, id), id, nil, wait)
	return ex.reply() != nil, ex.gone, ""
}

// close deletes the session.
func (c *rawHTTP) close() {
	if c.session == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.do(ctx, http.MethodDelete, nil, "", nil, 5*time.Second)
}
