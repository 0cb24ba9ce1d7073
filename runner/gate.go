package runner

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpcheck/mcpcheck/assert"
)

// Gate is what [GuardedCall] made of one real tool call.
type Gate struct {
	// Outcome is the call's outcome class (assert.OutcomeOK, ...). Anything
	// but ok, tool_error and output_invalid means no result to trust:
	// Result is nil then.
	Outcome string
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
	// Duration is the call's wall time.
	Duration time.Duration
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
//	case g.Outcome != assert.OutcomeOK && g.Outcome != assert.OutcomeOutputInvalid:
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
	cl := classify(ctx, res, err, &tap{})
	g.Outcome, g.ErrorCode, g.Detail = cl.Outcome, cl.Code, cl.Detail
	if err != nil || res == nil {
		return g
	}
	g.Result = res
	raw, _ := json.Marshal(res)
	ar := &assert.Result{Outcome: g.Outcome, HasResult: true, IsError: res.IsError,
		Text: contentText(res), HasContent: len(res.Content) > 0, Arguments: args}
	if sc, ok := decodeResult(raw)["structuredContent"]; ok {
		ar.Structured, ar.HasStructured = sc, true
	}
	if t.OutputSchema != nil && !res.IsError {
		schema, _ := json.Marshal(t.OutputSchema)
		out, err := compileToolSchema(t.Name, "output", schema)
		switch {
		case err != nil:
			g.Notes = append(g.Notes, err.Error()+"; structuredContent not checked")
		case out != nil:
			if bad, reason, _ := checkOutput(&contract{output: out}, ar); bad {
				g.Outcome, ar.Outcome = assert.OutcomeOutputInvalid, assert.OutcomeOutputInvalid
				g.Flagged, g.Reasons = true, append(g.Reasons, reason)
				return g
			}
		}
	}
	if g.Outcome != assert.OutcomeOK {
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
