package report

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/runner"
)

// withoutProgress writes the check under a step that asks for progress:
// its call made once more without _meta. A failure says both outcomes; a
// skip says why the second call was not made.
func (t *textWriter) withoutProgress(st *runner.StepResult) {
	pc := st.WithoutProgress
	if pc == nil {
		return
	}
	switch pc.Status {
	case runner.StatusFailed:
		// failureLines said it, under the step's FAIL.
	case runner.StatusPassed:
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
