package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// An inbox holds what a session received that was not a response: the
// server's notifications and its requests to the client, in the order they
// came off the wire. Over stdio, legacy SSE and in memory the connection
// wrapper (tapConn) adds them as it reads, over Streamable HTTP the HTTP
// client does (a POST's own event stream and the standalone stream), so
// when a call returns, everything the server sent before the response is
// already here. It is bounded in count and in bytes (the oldest go first),
// so a server that floods costs a fixed amount of memory. Steps read it two ways: the messages that arrived while they
// were in flight (expect.notifications, the requests the server made of the
// client), and await, which consumes the first unconsumed notification
// that matches.
type inbox struct {
	mu    sync.Mutex
	items []received
	first int           // sequence number of items[0]
	bytes int           // params bytes held
	wake  chan struct{} // closed (and replaced) when an item arrives
	// cuts counts the messages on a stream no single call owns that were
	// cut at maxMessageBytes: an await that missed its notification then
	// reports oversized_response rather than a plain timeout.
	cuts int

	// streamAnswered is closed when the server first answered the HTTP
	// standalone stream's GET (opened, or refused).
	streamAnswered chan struct{}
	streamOnce     sync.Once
}

// received is one message of an inbox.
type received struct {
	seq     int
	method  string
	params  json.RawMessage
	token   string // the progressToken of a progress notification
	request bool   // a request from the server to the client
	used    bool   // consumed by an await
	// owner is the call whose own HTTP stream (its POST's response)
	// carried a request of the server's, and during the calls in flight
	// on the connection when one came on a stream no call owns: what
	// attributes it to a step (attribute).
	owner  *tap
	during []*tap
}

// maxInbox and maxInboxBytes bound what a session keeps: how many
// messages, and the bytes of their params. The oldest go first, in batches
// (a quarter of the bound at a time), so a flood costs amortised constant
// time per message.
const (
	maxInbox      = 10000
	maxInboxBytes = 32 << 20
)

func newInbox() *inbox { return &inbox{wake: make(chan struct{}), streamAnswered: make(chan struct{})} }

// answered records that the standalone stream's GET was answered.
func (b *inbox) answered() {
	if b != nil {
		b.streamOnce.Do(func() { close(b.streamAnswered) })
	}
}

// add records a message from the server.
func (b *inbox) add(method string, params json.RawMessage, request bool, owner *tap, during []*tap) {
	if b == nil {
		return
	}
	r := received{method: method, params: params, request: request, owner: owner, during: during}
	if method == "notifications/progress" {
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		if json.Unmarshal(params, &p) == nil {
			var s string
			if json.Unmarshal(p.Token, &s) == nil {
				r.token = s
			}
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	r.seq = b.first + len(b.items)
	b.items = append(b.items, r)
	b.bytes += len(params)
	if len(b.items) > maxInbox+maxInbox/4 || b.bytes > maxInboxBytes {
		b.evict()
	}
	close(b.wake)
	b.wake = make(chan struct{})
}

// evict drops the oldest messages until the inbox is within maxInbox and
// maxInboxBytes again (b.mu held).
func (b *inbox) evict() {
	n := 0
	for n < len(b.items) && (len(b.items)-n > maxInbox || b.bytes > maxInboxBytes) {
		b.bytes -= len(b.items[n].params)
		n++
	}
	clear(b.items[:n]) // let go of their params
	b.items = append(b.items[:0], b.items[n:]...)
	b.first += n
}

// cut records that a stream no single call owns had a message cut at
// maxMessageBytes.
func (b *inbox) cut() {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.cuts++
	close(b.wake) // an await that the cut ends learns it now
	b.wake = make(chan struct{})
	b.mu.Unlock()
}

// cutCount is how many such messages were cut so far.
func (b *inbox) cutCount() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.cuts
}

// addMessage records a raw JSON-RPC message if it is a notification or a
// request from the server; responses are not its business. owner is the
// call whose own stream carried it (nil on a shared stream), and inFlight,
// asked for a request on a shared stream only, lists the calls in flight.
func (b *inbox) addMessage(msg []byte, owner *tap, inFlight func() []*tap) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if b == nil || json.Unmarshal(msg, &m) != nil || m.Method == "" {
		return
	}
	request := len(m.ID) > 0 && !bytes.Equal(m.ID, []byte("null"))
	var during []*tap
	if request && owner == nil && inFlight != nil {
		during = inFlight()
	}
	b.add(m.Method, m.Params, request, owner, during)
}

// next is the sequence number the next message will get.
func (b *inbox) next() int {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.first + len(b.items)
}

// between returns the messages numbered from..to-1 still held.
func (b *inbox) between(from, to int) []received {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []received
	for _, r := range b.items {
		if r.seq >= from && r.seq < to {
			out = append(out, r)
		}
	}
	return out
}

// await returns the first notification not yet consumed that match
// accepts, waiting for one until ctx ends, and consumes it.
func (b *inbox) await(ctx context.Context, match func(*received) bool) (received, bool) {
	return b.awaitUncut(ctx, -1, match)
}

// awaitUncut is await that also gives up once the inbox counts more than
// cuts cut messages (cuts < 0: never): the message that was cut may have
// been the one awaited, and a stream that cut one can cut every other, so
// waiting out the time limit would only delay the same verdict
// (oversized_response). A match already received still wins.
func (b *inbox) awaitUncut(ctx context.Context, cuts int, match func(*received) bool) (received, bool) {
	if b == nil {
		<-ctx.Done()
		return received{}, false
	}
	for {
		b.mu.Lock()
		for i := range b.items {
			r := &b.items[i]
			if !r.used && !r.request && match(r) {
				r.used = true
				out := *r
				b.mu.Unlock()
				return out, true
			}
		}
		if cuts >= 0 && b.cuts > cuts {
			b.mu.Unlock()
			return received{}, false
		}
		wake := b.wake
		b.mu.Unlock()
		select {
		case <-ctx.Done():
			return received{}, false
		case <-wake:
		}
	}
}

// notification turns a received message into what checkers see.
func (r *received) notification() assert.Notification {
	n := assert.Notification{Method: r.method}
	if len(r.params) > 0 {
		n.Params = jsonx.Value(r.params)
	}
	return n
}

// attribute says whether a request the server made of the client, which
// came while the call tp was in flight, is listed with tp's step, and the
// other steps that share it. It belongs to tp provably when it came on
// tp's own HTTP stream (its POST's response), or on a shared stream while
// tp was the only call in flight; then during is nil. On another call's
// own stream it is that call's, not tp's. Otherwise it came during tp and
// the others in flight, named in during: "roots/list ×1 (during steps A,
// B)" rather than a guess that gave "greet" the roots and sampling other
// tools asked for. One that came when tp was not in flight is not its.
func attribute(m *received, tp *tap) (during []string, ours bool) {
	switch {
	case m.owner != nil:
		return nil, m.owner == tp
	case !slices.Contains(m.during, tp):
		return nil, false
	}
	for _, t := range m.during {
		if t != tp {
			during = append(during, t.label)
		}
	}
	slices.Sort(during)
	return during, true
}

// Progress is asked for only where a step needs it (a step that expects
// notifications/progress; see wantsProgress), since most clients never
// send a _meta.progressToken. Such a step therefore tests the call only as
// a client that asks for progress makes it: a tool that dereferences _meta
// and crashes without it would pass. So the step's call is made as written
// and then once more without _meta (same parameters, same session): a
// check under the step, [report.PlainCall], not a step of its own.
//
// The second call is made only where a second call is harmless: a
// resources/read or prompts/get (reads), a tool annotated readOnlyHint or
// idempotentHint true, or any tool when the run allows destructive calls
// (generate.includeDestructive, --include-destructive). Otherwise the
// check is skipped and says why. It is not made either when the first
// call crashed itself: there is nothing to compare.
//
// Verdict: the check fails when the plain call crashed (a JSON-RPC
// -32603 internal error, the connection closed, no answer within the
// step's time, a broken message) while the call with a progress token did
// not; any other answer passes, whatever it is (a tool may answer
// differently without progress to report). A failed check fails the step
// (the scenario goes on: the step's own expectations held) and is listed
// as a finding (origin fixture, kind without-progress) naming both calls'
// outcomes; with -v both exchanges are in the report, the plain call's
// under the step's withoutProgress.

// crashes reports whether an outcome is a call that broke rather than an
// answer: an internal error, a lost connection, no answer, a broken
// message.
func crashes(o config.Outcome, code *int64) bool {
	switch o {
	case config.OutcomeTransportClosed, config.OutcomeTimeout, config.OutcomeMalformedResponse, config.OutcomeSessionLost:
		return true
	case config.OutcomeProtocolError:
		return code != nil && *code == -32603
	}
	return false
}

// secondCallAllowed says why the step's call may not be made twice ("" if
// it may).
func (r *runState) secondCallAllowed(c *call) string {
	switch c.kind {
	case config.KindResource, config.KindPrompt:
		return ""
	case config.KindTool:
	default:
		return "a " + string(c.kind) + " step is not made twice"
	}
	if g := r.suite.Generate; g != nil && g.IncludeDestructive {
		return ""
	}
	t, known := r.tools[c.name]
	if !known {
		return "the tool is not in the listing"
	}
	if ro, _ := gen.Hint(t.Annotations, "readOnlyHint"); ro {
		return ""
	}
	if idem, _ := gen.Hint(t.Annotations, "idempotentHint"); idem {
		return ""
	}
	return "the tool is not annotated readOnlyHint or idempotentHint true, so it is not called twice; --include-destructive allows it"
}

// callWithoutProgress makes a progress-asking step's call once more
// without _meta and judges it against the first call's outcome (out).
func (r *runState) callWithoutProgress(ctx context.Context, sess *session, p *step, params []byte, out *report.StepResult) {
	pc := &report.PlainCall{Status: report.StatusSkipped}
	out.WithoutProgress = pc
	if crashes(out.Outcome, out.ErrorCode) {
		pc.Reason = "the call with a progress token got no answer either (" + outcomeWords(out.Outcome, out.ErrorCode) + "): nothing to compare"
		return
	}
	if why := r.secondCallAllowed(&p.call); why != "" {
		pc.Reason = why
		return
	}
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	tp := &tap{label: "without progress"}
	began := time.Now()
	rep, err := p.call.do(withTap(callCtx, tp), sess, params, "")
	pc.DurationMs = ms(time.Since(began))
	tp.cancelAfterBody(cancel)
	sess.finish(tp)
	if err != nil && cutShort(ctx, callCtx) {
		pc.Reason = reasonInterruptedCall
		return
	}
	cl := classify(callCtx, rep, err, tp)
	pc.Outcome, pc.ErrorCode = cl.Outcome, cl.Code
	var scratch report.StepResult
	r.noteTransport(sess, cl.Outcome, &scratch)
	pc.Status = report.StatusPassed
	if crashes(cl.Outcome, cl.Code) {
		// The check fails the step, and the scenario goes on: the step's
		// own expectations held, and its answer stays usable by $ref.
		pc.Status = report.StatusFailed
		if out.Status == report.StatusPassed {
			out.Status, out.GoesOn = report.StatusFailed, true
		}
		pc.Reason = fmt.Sprintf("the same call without _meta (no progress token, as most clients call) got %s, where the call with _meta.progressToken got %s",
			outcomeWords(cl.Outcome, cl.Code), outcomeWords(out.Outcome, out.ErrorCode))
	}
	if r.wantsExchange(pc.Status) {
		var answer []byte
		if rep != nil {
			answer = rep.raw
		}
		var code *int64
		if cl.Outcome == config.OutcomeProtocolError {
			code = cl.Code
		}
		pc.Exchange = r.exchange(&p.call, params, answer, code, cl.Detail)
	}
}

// outcomeWords is an outcome as a finding says it: "protocol_error -32603".
func outcomeWords(o config.Outcome, code *int64) string {
	if o == config.OutcomeProtocolError && code != nil {
		return string(o) + " " + strconv.FormatInt(*code, 10)
	}
	return string(o)
}

// progressSentence is the spec's sentence that makes a progress token the
// client's choice (MCP 2025-11-25, basic/utilities/progress).
const progressSentence = `"When a party wants to receive progress updates for a request, it includes a progressToken in the request metadata."`

// withoutProgressFindings are the failed [report.PlainCall] checks of scenarios,
// as findings (analysis reads them from the steps: a report read back
// gives the same).
func withoutProgressFindings(scenarios []report.ScenarioResult, version string) []report.Finding {
	var out []report.Finding
	for i := range scenarios {
		sc := &scenarios[i]
		for j := range sc.Steps {
			st := &sc.Steps[j]
			if st.WithoutProgress == nil || st.WithoutProgress.Status != report.StatusFailed {
				continue
			}
			name := st.Tool
			if name == "" {
				name = st.Target
			}
			out = append(out, report.Finding{Tool: name, Origin: config.OriginFixture, Kind: report.FindingWithoutProgress, ProtocolVersion: version,
				Status: report.StatusFailed, Step: sc.Name + " / " + st.ID,
				Message: st.WithoutProgress.Reason + "; asking for progress is the client's choice (MCP 2025-11-25 basic/utilities/progress, Progress Flow: " + progressSentence + ")"})
		}
	}
	return out
}
