package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tidwall/gjson"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/internal/jsonx"
	"github.com/mcpcheck/mcpcheck/runner/internal/apps"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/internal/refs"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

// result is the step's place in the report before it has run.
func (p *step) result() report.StepResult {
	out := report.StepResult{ID: p.spec.ID, Kind: p.call.kind, Origin: p.origin, Score: p.score, Case: p.caseName, Property: p.property,
		Forbidden: p.forbidden, TimedBy: p.timedBy, Pos: p.spec.Pos, Position: positionOf(p.spec.Pos)}
	if p.call.kind == config.KindTool {
		out.Tool = p.call.name
	} else {
		out.Target = p.call.name
	}
	return out
}

// runStep runs step j of sc on sess: resolve its $refs, check its
// arguments, make the call (send), classify what came back, and check it
// (judge).
func (r *runState) runStep(ctx context.Context, sess *session, sc *scenario, j int, results map[string]any) report.StepResult {
	if r.opts.OnCall != nil {
		r.opts.OnCall(sc.index, j)
	}
	p := &sc.steps[j]
	out := p.result()
	out.Status = report.StatusFailed
	if why := unsupported(sess, &p.call); why != "" {
		out.Reason = why
		r.traceStep(sc, p, &out, nil, time.Now())
		return out
	}
	if p.call.kind == config.KindAwait {
		return r.runAwait(ctx, sess, sc, j, out, results)
	}
	if p.call.kind == config.KindObserve {
		return r.runObserve(ctx, sess, sc, j, out, results)
	}

	params, value, why := stepParams(p, sess, results)
	if why != "" {
		out.Reason = why
		return out
	}
	if uri, ok := value.(string); ok && p.call.name == "" {
		out.Target = r.clean(uriTarget(uri), 300)
	}
	sp := stepCall{sc: sc, j: j, p: p, params: params, value: value, results: results}
	sp.argv, _ = value.(map[string]any)
	if p.call.kind == config.KindTool {
		sp.schemas = r.schemas[p.call.name]
	}
	if p.validate && sp.schemas != nil {
		if rejected, reason, detail := checkArguments(sp.schemas, sp.argv); rejected {
			out.Outcome, out.Reason, out.Detail = config.OutcomeInputRejected, reason, r.clean(detail, 2000)
			r.check(p, &out, &assert.Result{Kind: p.call.kind, Outcome: config.OutcomeInputRejected}, nil, results)
			if r.wantsExchange(out.Status) {
				out.Exchange = r.exchange(&p.call, params, nil, nil, "")
				out.Exchange.NotSent = true
			}
			r.traceStep(sc, p, &out, sp.argv, time.Now())
			return out
		}
	}
	a, done := r.send(ctx, sess, &sp, &out)
	if done {
		return out
	}
	r.judge(ctx, sess, &sp, a, &out)
	return out
}

// stepCall is one step being run: where it is, and what it sends.
type stepCall struct {
	sc      *scenario
	j       int
	p       *step
	params  json.RawMessage
	value   any
	argv    map[string]any
	schemas *toolSchemas
	results map[string]any
}

// callAnswer is what a step's call brought back, for judge.
type callAnswer struct {
	ctx             context.Context // the call's own (classify reads how it ended)
	rep             *reply
	err             error
	task            taskRun
	tp              *tap
	token           string
	window          []received
	began           time.Time
	elapsed         time.Duration
	plainOfTaskOnly bool
}

// send makes the step's call: plain, as a task, or as a generated task
// check. done means out is final (skipped, interrupted, or nothing sent).
func (r *runState) send(ctx context.Context, sess *session, sp *stepCall, out *report.StepResult) (a callAnswer, done bool) {
	p, sc, j := sp.p, sp.sc, sp.j
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	a.ctx, a.tp = callCtx, &tap{label: sc.label(j)}
	if p.progress {
		a.token = r.progressToken()
	}
	from := sess.inbox.next()
	a.began = time.Now()
	tc := taskFor(sess, p, sp.schemas)
	a.plainOfTaskOnly = tc == nil && sp.schemas != nil && sp.schemas.taskSupport == "required"
	if a.plainOfTaskOnly && p.origin == config.OriginFuzz && p.caseName != caseValid {
		// The answer would be the spec's refusal of a plain call, whatever
		// the input: nothing a bad-input case can judge.
		cancel()
		out.Status, out.Reason = report.StatusSkipped, skipTaskOnly
		r.traceStep(sc, p, out, sp.argv, a.began)
		return a, true
	}
	switch {
	case p.taskCheck != taskCheckNone:
		out.AsTask = p.taskCheck == taskCheckEnds || p.taskCheck == taskCheckCancelFinished
		a.task, a.err = runTaskCheck(withTap(callCtx, a.tp), sess, p, sp.params, a.token)
		a.rep = a.task.rep
		if a.task.skip != "" {
			cancel()
			out.Status, out.Reason = report.StatusSkipped, a.task.skip+"; nothing was sent"
			r.traceStep(sc, p, out, sp.argv, a.began)
			return a, true
		}
	case tc != nil:
		out.AsTask = true
		a.task, a.err = runTask(withTap(callCtx, a.tp), sess, p.call.name, sp.params, tc)
		a.rep = a.task.rep
	default:
		a.rep, a.err = p.call.do(withTap(callCtx, a.tp), sess, sp.params, a.token)
	}
	a.elapsed = time.Since(a.began)
	interrupted := a.err != nil && cutShort(ctx, callCtx)
	a.tp.cancelAfterBody(cancel) // over HTTP, once the answer's stream has ended (cancelAfterBody in http.go)
	if interrupted {
		a.tp.runEnding()
	}
	sess.finish(a.tp)
	out.DurationMs = ms(a.elapsed)
	var bad errBadParams
	if errors.As(a.err, &bad) {
		out.Reason = bad.Error() + "; nothing was sent"
		r.traceStep(sc, p, out, sp.argv, a.began)
		return a, true
	}
	a.window = sess.inbox.between(from, sess.inbox.next())
	if interrupted {
		// The call was sent, so the trace has it.
		out.Status, out.Reason = report.StatusSkipped, reasonInterruptedCall
		r.traceStep(sc, p, out, sp.argv, a.began)
		return a, true
	}
	return a, false
}

// judge classifies what the step's call brought back and checks it: the
// fixture's expectations, golden answers, an app's UI resource, a task's
// own verdict, unchanged observations; then keeps the exchange and traces
// the step.
func (r *runState) judge(ctx context.Context, sess *session, sp *stepCall, a callAnswer, out *report.StepResult) {
	p, sc, j := sp.p, sp.sc, sp.j
	rep, err := a.rep, a.err
	var walk errListWalk
	if errors.As(err, &walk) {
		rep, err = nil, nil
		out.Reason = walk.msg
	}
	cl := classify(a.ctx, rep, err, a.tp)
	if cl.Outcome == config.OutcomeMalformedResponse {
		rep = nil // whatever the SDK made of a broken message is not a result
	}
	if a.tp.Duplicates() > 0 {
		r.warn(fmt.Sprintf("%s: the server sent %s (the client ignored it)", sc.label(j), duplicateResponse))
	}
	out.Outcome, out.ErrorCode = cl.Outcome, cl.Code
	if cl.Detail != "" {
		out.Detail = r.clean(cl.Detail, 2000)
	}
	r.noteTransport(sess, cl.Outcome, out)

	ar := &assert.Result{Kind: p.call.kind, Outcome: cl.Outcome, ErrorCode: cl.Code, Duration: a.elapsed, Arguments: sp.argv,
		PlainOfTaskOnly: a.plainOfTaskOnly}
	if p.spec.Expect.Fidelity && p.call.kind == config.KindTool {
		t, known := r.tools[p.call.name]
		ar.MayBeEmpty = known && mayBeEmpty(t)
	}
	if cl.Outcome == config.OutcomeProtocolError {
		ar.ErrorText = cl.Detail
	}
	ar.Notifications, out.ServerRequests = r.inFlight(a.window, a.token, a.tp)
	var decoded map[string]any
	if err == nil && rep != nil {
		decoded = r.readAnswer(p, rep, sp.schemas, ar, out)
	}
	if x := p.spec.Expect.Absent; x != nil {
		v, err := refs.Resolve(x.V, sp.results)
		if err != nil {
			out.Reason = "expect.absent: " + err.Error()
			r.traceStep(sc, p, out, sp.argv, a.began)
			return
		}
		ar.Absent = v
	}
	r.check(p, out, ar, decoded, sp.results)
	why := a.task.why
	if p.app != nil && rep != nil && err == nil {
		uri, _ := sp.value.(string)
		fails, notes := apps.Judge(p.app, uri, rep.raw)
		if len(fails) > 0 {
			why = strings.Join(fails, "; ")
		}
		for _, n := range notes {
			out.Notes = append(out.Notes, r.clean(n, 600))
		}
	}
	if why != "" {
		out.Status, out.Reason = report.StatusFailed, r.clean(why, 2000)
	}
	if a.task.note != "" {
		out.Notes, out.Flagged = append(out.Notes, r.clean(a.task.note, 600)), true
	}
	r.expectUnchanged(ctx, sess, sc, j, out, sp.results)
	if p.progress && !out.AsTask && p.taskCheck == taskCheckNone {
		r.callWithoutProgress(ctx, sess, p, sp.params, out)
	}
	if p.record {
		out.Decoded = decoded
	}
	if r.wantsExchange(out.Status) {
		var answer json.RawMessage
		if rep != nil {
			answer = rep.raw
		}
		var code *int64
		if cl.Outcome == config.OutcomeProtocolError {
			code = cl.Code
		}
		out.Exchange = r.exchange(&p.call, sp.params, answer, code, cl.Detail)
	}
	r.traceStep(sc, p, out, sp.argv, a.began)
}

// stepParams is what the step sends: its parameters with ${tmp} expanded
// and $refs resolved, as JSON and as a value; why says what stopped that.
func stepParams(p *step, sess *session, results map[string]any) (params json.RawMessage, value any, why string) {
	params, value = p.call.raw, p.call.params
	if p.scratch {
		value = expandScratch(value, sess.tmp)
	}
	if !p.call.hasRef {
		return params, value, ""
	}
	resolved, err := refs.Resolve(value, results)
	if err != nil {
		return nil, nil, err.Error()
	}
	if params, err = json.Marshal(resolved); err != nil {
		return nil, nil, "encoding the parameters: " + err.Error()
	}
	return params, resolved, ""
}

// readAnswer fills what the checkers read of a result (ar): its text,
// content, structured content and MIME types, decoded only where a checker
// or the report needs the whole of it, and validates a tool's structured
// content against its output schema. It returns the decoded result, if
// decoded.
func (r *runState) readAnswer(p *step, rep *reply, schemas *toolSchemas, ar *assert.Result, out *report.StepResult) (decoded map[string]any) {
	ar.HasResult, ar.IsError = true, rep.isError
	ar.Text, ar.HasContent = rep.text, rep.hasContent
	if p.measure {
		out.ResponseChars = len(rep.raw)
	}
	if k := r.opts.answerKey; k != nil && (p.spec.Origin == "" || p.spec.Origin == config.OriginFixture) {
		// Hand-written steps only: generated ones create records with
		// server-minted ids and differ in value by design.
		out.AnswerDigests = answerDigests(k, rep.raw)
	}
	validateOut := schemas != nil && schemas.output != nil && !rep.isError && p.call.kind == config.KindTool
	if p.keep || p.record || p.whole || validateOut || p.call.kind != config.KindTool || hasStructured(rep.raw) {
		decoded = decodeResult(rep.raw)
		if decoded != nil {
			ar.Whole, ar.WholeRaw = decoded, rep.raw
		}
		if sc, ok := decoded["structuredContent"]; ok && p.call.kind == config.KindTool {
			ar.Structured, ar.HasStructured = sc, true
		}
	}
	if p.call.kind == config.KindResource {
		ar.DeclaredMIME = p.mimeType
		for _, c := range gjson.GetBytes(rep.raw, "contents.#.mimeType").Array() {
			ar.MIMETypes = append(ar.MIMETypes, c.String())
		}
	}
	if p.rawPaths {
		if sc := gjson.GetBytes(rep.raw, "structuredContent"); sc.Exists() {
			ar.StructuredRaw = []byte(sc.Raw)
		}
	}
	if validateOut {
		if bad, reason, detail := checkOutput(schemas, ar); bad {
			ar.Outcome, out.Outcome = config.OutcomeOutputInvalid, config.OutcomeOutputInvalid
			out.Reason, out.Detail = reason, r.clean(detail, 2000)
		}
	}
	return decoded
}

// runAwait waits for the notification an await step names: the first that
// no earlier await of the session consumed, with the method and params it
// wants, within its time limit; none is the outcome timeout. A message on
// the session's own stream cut at maxMessageBytes meanwhile ends the wait
// at once as oversized_response (see awaitUncut). The step's result is
// {method, params} of the notification.
func (r *runState) runAwait(ctx context.Context, sess *session, sc *scenario, j int, out report.StepResult, results map[string]any) report.StepResult {
	p := &sc.steps[j]
	a := p.spec.Await
	timeout := p.timeout
	if a.TimeoutMs > 0 {
		timeout = ms2d(a.TimeoutMs)
	}
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	began := time.Now()
	cuts := sess.inbox.cutCount()
	got, ok := sess.inbox.awaitUncut(waitCtx, cuts, func(m *received) bool {
		if m.method != a.Method {
			return false
		}
		if a.Params == nil {
			return true
		}
		return assert.Includes(a.Params.V, jsonx.Value(orNull(m.params)))
	})
	out.DurationMs = ms(time.Since(began))
	ar := &assert.Result{Kind: config.KindAwait, Duration: time.Since(began)}
	switch {
	case ok:
		n := got.notification()
		out.Outcome, ar.Outcome, ar.HasResult = config.OutcomeOK, config.OutcomeOK, true
		ar.Whole = map[string]any{"method": n.Method, "params": n.Params}
	case cutShort(ctx, waitCtx):
		out.Status, out.Reason = report.StatusSkipped, reasonInterruptedCall
		return out
	case sess.inbox.cutCount() > cuts:
		// The stream that would carry the notification had a message
		// cut at maxMessageBytes while the step waited.
		out.Outcome, ar.Outcome = config.OutcomeOversizedResponse, config.OutcomeOversizedResponse
		out.Reason = fmt.Sprintf("no %s notification matching the step had arrived when a message on the server's stream, %s after the step began, was larger than maxMessageBytes", a.Method, time.Since(began).Round(time.Millisecond))
	default:
		out.Outcome, ar.Outcome = config.OutcomeTimeout, config.OutcomeTimeout
		out.Reason = fmt.Sprintf("no %s notification matching the step arrived within %s", a.Method, timeout)
	}
	decoded, _ := ar.Whole.(map[string]any)
	r.check(p, &out, ar, decoded, results)
	r.traceStep(sc, p, &out, nil, began)
	return out
}

// inFlight splits the messages that arrived while a step was in flight into
// the notifications its checks see (progress only with the step's own
// token) and the requests the server made of the client, counted by method.
func (r *runState) inFlight(window []received, token string, tp *tap) ([]assert.Notification, []report.ServerRequest) {
	var notes []assert.Notification
	var reqs []report.ServerRequest
	for i := range window {
		m := &window[i]
		switch {
		case m.request:
			during, ours := attribute(m, tp)
			if !ours {
				continue
			}
			method := r.clean(m.method, 100)
			k := slices.IndexFunc(reqs, func(q report.ServerRequest) bool { return q.Method == method && slices.Equal(q.During, during) })
			if k < 0 {
				reqs = append(reqs, report.ServerRequest{Method: method, During: during})
				k = len(reqs) - 1
			}
			reqs[k].Count++
		case m.method == "notifications/progress" && m.token != token:
		default:
			notes = append(notes, m.notification())
		}
	}
	return notes, reqs
}

// progressToken is a new token for one call: progress notifications that
// carry it belong to that step.
func (r *runState) progressToken() string {
	return "mcpcheck-" + strconv.FormatInt(r.tokens.Add(1), 10)
}

// unsupported says why a step cannot be sent to this server: its kind needs
// a capability the server did not declare. Nothing is sent then.
func unsupported(sess *session, c *call) string {
	var caps *mcp.ServerCapabilities
	if sess.init != nil {
		caps = sess.init.Capabilities
	}
	if caps == nil {
		caps = &mcp.ServerCapabilities{}
	}
	need, ok := "", true
	switch c.kind {
	case config.KindResource, config.KindUnsubscribe:
		need, ok = "resources", caps.Resources != nil
	case config.KindSubscribe:
		need, ok = "resources.subscribe", caps.Resources != nil && caps.Resources.Subscribe
	case config.KindPrompt:
		need, ok = "prompts", caps.Prompts != nil
	case config.KindComplete:
		need, ok = "completions", caps.Completions != nil
	case config.KindSetLogLevel:
		need, ok = "logging", caps.Logging != nil
	case config.KindList:
		switch c.name {
		case "tools":
			need, ok = "tools", caps.Tools != nil
		case "prompts":
			need, ok = "prompts", caps.Prompts != nil
		default:
			need, ok = "resources", caps.Resources != nil
		}
	}
	if ok {
		return ""
	}
	return "the server does not declare the " + need + " capability; nothing was sent"
}

// uriTarget is a URI as reports show it: without query or fragment, which
// may carry tokens.
func uriTarget(uri string) string {
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		return uri[:i]
	}
	return uri
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}

// noteTransport records what a failed transport says about the session:
// probe it before trusting it again, or know it is gone. A stdio server
// whose pipe broke is usually exiting; it gets a moment so the step can
// say how it ended.
func (r *runState) noteTransport(sess *session, outcome config.Outcome, out *report.StepResult) {
	switch outcome {
	case config.OutcomeMalformedResponse:
		// Some broken messages end the SDK's connection asynchronously.
		sess.suspect.Store(true)
	case config.OutcomeTransportClosed:
		sess.suspect.Store(true)
		// A connection mcpcheck broke off (a stuck write) is not a server
		// exiting: its end says nothing, and is not waited for.
		if sess.proc != nil && !sess.proc.broken.Load() && sess.proc.Exited(2*time.Second) {
			out.ExitStatus = sess.proc.ExitStatus()
			for _, l := range sess.proc.StderrTail(stderrLines) {
				out.Stderr = append(out.Stderr, r.clean(l, 500))
			}
		}
	case config.OutcomeSessionLost:
		sess.gone.Store(true)
	}
}

// traceStep writes a step's trace line.
func (r *runState) traceStep(sc *scenario, p *step, out *report.StepResult, args map[string]any, began time.Time) {
	if r.trace == nil {
		return
	}
	detail := out.Reason
	if detail == "" && out.ErrorCode != nil {
		detail = "JSON-RPC error " + strconv.FormatInt(*out.ErrorCode, 10)
	}
	if detail == "" && len(out.Assertions) > 0 {
		a := out.Assertions[0]
		detail = strings.TrimSpace(string(a.Kind) + " " + a.Path + ": " + a.Message)
	}
	var redacted map[string]any
	if args != nil {
		redacted, _ = r.red.Value(args).(map[string]any)
	}
	r.trace.write(report.TraceEntry{
		Scenario: sc.name, Step: p.spec.ID, Origin: p.origin, Kind: p.call.kind, Tool: out.Tool, Target: out.Target,
		Case: p.caseName, Property: p.property, Outcome: out.Outcome, Status: out.Status,
		Detail: detail, Arguments: redacted, StartedAt: traceTime(began), DurationMs: out.DurationMs,
	})
}

// check runs the step's checkers and settles its status; a passing step's
// result is kept for later $refs when one needs it.
func (r *runState) check(p *step, out *report.StepResult, ar *assert.Result, decoded map[string]any, results map[string]any) {
	st := p.spec
	// Checkers are built per call rather than kept in the plan: a 10,000-step
	// run would otherwise hold them all live, and every GC cycle rescans the
	// live heap while the SDK makes ~129 KB of garbage per call.
	failed := false
	for _, c := range assert.Build(&st.Expect) {
		for _, f := range c.Check(ar) {
			if f.Note || st.Advisory {
				// An observation, or an advisory step: worth a look, not a
				// failure.
				note := string(f.Kind) + ": " + f.Message
				if f.Path != "" {
					note = string(f.Kind) + " " + f.Path + ": " + f.Message
				}
				// A note may quote the server: redacted and bounded.
				out.Notes = append(out.Notes, r.clean(note, 600))
				out.Flagged = true
				continue
			}
			failed = true
			out.Assertions = append(out.Assertions, report.AssertionResult{
				Kind: f.Kind, Path: f.Path, Message: f.Message, Position: positionOf(assert.Position(&st.Expect, f.Kind)),
				Expected: f.Expected, HasExpected: f.HasExpected,
				Actual: r.red.Value(f.Actual), HasActual: f.HasActual,
			})
		}
	}
	if out.Flagged && p.flagNote != "" {
		out.Notes = []string{p.flagNote}
	}
	// The golden answer is compared (and recorded) only when everything
	// else holds: a failing step's answer is no answer to keep.
	if p.golden != nil && !failed && out.Reason == "" {
		fails, note := r.checkGolden(p, ar)
		out.GoesOn = len(fails) > 0
		for _, f := range fails {
			failed = true
			out.Assertions = append(out.Assertions, report.AssertionResult{
				Kind: f.Kind, Path: f.Path, Message: f.Message, Position: positionOf(assert.Position(&st.Expect, f.Kind)),
				Expected: f.Expected, HasExpected: f.HasExpected,
				Actual: f.Actual, HasActual: f.HasActual,
			})
		}
		if note != "" {
			out.Notes = append(out.Notes, r.clean(note, 600))
		}
	}
	if out.GoesOn && p.keep && decoded != nil {
		// Later steps may refer to this answer: it held everything else.
		results[st.ID] = decoded
	}
	if failed || out.Reason != "" && ar.Outcome == "" {
		return
	}
	out.Status = report.StatusPassed
	if p.capture != "" {
		if decoded == nil || ar.Outcome != config.OutcomeOK {
			out.Flagged, out.Stop = true, "the create call did not succeed, so there is no resource to follow"
			return
		}
		id, where, ok := gen.ExtractID(p.capture, decoded["structuredContent"], ar.Text)
		if !ok {
			out.Flagged, out.Stop = true, "no id-shaped value ("+p.capture+"_id, id, uuid) in the result; the lifecycle check gives up rather than guess"
			out.Notes = append(out.Notes, out.Stop)
			return
		}
		out.Notes = append(out.Notes, "captured the "+p.capture+" id at "+where)
		decoded[capturedID] = id
	}
	if p.keep && decoded != nil {
		results[st.ID] = decoded
	}
}

// positionOf is p as a report position, or nil when it names no line
// (generated steps).
func positionOf(p config.Pos) *report.Position {
	if p.File == "" || p.Line == 0 {
		return nil
	}
	return &report.Position{File: p.File, Line: p.Line, Column: p.Col}
}

func ms(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
