package assert

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpcheck/mcpcheck/config"
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
	for _, leaf := range schemaLeaves(ve, nil) {
		f := Failure{Kind: kindName, Message: "schema: " + ruleMessage(leaf.ErrorKind)}
		if _, unreliable := leaf.ErrorKind.(*kind.PropertyNames); !unreliable {
			f.Path = pointer(leaf.InstanceLocation)
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

// schemaLeaves returns the innermost causes: the broken rules themselves.
// A propertyNames failure stops the descent: below it the validator
// judged a key, not a value.
func schemaLeaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if _, ok := ve.ErrorKind.(*kind.PropertyNames); ok || len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = schemaLeaves(c, out)
	}
	return out
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(jsonpointer.Escape(t))
	}
	return b.String()
}

// ruleMessage says which rule a value breaks and what the schema wants.
// The validator's own messages quote the value; these do not.
func ruleMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Type:
		return fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)
	case *kind.Enum:
		return "not one of the values of enum"
	case *kind.Const:
		return "not the value of const"
	case *kind.Required:
		return "missing required " + keyList(k.Missing)
	case *kind.DependentRequired:
		return fmt.Sprintf("key %q needs %s (dependentRequired)", k.Prop, keyList(k.Missing))
	case *kind.Dependency:
		return fmt.Sprintf("key %q needs %s (dependencies)", k.Prop, keyList(k.Missing))
	case *kind.AdditionalProperties:
		return "unexpected " + keyList(k.Properties) + " (additionalProperties)"
	case *kind.PropertyNames:
		// The validator does not say reliably where the object is.
		return fmt.Sprintf("key %q breaks propertyNames", k.Property)
	case *kind.MinProperties:
		return fmt.Sprintf("fewer keys than minProperties %d", k.Want)
	case *kind.MaxProperties:
		return fmt.Sprintf("more keys than maxProperties %d", k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("fewer items than minItems %d", k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("more items than maxItems %d", k.Want)
	case *kind.AdditionalItems:
		return fmt.Sprintf("more items than the %d the schema describes (additionalItems)", k.Count)
	case *kind.MinLength:
		return fmt.Sprintf("shorter than minLength %d", k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("longer than maxLength %d", k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("does not match pattern %q", k.Want)
	case *kind.Format:
		return fmt.Sprintf("not a valid %s (format)", k.Want)
	case *kind.Minimum:
		return "less than minimum " + k.Want.RatString()
	case *kind.Maximum:
		return "greater than maximum " + k.Want.RatString()
	case *kind.ExclusiveMinimum:
		return "not greater than exclusiveMinimum " + k.Want.RatString()
	case *kind.ExclusiveMaximum:
		return "not less than exclusiveMaximum " + k.Want.RatString()
	case *kind.MultipleOf:
		return "not a multiple of " + k.Want.RatString()
	case *kind.UniqueItems:
		return fmt.Sprintf("items %d and %d are equal (uniqueItems)", k.Duplicates[0], k.Duplicates[1])
	case *kind.Contains:
		return "no item matches contains"
	case *kind.MinContains:
		return fmt.Sprintf("%d items match contains, fewer than minContains %d", len(k.Got), k.Want)
	case *kind.MaxContains:
		return fmt.Sprintf("%d items match contains, more than maxContains %d", len(k.Got), k.Want)
	case *kind.OneOf:
		return "matches more than one schema of oneOf"
	case *kind.Not:
		return "matches the schema of not"
	case *kind.FalseSchema:
		return "not allowed here (false schema)"
	}
	return fmt.Sprintf("breaks %q", strings.Join(k.KeywordPath(), "/"))
}

// keyList names keys for a message: key "a", keys "a", "b".
func keyList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	if len(q) == 1 {
		return "key " + q[0]
	}
	return "keys " + strings.Join(q, ", ")
}
