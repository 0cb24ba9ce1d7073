package assert

import (
	"fmt"
	"slices"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// Outcome demands an outcome class. When the demand came from `isError`
// rather than `outcome`, failures carry kind "isError" so they read the way
// the fixture was written.
type Outcome struct {
	Want     []config.Outcome // any of these
	FromFlag bool             // the demand was written as isError
}

func buildOutcome(e *config.Expect) Checker {
	noOutcome := e.Outcome == "" && len(e.OutcomeAny) == 0
	switch {
	case noOutcome && e.IsError == nil && e.Fidelity:
		return nil // the fidelity check judges the outcome itself
	case noOutcome && e.IsError == nil && e.Absent != nil:
		return nil // the absent check accepts ok, tool_error and protocol_error
	}
	return &Outcome{Want: ExpectedOutcomes(e), FromFlag: noOutcome && e.IsError != nil}
}

// Kind implements [Checker].
func (c *Outcome) Kind() KindName {
	if c.FromFlag {
		return KindIsError
	}
	return KindOutcome
}

// Check implements [Checker].
func (c *Outcome) Check(r *Result) []Failure {
	if slices.Contains(c.Want, r.Outcome) {
		return nil
	}
	got := string(r.Outcome)
	if r.Outcome == config.OutcomeProtocolError && r.ErrorCode != nil {
		got = fmt.Sprintf("%s (code %d)", r.Outcome, *r.ErrorCode)
	}
	var msg string
	only := func(o config.Outcome) bool { return len(c.Want) == 1 && c.Want[0] == o }
	switch {
	case c.FromFlag && only(config.OutcomeToolError) && r.Outcome == config.OutcomeOK:
		msg = "expected isError true, got false"
	case c.FromFlag && only(config.OutcomeOK) && r.Outcome == config.OutcomeToolError:
		msg = "expected isError false, got true"
	default:
		msg = fmt.Sprintf("expected outcome %s, got %s", config.Join(c.Want, " or "), got)
	}
	return []Failure{{Kind: c.Kind(), Message: msg}}
}

// ErrorCode demands a JSON-RPC error code.
type ErrorCode struct{ Want int64 }

func buildErrorCode(e *config.Expect) Checker {
	if e.ErrorCode == nil {
		return nil
	}
	return &ErrorCode{Want: *e.ErrorCode}
}

// Kind implements [Checker].
func (c *ErrorCode) Kind() KindName { return KindErrorCode }

// Check implements [Checker]. It judges only protocol errors: whether the
// outcome should have been one is the outcome check's business, so a step
// that accepts "tool_error or protocol_error -32602" passes with either.
func (c *ErrorCode) Check(r *Result) []Failure {
	if r.Outcome != config.OutcomeProtocolError || (r.ErrorCode != nil && *r.ErrorCode == c.Want) {
		return nil
	}
	if r.ErrorCode == nil {
		return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("expected JSON-RPC error code %d, got none", c.Want)}}
	}
	return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("expected JSON-RPC error code %d, got %d", c.Want, *r.ErrorCode)}}
}

// MaxDuration bounds a call's wall time.
type MaxDuration struct{ Max time.Duration }

func buildMaxDuration(e *config.Expect) Checker {
	if e.MaxDurationMs <= 0 {
		return nil
	}
	return &MaxDuration{Max: time.Duration(e.MaxDurationMs) * time.Millisecond}
}

// Kind implements [Checker].
func (c *MaxDuration) Kind() KindName { return KindMaxDuration }

// Check implements [Checker].
func (c *MaxDuration) Check(r *Result) []Failure {
	if r.Duration <= c.Max {
		return nil
	}
	return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("took %s, more than %s", r.Duration.Round(time.Millisecond), c.Max)}}
}
