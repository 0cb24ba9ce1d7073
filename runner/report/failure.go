package report

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
)

// failureLines are what every report says about a failed step, one line
// each: where it is written, why it failed, each failed expectation with its
// expected and actual values, how the server ended and what it said. The
// human report indents them under the step; JUnit puts them in the failure's
// body, HTML in the step's expanded block. The values are the runner's,
// already redacted; callers escape them for their format.
func failureLines(st *StepResult) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if st.Pos.File != "" {
		add("at %s", st.Pos)
	}
	if st.Expected != nil {
		add("%s", expectedText(st.Expected))
	}
	if st.Reason != "" {
		add("%s", st.Reason)
	}
	for _, a := range st.Assertions {
		add("%s: %s", assertionWhere(&a), a.Message)
		if a.HasExpected {
			add("  expected: %s", show(a.Expected))
		}
		if a.HasActual {
			add("  actual:   %s", show(a.Actual))
		}
	}
	if pc := st.WithoutProgress; pc != nil && pc.Status == StatusFailed {
		add("without _meta: %s", pc.Reason)
	}
	if st.ExitStatus != "" {
		add("the server exited (%s)", st.ExitStatus)
	}
	if len(st.Stderr) > 0 {
		add("last lines of its stderr:")
		for _, l := range st.Stderr {
			add("  | %s", l)
		}
	}
	if st.Detail != "" {
		lines := strings.Split(st.Detail, "\n")
		if len(lines) > 8 {
			lines = append(lines[:8], "…")
		}
		// The detail is the server's words only when it answered; a
		// broken, oversized or lost connection is described by mcpcheck
		// (or the SDK), and never passed off as the server's message.
		said := "what mcpcheck saw"
		switch st.Outcome {
		case config.OutcomeToolError, config.OutcomeProtocolError, config.OutcomeOK:
			said = "server said"
		case config.OutcomeInputRejected:
			said = "rejected before sending" // the validator's words: nothing reached the server
		}
		add("%s: %s", said, lines[0])
		for _, l := range lines[1:] {
			add("  %s", l)
		}
	}
	return out
}

// assertionWhere is a failed expectation's kind and path: "structuredEquals
// /owner".
func assertionWhere(a *AssertionResult) string {
	if a.Path != "" {
		return string(a.Kind) + " " + a.Path
	}
	return string(a.Kind)
}

// why is a failed step's reason on one line, for the places that have room
// for one (a JUnit failure's message, a summary's table, an annotation's
// title): the runner's reason, else the first failed expectation, else the
// outcome.
func why(st *StepResult) string {
	switch {
	case st.Reason != "":
		return st.Reason
	case len(st.Assertions) > 0:
		a := &st.Assertions[0]
		s := assertionWhere(a) + ": " + a.Message
		if n := len(st.Assertions) - 1; n > 0 {
			s += fmt.Sprintf(" (and %d more)", n)
		}
		return s
	case st.WithoutProgress != nil && st.WithoutProgress.Status == StatusFailed:
		return "without _meta: " + st.WithoutProgress.Reason
	case st.Outcome != "":
		return "outcome " + outcomeText(st)
	}
	return string(st.Status)
}

// expectedText marks a failure a baseline of known failures lists:
// "expected failure (reason)".
func expectedText(e *Expected) string {
	if e.Reason == "" {
		return "expected failure"
	}
	return "expected failure (" + e.Reason + ")"
}
