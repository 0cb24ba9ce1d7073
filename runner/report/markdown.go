package report

import (
	"fmt"
	"io"
	"strings"
)

// Markdown writes reps as a Markdown summary for a CI job's page (GitHub's
// $GITHUB_STEP_SUMMARY, a merge request note): per suite its verdict, what
// was tested, the counts, a table of the failing steps with their reason
// and fixture line, and the run's other checks (its failure, scores,
// findings). Every string is escaped so that nothing a server sent becomes
// markup, a link or an image.
func Markdown(w io.Writer, reps ...*Report) error {
	if len(reps) == 1 && reps[0].Load != nil {
		return loadMarkdown(w, reps[0])
	}
	var b strings.Builder
	var passed, failed, skipped int
	var ms float64
	for i, r := range reps {
		if i > 0 {
			b.WriteString("\n")
		}
		markdownSuite(&b, r)
		passed, failed, skipped = passed+r.Summary.Passed, failed+r.Summary.Failed, skipped+r.Summary.Skipped
		ms += r.Summary.DurationMs
	}
	if len(reps) > 1 {
		fmt.Fprintf(&b, "\n**Total: %d passed, %d failed, %d skipped** in %s\n", passed, failed, skipped, duration(ms))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func markdownSuite(b *strings.Builder, r *Report) {
	verdict := "✅ PASS"
	switch {
	case !r.Passed:
		verdict = "❌ FAIL"
	case r.NothingTested != nil && r.NothingTested.Ran != "":
		verdict = "⚠️ NO TOOL TESTED"
	case r.NothingTested != nil:
		verdict = "⚠️ NOTHING TESTED"
	}
	fmt.Fprintf(b, "### %s: %s\n\n", verdict, md(r.Suite))
	fmt.Fprintf(b, "%s\n\n", md(strings.ReplaceAll(targetLine(r), " | ", " · ")))
	switch n := r.NothingTested; {
	case n != nil && n.Ran != "":
		fmt.Fprintf(b, "%s. What ran: %s. To test the tools: %s.\n\n", md(n.Reason), md(n.Ran), md(n.Fix))
	case n != nil:
		fmt.Fprintf(b, "No call was made: %s. To test something: %s.\n\n", md(n.Reason), md(n.Fix))
	case r.Coverage != "":
		fmt.Fprintf(b, "%s.\n\n", md(r.Coverage))
	}
	expected := ""
	if n := r.Summary.ExpectedFailures; n > 0 {
		expected = fmt.Sprintf(" (%d expected)", n)
	}
	fmt.Fprintf(b, "**%d passed, %d failed%s, %d skipped** in %s\n", r.Summary.Passed, r.Summary.Failed, expected, r.Summary.Skipped, duration(r.Summary.DurationMs))

	var rows []string
	for _, sc := range r.Scenarios {
		for i := range sc.Steps {
			st := &sc.Steps[i]
			if st.Status != StatusFailed {
				continue
			}
			at := ""
			if st.Pos.File != "" {
				at = md(st.Pos.String())
			}
			reason := why(st)
			if st.Expected != nil {
				reason = expectedText(st.Expected) + ": " + reason
			}
			rows = append(rows, fmt.Sprintf("| %s | %s %s | %s | %s |", md(scenarioTitle(&sc)), md(st.ID), md(Subject(st)), md(reason), at))
		}
	}
	if len(rows) > 0 {
		more := ""
		if len(rows) > maxSummaryRows {
			more = fmt.Sprintf("\n… and %d more failing steps (the JUnit or HTML report lists them all)\n", len(rows)-maxSummaryRows)
			rows = rows[:maxSummaryRows]
		}
		fmt.Fprintf(b, "\n#### Failing steps\n\n| scenario | step | reason | at |\n| --- | --- | --- | --- |\n%s\n%s", strings.Join(rows, "\n"), more)
	}
	for _, g := range checkGroups(r) {
		fmt.Fprintf(b, "\n#### %s\n\n| | check | result |\n| --- | --- | --- |\n", checkGroupTitles[g.Name])
		for _, c := range g.Checks {
			fmt.Fprintf(b, "| %s | %s | %s |\n", statusMark[c.Status], md(c.Name), md(c.Message))
		}
	}
}

// maxSummaryRows bounds the failing steps a summary lists: a job summary
// is for reading (GitHub takes at most 1 MiB per step).
const maxSummaryRows = 50

// checkGroupTitles head the check groups in the Markdown and HTML reports.
var checkGroupTitles = map[string]string{
	"run":      "Run",
	"scores":   "Scores",
	"findings": "Findings",
	// One check per annotation verified by behaviour (behaviour.go).
	"annotation honesty": "Annotation honesty",
	"baseline":           "Known failures",
	// Contract drift: one check per change (drift.go).
	"contract drift": "Contract drift",
}

var statusMark = map[Status]string{
	StatusPassed:  "✅",
	StatusFailed:  "❌",
	StatusSkipped: "➖",
}

// scenarioTitle is a scenario's name with the protocol version it ran
// under in a multi-protocol run.
func scenarioTitle(sc *ScenarioResult) string {
	if sc.ProtocolVersion != "" {
		return sc.Name + " [" + sc.ProtocolVersion + "]"
	}
	return sc.Name
}

// mdEscaper makes text inert in GitHub-flavoured Markdown, table cells
// included: HTML is spelled out, Markdown punctuation is backslashed,
// line breaks become spaces.
var mdEscaper = strings.NewReplacer(
	"&", "&amp;", "<", "&lt;", ">", "&gt;",
	`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"#", `\#`, "~", `\~`, "!", `\!`, "$", `\$`,
	"\r\n", " ", "\n", " ", "\r", " ",
)

func md(s string) string { return mdEscaper.Replace(s) }
