package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
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
	// label names the step the call belongs to, for anomalies noticed
	// after the call has returned (a duplicate or late response).
	label string

	mu     sync.Mutex
	result json.RawMessage // the response's "result" member
	got    bool
	// malformed says how the call's response broke JSON-RPC in a way the
	// SDK tolerates (both result and error, or neither).
	malformed string
	id        jsonrpc.ID
	hasID     bool
	// noLate: the run is ending (interrupted), so no late answer to this
	// call is waited for (see runEnding).
	noLate bool
	// stuck is the failed write of the call's request to a stdio server
	// that stopped reading (the SDK reports only the call's deadline).
	stuck error

	// HTTP only: the POST's JSON response body (an event stream is read
	// message by message as it arrives); how many responses its
	// body held (beyond the first they are duplicates; over stdio the
	// connection notes those); whether a message on the call's stream
	// passed maxMessageBytes; whether the call has returned.
	body      bytes.Buffer
	responses int
	oversized error // errOversized, with the bound, once a message passed it
	done      bool
	// bodies are the call's response bodies not yet closed, release the
	// cancel waiting for them, deferred the session's count of such
	// waits (see cancelAfterBody in http.go).
	bodies   int
	release  func()
	deferred *atomic.Int32
}

type tapKey struct{}

func withTap(ctx context.Context, t *tap) context.Context {
	return context.WithValue(ctx, tapKey{}, t)
}

func tapFrom(ctx context.Context) *tap {
	t, _ := ctx.Value(tapKey{}).(*tap)
	return t
}

func (t *tap) setResult(raw json.RawMessage) {
	t.mu.Lock()
	if !t.got || inputRequired(t.result) {
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
	return nil
}

// Malformed reports how the response broke JSON-RPC, or "".
func (t *tap) Malformed() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.malformed
}

// Duplicates reports how many extra responses to the call its HTTP
// response body held.
func (t *tap) Duplicates() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.responses > 1 {
		return t.responses - 1
	}
	return 0
}

// Oversized reports whether a message on the call's stream (or, over
// legacy SSE, on the stream that was to carry its answer) passed
// maxMessageBytes.
func (t *tap) Oversized() bool { return t.oversizedErr() != nil }

// oversizedErr is the error that cut the call's message, or nil.
func (t *tap) oversizedErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.oversized
}

func (t *tap) markOversized(err error) {
	t.mu.Lock()
	t.oversized = err
	t.mu.Unlock()
}

// markDone records that the call has returned.
func (t *tap) markDone() {
	t.mu.Lock()
	t.done = true
	t.mu.Unlock()
}

func (t *tap) isDone() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.done
}

// keep appends a piece of a JSON response body (bounded by its reader).
func (t *tap) keep(p []byte) {
	t.mu.Lock()
	t.body.Write(p)
	t.mu.Unlock()
}

// scanBody reads the responses in the JSON body kept so far, once it is
// complete, and returns the other messages it held (a batch may carry
// notifications and requests).
func (t *tap) scanBody() [][]byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	var others [][]byte
	for _, msg := range jsonx.Messages(t.body.Bytes()) {
		if !t.seeLocked(msg) {
			others = append(others, msg)
		}
	}
	t.body = bytes.Buffer{} // what matters was copied out
	return others
}

// see takes one message of the call's stream: a response is the call's
// (the first) or a duplicate, and see reports true; anything else is not
// the tap's business.
func (t *tap) see(msg []byte) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seeLocked(msg)
}

func (t *tap) seeLocked(msg []byte) bool {
	if gjson.GetBytes(msg, "method").Exists() {
		// A notification or a request: told apart without decoding, as a
		// flood of them is what this path sees most.
		return false
	}
	kind, result := classifyMessage(msg)
	switch kind {
	case "":
		return false
	case "oddid":
		// It answers no request, so it is no response to this call; the
		// SDK cannot decode it and ends the connection, which is then why
		// the call failed (unless its answer came first).
		t.noteOddID(result)
		return true
	}
	if t.got && inputRequired(t.result) {
		// A multi-round-trip call: the SDK answered the input request and
		// sent the call again (a new id, over HTTP a new POST); this is
		// the next round's response, not a duplicate.
		t.responses, t.got = 0, false
	}
	t.responses++
	if t.responses > 1 {
		return true
	}
	switch kind {
	case "response":
		if !t.got {
			t.result, t.got = result, result != nil
		}
	case "both":
		if t.malformed == "" {
			t.malformed = "the response has both result and error"
		}
	case "neither":
		if t.malformed == "" {
			t.malformed = "the response has neither result nor error"
		}
	}
	return true
}

// noteOddID records a response whose id (given) names no request, if the
// call has had no answer yet (t.mu held).
func (t *tap) noteOddID(id json.RawMessage) {
	if t.got || t.responses > 0 || t.malformed != "" {
		return
	}
	what := "null"
	switch bytes.TrimSpace(id)[0] {
	case '{':
		what = "an object"
	case '[':
		what = "an array"
	case 't', 'f':
		what = "a boolean"
	}
	t.malformed = "the server sent a response whose id is " + what + ", which names no request (an id is a string or a number)"
}

// classifyMessage says what a JSON-RPC message is: "response" (with its
// result), "error", "both", "neither", "oddid" (a response whose id, given
// in place of the result, is neither a string nor a number: it names no
// request), or "" for requests, notifications and anything that is not a
// JSON-RPC message.
func classifyMessage(msg []byte) (string, json.RawMessage) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method json.RawMessage `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(msg, &m) != nil || len(m.Method) > 0 || len(m.ID) == 0 {
		return "", nil
	}
	if c := m.ID[0]; c != '"' && c != '-' && (c < '0' || c > '9') {
		return "oddid", m.ID
	}
	hasResult := len(m.Result) > 0
	hasError := len(m.Error) > 0 && string(m.Error) != "null"
	switch {
	case hasResult && hasError:
		return "both", nil
	case hasResult:
		return "response", m.Result
	case hasError:
		return "error", nil
	default:
		return "neither", nil
	}
}

// tapConn wraps a stdio or in-memory connection and feeds taps. It also
// notices responses the SDK drops silently: a second response to a call
// already answered, and a response to a call already cancelled.
type tapConn struct {
	mcp.Connection
	// inbox receives the server's notifications and requests as they are
	// read.
	inbox   *inbox
	mu      sync.Mutex
	pending map[jsonrpc.ID]*tap
	// recent remembers finished calls, so a response arriving after the
	// call has returned can be attributed to its step.
	recent    map[jsonrpc.ID]*tap
	recentIDs []jsonrpc.ID
	anomalies []string
	// unanswered holds the calls that returned without their response (a
	// timeout cancelled them); closed is set when reading has ended.
	unanswered map[jsonrpc.ID]bool
	closed     bool
	// cancelled holds when the cancellation of each unanswered call was
	// written: the SDK sends it in the background, after the call returned.
	cancelled map[jsonrpc.ID]time.Time
	// own routes the answers to the runner's own requests (own.go);
	// ownTaps are the steps those requests are made for while they wait
	// (a task's polls and its tasks/result), so that a request of the
	// server's during them is attributed as during an SDK call.
	own     ownCalls
	ownTaps map[jsonrpc.ID]*tap
	// tasks are the steps whose task is going on, polls or not
	// (holdTask, in tap.go).
	tasks map[*tap]int
	// unread, over stdio, says how many bytes written to the server it has
	// not read yet (see awaitLate); nil elsewhere.
	unread func() (int, bool)
	// worked, over stdio, says whether the server has worked since the
	// last look (see awaitLate); nil elsewhere.
	worked func(cpu *uint64) bool
}

// maxRecent bounds how many finished calls tapConn remembers.
const maxRecent = 1024

func (c *tapConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if t := tapFrom(ctx); t != nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			t.mu.Lock()
			t.id, t.hasID = req.ID, true
			t.mu.Unlock()
			c.mu.Lock()
			c.pending[req.ID] = t
			c.mu.Unlock()
			err := c.Connection.Write(ctx, msg)
			if errors.Is(err, errStuckWrite) {
				t.mu.Lock()
				t.stuck = err
				t.mu.Unlock()
			}
			return err
		}
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && req.Method == "notifications/cancelled" {
		id, ok := cancelledID(req.Params)
		if ok {
			c.mu.Lock()
			// Kept whether or not the call has returned yet (the SDK may
			// write the cancellation first); awaitLate removes it, and a
			// call answered at its deadline never reads it, so the map is
			// bounded. Recorded before the write: a response the server
			// sends once it has the cancellation is read after this.
			if c.cancelled == nil || len(c.cancelled) >= maxRecent {
				c.cancelled = map[jsonrpc.ID]time.Time{}
			}
			c.cancelled[id] = time.Now()
			c.mu.Unlock()
		}
		err := c.Connection.Write(ctx, msg)
		if ok && err != nil {
			c.mu.Lock()
			delete(c.cancelled, id)
			c.mu.Unlock()
		}
		return err
	}
	return c.Connection.Write(ctx, msg)
}

// cancelledID is the request id a notifications/cancelled names.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil
}

// Stuck returns the error of a request write that did not complete, or nil.
func (t *tap) Stuck() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stuck
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.readOwn(ctx)
	if err != nil {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		// One stream carries every call's messages: a request of the
		// server's belongs to a call only when that call is the one in
		// flight, so the calls in flight are kept with it.
		var during []*tap
		if req.IsCall() {
			c.mu.Lock()
			for _, t := range c.pending {
				if t != nil {
					during = append(during, t)
				}
			}
			for _, t := range c.ownTaps {
				if !slices.Contains(during, t) {
					during = append(during, t)
				}
			}
			for t := range c.tasks {
				if !slices.Contains(during, t) {
					during = append(during, t)
				}
			}
			c.mu.Unlock()
		}
		c.inbox.add(req.Method, req.Params, req.IsCall(), nil, during)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return msg, err
	}
	c.mu.Lock()
	t := c.pending[resp.ID]
	late := c.recent[resp.ID]
	_, cancelled := c.cancelled[resp.ID]
	if t != nil {
		// Answered: from now on a response with this id is an anomaly,
		// whether it arrives before or after the call has returned.
		c.remember(resp.ID, t)
	}
	c.mu.Unlock()
	switch {
	case t != nil && cancelled:
		// The client had cancelled the call (the SDK has given up on it
		// and drops this response), but its step has not finished yet:
		// a response after the cancellation all the same. Noted here, it
		// does not depend on which of the two a loaded machine runs
		// first.
		c.note(fmt.Sprintf("%s: the server sent a response after the call was cancelled (the client ignored it)", t.label))
	case t != nil:
		t.mu.Lock()
		switch {
		case resp.Error != nil && len(resp.Result) > 0:
			t.malformed = "the response has both result and error"
		case resp.Error == nil && len(resp.Result) == 0:
			t.malformed = "the response has neither result nor error"
		}
		t.mu.Unlock()
		if resp.Error == nil {
			t.setResult(resp.Result)
		}
	case late != nil:
		late.mu.Lock()
		answered := late.got || late.malformed != ""
		late.mu.Unlock()
		what := duplicateResponse
		if !answered {
			what = "a response after the call was cancelled"
		}
		c.note(fmt.Sprintf("%s: the server sent %s (the client ignored it)", late.label, what))
		c.mu.Lock()
		delete(c.unanswered, resp.ID) // noted: a call waiting for it may end
		c.mu.Unlock()
	}
	return msg, err
}

// duplicateResponse is what a warning says of responses to a call beyond
// the first, over any transport.
const duplicateResponse = "more than one response to one call"

// finish is called when a call has returned: later responses to it are
// anomalies (a call that was answered is remembered already).
func (c *tapConn) finish(t *tap) {
	t.mu.Lock()
	id, ok, noLate := t.id, t.hasID, t.noLate
	t.mu.Unlock()
	if !ok {
		return
	}
	c.mu.Lock()
	answered := c.recent[id] == t
	if !answered {
		// Returned before its response was read (a timeout cancelled it).
		c.remember(id, t)
		if c.unanswered == nil {
			c.unanswered = map[jsonrpc.ID]bool{}
		}
		c.unanswered[id] = true
	}
	c.mu.Unlock()
	if !answered && !noLate {
		c.awaitLate(id)
	}
}

// runEnding marks a call the interrupted run cut short: a late answer to
// it would be noted by nobody, and waiting for one made Ctrl-C take a
// second more than the shutdown itself.
func (t *tap) runEnding() {
	t.mu.Lock()
	t.noLate = true
	t.mu.Unlock()
}

// lateGrace bounds how long a call that returned without its response (a
// timeout cancelled it) waits for a late one before its step is final,
// counted from when the server has the cancellation. A server that
// answers after cancellation does so at once; waiting for it here makes the
// warning about it part of the step, not of whatever the session does next
// (a following call that breaks the connection, or the end of a shard,
// would otherwise lose it).
//
// "Has the cancellation" is what the server did, not how fast this
// machine is: the SDK writes the cancellation in the background after the
// call returned (cancelSendWait at most), over HTTP its POST returns once
// the server has taken it, and over stdio the server has it once it has
// read everything written to its stdin (the pipe says so: Unread), or
// lateGrace after the write, when it has not: a server that stopped
// reading will not answer. Counting from the write alone made the warning
// come and go with the load: on a two-core machine running two test
// suites a demo server read its stdin more than a second late, and a
// shard's report lacked the warning its whole run had. A server that never
// answers costs lateGrace once per timed-out call (twice, over stdio, if
// it does not read the cancellation either), outside the step's duration.
//
// Over stdio, a server still working when lateGrace has passed (one of its
// processes running or waiting for a CPU, or CPU used since the last look:
// stdio.Process.Work) is waited for lateStep more, again and again up to
// lateExtra: with two suites at once a demo server that had read the
// cancellation still had not sent its late answer a second later, and a
// shard's report again lacked the warning. A server that ignores the
// cancellation and sleeps is not waited for longer.
const (
	lateGrace      = time.Second
	cancelSendWait = 5 * time.Second
	lateStep       = 250 * time.Millisecond
	lateExtra      = 5 * time.Second
)

// awaitLate waits until the call id has had its late response, the
// connection has ended, or lateGrace has passed since the server has had
// its cancellation.
func (c *tapConn) awaitLate(id jsonrpc.ID) {
	deadline := time.Now().Add(cancelSendWait + lateGrace)
	var has bool // the server has the cancellation
	var cpu uint64
	extra := time.Duration(0)
	for ; time.Now().Before(deadline) || (has && extra < lateExtra && c.working(&cpu, &extra, &deadline)); time.Sleep(2 * time.Millisecond) {
		c.mu.Lock()
		done := !c.unanswered[id] || c.closed
		sent, ok := c.cancelled[id]
		c.mu.Unlock()
		if done {
			break
		}
		if !ok || has {
			continue
		}
		if c.unread != nil && time.Since(sent) < lateGrace {
			if n, known := c.unread(); known && n > 0 {
				continue // still in the pipe
			}
		}
		has, deadline = true, time.Now().Add(lateGrace)
		if c.worked != nil {
			c.worked(&cpu)
		}
	}
	c.mu.Lock()
	delete(c.unanswered, id)
	delete(c.cancelled, id)
	c.mu.Unlock()
}

// working says, at the end of a late answer's wait, whether the server is
// still working; if so it moves the deadline lateStep on (extra counts it).
func (c *tapConn) working(cpu *uint64, extra *time.Duration, deadline *time.Time) bool {
	if c.worked == nil || !c.worked(cpu) {
		return false
	}
	*extra += lateStep
	*deadline = time.Now().Add(lateStep)
	return true
}

// remember moves a call from pending to the finished calls (c.mu held).
func (c *tapConn) remember(id jsonrpc.ID, t *tap) {
	delete(c.pending, id)
	if c.recent == nil {
		c.recent = map[jsonrpc.ID]*tap{}
	}
	c.recent[id] = t
	c.recentIDs = append(c.recentIDs, id)
	if len(c.recentIDs) > maxRecent {
		delete(c.recent, c.recentIDs[0])
		c.recentIDs = c.recentIDs[1:]
	}
}

func (c *tapConn) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.anomalies) < 100 {
		c.anomalies = append(c.anomalies, s)
	}
}

// Anomalies returns what the connection noticed so far.
func (c *tapConn) Anomalies() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.anomalies...)
}

// tapTransport wraps a Transport's connections in tapConn.
type tapTransport struct {
	inner mcp.Transport
	inbox *inbox
	conn  *tapConn // set by Connect
}

func (t *tapTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &tapConn{Connection: c, inbox: t.inbox, pending: map[jsonrpc.ID]*tap{}}
	if sc, ok := c.(*stdioConn); ok {
		// The SDK starts reading once Connect has returned.
		sc.note = t.conn.note
		t.conn.unread = sc.p.Unread
		t.conn.worked = sc.p.Worked
	}
	return t.conn, nil
}

// Server requests during a task: a task step has a request of its own in
// flight only while one of its polls (tasks/get, tasks/result) waits for
// an answer, and over stdio the server may ask the client something
// between two polls. The task is still going on then, so from the task's
// creation to its end its step counts as in flight (holdTask): a server
// request that comes while it is the only step in flight is listed with
// it; while other steps are in flight too, "during" names them (see
// attribute). Over Streamable HTTP a request on a poll's own stream
// belongs to it already.

// holdTask keeps t in flight on c until the returned func is called.
func (c *tapConn) holdTask(t *tap) (release func()) {
	if c == nil || t == nil {
		return func() {}
	}
	c.mu.Lock()
	if c.tasks == nil {
		c.tasks = map[*tap]int{}
	}
	c.tasks[t]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		if c.tasks[t]--; c.tasks[t] <= 0 {
			delete(c.tasks, t)
		}
		c.mu.Unlock()
	}
}
