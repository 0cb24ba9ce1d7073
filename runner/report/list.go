package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// List writes the steps a run would make, one line each — scenario, step,
// origin, tool, case and property — then the tools generation skipped and
// its notes. It is --list's output: nothing in it was called.
func List(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "%s\n%s\n", r.Suite, targetLine(r))
	if r.Failure != nil {
		fmt.Fprintf(w, "\nerror %s: %s\n", r.Failure.Stage, r.Failure.Message)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nSCENARIO\tSTEP\tORIGIN\tCALL\tCASE\tPROPERTY")
	n := 0
	var left []string
	for _, sc := range r.Scenarios {
		if sc.NotSelected != "" {
			left = append(left, sc.Name)
			continue
		}
		for i := range sc.Steps {
			st := &sc.Steps[i]
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", sc.Name, st.ID, st.Origin, Subject(st), dash(st.Case), dash(st.Property))
			n++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%d steps\n", n)
	if len(left) > 0 {
		fmt.Fprintf(w, "not selected (%d): %s\n", len(left), strings.Join(left, ", "))
	}
	if len(r.SkippedTools) > 0 {
		fmt.Fprintf(w, "\nskipped tools (%d):\n", len(r.SkippedTools))
		for _, g := range r.SkippedGroups() {
			why := g.Reason
			if g.Fix != "" {
				why += " (" + g.Fix + ")"
			}
			fmt.Fprintf(w, "  %s: %s\n", why, strings.Join(g.Tools, ", "))
		}
	}
	for _, note := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", note)
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
