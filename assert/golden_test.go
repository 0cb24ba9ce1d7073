package assert

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/goldentest"
	"github.com/mcpcheck/mcpcheck/internal/jsonx/jsonxtest"
)

// check is one row of a golden table: an expect block as a fixture writes
// it (JSON, which YAML reads too) and the answer it is checked against.
type check struct {
	name   string
	expect string
	res    Result
}

// expectOf loads expect as the expect block of a tool step, through
// config.Parse, so that matchers are decoded the way a fixture's are.
func expectOf(t testing.TB, expect string) *config.Expect {
	t.Helper()
	src := "name: golden\ncommand: [srv]\nallowTools: [t]\nscenarios:\n  - name: s\n    steps:\n      - tool: t\n        expect: " + expect + "\n"
	s, err := config.Parse("golden.yaml", []byte(src), config.LoadOptions{Environ: []string{}})
	if err != nil {
		t.Fatalf("expect %s: %v", expect, err)
	}
	return &s.Scenarios[0].Steps[0].Expect
}

// runGolden checks every row and compares the failures, one line each as
// "kind path: message", with testdata/NAME.golden (-update rewrites it).
// A row without an outcome is an ok result.
func runGolden(t *testing.T, name string, rows []check) {
	t.Helper()
	var b strings.Builder
	for _, row := range rows {
		e := expectOf(t, row.expect)
		r := row.res
		if r.Outcome == "" {
			r.Outcome, r.HasResult = config.OutcomeOK, true
		}
		b.WriteString("## " + row.name + "\n")
		b.WriteString("expect: " + row.expect + "\n")
		n := 0
		for _, c := range Build(e) {
			for _, f := range c.Check(&r) {
				n++
				line := string(f.Kind)
				if f.Path != "" {
					line += " " + f.Path
				}
				b.WriteString(line + ": " + f.Message + "\n")
			}
		}
		if n == 0 {
			b.WriteString("pass\n")
		}
		b.WriteString("\n")
	}
	got := b.String()
	goldentest.Compare(t, filepath.Join("testdata", name+".golden"), got)
}

// structured is an ok tool result with this structuredContent (JSON).
func structured(t *testing.T, s string) Result {
	return Result{Outcome: config.OutcomeOK, HasResult: true, Structured: jsonxtest.Value(t, s), HasStructured: true}
}
