package assert

import (
	"encoding/json"

	"github.com/mcpcheck/mcpcheck/config"
)

// WholeResult checks the step's whole JSON-RPC result (expect.result):
// deep equality, a recursive subset, gjson paths and an inline JSON
// Schema, whichever are set. Failures carry JSON Pointers into the result
// (gjson paths for paths).
type WholeResult struct{ jsonChecks }

func buildResult(e *config.Expect) Checker {
	if e.Result == nil {
		return nil
	}
	return &WholeResult{newJSONChecks(e.Result)}
}

// Kind implements [Checker].
func (c *WholeResult) Kind() KindName { return KindResult }

// Check implements [Checker].
func (c *WholeResult) Check(r *Result) []Failure {
	if !r.HasResult {
		return nil // the outcome check says why there is none
	}
	raw := r.WholeRaw
	if raw == nil && len(c.Paths) > 0 {
		raw, _ = json.Marshal(r.Whole)
	}
	return c.check(c.Kind(), r.Whole, raw)
}

// jsonChecks are the checks of a JSON value that expect.result and
// expect.textJSON share.
type jsonChecks struct {
	// Equals and Includes are the expected values, when set.
	Equals, Includes *config.Value
	// Paths (sorted) and Want are the gjson paths and their values.
	Paths []string
	Want  map[string]any
	// Schema is an inline JSON Schema the value must be valid against.
	Schema *config.JSONSchema
}

func newJSONChecks(e *config.JSONExpect) jsonChecks {
	c := jsonChecks{Equals: e.Equals, Includes: e.Includes, Schema: e.Schema}
	if len(e.Paths) > 0 {
		c.Paths, c.Want = sortedPaths(e.Paths)
	}
	return c
}

// check applies the checks to v, whose JSON text is raw (needed only by
// paths).
func (c *jsonChecks) check(kind KindName, v any, raw []byte) []Failure {
	var out []Failure
	if c.Equals != nil {
		d := differ{kind: kind}
		d.diff("", c.Equals.V, v)
		out = append(out, d.out...)
	}
	if c.Includes != nil {
		d := differ{kind: kind, subset: true}
		d.diff("", c.Includes.V, v)
		out = append(out, d.out...)
	}
	if len(c.Paths) > 0 {
		out = append(out, checkPaths(kind, c.Paths, c.Want, raw)...)
	}
	if c.Schema != nil {
		out = append(out, schemaFailures(kind, c.Schema, v)...)
	}
	return out
}
