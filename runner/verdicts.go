package runner

// Rules that keep a verdict honest on any server (issue 19): what counts as
// an empty answer, a crossed response, a latency outlier, a covered tool
// and a grade with enough data behind it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/config"
)

// mayBeEmpty reports whether t may honestly succeed with no content: it is
// not annotated read-only and declares no outputSchema, so it may be
// called for a side effect (the spec allows an empty content array). A
// read-only or structured tool was asked for something, and an empty
// answer is a fidelity failure.
func mayBeEmpty(t tool) bool {
	return !isReadOnly(t) && !declared(t.OutputSchema)
}

// declared reports whether a raw schema member is present and not null.
func declared(raw json.RawMessage) bool {
	s := bytes.TrimSpace(raw)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}

// A grade needs enough judged cases: at least minGraded, and at least
// half of the cases tried (judged + inconclusive). Fidelity "100 % A" from
// 2 judged calls and 8 inconclusive said more than the data did. The rule
// holds for every score; one that misses it is n/a with its counts, and a
// threshold on it is not met (there is not enough to meet it with).
const minGraded = 3

// enoughToGrade takes the grade from a score that has too few judged
// cases, saying why.
func enoughToGrade(sc *Score) {
	if sc.Percent == nil || sc.Total == 0 {
		return
	}
	tried := sc.Total + sc.Inconclusive
	if sc.Total >= minGraded && 2*sc.Total >= tried {
		return
	}
	sc.Percent, sc.Grade = nil, "n/a"
	sc.TooFew = fmt.Sprintf("%d judged of %d tried: a grade needs at least %d judged, and at least half of those tried", sc.Total, tried, minGraded)
}

// noToolTested marks a run of generated checks that made calls but called
// none of the tools the server lists (protocol probes only, resource
// reads, prompts): "PASS" would claim the tools were tested. Its verdict
// is NO TOOL TESTED, and its exit code that of NOTHING TESTED (0 unless
// something failed or a threshold was given): a CI job that runs quick
// mode on a server whose tools are all left alone keeps passing, but the
// headline says what was covered ("0 of 21 tools called: ...").
func (a *analysis) noToolTested(called int, ran map[config.StepKind]int) {
	if called > 0 || a.listed == 0 {
		return
	}
	n := &NothingTested{Reason: fmt.Sprintf("0 of %d tools called", a.listed), Fix: "name the tools to call in --allow-tools"}
	if len(a.skipped) > 0 {
		var parts, fixes []string
		for _, gr := range skippedGroups(a.skipped) {
			parts = append(parts, fmt.Sprintf("%d %s", len(gr.Tools), gr.Reason))
			if gr.Fix != "" && !slices.Contains(fixes, gr.Fix) {
				fixes = append(fixes, gr.Fix)
			}
		}
		n.Reason += ": " + strings.Join(parts, "; ")
		if len(fixes) > 0 {
			n.Fix = strings.Join(fixes, "; ")
		}
	}
	var what []string
	for _, k := range []struct {
		kind       config.StepKind
		one, other string
	}{
		{kindRaw, "protocol probe message", "protocol probe messages"},
		{config.KindResource, "resource read", "resource reads"},
		{config.KindPrompt, "prompt get", "prompt gets"},
	} {
		switch c := ran[k.kind]; c {
		case 0:
		case 1:
			what = append(what, "1 "+k.one)
		default:
			what = append(what, fmt.Sprintf("%d %s", c, k.other))
		}
	}
	if len(what) == 0 {
		what = append(what, "calls other than tools/call")
	}
	n.Ran = strings.Join(what, ", ")
	a.nothing = n
}
