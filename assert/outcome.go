package assert

import (
	"fmt"
	"time"

	"github.com/mcpcheck/mcpcheck/config"
)

// Outcome demands an outcome class. When the demand came from `isError`
// rather than `outcome`, failures carry kind "isError" so they read the way
// the fixture was written.
type Outcome struct {
	Want     string
	FromFlag bool // the demand was written as isError
}

func buildOutcome(e *config.Expect) Checker {
	return &Outcome{Want: ExpectedOutcome(e), FromFlag: e.Outcome == "" && e.IsError != nil}
}

// Kind implements [Checker].
func (c *Outcome) Kind() string {
	if c.FromFlag {
		return "isError"
	}
	return "outcome"
}

// Check implements [Checker].
func (c *Outcome) Check(r *Result) []Failure {
	if r.Outcome == c.Want {
		return nil
	}
	got := r.Outcome
	if r.Outcome == OutcomeProtocolError && r.ErrorCode != nil {
		got = fmt.Sprintf("%s (code %d)", r.Outcome, *r.ErrorCode)
	}
	var msg string
	switch {
	case c.FromFlag && c.Want == OutcomeToolError && r.Outcome == OutcomeOK:
		msg = "expected isError true, got false"
	case c.FromFlag && c.Want == OutcomeOK && r.Outcome == OutcomeToolError:
		msg = "expected isError false, got true"
	default:
		msg = fmt.Sprintf("expected outcome %s, got %s", c.Want, got)
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
func (c *ErrorCode) Kind() string { return "errorCode" }

// Check implements [Checker].
func (c *ErrorCode) Check(r *Result) []Failure {
	if r.ErrorCode != nil && *r.ErrorCode == c.Want {
		return nil
	}
	if r.ErrorCode == nil {
		return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("expected JSON-RPC error code %d, got outcome %s", c.Want, r.Outcome)}}
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
func (c *MaxDuration) Kind() string { return "maxDurationMs" }

// Check implements [Checker].
func (c *MaxDuration) Check(r *Result) []Failure {
	if r.Duration <= c.Max {
		return nil
	}
	return []Failure{{Kind: c.Kind(), Message: fmt.Sprintf("took %s, more than %s", r.Duration.Round(time.Millisecond), c.Max)}}
}
