package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/probe"
	"github.com/mcpcheck/mcpcheck/runner/report"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tidwall/gjson"
)

// kindRaw is the report's kind of a protocol probe: a raw JSON-RPC message,
// which no fixture step kind can send.
const kindRaw config.StepKind = "raw"

// protocolTarget is what generation needs to know to plan the probes.
type protocolTarget struct {
	transport report.TargetTransport
	version   string // negotiated
	caps      *mcp.ServerCapabilities
}

// protocol plans the probes as one scenario of their own (a connection,
// over stdio a server process, of its own): probe, observer, probe, ...
func (c *generator) protocol(t protocolTarget, readOnly, allowed []tool) {
	switch {
	case t.transport != report.TargetStdio && t.transport != report.TargetHTTP:
		c.note("protocol probes: not run over %s (they speak raw JSON-RPC over stdio or Streamable HTTP)", t.transport)
		return
	}
	pt := probe.Target{HTTP: t.transport == report.TargetHTTP, Version: t.version, Caps: t.caps, Loopback: probe.Loopback(c.suite.Endpoint)}
	var probes []probe.Probe
	if t.version == config.ProtocolVersion2026 {
		// No handshake, no sessions: the revision's own probes.
		probes = c.eraProbes(pt, readOnly, allowed)
	} else {
		probes = probe.Catalogue(pt, c.probeTool(readOnly, allowed))
		if p, ok := c.cancellation(readOnly); ok {
			probes = append(probes, p)
		}
	}
	sc := c.scenario("protocol: " + string(t.transport))
	sc.mode, sc.isolation, sc.continueOnFailure = rawProbes, config.IsolationScenario, true
	for i := range probes {
		p := &probes[i]
		spec := &config.Step{ID: p.Name, Origin: config.OriginProtocol}
		st := newStep(spec, c.suite.TimeoutMs)
		st.call = call{kind: kindRaw, name: p.Target()}
		st.caseName, st.score, st.probe = p.Name, config.ScoreProtocol, p
		obs := newStep(&config.Step{ID: p.Name + ".alive", Kind: config.KindPing, Origin: config.OriginProtocol}, c.suite.TimeoutMs)
		obs.call.name = "after " + p.Name
		obs.caseName = "observer"
		sc.steps = append(sc.steps, st, obs)
	}
	c.add(sc)
}

// onlyProtocol reports whether the protocol probes are all g generates:
// they need no offered inputs.
func onlyProtocol(g *config.Generate) bool {
	return g.Protocol && !g.Fuzz && !g.Fidelity && !g.Probes && !g.Lifecycle && len(g.LifecycleGroups) == 0 && g.Concurrency < 2
}

// probeTool is the tool the tools/call probes (null and omitted
// arguments) use: the first read-only tool (by name) with no required
// property, else the first read-only one. A server with no read-only tool
// (a calculator, a repository host) gets them on the first tool allowTools
// allows whose inputSchema has required properties, read-only or not:
// without arguments that call is invalid whatever the tool does, so it is
// safe to make (a tool that ran anyway would be a finding of its own). ""
// when there is none.
func (c *generator) probeTool(readOnly, allowed []tool) string {
	for _, t := range readOnly {
		if len(required(t)) == 0 {
			return t.Name
		}
	}
	if len(readOnly) > 0 {
		return readOnly[0].Name
	}
	for _, t := range allowed {
		if len(required(t)) > 0 {
			return t.Name
		}
	}
	return ""
}

// required lists the required properties of a tool's inputSchema.
func required(t tool) []string {
	var s struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(t.InputSchema, &s)
	return s.Required
}

// cancellation plans the cancellation probe (see [probe.Cancellation]) on
// the first read-only tool whose name promises a slow call, else the first
// whose contract does ([probe.SlowContract]: a long-running or
// progress-reporting description, a duration argument), with valid
// arguments.
func (c *generator) cancellation(readOnly []tool) (probe.Probe, bool) {
	byName := slices.DeleteFunc(slices.Clone(readOnly), func(t tool) bool { return !probe.Slow(t.Name) })
	byContract := slices.DeleteFunc(slices.Clone(readOnly), func(t tool) bool {
		return probe.Slow(t.Name) || !probe.SlowContract(t.Description, t.InputSchema)
	})
	for _, t := range append(byName, byContract...) {
		args, notes := c.values.Valid(t.Name, c.input(t.Name))
		if len(notes) > 0 || args == nil {
			continue
		}
		a, err := json.Marshal(args)
		if err != nil {
			continue
		}
		return probe.Cancellation(t.Name, a), true
	}
	return probe.Probe{}, false
}

// runProbes runs a rawProbes scenario: each probe on the scenario's raw
// connection (or a fresh one), then its observer. A stdio server that died
// is relaunched before the next probe; an HTTP server that cannot be
// reached again ends the run early.
func (r *runState) runProbes(ctx context.Context, sc *scenario) {
	steps := r.rep.Scenarios[sc.index].Steps
	var conn probe.Conn
	defer func() {
		if conn != nil {
			conn.Close()
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
			conn.Close()
			conn, restart = nil, died
		}
		if died {
			lost.lostScenario, lost.lostStep = sc.name, steps[j].ID
		}
	}
}

// openRaw opens a raw connection and counts it (as a restart when it
// replaces one the server lost).
func (r *runState) openRaw(ctx context.Context, tmp string, bare, restart bool) (probe.Conn, error) {
	var c probe.Conn
	var err error
	era := r.rep.ProtocolVersion == config.ProtocolVersion2026
	switch {
	case era && r.suite.Endpoint != "":
		// No session to open: every POST stands alone.
		limit := messageLimit(r.suite)
		c = probe.Sessionless(httpClient(r.suite.Endpoint, r.d.sec.headers, ms2d(r.suite.InitTimeoutMs), nil, limit), r.suite.Endpoint, limit)
	case r.suite.Endpoint != "":
		var h *probe.HTTP
		h, err = r.d.openRawHTTP(ctx)
		if err == nil {
			c = h
		}
	default:
		// No handshake under 2026-07-28: the probes' requests say the
		// version themselves.
		var s *rawStdio
		s, err = r.d.openRawStdio(ctx, tmp, bare || era)
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
func (r *runState) runProbe(ctx context.Context, sc *scenario, j int, conn probe.Conn, tmp string) (replace, died bool) {
	steps := r.rep.Scenarios[sc.index].Steps
	p := &sc.steps[j]
	pr := p.probe
	wait := min(p.timeout, probe.MaxWait)
	out, obs := p.result(), sc.steps[j+1].result()
	began := time.Now()
	ex, on, usedUp, notRun := r.sendProbe(ctx, pr, conn, tmp, wait)
	if notRun != "" {
		// The probe could not be made: nothing to judge, and its observer
		// has nothing to observe.
		if strings.HasPrefix(notRun, "could not start") {
			out.Status, out.Reason = report.StatusFailed, notRun
			obs.Status, obs.Reason = report.StatusSkipped, "not run: the probe could not start"
		} else {
			out.Status, out.Reason = report.StatusSkipped, "not run: "+notRun
			out.DurationMs = ms(time.Since(began))
			obs.Status, obs.Reason = report.StatusSkipped, out.Reason
		}
		steps[j], steps[j+1] = out, obs
		return false, false
	}
	out.DurationMs = ms(time.Since(began))
	if ctx.Err() != nil {
		// The probe was sent; its observer was not.
		skipFrom(steps[j:j+1], 0, reasonInterruptedCall)
		skipFrom(steps[j+1:j+2], 0, reasonInterrupted)
		return true, false
	}
	r.judgeProbe(pr, &ex, &out)
	if s, ok := on.(*rawStdio); ok && ex.Gone {
		out.ExitStatus = ex.ExitStatus
		for _, l := range s.proc.StderrTail(stderrLines) {
			out.Stderr = append(out.Stderr, r.clean(l, 500))
		}
	}
	steps[j] = out
	r.traceStep(sc, p, &out, nil, began)

	obsBegan := time.Now()
	died = r.observeProbe(ctx, pr, conn, tmp, wait, &obs, ex.Gone && on == conn, ex.ExitStatus, usedUp)
	obs.DurationMs = ms(time.Since(obsBegan))
	steps[j+1] = obs
	r.traceStep(sc, &sc.steps[j+1], &obs, nil, obsBegan)
	return usedUp || died, died
}

// sendProbe sends a probe the way it asks to be sent: on a fresh server
// process or session, after deleting the session, as a call to cancel, or
// on the scenario's connection. on is the connection it went out on;
// usedUp says the scenario's connection cannot serve the next probe;
// notRun, when not "", says why the probe could not be made.
func (r *runState) sendProbe(ctx context.Context, pr *probe.Probe, conn probe.Conn, tmp string, wait time.Duration) (ex probe.Exchange, on probe.Conn, usedUp bool, notRun string) {
	on = conn
	switch {
	case pr.Fresh && r.suite.Endpoint == "":
		fresh, err := r.openRaw(ctx, tmp, true, false)
		if err != nil {
			return ex, on, false, "could not start a fresh server process for this probe: " + r.clean(err.Error(), 300)
		}
		ex := fresh.Send(ctx, pr.Message, pr.ID, wait)
		// Shut down in the background once answered (a server may take
		// its grace period to exit); runProbes waits for it before it
		// returns.
		r.probeClosers.Go(fresh.Close)
		return ex, fresh, false, ""
	case pr.Fresh:
		// A POST without a session: an initialize of its own.
		h := conn.(*probe.HTTP)
		hdr, e := h.Post(ctx, pr.Message, pr.ID, func(hd http.Header) { hd.Del("Mcp-Session-Id"); hd.Del("MCP-Protocol-Version") }, wait)
		if id := hdr.Get("Mcp-Session-Id"); id != "" {
			h.Forget(id).Close()
		}
		return e, on, false, ""
	case pr.Before != nil:
		h := conn.(*probe.HTTP)
		if why := pr.Before(h); why != "" {
			return ex, on, false, why
		}
		_, del := h.Do(ctx, http.MethodDelete, nil, "", nil, wait)
		if del.Err != nil || del.Status >= 300 {
			return ex, on, false, fmt.Sprintf("the server did not delete the session (%s)", probe.Describe(&del))
		}
		_, ex = h.Post(ctx, pr.Message, pr.ID, pr.Edit, wait)
		// The session is gone: the observer and the next probe need a new
		// one (not a restart: nothing was lost).
		return ex, on, true, ""
	case pr.Cancel:
		raw := conn
		if s, ok := conn.(*rawStdio); ok {
			raw = s.Stdio // the probe package knows its own connections
		}
		ex, skip := probe.Cancel(ctx, raw, pr, wait)
		return ex, on, false, skip
	case pr.Run != nil:
		raw := conn
		if s, ok := conn.(*rawStdio); ok {
			raw = s.Stdio // the probe package knows its own connections
		}
		ex, skip := pr.Run(ctx, raw, wait)
		if ctx.Err() != nil {
			skip = ""
		}
		return ex, on, false, skip
	case pr.Edit != nil:
		_, ex = conn.(*probe.HTTP).Post(ctx, pr.Message, pr.ID, pr.Edit, wait)
		return ex, on, false, ""
	}
	return conn.Send(ctx, pr.Message, pr.ID, wait), on, false, ""
}

// observeProbe settles the observer after probe pr: on the connection the
// rest of the probes use (a new one when the probe used it up), unless the
// probe saw the server go. It reports whether the server died.
func (r *runState) observeProbe(ctx context.Context, pr *probe.Probe, conn probe.Conn, tmp string, wait time.Duration, obs *report.StepResult, gone bool, exit string, usedUp bool) (died bool) {
	alive := false
	switch {
	case gone:
	case usedUp:
		next, err := r.openRaw(ctx, tmp, false, false)
		if err != nil {
			gone = true
			break
		}
		alive, gone, exit = next.Alive(ctx, wait)
		next.Close()
	default:
		alive, gone, exit = conn.Alive(ctx, wait)
	}
	if s, ok := conn.(*rawStdio); ok && s.Observer() != "ping" {
		// The server does not know ping: the observer listed its tools.
		obs.Kind = config.KindList
	}
	switch {
	case alive:
		obs.Status, obs.Outcome = report.StatusPassed, config.OutcomeOK
		return false
	case gone:
		obs.Status, obs.Outcome, obs.ExitStatus = report.StatusFailed, config.OutcomeTransportClosed, exit
		obs.Reason = "the server is gone after probe " + pr.Name + "; relaunched for the next probe"
		if r.suite.Endpoint != "" {
			obs.Reason = "the server could not be reached after probe " + pr.Name
		}
	default:
		obs.Status, obs.Outcome = report.StatusFailed, config.OutcomeTimeout
		obs.Reason = fmt.Sprintf("no answer to the observer within %s after probe %s: the server stopped answering", wait, pr.Name)
	}
	return true
}

// judgeProbe settles a probe step from its exchange: the outcome, and the
// verdict as its status, note or reason, and (for a finding) what was
// expected and got.
func (r *runState) judgeProbe(pr *probe.Probe, ex *probe.Exchange, out *report.StepResult) {
	rep := ex.Reply()
	switch {
	case ex.Gone:
		out.Outcome = config.OutcomeTransportClosed
	case rep != nil && rep.Batch != nil:
		out.Outcome = config.OutcomeOK
		for _, m := range rep.Batch {
			if m.Err != nil {
				code := m.Err.Code
				out.Outcome, out.ErrorCode = config.OutcomeProtocolError, &code
			}
		}
	case rep != nil && rep.Err != nil:
		code := rep.Err.Code
		out.Outcome, out.ErrorCode = config.OutcomeProtocolError, &code
		out.Detail = r.clean(rep.Err.Message, 2000)
	case rep != nil && probe.IsErrorResult(rep.Result):
		out.Outcome = config.OutcomeToolError
	case rep != nil:
		out.Outcome = config.OutcomeOK
	case ex.Status >= 400:
		out.Outcome = config.OutcomeProtocolError
	default:
		out.Outcome = config.OutcomeTimeout
	}
	v := pr.Judge(ex)
	ref := probe.Reference(pr.Reference, r.rep.ProtocolVersion)
	msg := fmt.Sprintf("expected %s; got %s (%s)", v.Expected, v.Got, ref)
	verdict := &report.ProbeVerdict{Expected: v.Expected, Got: v.Got, Reference: ref}
	if strings.HasPrefix(out.Target, "tools/call ") {
		verdict.Tool = strings.TrimPrefix(out.Target, "tools/call ")
	}
	switch v.Level {
	case probe.Pass:
		out.Status = report.StatusPassed
		return
	case probe.Note:
		word := "should: "
		if v.Risk {
			word = "risk: "
		}
		out.Status, out.Flagged = report.StatusPassed, true
		out.Notes = []string{word + msg}
	default:
		out.Status, out.Reason = report.StatusFailed, msg
	}
	// Analysis lists it as a finding, with what the spec asks.
	out.Probe = verdict
}

// rawStdio is a raw connection to a stdio server process of its own, with
// the process kept for its stderr.
type rawStdio struct {
	*probe.Stdio
	proc *process
}

// openRawStdio starts the server and, unless bare, initializes it.
func (d *dialer) openRawStdio(ctx context.Context, tmp string, bare bool) (*rawStdio, error) {
	p, err := d.start(tmp)
	if err != nil {
		return nil, err
	}
	c := &rawStdio{Stdio: probe.NewStdio(p.Process, p.maxLine, p.noise.add), proc: p}
	if bare {
		// No handshake to wait for the process: its first probe's wait
		// starts once it reads (see probe.Stdio.Starting), within the
		// time a server gets to initialize.
		c.Starting(ms2d(d.suite.InitTimeoutMs))
		return c, nil
	}
	if err := c.Initialize(ctx, probe.Hello{Version: d.version, Client: Version}, ms2d(d.suite.InitTimeoutMs)); err != nil {
		return nil, err
	}
	return c, nil
}

// openRawHTTP initializes a new HTTP session through the runner's HTTP
// client (the suite's headers, its origin only, bounded bodies).
func (d *dialer) openRawHTTP(ctx context.Context) (*probe.HTTP, error) {
	limit := messageLimit(d.suite)
	client := httpClient(d.suite.Endpoint, d.sec.headers, ms2d(d.suite.InitTimeoutMs), nil, limit)
	return probe.OpenHTTP(ctx, client, d.suite.Endpoint, limit, probe.Hello{Version: d.version, Client: Version}, ms2d(d.suite.InitTimeoutMs))
}

// The 2026-07-28 era in the runner: its protocol probes are planned here
// (probe.Era judges them), a fixture step whose method the revision
// removed is refused before it is sent, and a run that asked for the
// revision but negotiated an older version says so.

// eraProbes plans the probes of 2026-07-28: the read-only tools with
// valid arguments are the candidates for a tool that asks for input.
func (c *generator) eraProbes(t probe.Target, readOnly, allowed []tool) []probe.Probe {
	var cands []probe.Candidate
	for _, tl := range readOnly {
		if len(cands) == probe.MaxCandidates {
			break
		}
		args, notes := c.values.Valid(tl.Name, c.input(tl.Name))
		if len(notes) > 0 || args == nil {
			continue
		}
		if a, err := json.Marshal(args); err == nil {
			cands = append(cands, probe.Candidate{Name: tl.Name, Args: a})
		}
	}
	return probe.Era(t, Version, c.probeTool(readOnly, allowed), cands)
}

// eraFallback is the report's note when a run asked for 2026-07-28 and the
// server negotiated an older version: a server of the older era (the
// TypeScript SDK stops at 2025-11-25; go-sdk serves 2026-07-28 over HTTP
// only without sessions) is not failed for it, and the report says what
// was checked instead.
func eraFallback(requested, negotiated string) string {
	if requested != config.ProtocolVersion2026 || negotiated == "" || negotiated == config.ProtocolVersion2026 {
		return ""
	}
	return "asked for protocol " + requested + "; the server does not serve it here and negotiated " + negotiated +
		", so the run checked " + negotiated + " (not a failure: the server speaks the older era)"
}

// notInEra is a fixture step whose method 2026-07-28 removed: it is not
// sent. (A subscribe step is carried by subscriptions/listen instead, as
// go-sdk does: the revision replaced the method, not the need.)
func notInEra(method string) error {
	return errBadParams{fmt.Errorf("%s is not in %s (the revision removed it); limit the step with protocols: [2025-11-25]", method, config.ProtocolVersion2026)}
}

// inputRequired reports whether a call's result is 2026-07-28's
// input-required result: one round of a multi-round-trip request, which
// the SDK answers from the client block and retries with a new id. The
// step's result is the last round's.
func inputRequired(raw json.RawMessage) bool {
	return len(raw) > 0 && gjson.GetBytes(raw, "resultType").String() == "input_required"
}

// timeWords are the words of an argument name that ask a tool to take
// time: a call whose valid arguments set one is slow by request, and the
// latency probe does not judge it ("delayMs", "duration", "sleep_seconds",
// "timeout", "steps": a tool that reports progress step by step).
var timeWords = []string{"duration", "delay", "sleep", "wait", "timeout", "interval", "pause", "steps", "seconds", "secs", "millis", "milliseconds", "ms"}

// timeArgument returns the name of the first argument (in name order)
// whose name holds a time word (as a whole word of a camelCase, snake_case
// or kebab-case name) and whose value asks for time: a positive number,
// or a non-empty string ("5s", "PT2M"). "" when there is none.
func timeArgument(args map[string]any) string {
	for _, name := range slices.Sorted(maps.Keys(args)) {
		if !asksForTime(args[name]) {
			continue
		}
		for _, w := range gen.SplitWords(name) {
			if slices.Contains(timeWords, w) {
				return name
			}
		}
	}
	return ""
}

func asksForTime(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x) != ""
	case json.Number:
		f, err := x.Float64()
		return err == nil && f > 0
	case float64:
		return x > 0
	case int:
		return x > 0
	case int64:
		return x > 0
	}
	return false
}

// again plans the latency re-measure: each tool's valid call once more,
// one by one on the shared session, after every other scenario (last), so
// that no load of the run's own slows it. Analysis judges a tool on the
// faster of its two calls, so one slow moment of a loaded machine flags
// nothing. Tools whose arguments ask for their time are not called again.
func (c *generator) again(targets []tool, valid map[string]map[string]any) {
	sc := c.scenario("probes: latency again")
	sc.continueOnFailure, sc.reconnect, sc.last = true, true, true
	for _, t := range targets {
		args, ok := valid[t.Name]
		if !ok || timeArgument(args) != "" {
			continue
		}
		st := c.call("again-"+strconv.Itoa(len(sc.steps)+1), t.Name, args, config.OriginProbe, caseAgain)
		// A measure, not a verdict: any answer will do (the valid call
		// was judged already).
		st.spec.Advisory, st.rerun = true, true
		st.spec.Expect = config.Expect{OutcomeAny: survivedOutcomes}
		sc.steps = append(sc.steps, st)
	}
	if len(sc.steps) > 0 {
		c.add(sc)
	}
}
