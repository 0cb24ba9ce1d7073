package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"sync"
	"time"
)

// The cancellation probe asks for progress: its call carries
// _meta.progressToken (cancelToken), so that a tool that reports progress
// does, and what it sends after the cancellation and after its own result
// can be judged. Every other call mcpcheck makes asks for none, as a plain
// client does.
//
// Which tool it calls (the first, by name, of the read-only tools, with
// valid arguments): one whose name promises a slow call ([Slow]); failing
// that, one whose contract does ([SlowContract]): a description that says
// it is long-running, slow or reports progress, or an argument that sets
// a duration (duration, delay, seconds, sleep, wait). Tools that answer
// within CancelAfter skip the probe.
//
// What it reads after notifications/cancelled (at most lateWindow): over
// stdio the server's stdout, over HTTP the call's own SSE stream and the
// standalone GET stream (a server may send progress there when it does
// not tie it to the call's request). Right after the cancellation it sends an
// observer request; its answer shows the server has read the
// cancellation. The progress rule (see cancelled in catalogue.go) counts
// only what came after that answer and within ProgressWindow of the
// cancellation, so it depends on order and a fixed window, not on how
// fast the machine is.

// cancelToken is the cancellation probe's progress token.
const cancelToken = `"mcpcheck-probe-cancellation"`

var (
	slowDescription = regexp.MustCompile(`(?i)\b(long[- ]running|slow|takes (a|several|\d+) (second|minute)s?|progress (updates|notifications)|reports? progress)\b`)
	durationArg     = regexp.MustCompile(`(?i)^(duration|delay|delay_?ms|delay_?seconds|seconds|sleep|sleep_?ms|wait|wait_?ms|wait_?seconds)$`)
)

// SlowContract reports whether a tool's description or inputSchema
// promises a call slow enough to cancel (see above).
func SlowContract(description string, inputSchema json.RawMessage) bool {
	if slowDescription.MatchString(description) {
		return true
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(inputSchema, &s) != nil {
		return false
	}
	for name := range s.Properties {
		if durationArg.MatchString(name) {
			return true
		}
	}
	return false
}

// afterCancelID is the id of the observer request sent right after the
// cancellation.
const afterCancelID = `"mcpcheck-raw-after-cancel"`

// watchCancelled reads for up to d after the cancellation (sent at
// cancelled, and followed by the observer afterCancelID): the responses to
// id, and the progress notifications with the probe's token — after the
// first response (the order on one stdout is the server's own), or before
// any response: in flight until the observer's answer, then within
// ProgressWindow of the cancellation.
func (c *Stdio) watchCancelled(ctx context.Context, id string, cancelled time.Time, d time.Duration) Exchange {
	acked := false
	return c.readUntil(ctx, d, func(line []byte, ex *Exchange) bool {
		m := Parse(line)
		switch {
		case m.IsResponse(id):
			ex.Replies = append(ex.Replies, m)
			ex.ProgressAfterCancel, ex.ProgressInFlight = 0, 0 // a result came: judged by the rule on results
		case m.IsResponse(afterCancelID):
			acked = true
		case m.Method != "notifications/progress" || progressOf(line) != cancelToken:
		case len(ex.Replies) > 0:
			ex.ProgressAfterResult++
		case !acked:
			ex.ProgressInFlight++
		case time.Since(cancelled) <= ProgressWindow:
			ex.ProgressAfterCancel++
		}
		return false
	})
}

// progressWatch counts the cancellation probe's progress notifications on
// an HTTP answer's stream, read by one goroutine while another sends the
// cancellation and the observer.
type progressWatch struct {
	mu                 sync.Mutex
	cancelAt, ackAt    time.Time
	afterCancel, early int
}

// see takes one message of the call's stream.
func (w *progressWatch) see(msg []byte) {
	if Parse(msg).Method != "notifications/progress" || progressOf(msg) != cancelToken {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.cancelAt.IsZero():
		// Before the cancellation: the tool reports progress, as asked.
	case w.ackAt.IsZero():
		w.early++
	case now.Sub(w.cancelAt) <= ProgressWindow:
		w.afterCancel++
	}
}

func (w *progressWatch) cancelled(at time.Time) {
	w.mu.Lock()
	w.cancelAt = at
	w.mu.Unlock()
}

func (w *progressWatch) acked(at time.Time) {
	w.mu.Lock()
	w.ackAt = at
	w.mu.Unlock()
}

// counts are the progress notifications after the cancellation, judged
// and in flight.
func (w *progressWatch) counts() (afterCancel, inFlight int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.afterCancel, w.early
}

// progressOf is the progress token of a progress notification, as a JSON
// text.
func progressOf(line []byte) string {
	var n struct {
		Params struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"params"`
	}
	if json.Unmarshal(line, &n) != nil {
		return ""
	}
	return string(bytes.TrimSpace(n.Params.Token))
}

// Sentences of the spec the cancellation probe's verdicts quote, as MCP
// 2025-11-25 writes them (the same words since 2025-03-26).
const (
	// basic/utilities/cancellation, Behavior Requirements.
	quoteCancelReceiver = `"Receivers of cancellation notifications SHOULD: Stop processing the cancelled request; Free associated resources; Not send a response for the cancelled request"`
	// basic/utilities/progress, Behavior Requirements.
	quoteProgressActive = `"Progress notifications MUST only reference tokens that: Were provided in an active request; Are associated with an in-progress operation"`
)
