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

	"slices"
	"strconv"

	"syscall"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/stdio"
	"github.com/mcpcheck/mcpcheck/runner/report"
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
	// wrote is set once a message has been written to the server (for
	// initClock: has the server read its initialize?).
	wrote atomic.Bool
	// noise keeps the lines on stdout that were not JSON-RPC (noiseLog, below);
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
			// Skipped, as clients do; the report says so (noiseLog, below).
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
	if n > 0 {
		c.p.wrote.Store(true)
	}
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
		if n == 0 {
			if unread, ok := c.p.Unread(); ok && unread == 0 {
				// Nothing of the message written and nothing waiting in
				// the pipe: the server is not behind, the call's own time
				// ran out before its write began (a timer that fires late
				// on a loaded machine, a load run's end), and the
				// connection is intact. Said to be a stuck server, it
				// closed a healthy session: one call in 2,700 of a load
				// run ended transport_closed.
				if err := ctx.Err(); err != nil {
					return err
				}
				return context.DeadlineExceeded
			}
		}
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

// Stdout noise: a stdio server that writes lines that are not JSON-RPC on
// its stdout (a banner such as "Starting … server...", a log line) breaks
// a MUST of the stdio transport. Clients skip such lines, and so does the
// runner's connection (stdio.Noise says which lines); the run goes on,
// and the report keeps the first lines and their count, which analysis
// turns into one failed finding naming what the server wrote. Before, the
// first such line ended the session and the server was reported as having
// exited during initialize.

// noiseKeep is how many noise lines the report quotes, and noiseLine how
// many bytes of each.
const (
	noiseKeep = 3
	noiseLine = 200
)

// noiseLog collects noise lines from every process of a run (a relaunch,
// a probe's server): the first few, and the count.
type noiseLog struct {
	mu    sync.Mutex
	lines []string
	count int
}

// add keeps line (the first noiseKeep of them, each cut to noiseLine
// bytes); a nil log keeps nothing.
func (l *noiseLog) add(line []byte) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.count++
	// A relaunched server prints its banner again: distinct lines only.
	if s := string(line[:min(len(line), 4*noiseLine)]); len(l.lines) < noiseKeep && !slices.Contains(l.lines, s) {
		l.lines = append(l.lines, s)
	}
}

// report is the log for the report, its lines through clean; nil when the
// servers wrote no noise.
func (l *noiseLog) report(clean func(string, int) string) *report.StdoutNoise {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.count == 0 {
		return nil
	}
	out := &report.StdoutNoise{Count: l.count}
	for _, s := range l.lines {
		out.Lines = append(out.Lines, clean(strings.TrimSpace(s), noiseLine))
	}
	return out
}

// noiseFinding is the finding a report's stdout noise makes: failed, since
// the transport's MUST is broken, and counted against no score.
func noiseFinding(n *report.StdoutNoise, version string) report.Finding {
	quoted := make([]string, len(n.Lines))
	for i, s := range n.Lines {
		quoted[i] = strconv.Quote(s)
	}
	if version == "" {
		version = config.DefaultProtocolVersion
	}
	ref := "MCP " + version + " basic/transports (stdio): the server MUST NOT write anything to its stdout that is not a valid MCP message"
	msg := fmt.Sprintf("the server wrote non-JSON-RPC to stdout: %s (%d line(s) in all); skipped, as clients do, and the run went on (%s)",
		strings.Join(quoted, ", "), n.Count, ref)
	return report.Finding{Origin: config.OriginProtocol, Kind: report.FindingStdoutNoise, Status: report.StatusFailed, Message: msg,
		Expected: "only JSON-RPC messages on stdout", Got: fmt.Sprintf("%d line(s) that are not JSON-RPC", n.Count), Reference: ref}
}

// An interrupted run (its context ends before it does: Ctrl-C, SIGTERM, a
// caller's cancel) stops starting work at once: a call in flight is
// cancelled and its step is skipped "interrupted", steps not started are
// skipped "not run: the run was interrupted", and sessions are closed the
// ordinary way (stdin closed, SIGTERM, SIGKILL) but hurried: each stage
// waits stdio.HurryGrace, not the grace, so that Ctrl-C ends a run within
// a second when nothing is stuck.
//
// A server can hold that shutdown up: one that ignores SIGTERM, or stops
// reading its input so that a write to it blocks a call (and the SDK's
// Close, which waits for its handlers) for ever. So when the context ends,
// the run's servers get interruptGrace to go in order; then every process
// group the run started and has not yet reaped is killed, which ends every
// read and write on their pipes, and the run ends with its report.
const interruptGrace = 3 * time.Second

// procSet is a set of stdio server processes and their process groups:
// the ones started and not yet seen to have exited (an entry is dropped
// when a later one is added after it exited, so the set stays as small as
// the servers alive at once). It knows nothing of how a process is closed.
type procSet struct {
	mu    sync.Mutex
	procs map[*process]int // the process group (its leader's pid)
}

func (s *procSet) add(p *process, pgid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.procs == nil {
		s.procs = map[*process]int{}
	}
	for q := range s.procs {
		if q.Exited(0) {
			delete(s.procs, q)
		}
	}
	s.procs[p] = pgid
}

// kill sends SIGKILL to the process group of every process in the set,
// and returns how many of them were still running. It waits for nothing.
// A group whose leader was reaped is killed too, then forgotten (what the
// leader left in its group goes, as process.Close does; a group id is not
// reused while the group has members).
func (s *procSet) kill() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for p, pgid := range s.procs {
		exited := p.Exited(0)
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		if exited {
			delete(s.procs, p)
		} else {
			n++
		}
	}
	return n
}

// hurry shortens the shutdown of every server in the set (an interrupted
// run): see stdio.Process.Hurry.
func (s *procSet) hurry() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for p := range s.procs {
		p.Hurry()
	}
}

// allServers holds every server process this program started, whatever run
// started it (see KillServers).
var allServers procSet

// track adds p, just started by the dialer of a run in a process group of
// its own (pgid), to the run's set and to allServers.
func (d *dialer) track(p *process, pgid int) {
	d.live.add(p, pgid)
	allServers.add(p, pgid)
}

// KillServers sends SIGKILL to the process group of every stdio server
// this program started that may still run, and returns how many there
// were. It is for a program about to exit at once (a second Ctrl-C): it
// waits for nothing. Safe from any goroutine.
func KillServers() int { return allServers.kill() }

// watchInterrupt kills the run's servers when ctx ends and the run has not
// finished interruptGrace later (see interruptGrace). The returned func
// marks the run finished; call it before the run returns.
func (r *runState) watchInterrupt(ctx context.Context) (finished func()) {
	var mu sync.Mutex
	var timer *time.Timer
	done := false
	stop := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			// The servers are closed in order, each stage shortened
			// (stdio.HurryGrace), then killed if still there.
			r.d.live.hurry()
			timer = time.AfterFunc(interruptGrace, func() { r.d.live.kill() })
		}
	})
	return func() {
		stop()
		mu.Lock()
		defer mu.Unlock()
		done = true
		if timer != nil {
			timer.Stop()
		}
	}
}

// cutShort reports whether the context of a call (callCtx, derived from the
// run's ctx) ended because the run was interrupted, not by the call's own
// deadline: a deadline that fired first makes the call a timeout, whatever
// came after.
func cutShort(ctx, callCtx context.Context) bool {
	return ctx.Err() != nil && !errors.Is(callCtx.Err(), context.DeadlineExceeded)
}

// interruptedStep reports whether st was skipped because the run was
// interrupted (before it began, or while its call was in flight).
func interruptedStep(st *report.StepResult) bool {
	return st.Status == report.StatusSkipped && (st.Reason == reasonInterrupted || st.Reason == reasonInterruptedCall)
}
