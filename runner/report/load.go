package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The writers of a load run's report (Report.Load): the human summary, a
// JUnit test case per threshold, a Markdown table and an HTML page whose
// charts are inline SVG (no script, font or image from anywhere). The
// generic writers hand a load report to these.

// LoadText writes a load run's summary: the verdict, the shape, a table of
// the steps and the whole (calls, errors, calls/s, p50 p90 p95 p99 max),
// the errors by outcome class, and each threshold with its actual value.
func LoadText(w io.Writer, r *Report, opts TextOptions) error {
	t := &textWriter{opts: opts}
	l := r.Load
	word := t.paint(green, "PASS")
	if !r.Passed {
		word = t.paint(red, "FAIL")
	}
	t.printf("%s %s (load)\n", word, r.Suite)
	t.printf("%s\n", targetLine(r))
	t.printf("%s\n", loadShape(l))
	if r.Failure != nil {
		t.printf("  %s: %s\n", r.Failure.Stage, r.Failure.Message)
	}
	if l.Aborted != "" {
		t.printf("  stopped early: %s\n", l.Aborted)
	}
	t.printf("\n  %-34s %8s %7s %9s %9s %9s %9s %9s %9s\n", "step", "calls", "errors", "calls/s", "p50", "p90", "p95", "p99", "max")
	row := func(name string, s *LoadStats) {
		t.printf("  %-34s %8d %7d %9s %9s %9s %9s %9s %9s\n", cut(name, 34), s.Calls, s.Errors, num(s.RPS),
			msText(s.Latency.P50), msText(s.Latency.P90), msText(s.Latency.P95), msText(s.Latency.P99), msText(s.Latency.Max))
	}
	for i := range l.Steps {
		s := &l.Steps[i]
		row(s.Scenario+"/"+s.Step, s)
	}
	row("all", &l.Overall)
	if l.Overall.Errors > 0 {
		t.printf("\n  errors: %s\n", errorsLine(&l.Overall))
		if e := l.Overall.FirstError; e != nil {
			t.printf("  first error: %s (outcome %s): %s\n", e.Step, e.Outcome, cut(strings.Join(strings.Fields(e.Message), " "), 200))
		}
	}
	t.printf("\n")
	for _, th := range l.Thresholds {
		mark := t.paint(green, "met    ")
		if !th.Met {
			mark = t.paint(red, "NOT MET")
		}
		actual := num(th.Actual) + " " + th.Unit
		if th.Reason != "" {
			actual = th.Reason
		}
		t.printf("  %s  %s: %s\n", mark, th.Rule, actual)
	}
	_, err := w.Write(t.b.Bytes())
	return err
}

// loadShape is one line on what was run.
func loadShape(l *LoadResult) string {
	var b strings.Builder
	if l.Model == "open" {
		fmt.Fprintf(&b, "open model: %s iterations/s on at most %d users", num(l.Rate), l.MaxVUs)
	} else {
		fmt.Fprintf(&b, "closed model: %d users", l.VUs)
	}
	if l.Stages != "" {
		fmt.Fprintf(&b, ", stages %s", l.Stages)
	}
	fmt.Fprintf(&b, "; %d iterations in %s", l.Iterations, duration(float64(l.ElapsedMs)))
	if l.Dropped > 0 {
		fmt.Fprintf(&b, ", %d dropped (every user busy)", l.Dropped)
	}
	if l.SessionsFailed > 0 {
		fmt.Fprintf(&b, ", %d sessions could not be opened", l.SessionsFailed)
	}
	if l.Segment != nil {
		fmt.Fprintf(&b, "; segment %s", l.Segment)
	}
	return b.String()
}

// LoadErrorOf is a failed call as a load run's report keeps it.
// The message is the step's reason, then what the server or the
// connection said (a tool error's text, why a transport closed), so a
// "got transport_closed" says what closed.
func LoadErrorOf(st *StepResult) *LoadError {
	msg := why(st)
	if st.Detail != "" {
		msg += ": " + st.Detail
	}
	return &LoadError{Outcome: string(st.Outcome), Message: msg}
}

// errorsLine says what the failed calls were: expectations not met (on an
// answer of any class), then the outcome classes other than ok.
func errorsLine(s *LoadStats) string {
	var parts []string
	if s.Failed > 0 {
		parts = append(parts, fmt.Sprintf("%d answered and failed their expectations", s.Failed))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Outcomes)) {
		if k != "ok" {
			parts = append(parts, fmt.Sprintf("%s %d", k, s.Outcomes[k]))
		}
	}
	return strings.Join(parts, ", ")
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func msText(v float64) string {
	switch {
	case v >= 1000:
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + "s"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "ms"
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// loadJUnit is a load report as JUnit: one test suite, a test case per
// threshold (failed when unmet), so CI's test tab shows the verdict.
func loadJUnit(w io.Writer, r *Report) error {
	l := r.Load
	s := junitSuite{junitCounts: junitCounts{Name: r.Suite + " (load)", Timestamp: junitTime(r.StartedAt), Time: seconds(r.Summary.DurationMs)}}
	for _, th := range l.Thresholds {
		c := junitCase{Name: th.Rule, Classname: r.Suite + ".load", Time: seconds(float64(l.ElapsedMs))}
		if !th.Met {
			msg := "actual " + num(th.Actual) + " " + th.Unit
			if th.Reason != "" {
				msg = th.Reason
			}
			c.Failure = &junitResult{Type: "threshold", Message: xmlText(msg), Body: xmlText(loadShape(l))}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
	}
	if l.Aborted != "" && l.Aborted != "interrupted" {
		s.Cases = append(s.Cases, junitCase{Name: "the run ends as planned", Classname: r.Suite + ".load", Failure: &junitResult{Type: "aborted", Message: xmlText(l.Aborted)}})
		s.Tests++
		s.Failures++
	}
	doc := junitSuites{junitCounts: junitCounts{Name: r.Suite, Tests: s.Tests, Failures: s.Failures, Time: s.Time, Timestamp: s.Timestamp}, Suites: []junitSuite{s}}
	return writeJUnit(w, doc)
}

// loadMarkdown is a load report for a CI job's page.
func loadMarkdown(w io.Writer, r *Report) error {
	l := r.Load
	var b strings.Builder
	verdict := "✅ PASS"
	if !r.Passed {
		verdict = "❌ FAIL"
	}
	fmt.Fprintf(&b, "### %s %s (load)\n\n%s\n\n", verdict, md(r.Suite), md(loadShape(l)))
	b.WriteString("| step | calls | errors | calls/s | p50 | p95 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	row := func(name string, s *LoadStats) {
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s | %s |\n", name, s.Calls, s.Errors, num(s.RPS),
			msText(s.Latency.P50), msText(s.Latency.P95), msText(s.Latency.P99), msText(s.Latency.Max))
	}
	for i := range l.Steps {
		row(md(l.Steps[i].Scenario+"/"+l.Steps[i].Step), &l.Steps[i])
	}
	row("**all**", &l.Overall)
	b.WriteString("\n| threshold | actual | verdict |\n|---|---:|---|\n")
	for _, th := range l.Thresholds {
		v := "✅ met"
		if !th.Met {
			v = "❌ not met"
		}
		actual := num(th.Actual) + " " + th.Unit
		if th.Reason != "" {
			actual = th.Reason
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", md(th.Rule), md(actual), v)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
