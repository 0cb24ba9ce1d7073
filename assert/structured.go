package assert

import (
	"github.com/mcpcheck/mcpcheck/config"
)

// maxFailures bounds the mismatches one structured check reports; a result
// that differs everywhere says so in the first few paths.
const maxFailures = 20

// noStructured is the failure of a check of structuredContent that is not
// there.
const noStructured = "the result has no structuredContent"

// StructuredEquals demands deep equality with structuredContent: exact object
// keys, array order and length, numbers by value.
type StructuredEquals struct{ Want any }

func buildEquals(e *config.Expect) Checker {
	if e.StructuredEquals == nil {
		return nil
	}
	return &StructuredEquals{Want: e.StructuredEquals.V}
}

// Kind implements [Checker].
func (c *StructuredEquals) Kind() KindName { return KindStructuredEquals }

// Check implements [Checker].
func (c *StructuredEquals) Check(r *Result) []Failure {
	return checkStructured(c.Kind(), c.Want, r, false)
}

// StructuredIncludes demands a recursive object subset of structuredContent:
// every expected key must be present with an included value; extra keys are
// allowed; arrays still need equal length and order.
type StructuredIncludes struct{ Want any }

func buildIncludes(e *config.Expect) Checker {
	if e.StructuredIncludes == nil {
		return nil
	}
	return &StructuredIncludes{Want: e.StructuredIncludes.V}
}

// Kind implements [Checker].
func (c *StructuredIncludes) Kind() KindName { return KindStructuredIncludes }

// Check implements [Checker].
func (c *StructuredIncludes) Check(r *Result) []Failure {
	return checkStructured(c.Kind(), c.Want, r, true)
}

func checkStructured(kind KindName, want any, r *Result, subset bool) []Failure {
	if !r.HasResult {
		// No result arrived; the outcome check already reports why.
		return nil
	}
	d := differ{kind: kind, subset: subset}
	d.compare("", want, r.Structured, r.HasStructured, noStructured)
	return d.out
}
