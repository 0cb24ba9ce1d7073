package runner

import (
	"fmt"
	"strings"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// coverageLine is the headline's coverage of a run of generated checks
// that called some but not all of the tools the server lists: "3 of 4
// tools called; 1 not: annotated readOnlyHint: false, so no generated
// call is made — --include-destructive calls tools not annotated
// read-only". The tools not called are grouped by the reason they were
// left alone (the report's skipped tools), each with what would call them.
// A shard's report sees some of the tools only, so it says nothing; the
// merge of the shards does. "" when every tool was called, or none (NO
// TOOL TESTED says that).
func (a *analysis) coverageLine(called int) string {
	if a.shard || called == 0 || a.listed == 0 || called >= a.listed {
		return ""
	}
	line := fmt.Sprintf("%d of %d tools called", called, a.listed)
	var parts []string
	grouped := 0
	groups := report.SkippedGroupsOf(a.skipped)
	for _, gr := range groups {
		grouped += len(gr.Tools)
	}
	rest := a.listed - called - grouped
	for _, gr := range groups {
		p := gr.Reason
		if len(groups) > 1 || rest > 0 {
			// One reason for all of them needs no count of its own.
			p = fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason)
		}
		if gr.Fix != "" {
			p += " — " + gr.Fix
		}
		parts = append(parts, p)
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%d without a call that ran", rest))
	}
	if len(parts) > 0 {
		line += fmt.Sprintf("; %d not: ", a.listed-called) + strings.Join(parts, "; ")
	}
	return line
}
