package report

import (
	"encoding/json"
	"time"
)

// The unexported names the external tests (package report_test) read: the
// tests live outside the package because they run real servers through
// package runner, which imports this one.

const MaxSummaryRows = maxSummaryRows

var (
	CheckGroups      = checkGroups
	CheckGroupTitles = checkGroupTitles
	Elapsed          = elapsed
	ScoreTitles      = scoreTitles
)

type JUnitSuites = junitSuites

// SetEvery sets how often s redraws its status line on its own.
func SetEvery(s *Stream, d time.Duration) { s.every = d }

// ArgumentKinds is each top-level argument's kind as the text view of a
// tool shows it, by name, in the order of arguments.
func ArgumentKinds(raw json.RawMessage) (names, kinds []string) {
	for _, a := range arguments(raw) {
		names, kinds = append(names, a.name), append(kinds, a.kind)
	}
	return names, kinds
}
