package probe

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Timing of the probes. A probe's answer is waited for at most MaxWait (or
// the step's time limit, when shorter): a server that ignores a message is
// allowed to, and over stdio the observer's answer ends the wait sooner.
const (
	MaxWait = 5 * time.Second
	// CancelAfter is how long the cancellation probe's call must have run
	// unanswered before it is cancelled; lateWindow how long an answer
	// after the cancellation is waited for.
	CancelAfter = 200 * time.Millisecond
	lateWindow  = 2 * time.Second
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
		ex := c.watchCancelled(ctx, pr.ID, min(lateWindow, wait))
		if c.proc.Exited(0) {
			ex.Gone, ex.ExitStatus = true, c.proc.ExitStatus()
		}
		return ex, ""
	case *HTTP:
		done := make(chan Exchange, 1)
		go func() {
			_, ex := c.Post(ctx, pr.Message, pr.ID, nil, CancelAfter+min(lateWindow, wait))
			done <- ex
		}()
		select {
		case <-done:
			return Exchange{}, tooFast
		case <-time.After(CancelAfter):
		}
		c.Post(ctx, cancel, "", nil, wait)
		ex := <-done
		ex.Err = nil
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
