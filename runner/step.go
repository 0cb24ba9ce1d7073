package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/mcpcheck/mcpcheck/config"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
)

// result is the step's place in the report before it has run.
func (p *step) result() StepResult {
	return StepResult{ID: p.spec.ID, Tool: p.call.name, Origin: p.origin, Score: p.score, Case: p.kind, Property: p.property, Pos: p.spec.Pos}
}

// runStep runs step j of sc on sess: resolve its $refs, check its
// arguments, make the call, classify what came back, and check it.
func (r *runState) runStep(ctx context.Context, sess *session, sc *scenario, j int, results map[string]any) StepResult {
	p := &sc.steps[j]
	out := p.result()
	out.Status = StatusFailed

	args, argv := p.call.raw, p.call.args
	if p.call.hasRef {
		resolved, err := resolveArgs(argv, results)
		if err != nil {
			out.Reason = err.Error()
			return out
		}
		argv = resolved
		if args, err = json.Marshal(resolved); err != nil {
			out.Reason = "encoding arguments: " + err.Error()
			return out
		}
	}
	contract := r.contracts[p.call.name]
	if p.validate && contract != nil {
		if rejected, reason, detail := checkArguments(contract, argv); rejected {
			out.Outcome, out.Reason, out.Detail = config.OutcomeInputRejected, reason, r.clean(detail, 2000)
			r.check(p, &out, &assert.Result{Outcome: config.OutcomeInputRejected}, nil, results)
			r.traceStep(sc, p, &out, argv, time.Now())
			return out
		}
	}

	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	tp := &tap{label: sc.label(j)}
	began := time.Now()
	rep, err := p.call.do(withTap(callCtx, tp), sess, args)
	elapsed := time.Since(began)
	cancel()
	sess.finish(tp)
	out.DurationMs = ms(elapsed)

	if err != nil && ctx.Err() != nil {
		out.Reason = "interrupted while waiting for the server"
		return out
	}
	cl := classify(callCtx, rep, err, tp)
	if cl.Outcome == config.OutcomeMalformedResponse {
		rep = nil // whatever the SDK made of a broken message is not a result
	}
	if tp.Duplicates() > 0 {
		r.warn(fmt.Sprintf("%s: the server sent %s (the client ignored it)", sc.label(j), duplicateResponse))
	}
	out.Outcome, out.ErrorCode = cl.Outcome, cl.Code
	if cl.Detail != "" {
		out.Detail = r.clean(cl.Detail, 2000)
	}
	r.noteTransport(sess, cl.Outcome, &out)

	ar := &assert.Result{Outcome: cl.Outcome, ErrorCode: cl.Code, Duration: elapsed, Arguments: argv}
	var decoded map[string]any
	if err == nil && rep != nil {
		ar.HasResult, ar.IsError = true, rep.isError
		out.ResponseChars = len(rep.raw)
		if p.text {
			ar.Text, ar.HasContent = rep.text, rep.hasContent
		}
		validateOut := contract != nil && contract.output != nil && !rep.isError
		if p.keep || p.record || validateOut || hasStructured(rep.raw) {
			decoded = decodeResult(rep.raw)
			if sc, ok := decoded["structuredContent"]; ok {
				ar.Structured, ar.HasStructured = sc, true
			}
		}
		if p.rawPaths {
			if sc := gjson.GetBytes(rep.raw, "structuredContent"); sc.Exists() {
				ar.StructuredRaw = []byte(sc.Raw)
			}
		}
		if validateOut {
			if bad, reason, detail := checkOutput(contract, ar); bad {
				ar.Outcome, out.Outcome = config.OutcomeOutputInvalid, config.OutcomeOutputInvalid
				out.Reason, out.Detail = reason, r.clean(detail, 2000)
			}
		}
	}
	if a := p.spec.Expect.Absent; a != nil {
		v, _, err := resolveValue(a.V, results)
		if err != nil {
			out.Reason = "expect.absent: " + err.Error()
			r.traceStep(sc, p, &out, argv, began)
			return out
		}
		ar.Absent = v
	}
	r.check(p, &out, ar, decoded, results)
	if p.record {
		out.result = decoded
	}
	r.traceStep(sc, p, &out, argv, began)
	return out
}

// noteTransport records what a failed transport says about the session:
// probe it before trusting it again, or know it is gone. A stdio server
// whose pipe broke is usually exiting; it gets a moment so the step can
// say how it ended.
func (r *runState) noteTransport(sess *session, outcome config.Outcome, out *StepResult) {
	switch outcome {
	case config.OutcomeMalformedResponse:
		// Some broken messages end the SDK's connection asynchronously.
		sess.suspect.Store(true)
	case config.OutcomeTransportClosed:
		sess.suspect.Store(true)
		if sess.proc != nil && sess.proc.Exited(2*time.Second) {
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
func (r *runState) traceStep(sc *scenario, p *step, out *StepResult, args map[string]any, began time.Time) {
	if r.trace == nil {
		return
	}
	detail := out.Reason
	if detail == "" && out.ErrorCode != nil {
		detail = "JSON-RPC error " + strconv.FormatInt(*out.ErrorCode, 10)
	}
	if detail == "" && len(out.Assertions) > 0 {
		a := out.Assertions[0]
		detail = strings.TrimSpace(a.Kind + " " + a.Path + ": " + a.Message)
	}
	var redacted map[string]any
	if args != nil {
		redacted, _ = r.red.Value(args).(map[string]any)
	}
	r.trace.write(TraceEntry{
		Scenario: sc.name, Step: p.spec.ID, Origin: p.origin, Tool: p.call.name,
		Case: p.kind, Property: p.property, Outcome: out.Outcome, Status: out.Status,
		Detail: detail, Arguments: redacted, StartedAt: traceTime(began), DurationMs: out.DurationMs,
	})
}

// check runs the step's checkers and settles its status; a passing step's
// result is kept for later $refs when one needs it.
func (r *runState) check(p *step, out *StepResult, ar *assert.Result, decoded map[string]any, results map[string]any) {
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
				note := f.Kind + ": " + f.Message
				if f.Path != "" {
					note = f.Kind + " " + f.Path + ": " + f.Message
				}
				out.Notes = append(out.Notes, note)
				out.Flagged = true
				continue
			}
			failed = true
			out.Assertions = append(out.Assertions, AssertionResult{
				Kind: f.Kind, Path: f.Path, Message: f.Message,
				Expected: f.Expected, HasExpected: f.HasExpected,
				Actual: r.red.Value(f.Actual), HasActual: f.HasActual,
			})
		}
	}
	if out.Flagged && p.flagNote != "" {
		out.Notes = []string{p.flagNote}
	}
	if failed || out.Reason != "" && ar.Outcome == "" {
		return
	}
	out.Status = StatusPassed
	if p.capture != "" {
		if decoded == nil || ar.Outcome != config.OutcomeOK {
			out.Flagged, out.stop = true, "the create call did not succeed, so there is no resource to follow"
			return
		}
		id, where, ok := gen.ExtractID(p.capture, decoded["structuredContent"], ar.Text)
		if !ok {
			out.Flagged, out.stop = true, "no id-shaped value ("+p.capture+"_id, id, uuid) in the result; the lifecycle check gives up rather than guess"
			out.Notes = append(out.Notes, out.stop)
			return
		}
		out.Notes = append(out.Notes, "captured the "+p.capture+" id at "+where)
		decoded[capturedID] = id
	}
	if p.keep && decoded != nil {
		results[st.ID] = decoded
	}
}
