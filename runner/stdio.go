package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/stdio"
)

// stderrLimit bounds how much of a server's stderr is kept (the tail).
const stderrLimit = 64 << 10

// process is one stdio server (see package internal/stdio for its
// lifecycle: its own process group, and a shutdown that leaves none of its
// tree behind) with its stderr kept in a bounded buffer, so the exit status
// and the last words are known when a call fails. The runner speaks to it
// through its own connection (stdioConn) rather than the SDK's
// CommandTransport or IOTransport, for the bounds those lack.
type process struct {
	*stdio.Process
	stderr *tailBuffer
	// maxLine bounds one line from the server (suite.MaxMessageBytes).
	maxLine int
	// writeTimeout bounds a write without a deadline of its own (a step's
	// timeout, suite.TimeoutMs).
	writeTimeout time.Duration
	// broken is set when the connection broke it off (a line over the
	// limit, a stuck write): the server did not end the session itself.
	broken atomic.Bool
	// noise keeps the lines on stdout that were not JSON-RPC (noise.go);
	// nil keeps none.
	noise *noiseLog
}

// startProcess starts argv in dir with env.
func startProcess(argv []string, dir string, env []string, grace time.Duration, maxLine int, writeTimeout time.Duration) (*process, error) {
	if maxLine <= 0 {
		maxLine = config.DefaultMaxMessageBytes
	}
	if writeTimeout <= 0 {
		writeTimeout = ms2d(config.DefaultTimeoutMs)
	}
	tail := &tailBuffer{limit: stderrLimit}
	p, err := stdio.Start(argv, dir, env, tail, grace)
	if err != nil {
		return nil, err
	}
	return &process{Process: p, stderr: tail, maxLine: maxLine, writeTimeout: writeTimeout}, nil
}

// StderrTail returns up to n last lines of the child's stderr.
func (p *process) StderrTail(n int) []string { return p.stderr.Tail(n) }

// Transport connects the SDK to the child's stdin/stdout.
func (p *process) Transport() mcp.Transport { return stdioTransport{p} }

type stdioTransport struct{ p *process }

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	return newStdioConn(t.p), nil
}

// errStuckWrite is a write to a stdio server that did not complete within
// the deadline of the call it belonged to: the server stopped reading its
// stdin. Part of a message may be in the pipe, so the connection is over.
var errStuckWrite = errors.New("the server stopped reading its stdin")

// stdioConn is newline-delimited JSON-RPC over a server's pipes, bounded
// where the SDK's IOTransport is not:
//
//   - every line read is at most maxMessageBytes (a longer one fails the
//     connection with errOversized as soon as the limit is passed);
//   - every write ends by its context: at its deadline, or when it is
//     cancelled; one without a deadline (the SDK's answers to the server's
//     own requests) gets a step's timeout; a write that did not complete
//     closes the connection (errStuckWrite), which fails the writes
//     waiting behind it;
//   - a message whose id no request can have (null, an object, an array,
//     or a response without one) is dropped and noted, instead of ending
//     the session with an error the SDK would invent ("invalid request").
type stdioConn struct {
	p        *process
	incoming chan lineOrErr
	closed   chan struct{}
	queue    []jsonrpc.Message // the rest of a batch
	// note reports a dropped message (set by the tap before reading starts).
	note func(string)

	// asked holds the server's requests read and not yet answered; at
	// maxServerRequests reading waits for an answer (freed).
	amu   sync.Mutex
	asked map[jsonrpc.ID]struct{}
	freed chan struct{}

	wsem chan struct{} // one write at a time
	dmu  sync.Mutex    // guards the write deadline and gen
	gen  uint64        // the write the deadline belongs to
	once sync.Once
}

type lineOrErr struct {
	line []byte
	err  error
}

func newStdioConn(p *process) *stdioConn {
	c := &stdioConn{p: p, incoming: make(chan lineOrErr), closed: make(chan struct{}), freed: make(chan struct{}, 1), wsem: make(chan struct{}, 1)}
	go c.readLines()
	go c.watchExit()
	return c
}

// watchExit ends the connection a moment after the server has exited, if
// its output has not ended by then: a process it left behind holding
// stdout open must not keep the calls in flight waiting.
func (c *stdioConn) watchExit() {
	select {
	case <-c.closed:
		return
	case <-c.p.Done():
	}
	t := time.NewTimer(stdio.ExitDrain)
	defer t.Stop()
	select {
	case <-c.closed:
	case <-t.C:
		c.once.Do(func() { close(c.closed) })
	}
}

// readLines feeds incoming until the server's output ends or breaks the
// limit, or the connection is closed.
func (c *stdioConn) readLines() {
	r := stdio.NewLineReader(c.p.Stdout, c.p.maxLine)
	for {
		line, err := r.ReadLine()
		var v lineOrErr
		switch {
		case errors.Is(err, stdio.ErrLineTooLong):
			v.err = fmt.Errorf("%w (%d bytes); the connection was closed", errOversized, c.p.maxLine)
		case err != nil:
			v.err = err
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			v.line = bytes.Clone(line)
		}
		select {
		case c.incoming <- v:
		case <-c.closed:
			return
		}
		if v.err != nil {
			if errors.Is(v.err, errOversized) {
				c.shut()
			}
			return
		}
	}
}

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			m := c.queue[0]
			c.queue = c.queue[1:]
			return m, nil
		}
		var line []byte
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case v := <-c.incoming:
			if v.err != nil {
				return nil, v.err
			}
			line = v.line
		case <-c.closed:
			return nil, io.EOF
		}
		msgs, err := c.decode(line)
		if err != nil {
			return nil, err
		}
		if len(msgs) == 0 {
			continue
		}
		c.queue = msgs[1:]
		if req, ok := msgs[0].(*jsonrpc.Request); ok && req.IsCall() {
			if err := c.admit(ctx, req.ID); err != nil {
				return nil, err
			}
		}
		return msgs[0], nil
	}
}

// maxServerRequests bounds the server's requests the client has read and
// not yet answered. The SDK answers each in a goroutine of its own; a
// server that sends requests without end and stops reading the answers
// would otherwise grow them without bound. Beyond it reading waits, so the
// server's writes block and the call in flight ends at its deadline.
const maxServerRequests = 256

// admit counts the server's request id as waiting for its answer, first
// waiting for room.
func (c *stdioConn) admit(ctx context.Context, id jsonrpc.ID) error {
	for {
		c.amu.Lock()
		if c.asked == nil {
			c.asked = map[jsonrpc.ID]struct{}{}
		}
		_, dup := c.asked[id]
		if dup || len(c.asked) < maxServerRequests {
			c.asked[id] = struct{}{}
			c.amu.Unlock()
			return nil
		}
		c.amu.Unlock()
		select {
		case <-c.freed:
		case <-ctx.Done():
			return ctx.Err()
		case <-c.closed:
			return io.EOF
		}
	}
}

// answered frees the room of the server's request id.
func (c *stdioConn) answered(id jsonrpc.ID) {
	c.amu.Lock()
	delete(c.asked, id)
	c.amu.Unlock()
	select {
	case c.freed <- struct{}{}:
	default:
	}
}

// decode decodes a line: one message or a batch, without the messages that
// carry an impossible id.
func (c *stdioConn) decode(line []byte) ([]jsonrpc.Message, error) {
	if line[0] != '[' {
		m, err := jsonrpc.DecodeMessage(line)
		if err == nil {
			return []jsonrpc.Message{m}, nil
		}
		if what := oddID(line); what != "" {
			c.dropped(what)
			return nil, nil
		}
		if stdio.Noise(line) {
			// Skipped, as clients do; the report says so (noise.go).
			c.p.noise.add(line)
			return nil, nil
		}
		return nil, err
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil {
		return nil, fmt.Errorf("unmarshaling jsonrpc batch: %w", err)
	}
	if len(batch) == 0 {
		return nil, errors.New("empty batch")
	}
	msgs := make([]jsonrpc.Message, 0, len(batch))
	for _, raw := range batch {
		m, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			if what := oddID(raw); what != "" {
				c.dropped(what)
				continue
			}
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, nil
}

func (c *stdioConn) dropped(what string) {
	if c.note != nil {
		c.note("the server sent " + what + " (ignored: no request can have that id)")
	}
}

// oddID says what msg is when it is a JSON-RPC 2.0 message whose id no
// request can have: a response with an id that is null, missing or not a
// string or number, or a request with an id that is not one; "" for
// anything else (which stays an error).
func oddID(msg []byte) string {
	var m struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
	}
	if json.Unmarshal(msg, &m) != nil || m.Version != "2.0" {
		return ""
	}
	id := bytes.TrimSpace(m.ID)
	kind := "a response"
	if len(m.Method) > 0 {
		kind = "a request"
	}
	switch {
	case len(id) == 0 && len(m.Method) == 0:
		return "a response without an id"
	case len(id) == 0:
		return ""
	case id[0] == 'n' && len(m.Method) == 0:
		return "a response with id null"
	case id[0] == '{':
		return kind + " with an object as its id"
	case id[0] == '[':
		return kind + " with an array as its id"
	case id[0] == 't' || id[0] == 'f':
		return kind + " with a boolean as its id"
	}
	return ""
}

// aLongTimeAgo is a deadline in the past: it fails a write at once.
var aLongTimeAgo = time.Unix(1, 0)

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("marshaling message: %w", err)
	}
	data = append(data, '\n')
	if resp, ok := msg.(*jsonrpc.Response); ok {
		// Answered, whether or not the answer gets through.
		defer c.answered(resp.ID)
	}
	// Waiting for another write ends with the context too; nothing of
	// this message was written, so the connection is intact.
	select {
	case c.wsem <- struct{}{}:
	case <-c.closed:
		return io.ErrClosedPipe
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-c.wsem }()
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		// The SDK's answers to the server's requests have no deadline:
		// they get a step's timeout.
		deadline = time.Now().Add(c.p.writeTimeout)
	}
	c.dmu.Lock()
	c.gen++
	gen := c.gen
	c.p.Stdin.SetWriteDeadline(deadline)
	c.dmu.Unlock()
	// A cancelled call ends its write too (an interrupted run, a call
	// abandoned before its deadline).
	stop := context.AfterFunc(ctx, func() {
		c.dmu.Lock()
		if c.gen == gen {
			c.p.Stdin.SetWriteDeadline(aLongTimeAgo)
		}
		c.dmu.Unlock()
	})
	n, err := c.p.Stdin.Write(data)
	stop()
	c.dmu.Lock()
	c.gen++
	c.dmu.Unlock()
	if err == nil {
		return nil
	}
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// Part of the message may be in the pipe; nothing more can follow.
		c.shut()
		return fmt.Errorf("%w: %d of %d bytes of a message were taken before its deadline; the session was closed", errStuckWrite, n, len(data))
	}
	return err
}

// shut ends the connection from inside (a broken line, a stuck write):
// reads and writes fail from now on and the server is shut down in the
// background.
func (c *stdioConn) shut() {
	c.p.broken.Store(true)
	c.once.Do(func() { close(c.closed) })
	go c.p.Close()
}

// Close ends the connection and shuts the server down (bounded; see
// stdio.Process.Close). A connection that broke is shutting the server
// down already, in the background: the SDK closes it from the call that
// failed, which must end at its deadline, not two graces later (the
// session's Close waits for it).
func (c *stdioConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	if c.p.broken.Load() {
		return nil
	}
	return c.p.Close()
}

func (c *stdioConn) SessionID() string { return "" }

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   []byte
	cut   bool // bytes were dropped from the front
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - t.limit; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return len(b), nil
}

// Tail returns the last n complete-or-trailing lines.
func (t *tailBuffer) Tail(n int) []string {
	t.mu.Lock()
	data := bytes.TrimRight(t.buf, "\r\n")
	cut := t.cut
	t.mu.Unlock()
	if len(data) == 0 {
		return nil
	}
	lines := strings.Split(string(data), "\n")
	if cut && len(lines) > 1 {
		lines = lines[1:] // the first line is partial
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
