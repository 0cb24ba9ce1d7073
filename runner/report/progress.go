package report

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/config"
)

// FindingWithoutProgress is the kind of the finding a failed
// [PlainCall] makes.
const FindingWithoutProgress FindingKind = "without-progress"

// PlainCall is the check under a step that asks for progress: its call
// made once more without _meta, as a plain client makes it.
type PlainCall struct {
	// Status: passed, failed (the plain call crashed where the call with
	// a progress token did not) or skipped (not made; Reason says why).
	Status     Status         `json:"status"`
	Outcome    config.Outcome `json:"outcome,omitempty"`
	ErrorCode  *int64         `json:"errorCode,omitempty"`
	DurationMs float64        `json:"durationMs"`
	// Reason says, in the runner's words, why the check failed or was
	// skipped.
	Reason string `json:"reason,omitempty"`
	// Exchange is the plain call's request and answer, when the run keeps
	// exchanges.
	Exchange *Exchange `json:"exchange,omitempty"`
}

// withoutProgress writes the check under a step that asks for progress:
// its call made once more without _meta. A failure says both outcomes; a
// skip says why the second call was not made.
func (t *textWriter) withoutProgress(st *StepResult) {
	pc := st.WithoutProgress
	if pc == nil {
		return
	}
	switch pc.Status {
	case StatusFailed:
		// failureLines said it, under the step's FAIL.
	case StatusPassed:
		got := string(pc.Outcome)
		if pc.ErrorCode != nil {
			got = fmt.Sprintf("%s %d", pc.Outcome, *pc.ErrorCode)
		}
		t.printf("       ok   the same call without _meta (no progress token): %s\n", got)
	default:
		t.printf("       not called again without _meta: %s\n", pc.Reason)
	}
	if t.opts.Exchanges && pc.Exchange != nil {
		t.printf("       %s\n", t.paint(dim, "the same call without _meta:"))
		for _, l := range exchangeLines(pc.Exchange) {
			t.printf("       %s\n", t.paint(dim, l))
		}
	}
}
