package runner

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/runner/internal/gen"
	"github.com/mcpcheck/mcpcheck/runner/report"
)

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
