package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"
)

//go:embed html.tmpl
var htmlSource string

// htmlTemplate is the page. html/template escapes every value for where it
// stands, so no tool name, message or value a server sent can become
// markup; the page's Content-Security-Policy allows nothing but its own
// inline style, so it fetches nothing from anywhere, even if opened from a
// server.
var htmlTemplate = template.Must(template.New("report").Parse(htmlSource))

// The page's view of a report: what the template shows, in its order.
type (
	htmlPage struct {
		Title  string
		Suites []htmlSuite
		// Total is the verdict and counts over several suites, at the top
		// of the page (nil for one suite).
		Total *htmlTotal
	}
	htmlTotal struct {
		Verdict, Class string
		Suites         string      // "2 suites: 1 passed, 1 failed"
		Counts         string      // the steps
		Index          []htmlSuite // each suite's verdict, linked
	}
	htmlSuite struct {
		Verdict, Class string // PASS/pass, FAIL/fail, NOTHING TESTED/none
		// ID anchors the suite; OK says it passed (the "failures
		// only" filter hides it).
		ID            string
		OK            bool
		Name          string
		Target        string
		StartedAt     string
		Counts        string
		NothingTested *NothingTested
		Coverage      string
		Warnings      []string
		Groups        []htmlGroup
		Scenarios     []htmlScenario
		Tools         []htmlTool
		Notes         []string
		Divergences   []string
	}
	htmlGroup struct {
		Title  string
		Checks []check
	}
	htmlScenario struct {
		Title, Status string
		Open          bool
		Steps         []htmlStep
		// Attempts says how a retried scenario's runs went (retry.go).
		Attempts string
	}
	htmlStep struct {
		ID, Subject, Origin, Status, Outcome, Duration string
		OK                                             bool // not failed
		// Lines are a failed step's failure lines, or a skipped step's
		// reason; Class marks the expected and actual lines of a diff.
		Lines []htmlLine
		Notes []string
		// Exchange is the request and answer the step kept, shown folded.
		Exchange []string
	}
	htmlLine struct{ Class, Text string }
	htmlTool struct {
		Name, Status, Why string
	}
)

// HTML writes reps as one self-contained static page: per suite the
// verdict and counts, the run's failure, scores and findings, every
// scenario with its steps (failed ones expanded with their failure lines,
// expected against actual), the tools discovered with which were tested
// and which skipped and why, and the notes. No script, font, image or style
// sheet is loaded from anywhere.
func HTML(w io.Writer, reps ...*Report) error {
	if len(reps) == 1 && reps[0].Load != nil {
		return loadHTML(w, reps[0])
	}
	page := htmlPage{Title: "mcpcheck report"}
	var passed, failed, skipped int
	var ms float64
	for i, r := range reps {
		s := htmlSuiteOf(r)
		s.ID = fmt.Sprintf("suite-%d", i+1)
		page.Suites = append(page.Suites, s)
		passed, failed, skipped = passed+r.Summary.Passed, failed+r.Summary.Failed, skipped+r.Summary.Skipped
		ms += r.Summary.DurationMs
	}
	if len(reps) == 1 {
		page.Title = page.Suites[0].Verdict + " " + reps[0].Suite + " — mcpcheck"
	} else {
		// Several suites: the whole run's verdict and counts come first,
		// where a reader looks, with a link to each suite.
		t := &htmlTotal{Verdict: "PASS", Class: "pass", Counts: counts(passed, failed, skipped, ms), Index: page.Suites}
		bad := 0
		for _, s := range page.Suites {
			if s.Class == "fail" {
				t.Verdict, t.Class = "FAIL", "fail"
				bad++
			}
		}
		t.Suites = fmt.Sprintf("%d suites: %d passed, %d failed", len(reps), len(reps)-bad, bad)
		page.Total = t
		page.Title = t.Verdict + " " + fmt.Sprint(len(reps)) + " suites — mcpcheck"
	}
	return htmlTemplate.Execute(w, page)
}

func htmlSuiteOf(r *Report) htmlSuite {
	s := htmlSuite{Verdict: "PASS", Class: "pass", Name: r.Suite, Target: targetLine(r), NothingTested: r.NothingTested, Coverage: r.Coverage,
		Counts:   counts(r.Summary.Passed, r.Summary.Failed, r.Summary.Skipped, r.Summary.DurationMs),
		Warnings: r.Warnings, Notes: r.Notes}
	switch {
	case !r.Passed:
		s.Verdict, s.Class = "FAIL", "fail"
	case r.NothingTested != nil && r.NothingTested.Ran != "":
		s.Verdict, s.Class = "NO TOOL TESTED", "none"
	case r.NothingTested != nil:
		s.Verdict, s.Class = "NOTHING TESTED", "none"
	}
	s.OK = s.Class == "pass" // NOTHING TESTED stays in view too
	if !r.StartedAt.IsZero() {
		s.StartedAt = r.StartedAt.UTC().Format(time.DateTime) + " UTC"
	}
	for _, g := range checkGroups(r) {
		s.Groups = append(s.Groups, htmlGroup{Title: checkGroupTitles[g.Name], Checks: g.Checks})
	}
	called := map[string]bool{}
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		h := htmlScenario{Title: scenarioTitle(sc), Status: string(sc.Status), Open: sc.Status == StatusFailed, Attempts: attemptsLine(sc)}
		if flaky(sc) {
			h.Status = "flaky"
		}
		for j := range sc.Steps {
			st := &sc.Steps[j]
			if st.Tool != "" && st.Outcome != "" {
				called[st.Tool] = true
			}
			h.Steps = append(h.Steps, htmlStepOf(st))
		}
		s.Scenarios = append(s.Scenarios, h)
	}
	skipped := map[string]SkippedTool{}
	for _, t := range r.SkippedTools {
		skipped[t.Tool] = t
	}
	tools := slices.Clone(r.ToolsDiscovered)
	for _, t := range r.SkippedTools {
		if !slices.Contains(tools, t.Tool) {
			tools = append(tools, t.Tool)
		}
	}
	for _, name := range tools {
		t := htmlTool{Name: name, Status: "not called"}
		switch sk, ok := skipped[name]; {
		case ok:
			t.Status, t.Why = "skipped", sk.Reason
			if sk.Fix != "" {
				t.Why += " (" + sk.Fix + ")"
			}
		case called[name]:
			t.Status = "called"
		}
		s.Tools = append(s.Tools, t)
	}
	for _, d := range r.Divergences {
		s.Divergences = append(s.Divergences, divergenceText(&d))
	}
	return s
}

func htmlStepOf(st *StepResult) htmlStep {
	h := htmlStep{ID: st.ID, Subject: Subject(st), Origin: string(st.Origin), Status: string(st.Status), Notes: st.Notes,
		OK: st.Status != StatusFailed, Exchange: exchangeLines(st.Exchange)}
	if st.Status != StatusSkipped {
		h.Duration = duration(st.DurationMs)
		if st.Outcome != "" && st.Outcome != "ok" {
			h.Outcome = outcomeText(st)
		}
	}
	if st.Status == StatusPassed && st.Flagged {
		h.Status = "flagged"
	}
	switch st.Status {
	case StatusFailed:
		for _, l := range failureLines(st) {
			class := ""
			switch {
			case strings.HasPrefix(l, "  expected: "):
				class = "exp"
			case strings.HasPrefix(l, "  actual:   "):
				class = "act"
			}
			h.Lines = append(h.Lines, htmlLine{class, l})
		}
	case StatusSkipped:
		h.Lines = []htmlLine{{"", st.Reason}}
	}
	return h
}

// counts is the counts line: "2 passed, 2 failed, 1 skipped in 38ms".
func counts(passed, failed, skipped int, ms float64) string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped in %s", passed, failed, skipped, duration(ms))
}
