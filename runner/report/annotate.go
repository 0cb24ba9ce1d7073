package report

import (
	"fmt"
	"io"
	"strings"
)

// GitHubAnnotations writes a GitHub Actions workflow command for each
// failed step and each failed check:
//
//	::error file=FIXTURE,line=N,col=M,title=mcpcheck: SCENARIO / STEP::MESSAGE
//
// at the line the step is written (the fixture path as the run was given
// it, so run mcpcheck from the repository root for the annotation to land
// on the pull request's diff). Generated steps and checks without a line
// are annotated without a place. The message is the human report's failure
// lines; everything is escaped by the workflow-command rules, so no server
// string can end the command or forge another. GitHub shows at most
// [MaxAnnotations] errors of a step; past them one warning says how many
// more failed.
func GitHubAnnotations(w io.Writer, r *Report) error {
	var b strings.Builder
	n := 0
	annotate := func(pos *Position, title, message string) {
		if n++; n <= MaxAnnotations {
			writeAnnotation(&b, pos, title, message)
		}
	}
	for _, sc := range r.Scenarios {
		for i := range sc.Steps {
			st := &sc.Steps[i]
			if st.Status != StatusFailed || st.Expected != nil {
				continue // a known failure fails nothing: no error to show
			}
			lines := failureLines(st)
			if st.Pos.File != "" {
				lines = lines[1:] // "at FILE:LINE:COL", which the command says itself
			}
			annotate(st.Position, scenarioTitle(&sc)+" / "+st.ID, strings.Join(lines, "\n"))
		}
	}
	for _, g := range checkGroups(r) {
		for _, c := range g.Checks {
			if c.Status == StatusFailed {
				annotate(c.Pos, g.Name+" / "+c.Name, c.Message)
			}
		}
	}
	if n > MaxAnnotations {
		fmt.Fprintf(&b, "::warning title=%s::%s\n", ghProperty("mcpcheck: more failures"),
			ghData(fmt.Sprintf("%d more failures are not annotated (GitHub shows %d errors per step); the report lists them all", n-MaxAnnotations, MaxAnnotations)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// MaxAnnotations is how many error annotations GitHub shows for one step.
const MaxAnnotations = 10

func writeAnnotation(b *strings.Builder, pos *Position, title, message string) {
	b.WriteString("::error ")
	if pos != nil {
		fmt.Fprintf(b, "file=%s,line=%d,col=%d,", ghProperty(pos.File), pos.Line, pos.Column)
	}
	fmt.Fprintf(b, "title=%s::%s\n", ghProperty("mcpcheck: "+title), ghData(message))
}

// The escapes of GitHub's workflow commands: a message (data) escapes %, CR
// and LF; a property value also : and , (which would end it).
var (
	ghDataEscaper     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghPropertyEscaper = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

func ghData(s string) string     { return ghDataEscaper.Replace(s) }
func ghProperty(s string) string { return ghPropertyEscaper.Replace(s) }
