package assert

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpcheck/mcpcheck/config"
	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
)

// StructuredSchema demands that structuredContent is valid against an
// inline JSON Schema (compiled when the fixture loaded). Each broken rule
// is a failure at the JSON Pointer of the value that breaks it.
type StructuredSchema struct{ Schema *config.JSONSchema }

func buildStructuredSchema(e *config.Expect) Checker {
	if e.StructuredSchema == nil {
		return nil
	}
	return &StructuredSchema{Schema: e.StructuredSchema}
}

// Kind implements [Checker].
func (c *StructuredSchema) Kind() KindName { return KindStructuredSchema }

// Check implements [Checker].
func (c *StructuredSchema) Check(r *Result) []Failure {
	if !r.HasResult {
		return nil
	}
	if !r.HasStructured {
		return []Failure{{Kind: c.Kind(), Message: noStructured}}
	}
	return schemaFailures(c.Kind(), c.Schema, r.Structured)
}

// schemaFailures validates v and turns each broken rule into a failure
// whose message names the rule and what the schema wants, never the value.
func schemaFailures(kindName KindName, s *config.JSONSchema, v any) []Failure {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Failure{{Kind: kindName, Message: "schema: " + err.Error()}}
	}
	var out []Failure
	for _, leaf := range schemacheck.Leaves(ve, false) {
		f := Failure{Kind: kindName, Message: "schema: " + schemacheck.Message(leaf.ErrorKind)}
		if _, unreliable := leaf.ErrorKind.(*kind.PropertyNames); !unreliable {
			f.Path = schemacheck.Pointer(leaf.InstanceLocation)
			if p, err := jsonpointer.New(f.Path); err == nil {
				if got, _, err := p.Get(v); err == nil {
					f.Actual, f.HasActual = got, true
				}
			}
		}
		out = append(out, f)
	}
	// The validator walks objects in map order; the report is the same
	// every time.
	slices.SortStableFunc(out, func(a, b Failure) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Message, b.Message))
	})
	return out[:min(len(out), maxFailures)]
}
