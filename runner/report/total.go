package report

import (
	"io"
)

// Total writes the last lines of a run of several suites: each suite's
// verdict on a line, then the suites and steps counted together. notRun
// counts the suites that could not begin (their errors were written
// where they happened).
func Total(w io.Writer, reps []*Report, notRun int, opts TextOptions) error {
	t := &textWriter{opts: opts}
	passed, failed := 0, 0
	var sum Summary
	for _, r := range reps {
		verdict := t.paint(green, "PASS")
		switch {
		case !r.Passed:
			verdict = t.paint(red, "FAIL")
			failed++
		case r.NothingTested != nil && r.NothingTested.Ran != "":
			verdict = t.paint(yellow, "NO TOOL TESTED")
			passed++
		case r.NothingTested != nil:
			verdict = t.paint(yellow, "NOTHING TESTED")
			passed++
		default:
			passed++
		}
		t.printf("%s %s\n", verdict, r.Suite)
		sum.Passed += r.Summary.Passed
		sum.Failed += r.Summary.Failed
		sum.Skipped += r.Summary.Skipped
		sum.DurationMs += r.Summary.DurationMs
	}
	verdict := t.paint(green+bold, "PASS")
	if failed > 0 || notRun > 0 {
		verdict = t.paint(red+bold, "FAIL")
	}
	t.printf("%s total: %d suites, %d passed, %d failed", verdict, len(reps)+notRun, passed, failed)
	if notRun > 0 {
		t.printf(", %d not run", notRun)
	}
	t.printf("; steps: ")
	t.summary(&Report{Summary: sum})
	_, err := w.Write(t.b.Bytes())
	return err
}
