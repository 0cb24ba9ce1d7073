package runner

// Rules that keep a verdict honest on any server (issue 19): what counts as
// an empty answer, a crossed response, a latency outlier, a covered tool
// and a grade with enough data behind it.

import (
	"bytes"
	"encoding/json"
	"fmt"
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
