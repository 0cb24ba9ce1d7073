package demo

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionIdleTimeout closes a Streamable HTTP session, and drops its
// household, when the client has sent nothing for this long. It bounds the
// memory held for clients that go away without a DELETE.
const sessionIdleTimeout = 30 * time.Minute

// ServeStdio serves one MCP session as newline-delimited JSON-RPC, reading
// requests from in and writing responses to out; nothing else is written to
// out. Every request read before in ends is answered (within a few seconds)
// before ServeStdio returns, so piping a fixed set of requests into the
// server works. A line that is not one JSON-RPC 2.0 message is answered
// with an error and the session goes on (the protocol guard, protocol.go;
// with opts.ProtocolDefects such input ends the session, as the SDK has
// it). It returns nil when the client closes in (EOF), ctx.Err() when ctx
// ends first, and otherwise the error that ended the session. It closes
// neither in nor out.
//
// With opts.Faults it serves the stdio fault profile. Its disconnect tool
// makes ServeStdio return nil at once, and its crash tool ends the whole
// process (os.Exit(3)) after a line on os.Stderr. With opts.Defects, a
// parse_date call without a date likewise ends the process (os.Exit(2)).
//
// A 2026-07-28 client, which starts with server/discover and carries the
// protocol version in every request, gets 2026-07-28 here: all requests of
// one connection belong to one server session, so the household persists
// from call to call.
//
// If ctx ends while a read from in is blocked, that read is abandoned rather
// than interrupted (the SDK cannot unblock it), so in should not be reused.
func ServeStdio(ctx context.Context, opts Options, in io.Reader, out io.Writer) error {
	return serveStdio(ctx, opts, in, out, os.Stderr)
}

// serveStdio is ServeStdio with the crash tool writing to stderr.
func serveStdio(ctx context.Context, opts Options, in io.Reader, out io.Writer, stderr io.Writer) error {
	s, _, f := buildServer(opts, stdioTransport)
	if f != nil {
		f.stderr = stderr
	}
	if opts.ProtocolDefects {
		in, out = eraDefectStdio(in, out)
		in, out = defectStdio(in, out)
	} else {
		lw := &lockedWriter{w: out}
		in, out = guardStdio(in, lw), lw
	}
	if opts.Tasks {
		store, lw := newTaskStore(opts.ProtocolDefects), &lockedWriter{w: out}
		if opts.Ask {
			store.asker = &taskAsker{out: lw}
		}
		in, out = taskStdio(ctx, store, in, lw)
	}
	return runStdio(ctx, s, f, in, out)
}

// runStdio serves s over stdio, with the stdio fault layer when f is not nil.
func runStdio(ctx context.Context, s *mcp.Server, f *faults, in io.Reader, out io.Writer) error {
	var t mcp.Transport = &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}}
	if f != nil {
		t = &rawStdioTransport{in: in, out: out, acts: f.acts}
	}
	conn := &answerBeforeEOF{Transport: t}
	// This is mcp.Server.Run without its logging, which reports a cancelled
	// ctx, the normal way to stop, at level ERROR.
	ss, err := s.Connect(ctx, conn, nil)
	if err != nil {
		return err
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		if errors.Is(err, errDisconnected) {
			return nil
		}
		return err
	case <-ctx.Done():
		// Ending the input first makes the SDK cancel the calls in flight;
		// the session's Close would otherwise wait for them, hangs included.
		conn.close()
		ss.Close()
		<-ended
		return ctx.Err()
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// eofGrace bounds how long the end of stdio input is held back for requests
// still being answered.
const eofGrace = 5 * time.Second

// answerBeforeEOF is a transport whose connections report the end of input
// only once every request already read has been answered, or after eofGrace.
//
// The go-sdk (v1.8.0, internal/jsonrpc2) treats a read error as the end of
// the connection at once: responses not yet written are dropped, so a client
// that writes its requests and closes stdin gets no answers. Holding back the
// EOF keeps the connection open until they are out.
//
// Cost of the wrapper: the SDK's unexported session-state hook on its stdio
// connection is hidden, and that hook only serves to refuse JSON-RPC batches
// once 2025-06-18 or later is negotiated. Through the wrapper such a batch is
// answered instead of ending the session.
//
// Calls that are never answered unless cancelled (subscriptions/listen, the
// hang and response_after_cancellation fault tools, and a search_notes of
// the defects profile that hangs) are not waited for, and neither is
// anything after the disconnect fault tool.
type answerBeforeEOF struct {
	mcp.Transport
	conn *drainingConn // set by Connect
}

func (t *answerBeforeEOF) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &drainingConn{
		Connection: c,
		pending:    make(map[jsonrpc.ID]bool),
		answered:   make(chan struct{}, 1),
		closed:     make(chan struct{}),
	}
	return t.conn, nil
}

// close closes the connection, if Connect made one.
func (t *answerBeforeEOF) close() {
	if t.conn != nil {
		t.conn.Close()
	}
}

type drainingConn struct {
	mcp.Connection
	mu        sync.Mutex
	pending   map[jsonrpc.ID]bool // calls read and not yet answered
	answered  chan struct{}       // signalled after each response is written
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		// subscriptions/listen (2026-07-28) stays open until cancelled, so it
		// is never waited for.
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && req.Method != "subscriptions/listen" && !neverAnswered(toolCallName(req)) && !searchHangs(req) {
			c.mu.Lock()
			c.pending[req.ID] = true
			c.mu.Unlock()
		}
		return msg, nil
	}
	if errors.Is(err, errDisconnected) {
		return nil, err
	}
	grace := time.NewTimer(eofGrace)
	defer grace.Stop()
	for c.waiting() {
		select {
		case <-c.answered:
		case <-grace.C:
			return nil, err
		case <-c.closed:
			return nil, err
		case <-ctx.Done():
			return nil, err
		}
	}
	return nil, err
}

func (c *drainingConn) waiting() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending) > 0
}

func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *drainingConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// Handler returns an http.Handler serving the demo over Streamable HTTP at
// the path /mcp (every other path is 404). Sessions are stateful: each
// Mcp-Session-Id has its own household, dropped when the client deletes the
// session or after 30 minutes without a request. Requests that reach a
// loopback address with a non-loopback Host header are refused (the SDK's
// DNS rebinding protection).
//
// With opts.Faults it serves the Streamable HTTP fault profile, and with
// opts.Defects the defects profile.
//
// Progress and log messages of a call go on that call's own stream; a
// resources/updated goes on the session's standalone stream (GET /mcp), as
// the SDK sends notifications that belong to no request.
//
// A client asking for protocol 2026-07-28 negotiates 2025-11-25 here.
// go-sdk v1.8.0 serves 2026-07-28 over Streamable HTTP only from a handler
// with StreamableHTTPOptions.Stateless set, which runs every POST in a fresh
// temporary session with no Mcp-Session-Id (a commit after a proposal then
// fails with "unknown proposal"; TestStatelessHTTPLosesState records it).
// 2026-07-28 carries no session of its own, so state could only persist if
// the tools took a household handle as an argument, which would change
// their contract. Handler is therefore stateful, and its server/discover
// answer lists only 2025-11-25 and older (the SDK's
// StreamableServerTransport reports that it cannot serve 2026-07-28 when
// stateful): a go-sdk client asking for 2026-07-28 falls back to initialize
// and negotiates 2025-11-25, and its household persists under the
// Mcp-Session-Id. A request that carries 2026-07-28 without that fallback
// is refused by the SDK with a JSON-RPC error of code
// [mcp.CodeUnsupportedProtocolVersion] listing the supported versions.
func Handler(opts Options) http.Handler {
	return newHTTPHandler(opts)
}

// httpHandler is Handler's http.Handler, with what serveHTTP needs to shut
// it down promptly.
type httpHandler struct {
	http.Handler
	faults *faultHandler // nil without the fault profile
}

// shutdown stops the fault calls in flight (hangs, delays), whose POSTs
// would otherwise hold a graceful shutdown until its deadline.
func (h *httpHandler) shutdown() {
	if h.faults != nil {
		h.faults.shutdown()
	}
}

func newHTTPHandler(opts Options) *httpHandler {
	s, _, f := buildServer(opts, httpTransport)
	return handlerFor(s, f, opts)
}

// handlerFor serves s at /mcp, with the fault layer in front of the SDK's
// handler when f is not nil.
func handlerFor(s *mcp.Server, f *faults, opts Options) *httpHandler {
	hopts := &mcp.StreamableHTTPOptions{
		SessionTimeout: sessionIdleTimeout,
		Logger:         opts.Logger,
		Stateless:      opts.Stateless,
	}
	honestStreams(hopts, opts, f != nil)
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, hopts)
	var fh *faultHandler
	if f != nil {
		fh = newFaultHandler(h, f.acts)
		h = fh
	}
	if opts.Tasks {
		h = taskHTTP{next: h, store: newTaskStore(opts.ProtocolDefects)}
	}
	if opts.ProtocolDefects {
		h = blameServer{ignoreVersionHeader{&forgetDeletedSessions{next: h}}}
		if opts.Stateless {
			h = eraDefectHTTP{h}
		}
	} else {
		h = guardHTTP{next: h, stateless: opts.Stateless}
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	return &httpHandler{Handler: mux, faults: fh}
}
