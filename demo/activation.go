package demo

import (
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxActivations bounds the fault tool calls that may be in flight on one
// server (one stdio connection, or one Streamable HTTP handler with all its
// sessions), so that a client cannot grow the server's memory or goroutines
// without limit by starting hangs. The next call is a tool error.
const maxActivations = 128

// activationHeader carries an activation's token from the transport's fault
// layer to the tool handler, in the request's RequestExtra.Header. Over HTTP
// it is set on the POST that carries the call (a client-supplied value is
// always removed); over stdio it is synthesised, since RequestExtra is the
// only per-request value the SDK passes from a Connection to a handler.
const activationHeader = "Mcpcheck-Demo-Activation"

// activationRefused is the activationHeader value of a call that the
// transport could not activate because maxActivations were in flight.
const activationRefused = "refused"

// An activation is one call of an activated fault tool (see activatedTools),
// shared by the transport that carries the call and the tool's handler: the
// handler says how the response must be written and uses what the transport
// can do to the call; the transport ends the activation when the call's
// carrier goes away.
type activation struct {
	token     string
	id        jsonrpc.ID // the tools/call request's id; invalid for a local activation
	sessionID string     // the Streamable HTTP session, or ""

	// Capabilities of the transport, set before the handler can see the
	// activation; false or nil when the transport lacks them.
	rawResponses  bool                                     // respond is honoured
	closeStream   func()                                   // HTTP: drop this request's connection
	endConnection func()                                   // stdio: end the whole connection
	loseSession   func(ss *mcp.ServerSession, during bool) // HTTP: invalidate the session

	stop     chan struct{}
	stopOnce sync.Once

	mu       sync.Mutex
	response responseFault
	ended    bool
	atEnd    []func()
}

// newActivation returns an activation for a call of tool. A hang's
// response is dropped from the start: if the client cancels it before its
// handler runs, the SDK answers for the handler, and hang never answers.
func newActivation(id jsonrpc.ID, sessionID, tool string) *activation {
	a := &activation{id: id, sessionID: sessionID, stop: make(chan struct{})}
	if tool == toolHang {
		a.response = dropResponse
	}
	return a
}

// stopped is closed when the call's transport went away: the HTTP request
// ended or its session is being deleted, the stdio connection closed, or the
// server is shutting down. Every wait of a fault tool watches it as well as
// the handler's context.
func (a *activation) stopped() <-chan struct{} { return a.stop }

func (a *activation) halt() { a.stopOnce.Do(func() { close(a.stop) }) }

// respond sets how the transport writes the response to the call.
func (a *activation) respond(f responseFault) {
	a.mu.Lock()
	a.response = f
	a.mu.Unlock()
}

// takeResponse returns how to write the response, once: a second response
// with the same id (which only a duplicate could produce) is written as is.
func (a *activation) takeResponse() responseFault {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.response
	a.response = respondNormally
	return f
}

// onEnd arranges for fn to run when the activation ends, or runs it now if
// it has ended.
func (a *activation) onEnd(fn func()) {
	a.mu.Lock()
	if !a.ended {
		a.atEnd = append(a.atEnd, fn)
		a.mu.Unlock()
		return
	}
	a.mu.Unlock()
	fn()
}

func (a *activation) end() {
	a.halt()
	a.mu.Lock()
	fns := a.atEnd
	a.atEnd, a.ended = nil, true
	a.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// activations is the bounded set of activations in flight on one server.
type activations struct {
	mu      sync.Mutex
	next    uint64
	byToken map[string]*activation
}

func newActivations() *activations {
	return &activations{byToken: make(map[string]*activation)}
}

// add gives a a token and records it, unless maxActivations are in flight.
func (r *activations) add(a *activation) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.byToken) >= maxActivations {
		return false
	}
	r.next++
	a.token = strconv.FormatUint(r.next, 10)
	r.byToken[a.token] = a
	return true
}

func (r *activations) lookup(token string) *activation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byToken[token]
}

// remove ends a and forgets it. Removing it twice is harmless.
func (r *activations) remove(a *activation) {
	r.mu.Lock()
	delete(r.byToken, a.token)
	r.mu.Unlock()
	a.end()
}

// haltWhere stops the waits of the activations for which match holds,
// leaving their removal to their transports.
func (r *activations) haltWhere(match func(*activation) bool) {
	r.mu.Lock()
	var hit []*activation
	for _, a := range r.byToken {
		if match(a) {
			hit = append(hit, a)
		}
	}
	r.mu.Unlock()
	for _, a := range hit {
		a.halt()
	}
}
