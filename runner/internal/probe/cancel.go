package probe

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Timing of the probes. A probe's answer is waited for at most MaxWait (or
// the step's time limit, when shorter): a server that ignores a message is
// allowed to, and over stdio the observer's answer ends the wait sooner.
// MaxWait is spent only on a server that answers neither, so it is generous:
// at 5 s, server-everything on a machine running two test suites answered
// a probe later than that in one shard, and the shards' merged report
// lacked the finding the whole run had.
const (
	MaxWait = 15 * time.Second
	// CancelAfter is how long the cancellation probe's call must have run
	// unanswered before it is cancelled; lateWindow how long an answer
	// after the cancellation is waited for.
	CancelAfter = 200 * time.Millisecond
	lateWindow  = 2 * time.Second
	// ProgressWindow is how long after notifications/cancelled the
	// probe's progress notifications are counted (see progress.go).
	ProgressWindow = time.Second
)

// Cancel runs a cancellation probe on conn: it makes the slow call,
// cancels it once it has run CancelAfter unanswered, and collects any
// answer that comes within lateWindow after. skip says why the probe could
// not judge anything.
func Cancel(ctx context.Context, conn Conn, pr *Probe, wait time.Duration) (ex Exchange, skip string) {
	cancel := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"mcpcheck protocol probe"}}`, pr.ID)
	tooFast := fmt.Sprintf("the call answered within %s, too fast to cancel", CancelAfter)
	switch c := conn.(type) {
	case *Stdio:
		c.Drain()
		c.Write(pr.Message)
		if early := c.Watch(ctx, pr.ID, CancelAfter); len(early) > 0 {
			return Exchange{}, tooFast
		}
		if c.proc.Exited(0) {
			return Exchange{Gone: true, ExitStatus: c.proc.ExitStatus()}, ""
		}
		c.Write(cancel)
		cancelled := time.Now()
		c.Write(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":%q}`, afterCancelID, c.observer))
		ex := c.watchCancelled(ctx, pr.ID, cancelled, min(lateWindow, wait))
		if c.proc.Exited(0) {
			ex.Gone, ex.ExitStatus = true, c.proc.ExitStatus()
		}
		return ex, ""
	case *HTTP:
		w := &progressWatch{}
		// The standalone GET stream too, where a server may send progress
		// it does not tie to the call's request; bounded like the call's
		// POST, and closed when the probe ends (a server without one
		// answers 405 at once).
		getCtx, stopGet := context.WithCancel(ctx)
		got := make(chan struct{})
		go func() {
			defer close(got)
			c.do(getCtx, http.MethodGet, nil, "", nil, CancelAfter+min(lateWindow, wait), w.see)
		}()
		defer func() { stopGet(); <-got }()
		done := make(chan Exchange, 1)
		go func() {
			_, ex := c.do(ctx, http.MethodPost, pr.Message, pr.ID, nil, CancelAfter+min(lateWindow, wait), w.see)
			done <- ex
		}()
		select {
		case <-done:
			return Exchange{}, tooFast
		case <-time.After(CancelAfter):
		}
		c.Post(ctx, cancel, "", nil, wait)
		w.cancelled(time.Now())
		// The observer after the cancellation: once it is answered, the
		// server has read the cancellation (its own POST came first).
		if _, ack := c.Post(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"ping"}`, afterCancelID), afterCancelID, nil, min(lateWindow, wait)); ack.Reply() != nil {
			w.acked(time.Now())
		}
		ex := <-done
		ex.Err = nil
		if ex.Reply() == nil {
			ex.ProgressAfterCancel, ex.ProgressInFlight = w.counts()
		}
		return ex, ""
	}
	return Exchange{}, "no raw connection"
}

// Reference is a probe's spec reference with the protocol version.
func Reference(section, version string) string {
	if strings.HasPrefix(section, "JSON-RPC") {
		return section + "; MCP " + version + " basic"
	}
	return "MCP " + version + " " + section
}
