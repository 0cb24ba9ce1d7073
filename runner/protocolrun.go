package runner

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// Timing of the probes. A probe's answer is waited for at most maxProbeWait
// (or the step's time limit, when shorter): a server that ignores a message
// is allowed to, and over stdio the observer's answer ends the wait sooner.
const (
	maxProbeWait = 5 * time.Second
	// cancelAfter is how long the cancellation probe's call must have run
	// unanswered before it is cancelled; lateWindow how long an answer
	// after the cancellation is waited for.
	cancelAfter = 200 * time.Millisecond
	lateWindow  = 2 * time.Second
)

// runProbes runs a rawProbes scenario: each probe on the scenario's raw
// connection (or a fresh one), then its observer. A stdio server that died
// is relaunched before the next probe; an HTTP server that cannot be
// reached again ends the run early.
func (r *runState) runProbes(ctx context.Context, sc *scenario) {
	steps := r.rep.Scenarios[sc.index].Steps
	var conn rawConn
	defer func() {
		if conn != nil {
			conn.close()
		}
		r.probeClosers.Wait()
	}()
	restart := false
	// lost names the probe after which the server was gone, for the
	// report's terminatedEarly when it cannot be reached again.
	lost := &link{}
	tmp := r.scenarioScratch()
	if tmp == "" {
		tmp = r.tmp
	}
	for j := 0; j+1 < len(sc.steps); j += 2 {
		if ctx.Err() != nil {
			skipFrom(steps, j, reasonInterrupted)
			return
		}
		if conn == nil {
			var err error
			conn, err = r.openRaw(ctx, tmp, false, restart)
			if err != nil {
				if ctx.Err() != nil {
					skipFrom(steps, j, reasonInterrupted)
					return
				}
				r.unreachableUpTo(ctx, lost, sc, j, len(steps), err)
				return
			}
		}
		replace, died := r.runProbe(ctx, sc, j, conn, tmp)
		r.stepDone(sc, j)
		r.stepDone(sc, j+1)
		if replace {
			conn.close()
			conn, restart = nil, died
		}
		if died {
			lost.lostScenario, lost.lostStep = sc.name, steps[j].ID
		}
	}
}

// openRaw opens a raw connection and counts it (as a restart when it
// replaces one the server lost).
func (r *runState) openRaw(ctx context.Context, tmp string, bare, restart bool) (rawConn, error) {
	var c rawConn
	var err error
	switch {
	case r.rep.ProtocolVersion == config.ProtocolVersion2026 && r.suite.Endpoint != "":
		// No session to open: every POST stands alone.
		c = r.d.sessionlessHTTP()
	case r.rep.ProtocolVersion == config.ProtocolVersion2026:
		// No handshake: the probes' own requests say the version.
		var s *rawStdio
		s, err = r.d.openRawStdio(ctx, tmp, true)
		if err == nil {
			c = s
		}
	case r.suite.Endpoint != "":
		var h *rawHTTP
		h, err = r.d.openRawHTTP(ctx)
		if err == nil {
			c = h
		}
	default:
		var s *rawStdio
		s, err = r.d.openRawStdio(ctx, tmp, bare)
		if err == nil {
			c = s
		}
	}
	r.mu.Lock()
	r.sessions++
	r.rep.Connections = r.sessions
	if restart && err == nil {
		r.rep.Restarts++
	}
	r.mu.Unlock()
	return c, err
}

// runProbe runs probe step j and its observer j+1 and reports whether the
// connection must be replaced (the probe used it up, or the server died)
// and whether the server died.
func (r *runState) runProbe(ctx context.Context, sc *scenario, j int, conn rawConn, tmp string) (replace, died bool) {
	steps := r.rep.Scenarios[sc.index].Steps
	p := &sc.steps[j]
	pr := p.probe
	wait := min(p.timeout, maxProbeWait)
	out, obs := p.result(), sc.steps[j+1].result()
	on := conn
	usedUp := false
	began := time.Now()
	var ex exchange
	switch {
	case pr.fresh && r.suite.Endpoint == "":
		fresh, err := r.openRaw(ctx, tmp, true, false)
		if err != nil {
			out.Status, out.Reason = StatusFailed, "could not start a fresh server process for this probe: "+r.clean(err.Error(), 300)
			obs.Status, obs.Reason = StatusSkipped, "not run: the probe could not start"
			steps[j], steps[j+1] = out, obs
			return false, false
		}
		// Shut down in the background (a server may take its grace period
		// to exit); runProbes waits for it before it returns.
		defer func() {
			r.probeClosers.Go(fresh.close)
		}()
		on = fresh
		ex = fresh.send(ctx, pr.message, pr.id, wait)
	case pr.fresh:
		// A POST without a session: an initialize of its own.
		h := conn.(*rawHTTP)
		hdr, e := h.post(ctx, pr.message, pr.id, func(hd http.Header) { hd.Del("Mcp-Session-Id"); hd.Del("MCP-Protocol-Version") }, wait)
		ex = e
		if id := hdr.Get("Mcp-Session-Id"); id != "" {
			(&rawHTTP{client: h.client, endpoint: h.endpoint, session: id}).close()
		}
	case pr.before != nil:
		h := conn.(*rawHTTP)
		if why := pr.before(h); why != "" {
			out.Status, out.Reason = StatusSkipped, "not run: "+why
			obs.Status, obs.Reason = StatusSkipped, out.Reason
			steps[j], steps[j+1] = out, obs
			return false, false
		}
		_, del := h.do(ctx, http.MethodDelete, nil, "", nil, wait)
		if del.err != nil || del.status >= 300 {
			out.Status, out.Reason = StatusSkipped, fmt.Sprintf("not run: the server did not delete the session (%s)", got(&del))
			obs.Status, obs.Reason = StatusSkipped, out.Reason
			steps[j], steps[j+1] = out, obs
			return false, false
		}
		_, ex = h.post(ctx, pr.message, pr.id, pr.edit, wait)
		// The session is gone: the observer and the next probe need a new
		// one (not a restart: nothing was lost).
		usedUp = true
	case pr.cancel:
		var skip string
		ex, skip = r.cancelProbe(ctx, conn, pr, wait)
		if skip != "" {
			out.Status, out.Reason = StatusSkipped, "not run: "+skip
			out.DurationMs = ms(time.Since(began))
			obs.Status, obs.Reason = StatusSkipped, out.Reason
			steps[j], steps[j+1] = out, obs
			return false, false
		}
	case pr.run != nil:
		var v verdict
		var skip string
		ex, v, skip = pr.run(ctx, conn, wait)
		if skip != "" && ctx.Err() == nil {
			out.Status, out.Reason = StatusSkipped, "not run: "+r.clean(skip, 500)
			out.DurationMs = ms(time.Since(began))
			obs.Status, obs.Reason = StatusSkipped, out.Reason
			steps[j], steps[j+1] = out, obs
			return false, false
		}
		ex.verdict = &v
	case pr.edit != nil:
		_, ex = conn.(*rawHTTP).post(ctx, pr.message, pr.id, pr.edit, wait)
	default:
		ex = conn.send(ctx, pr.message, pr.id, wait)
	}
	out.DurationMs = ms(time.Since(began))
	if ctx.Err() != nil {
		// The probe was sent; its observer was not.
		skipFrom(steps[j:j+1], 0, reasonInterruptedCall)
		skipFrom(steps[j+1:j+2], 0, reasonInterrupted)
		return true, false
	}
	r.judgeProbe(pr, &ex, &out)
	if s, ok := on.(*rawStdio); ok && ex.gone {
		out.ExitStatus = ex.exitStatus
		for _, l := range s.proc.StderrTail(stderrLines) {
			out.Stderr = append(out.Stderr, r.clean(l, 500))
		}
	}
	steps[j] = out
	r.traceStep(sc, p, &out, nil, began)

	// The observer, on the connection the rest of the probes use.
	obsBegan := time.Now()
	alive, gone, exit := false, ex.gone && on == conn, ex.exitStatus
	switch {
	case gone:
	case usedUp:
		next, err := r.openRaw(ctx, tmp, false, false)
		if err != nil {
			gone = true
			break
		}
		alive, gone, exit = next.alive(ctx, wait)
		next.close()
	default:
		alive, gone, exit = conn.alive(ctx, wait)
	}
	obs.DurationMs = ms(time.Since(obsBegan))
	if s, ok := conn.(*rawStdio); ok && s.observer != "ping" {
		// The server does not know ping: the observer listed its tools.
		obs.Kind = config.KindList
	}
	switch {
	case alive:
		obs.Status, obs.Outcome = StatusPassed, config.OutcomeOK
	case gone:
		obs.Status, obs.Outcome, obs.ExitStatus = StatusFailed, config.OutcomeTransportClosed, exit
		obs.Reason = "the server is gone after probe " + pr.name + "; relaunched for the next probe"
		if r.suite.Endpoint != "" {
			obs.Reason = "the server could not be reached after probe " + pr.name
		}
		died = true
	default:
		obs.Status, obs.Outcome = StatusFailed, config.OutcomeTimeout
		obs.Reason = fmt.Sprintf("no answer to the observer within %s after probe %s: the server stopped answering", wait, pr.name)
		died = true
	}
	steps[j+1] = obs
	r.traceStep(sc, &sc.steps[j+1], &obs, nil, obsBegan)
	return usedUp || died, died
}

// cancelProbe makes the slow call, cancels it once it has run cancelAfter
// unanswered, and collects any answer that comes within lateWindow after.
// skip says why the probe could not judge anything.
func (r *runState) cancelProbe(ctx context.Context, conn rawConn, pr *probe, wait time.Duration) (exchange, string) {
	cancel := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"mcpcheck protocol probe"}}`, pr.id)
	switch c := conn.(type) {
	case *rawStdio:
		c.drain()
		c.write(pr.message)
		if early := c.watch(ctx, pr.id, cancelAfter); len(early) > 0 {
			return exchange{}, fmt.Sprintf("the call answered within %s, too fast to cancel", cancelAfter)
		}
		if c.proc.Exited(0) {
			return exchange{gone: true, exitStatus: c.proc.ExitStatus()}, ""
		}
		c.write(cancel)
		ex := exchange{replies: c.watch(ctx, pr.id, min(lateWindow, wait))}
		if c.proc.Exited(0) {
			ex.gone, ex.exitStatus = true, c.proc.ExitStatus()
		}
		return ex, ""
	case *rawHTTP:
		done := make(chan exchange, 1)
		go func() {
			_, ex := c.post(ctx, pr.message, pr.id, nil, cancelAfter+min(lateWindow, wait))
			done <- ex
		}()
		select {
		case <-done:
			return exchange{}, fmt.Sprintf("the call answered within %s, too fast to cancel", cancelAfter)
		case <-time.After(cancelAfter):
		}
		c.post(ctx, cancel, "", nil, wait)
		ex := <-done
		ex.err = nil
		return ex, ""
	}
	return exchange{}, "no raw connection"
}

// judgeProbe settles a probe step from its exchange: the outcome, and the
// verdict as its status, note or reason, and (for a finding) what was
// expected and got.
func (r *runState) judgeProbe(pr *probe, ex *exchange, out *StepResult) {
	rep := ex.reply()
	switch {
	case ex.gone:
		out.Outcome = config.OutcomeTransportClosed
	case rep != nil && rep.batch != nil:
		out.Outcome = config.OutcomeOK
		for _, m := range rep.batch {
			if m.err != nil {
				code := m.err.Code
				out.Outcome, out.ErrorCode = config.OutcomeProtocolError, &code
			}
		}
	case rep != nil && rep.err != nil:
		code := rep.err.Code
		out.Outcome, out.ErrorCode = config.OutcomeProtocolError, &code
		out.Detail = r.clean(rep.err.Message, 2000)
	case rep != nil && isErrorResult(rep.result):
		out.Outcome = config.OutcomeToolError
	case rep != nil:
		out.Outcome = config.OutcomeOK
	case ex.status >= 400:
		out.Outcome = config.OutcomeProtocolError
	default:
		out.Outcome = config.OutcomeTimeout
	}
	v := pr.judge(ex)
	ref := probeReference(pr.reference, r.rep.ProtocolVersion)
	msg := fmt.Sprintf("expected %s; got %s (%s)", v.expected, v.got, ref)
	verdict := &ProbeVerdict{Expected: v.expected, Got: v.got, Reference: ref}
	if strings.HasPrefix(out.Target, "tools/call ") {
		verdict.Tool = strings.TrimPrefix(out.Target, "tools/call ")
	}
	switch v.level {
	case levelPass:
		out.Status = StatusPassed
		return
	case levelNote:
		word := "should: "
		if v.risk {
			word = "risk: "
		}
		out.Status, out.Flagged = StatusPassed, true
		out.Notes = []string{word + msg}
	default:
		out.Status, out.Reason = StatusFailed, msg
	}
	// Analysis lists it as a finding, with what the spec asks.
	out.Probe = verdict
}

// probeReference is a probe's spec reference with the protocol version.
func probeReference(section, version string) string {
	if strings.HasPrefix(section, "JSON-RPC") {
		return section + "; MCP " + version + " basic"
	}
	return "MCP " + version + " " + section
}
