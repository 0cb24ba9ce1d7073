package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/config"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/assert"
	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
	"github.com/mcpcheck/mcpcheck/runner/internal/score"
)

// Gate is what [GuardedCall] made of one real tool call.
type Gate struct {
	// Outcome is the call's outcome class (config.OutcomeOK, ...). Anything
	// but ok, tool_error and output_invalid means no result to trust:
	// Result is nil then.
	Outcome config.Outcome
	// ErrorCode is the JSON-RPC error code of a protocol_error.
	ErrorCode *int64
	// Detail is the error text of a failed call, as the server or the SDK
	// gave it (not redacted: the caller owns the session).
	Detail string
	// Result is the tool's result, when one arrived.
	Result *mcp.CallToolResult
	// Flagged reports a result that claims success but is not a genuine
	// answer: a refusal in disguise, empty content, or structuredContent
	// that breaks the tool's own outputSchema. Reasons says which.
	Flagged bool
	Reasons []string
	// Notes are weak, unscored signals (an answer that repeats none of
	// the input strings) and checks that could not run (an outputSchema
	// the validator refused).
	Notes []string
	// Duration is the call's wall time, and ResponseChars the size of the
	// result as JSON (0 without a result).
	Duration      time.Duration
	ResponseChars int
}

// GuardedCall makes one real call of tool t on an open client session and
// judges the answer with the same rules as the generated fidelity check:
// the runtime gate of mcp-reality-check, for an agent's own calls with its
// own arguments. It never judges whether a call should be made (that is
// the caller's decision) and never retries. A result that honestly says
// isError is never flagged. t is the tool as listed by tools/list; its
// outputSchema, when it has one, is compiled with the same refusals as a
// run's (no remote or file references are fetched).
//
//	g := runner.GuardedCall(ctx, session, tool, args)
//	switch {
//	case g.Outcome != config.OutcomeOK && g.Outcome != config.OutcomeOutputInvalid:
//		// crashed, timed out, or an honest error: no answer to trust
//	case g.Flagged:
//		// an answer came back, but it is not a genuine one: g.Reasons
//	}
func GuardedCall(ctx context.Context, cs *mcp.ClientSession, t *mcp.Tool, args map[string]any) Gate {
	if args == nil {
		args = map[string]any{}
	}
	began := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Name, Arguments: args})
	g := Gate{Duration: time.Since(began)}
	var rep *reply
	if err == nil && res != nil {
		rep = &reply{isError: res.IsError, text: contentText(res.Content), hasContent: len(res.Content) > 0}
	}
	cl := classify(ctx, rep, err, &tap{})
	g.Outcome, g.ErrorCode, g.Detail = cl.Outcome, cl.Code, cl.Detail
	if err != nil || res == nil {
		return g
	}
	g.Result = res
	raw, _ := json.Marshal(res)
	g.ResponseChars = len(raw)
	ar := &assert.Result{Outcome: g.Outcome, HasResult: true, IsError: res.IsError,
		Text: rep.text, HasContent: rep.hasContent, Arguments: args}
	if sc, ok := decodeResult(raw)["structuredContent"]; ok {
		ar.Structured, ar.HasStructured = sc, true
	}
	if t.OutputSchema != nil && !res.IsError {
		raw, _ := json.Marshal(t.OutputSchema)
		out, err := schema.Compile(t.Name, "output", raw)
		switch {
		case err != nil:
			g.Notes = append(g.Notes, err.Error()+"; structuredContent not checked")
		case out != nil:
			if bad, reason, _ := checkOutput(&toolSchemas{output: out}, ar); bad {
				g.Outcome, ar.Outcome = config.OutcomeOutputInvalid, config.OutcomeOutputInvalid
				g.Flagged, g.Reasons = true, append(g.Reasons, reason)
				return g
			}
		}
	}
	if g.Outcome != config.OutcomeOK {
		return g
	}
	for _, f := range (&assert.Fidelity{}).Check(ar) {
		if f.Note {
			g.Notes = append(g.Notes, f.Message)
			continue
		}
		g.Flagged, g.Reasons = true, append(g.Reasons, f.Message)
	}
	return g
}

// LatencyGate is mcp-fuzz's latency and size probes for a live session:
// [LatencyGate.Call] is [GuardedCall] plus a flag when the call is unusually
// slow or large. The absolute thresholds hold for every call; the relative
// rule compares a call with the same tool's own earlier successful calls
// (more than 3× their median and above a floor of 100 ms or 1,000
// characters, once the tool has at least 3 of them), not with unrelated
// tools. Calls that did not come back ok are neither judged nor remembered.
// Use one per session; it is safe for concurrent use.
type LatencyGate struct {
	// SlowMs and BloatChars are the absolute thresholds; zero means 5000
	// ms and 20000 characters, as in a run.
	SlowMs, BloatChars float64

	mu   sync.Mutex
	hist map[string]*gateHistory
}

type gateHistory struct{ ms, chars []float64 }

// Call makes the call through [GuardedCall] and adds the latency and size
// verdicts to the result: Flagged, with a "latency: ..." or
// "response size: ..." reason.
func (lg *LatencyGate) Call(ctx context.Context, cs *mcp.ClientSession, t *mcp.Tool, args map[string]any) Gate {
	g := GuardedCall(ctx, cs, t, args)
	if g.Outcome != config.OutcomeOK {
		return g
	}
	ms := float64(g.Duration.Microseconds()) / 1000
	chars := float64(g.ResponseChars)
	lg.mu.Lock()
	if lg.hist == nil {
		lg.hist = map[string]*gateHistory{}
	}
	h := lg.hist[t.Name]
	if h == nil {
		h = &gateHistory{}
		lg.hist[t.Name] = h
	}
	slow := gateVerdict(ms, h.ms, positiveOr(lg.SlowMs, defaultSlowMs), slowFloorMs, "ms")
	large := gateVerdict(chars, h.chars, positiveOr(lg.BloatChars, defaultBloatChars), bloatFloorChars, "characters")
	h.ms, h.chars = append(h.ms, ms), append(h.chars, chars)
	lg.mu.Unlock()
	if slow != "" {
		g.Flagged, g.Reasons = true, append(g.Reasons, "latency: "+slow)
	}
	if large != "" {
		g.Flagged, g.Reasons = true, append(g.Reasons, "response size: "+large)
	}
	return g
}

// gateVerdict judges v against an absolute threshold and against the
// tool's own earlier samples; "" is unremarkable.
func gateVerdict(v float64, earlier []float64, absolute, floor float64, unit string) string {
	if v > absolute {
		return fmt.Sprintf("%.0f %s, above the absolute threshold %.0f", v, unit, absolute)
	}
	if len(earlier) < minProbeSamples {
		return ""
	}
	if med := score.Median(earlier); v > outlierRatio*med && v > floor {
		return fmt.Sprintf("%.0f %s, more than %d× this tool's median %.1f over its %d earlier calls (and above the floor %.0f)", v, unit, outlierRatio, med, len(earlier), floor)
	}
	return ""
}

func positiveOr(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}
