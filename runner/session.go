package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// session is one MCP session with the server under test.
type session struct {
	cs   *mcp.ClientSession
	proc *process // nil unless stdio
	init *mcp.InitializeResult
	taps *tapConn // nil over Streamable HTTP
	// ownHTTP carries the runner's own requests over Streamable HTTP
	// (own.go); nil over the other transports.
	ownHTTP *ownHTTP
	// initRaw is the handshake's result as the server sent it (nil when
	// it could not be kept).
	initRaw json.RawMessage
	stop    func() // ends the session's own context (see dial)
	abort   func() // ends every HTTP request of the session at once (nil over stdio)
	// inbox holds the server's notifications and requests to the client.
	inbox *inbox
	// tmp is the scratch directory the session was made with.
	tmp string

	closed chan struct{} // closed when the connection has ended
	gone   atomic.Bool   // a call reported the session missing (HTTP 404)
	// suspect is set when a call ended in a transport failure that the SDK
	// does not treat as fatal (over HTTP a dropped stream or a 5xx leaves
	// the session open); the session is probed before it is used again.
	suspect atomic.Bool
}

// probeTimeout bounds the liveness probe of a suspect session.
const probeTimeout = 5 * time.Second

// alive probes a suspect session with a protocol ping. Any JSON-RPC answer
// (even "method not found", as 2026-07-28 servers give) proves the server
// is there; a transport failure means it is not.
func (s *session) alive(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	err := s.cs.Ping(ctx, nil)
	if err == nil {
		return true
	}
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code != codeRejectedByTransport
}

// lost reports whether the session can no longer carry calls.
func (s *session) lost() bool {
	if s.gone.Load() {
		return true
	}
	select {
	case <-s.closed:
		return true
	default:
	}
	// A stdio connection that broke (a line over the limit, a stuck
	// write) is closing the server before it has exited.
	return s.proc != nil && (s.proc.Closing() || s.proc.Exited(0))
}

// dialer opens sessions to the suite's target.
type dialer struct {
	suite   *config.Suite
	opts    *Options
	env     environ
	sec     *secrets
	argv    []string // resolved stdio command
	version string   // protocol version to ask for
	// stream opens the HTTP standalone stream: a step waits for messages
	// only it carries.
	stream bool
	// live holds the stdio servers the dialer started (see
	// interruptGrace).
	live procSet
	// warn adds a warning to the run's report (nil: none is kept).
	warn func(string)
	// noise collects what its servers wrote on stdout that was not
	// JSON-RPC.
	noise noiseLog
}

// target describes the dialer's target for the report.
func (d *dialer) target() report.Target {
	switch {
	case d.opts.Dial != nil:
		return report.Target{Transport: report.TargetMemory}
	case d.suite.Endpoint != "" && d.suite.Transport == config.TransportSSE:
		return report.Target{Transport: report.TargetSSE, Origin: endpointOrigin(d.suite.Endpoint)}
	case d.suite.Endpoint != "":
		return report.Target{Transport: report.TargetHTTP, Origin: endpointOrigin(d.suite.Endpoint)}
	default:
		return report.Target{Transport: report.TargetStdio, Program: filepath.Base(d.suite.Command[0])}
	}
}

// dial starts (over stdio) the server and initializes a session, bounded by
// the suite's init timeout (see initClock: over stdio it counts from when
// the server has read its initialize request).
func (d *dialer) dial(ctx context.Context, tmp string) (*session, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		t    mcp.Transport
		tt   *tapTransport
		proc *process
		in   = newInbox()
		// stop ends what outlives the handshake (the SSE transport's event
		// stream is opened by Connect and lives as long as the session).
		stop = func() {}
		// abort ends every HTTP request of the session at once (see
		// session.Close).
		abort = func() {}
	)
	switch {
	case d.opts.Dial != nil:
		inner, err := d.opts.Dial(ctx)
		if err != nil {
			return nil, fmt.Errorf("connecting: %w", err)
		}
		tt = &tapTransport{inner: inner, inbox: in}
		t = tt
	case d.suite.Endpoint != "" && d.suite.Transport == config.TransportSSE:
		// The legacy transport has no session hooks to lose, so its
		// connection is tapped like a stdio one.
		var streamCtx context.Context
		streamCtx, stop = context.WithCancel(context.WithoutCancel(ctx))
		var sse mcp.Transport
		sse, abort = sseTransport(d.suite.Endpoint, d.sec.headers, ms2d(d.suite.InitTimeoutMs), messageLimit(d.suite))
		tt = &tapTransport{inner: &detached{sse, streamCtx}, inbox: in}
		t = tt
	case d.suite.Endpoint != "":
		t, abort = httpTransport(d.suite.Endpoint, d.sec.headers, ms2d(d.suite.InitTimeoutMs), in, d.stream, messageLimit(d.suite))
	default:
		p, err := d.start(tmp)
		if err != nil {
			return nil, err
		}
		proc = p
		tt = &tapTransport{inner: p.Transport(), inbox: in}
		t = tt
	}
	go initClock(ctx, cancel, proc, ms2d(d.suite.InitTimeoutMs))
	client := newClient(d.suite.Client, at(d.suite, "client"), d.warn)
	type result struct {
		cs  *mcp.ClientSession
		err error
	}
	done := make(chan result, 1)
	// The handshake's tap keeps the initialize result as sent: the SDK's
	// ServerCapabilities drops what it does not know (tasks).
	initTap := &tap{label: "initialize"}
	go func() {
		cs, err := client.Connect(withTap(ctx, initTap), t, &mcp.ClientSessionOptions{ProtocolVersion: d.version})
		done <- result{cs, err}
	}()
	var r result
	select {
	case r = <-done:
		if r.err != nil && ctx.Err() != nil {
			r.err = context.Cause(ctx) // the clock's, or the run's end
		}
	case <-ctx.Done():
		// Connect may be stuck on a server that never answers; make sure
		// the child goes and the goroutine ends.
		if proc != nil {
			proc.Close()
		}
		stop()
		abort()
		r = <-done
		if r.err == nil {
			r.cs.Close()
		}
		r.err = context.Cause(ctx)
	}
	if r.err != nil {
		stop()
		abort()
		err := d.initError(r.err, proc)
		if proc != nil {
			proc.Close()
			return nil, &dialError{err: err, stderr: proc.StderrTail(stderrLines)}
		}
		return nil, err
	}
	sess := &session{cs: r.cs, proc: proc, init: r.cs.InitializeResult(), inbox: in, tmp: tmp, stop: stop, abort: abort, closed: make(chan struct{})}
	// Under 2026-07-28 there is no standalone stream (subscriptions/listen
	// replaced it): nothing to wait for.
	if d.stream && d.opts.Dial == nil && d.suite.Endpoint != "" && d.suite.Transport != config.TransportSSE && !newProtocol(sess) {
		// The SDK opens the standalone stream after the handshake, in the
		// background; a notification sent before it is open is lost, so
		// the session is ready when the server has answered its GET.
		select {
		case <-in.streamAnswered:
		case <-ctx.Done():
		}
	}
	if tt != nil {
		sess.taps = tt.conn
	} else if d.suite.Endpoint != "" {
		d.attachOwnHTTP(sess)
	}
	sess.finish(initTap)
	sess.initRaw = initTap.Result()
	go func() {
		r.cs.Wait()
		close(sess.closed)
	}()
	return sess, nil
}

// # The init timeout counts from when the server has its initialize
//
// A stdio server is given the suite's init timeout to answer initialize
// from when it has read the request (the pipe says so:
// stdio.Process.Unread), not from when it was started: a runtime that
// loads for seconds (Node.js, npx, a machine running two test suites)
// spent the whole bound starting, and a server that answers at once was
// reported as "no answer within 30s". Starting may take startAllowance
// times the bound (2 minutes by default: Node.js on a machine running two
// test suites took over 30 s); a server that has not read its request by
// then is reported as not reading it. Where the pipe cannot say (not
// Linux) and over HTTP, the bound counts from the start, as before.

// errNeverRead is initClock's cause when the server did not read its
// initialize request.
var errNeverRead = errors.New("the server did not read its initialize request")

// initPoll is how often initClock looks at a starting server's stdin;
// startAllowance is how many init timeouts it may spend starting.
const (
	initPoll       = 10 * time.Millisecond
	startAllowance = 4
)

// initClock ends ctx with cause context.DeadlineExceeded once bound has
// passed since proc read what was written to it (at once when proc is nil
// or its pipe cannot say), or with errNeverRead when it has read nothing
// within startAllowance × bound; it returns when ctx ends.
func initClock(ctx context.Context, cancel context.CancelCauseFunc, proc *process, bound time.Duration) {
	if proc != nil {
		tick := time.NewTicker(initPoll)
		defer tick.Stop()
		never := time.NewTimer(startAllowance * bound)
		defer never.Stop()
		for {
			n, ok := proc.Unread()
			if !ok || n == 0 && proc.wrote.Load() || proc.Exited(0) {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-never.C:
				cancel(errNeverRead)
				return
			case <-tick.C:
			}
		}
	}
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
		cancel(context.DeadlineExceeded)
	}
}

// initError says what became of a failed initialize, in the runner's
// words: which origin refused, which host could not be reached, the
// timeout, a server that exited.
func (d *dialer) initError(cause error, proc *process) error {
	var netErr *net.OpError
	var originErr *originError
	switch {
	case errors.As(cause, &originErr):
		// Said without the URL the server named: its path and query
		// are the server's words, not for the report.
		return fmt.Errorf("initialize: %w", originErr)
	case errors.As(cause, &netErr) && d.suite.Endpoint != "":
		return fmt.Errorf("cannot reach %s: %v", endpointOrigin(d.suite.Endpoint), netErr.Err)
	case errors.Is(cause, errNeverRead):
		return fmt.Errorf("initialize: the server did not read its initialize request within %s", startAllowance*ms2d(d.suite.InitTimeoutMs))
	case errors.Is(cause, context.DeadlineExceeded):
		return fmt.Errorf("initialize: no answer within %s", ms2d(d.suite.InitTimeoutMs))
	case proc != nil && proc.Exited(200*time.Millisecond):
		return fmt.Errorf("the server exited during initialize (%s)", proc.ExitStatus())
	default:
		return fmt.Errorf("initialize: %w", cause)
	}
}

// start starts the suite's stdio server with tmp as its scratch directory.
func (d *dialer) start(tmp string) (*process, error) {
	argv := make([]string, len(d.argv))
	for i, a := range d.argv {
		argv[i] = strings.ReplaceAll(a, scratchVar, tmp)
	}
	env := childEnv(d.suite, d.env, d.sec)
	for i, kv := range env {
		env[i] = strings.ReplaceAll(kv, scratchVar, tmp)
	}
	dir := strings.ReplaceAll(d.suite.Cwd, scratchVar, tmp)
	p, err := startProcess(argv, dir, env, d.opts.terminateGrace(), d.suite.MaxMessageBytes, ms2d(d.suite.TimeoutMs))
	if err != nil {
		// A relative program or argument is read from the server's
		// directory (the fixture's, unless cwd says otherwise): name it.
		in := ""
		if dir != "" {
			in = " in " + dir
		}
		return nil, fmt.Errorf("%sstarting server %s%s: %w", at(d.suite, "command"), filepath.Base(d.argv[0]), in, err)
	}
	p.noise = &d.noise
	d.track(p, p.Pid())
	return p, nil
}

// newClient is the MCP client of a session. It declares what the fixture's
// client block offers and nothing else: a server must not depend on roots,
// sampling or elicitation to answer, and a request the fixture did not
// configure gets a JSON-RPC error from the SDK (never a hang). It never
// retries a failed call; under 2026-07-28 a call answered "input
// required" is answered from the same block and sent again with a new id
// (a multi-round-trip request: the SDK's, bounded at 10 rounds), so the
// step's result is the last round's (see tap.go).
//
// where and warn report a fixture answer that does not fit what the
// server asked (elicitHandler); warn may be nil.
func newClient(cfg *config.Client, where string, warn func(string)) *mcp.Client {
	caps := &mcp.ClientCapabilities{}
	opts := &mcp.ClientOptions{
		Capabilities: caps,
	}
	var roots []*mcp.Root
	if cfg != nil {
		if len(cfg.Roots) > 0 {
			caps.RootsV2 = &mcp.RootCapabilities{}
			for _, r := range cfg.Roots {
				roots = append(roots, &mcp.Root{URI: r.URI, Name: r.Name})
			}
		}
		if sm := cfg.Sampling; sm != nil {
			caps.Sampling = &mcp.SamplingCapabilities{}
			model, stop := sm.Model, sm.StopReason
			if model == "" {
				model = defaultSamplingModel
			}
			if stop == "" {
				stop = defaultStopReason
			}
			opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Content: &mcp.TextContent{Text: sm.Text}, Model: model, Role: "assistant", StopReason: stop}, nil
			}
		}
		if el := cfg.Elicitation; el != nil {
			caps.Elicitation = &mcp.ElicitationCapabilities{}
			opts.ElicitationHandler = elicitHandler(el, where, warn)
		}
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "mcpcheck", Version: Version}, opts)
	if len(roots) > 0 {
		c.AddRoots(roots...)
	}
	return c
}

// finish records that a call has returned (its tap, and the session's tap
// connection).
func (s *session) finish(t *tap) {
	t.markDone()
	if s.taps != nil {
		s.taps.finish(t)
	}
}

// anomalies returns what the session's connection noticed: responses the
// SDK dropped silently.
func (s *session) anomalies() []string {
	if s.taps == nil {
		return nil
	}
	return s.taps.Anomalies()
}

// dialError is a failed dial of a stdio server, with its stderr tail.
type dialError struct {
	err    error
	stderr []string
}

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

// closeWait bounds how long closing a session waits for the SDK to let go
// of it: its Close waits for the handlers of the server's requests, which
// a server that stopped reading keeps blocked on their writes. After it,
// the server is shut down (which fails those writes), and the SDK gets as
// long again to return.
const closeWait = time.Second

// Close ends the session: over HTTP the session is deleted, over stdio the
// server is shut down and reaped. It is bounded by closeWait twice plus,
// over stdio, the server's shutdown (see stdio.Process.Close); over HTTP
// the SDK's DELETE of the session gets the first closeWait.
func (s *session) Close() {
	done := make(chan struct{})
	go func() {
		s.cs.Close()
		close(done)
	}()
	t := time.NewTimer(closeWait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	// What the SDK still holds is ended by force: over stdio the server's
	// process tree, over HTTP every open response body (a stream without
	// end, a body never finished) and every later request.
	if s.proc != nil {
		s.proc.Close()
	}
	if s.abort != nil {
		s.abort()
	}
	t.Reset(closeWait)
	select {
	case <-done:
	case <-t.C:
	}
	if s.stop != nil {
		s.stop()
	}
}

// detached connects its transport with a context of its own instead of the
// handshake's, which ends when dial returns: a transport whose Connect opens
// a stream that carries the whole session needs it to live on. The
// handshake is still bounded by dial's deadline.
type detached struct {
	inner mcp.Transport
	ctx   context.Context
}

func (d *detached) Connect(context.Context) (mcp.Connection, error) { return d.inner.Connect(d.ctx) }

func ms2d(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// errUnreachable means a lost session could not be replaced: the run
// terminates early and every step not yet run is skipped.
var errUnreachable = errors.New("server unreachable")

// link is a session that is replaced when it is lost. Scenarios that share
// the suite's session share one link; with isolation: scenario each scenario
// has its own.
//
// A session counts as lost when its connection has closed (the SDK's Wait
// returned: the stdio server exited or the HTTP connection failed) or when a
// call reported the HTTP session gone (404). A timeout does not lose a
// session: the call was cancelled and the same session goes on.
//
// Replacement happens only at a boundary the user can reason about: before
// a scenario starts, and before each step of a scenario that sets
// `reconnect: true`. Over stdio that relaunches the server; over HTTP it
// initializes a new session. Each replacement counts as a restart. When a
// replacement fails, the link is down for good: the run terminates early.
type link struct {
	mu   sync.Mutex
	sess *session
	down error
	// tmp is the scratch directory its sessions are made with.
	tmp string
	// calls is held shared by every call on the link and exclusively by a
	// call run again alone (see runScenario).
	calls sync.RWMutex
	// lostScenario and lostStep name the step whose call lost the current
	// (or last) session.
	lostScenario, lostStep string
}

// lostAt records that the call of step in scenario lost s, unless an
// earlier step already did.
func (l *link) lostAt(s *session, scenario, step string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess == s && l.lostStep == "" {
		l.lostScenario, l.lostStep = scenario, step
	}
}

func (l *link) lostBy() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lostScenario, l.lostStep
}

// session returns the link's live session, replacing a lost one.
func (r *runState) session(ctx context.Context, l *link, replace bool) (*session, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down != nil {
		return nil, l.down
	}
	if l.sess != nil && replace && !l.sess.lost() && l.sess.suspect.Load() {
		if l.sess.alive(ctx) {
			l.sess.suspect.Store(false)
			l.lostScenario, l.lostStep = "", ""
		} else {
			l.sess.gone.Store(true)
		}
	}
	if l.sess != nil && (!replace || !l.sess.lost()) {
		return l.sess, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	replacing := l.sess != nil
	if replacing {
		r.retire(l.sess)
	}
	s, err := r.open(ctx, l.tmp)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		l.sess = nil
		l.down = fmt.Errorf("%w: %v", errUnreachable, err)
		return nil, l.down
	}
	if replacing {
		r.mu.Lock()
		r.rep.Restarts++
		r.mu.Unlock()
	}
	l.sess = s
	l.lostScenario, l.lostStep = "", ""
	return s, nil
}

// close ends the link's session, if any.
func (l *link) close(r *runState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sess != nil {
		r.retire(l.sess)
		l.sess = nil
	}
}

// current returns the link's session without replacing it.
func (l *link) current() *session {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess
}

// The fixture's elicitation answer (client.elicitation) reaches the SDK
// with JSON's types: a fixture's numbers are decoded as json.Number to keep
// their exact text, which is a Go string, and the SDK checks the answer
// against the form the server asked with by Go type, so 7 failed as
// "has type string, want integer". Numbers become int64 (a whole number
// that fits) or float64 here, once per session.
//
// An answer that does not fit the form is still sent (the server's
// handling of a bad answer is worth seeing), but the SDK refuses it before
// it leaves and the server only relays the refusal: the run warns that the
// fixture's answer was refused, so the failure is not read as the server's.

// elicitHandler answers every elicitation/create with el.
func elicitHandler(el *config.Elicitation, where string, warn func(string)) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	content, _ := sdkValue(el.Content).(map[string]any)
	return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		if el.Action == "accept" && warn != nil && req != nil && req.Params != nil && req.Params.RequestedSchema != nil {
			if msg := elicitMismatch(req.Params.RequestedSchema, el.Content); msg != "" {
				warn(where + "client.elicitation.content does not fit the form the server asked with, so the client refused to send it (the error the server relays is the fixture's, not the server's): " + msg)
			}
		}
		return &mcp.ElicitResult{Action: el.Action, Content: content}, nil
	}
}

// elicitMismatch is why content does not validate against the requested
// schema ("" when it does, or when the schema cannot be compiled: the SDK
// judges then).
func elicitMismatch(requested any, content map[string]any) string {
	raw, err := json.Marshal(requested)
	if err != nil {
		return ""
	}
	s, err := schema.Compile("elicitation", "requested", raw)
	if err != nil || s == nil {
		return ""
	}
	doc, err := json.Marshal(content)
	if err != nil {
		return ""
	}
	err = s.Validate(jsonx.Value(doc))
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		leaf := schemacheck.FirstLeaf(ve)
		at := schemacheck.Pointer(leaf.InstanceLocation)
		if at == "" {
			at = "/"
		}
		return at + ": " + schemacheck.Message(leaf.ErrorKind)
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// sdkValue is a decoded fixture value with its numbers as Go numbers:
// int64 when whole and in range, float64 otherwise.
func sdkValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = sdkValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = sdkValue(e)
		}
		return out
	}
	return v
}
