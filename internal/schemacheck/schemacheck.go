// Package schemacheck is mcpcheck's one use of santhosh-tekuri/jsonschema:
// compiling a schema so that nothing is ever loaded (no network, no disk:
// every $ref must be inside the document or a draft's built-in
// metaschema), validating without letting a validator panic escape, and
// turning a validation error into its broken rules, their JSON Pointers
// and words. config (inline schemas in fixtures), assert (their
// failures), the runner (a server's tool schemas) and the schemas package
// (mcpcheck's own file formats) all judge JSON against schemas; they share
// this one way of doing it.
package schemacheck

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// NewCompiler is a compiler that loads nothing: documents are added with
// AddResource, 2020-12 is the draft unless a document's $schema names
// another, and formats are asserted when assertFormat is set (2019-09 and
// 2020-12 otherwise only annotate them).
func NewCompiler(assertFormat bool) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(jsonschema.SchemeURLLoader{})
	if assertFormat {
		c.AssertFormat()
	}
	return c
}

// Compile compiles doc (generic JSON) as the document at url with a
// [NewCompiler]. Its errors are the validator's own.
func Compile(url string, doc any, assertFormat bool) (*jsonschema.Schema, error) {
	c := NewCompiler(assertFormat)
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// Validate checks v (generic JSON) against sch. A violation is a
// *jsonschema.ValidationError; a validator panic (it has panicked on
// hostile schemas and values) is an error too, so that no value a server
// sends can crash the run.
func Validate(sch *jsonschema.Schema, v any) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the validator failed on this value (%v)", p)
		}
	}()
	return sch.Validate(v)
}

// Leaves returns the innermost causes of a validation error: the broken
// rules themselves, not the "doesn't validate with ..." wrappers above
// them, in the validator's order. Below a propertyNames failure the
// validator judged a key, not a value: intoKeys descends there (to the
// rule the key broke), else the propertyNames failure is the leaf.
func Leaves(ve *jsonschema.ValidationError, intoKeys bool) []*jsonschema.ValidationError {
	return leaves(ve, nil, intoKeys)
}

func leaves(ve *jsonschema.ValidationError, out []*jsonschema.ValidationError, intoKeys bool) []*jsonschema.ValidationError {
	if _, keys := ve.ErrorKind.(*kind.PropertyNames); (keys && !intoKeys) || len(ve.Causes) == 0 {
		return append(out, ve)
	}
	for _, c := range ve.Causes {
		out = leaves(c, out, intoKeys)
	}
	return out
}

// FirstLeaf is the first innermost cause of a validation error (below a
// propertyNames failure too: the rule the key broke), in the order of
// instance location (array indexes by value), then schema location,
// keyword and message. The validator lists causes in map order; this is
// the same one every time.
func FirstLeaf(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	return slices.MinFunc(leaves(ve, nil, true), func(a, b *jsonschema.ValidationError) int {
		return cmp.Or(
			slices.CompareFunc(a.InstanceLocation, b.InstanceLocation, compareToken),
			strings.Compare(a.SchemaURL, b.SchemaURL),
			slices.Compare(a.ErrorKind.KeywordPath(), b.ErrorKind.KeywordPath()),
			strings.Compare(Localized(a.ErrorKind), Localized(b.ErrorKind)))
	})
}

// compareToken orders instance location tokens, array indexes by value.
func compareToken(a, b string) int {
	i, errA := strconv.Atoi(a)
	j, errB := strconv.Atoi(b)
	if errA == nil && errB == nil {
		return cmp.Compare(i, j)
	}
	return strings.Compare(a, b)
}

// Pointer is the JSON Pointer of an instance location ("" for the root).
func Pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(jsonpointer.Escape(t))
	}
	return b.String()
}

var printer = message.NewPrinter(language.English)

// Localized is the validator's own English message for a broken rule; it
// may quote the value.
func Localized(k jsonschema.ErrorKind) string { return k.LocalizedString(printer) }

// Message says which rule a value breaks and what the schema wants, in
// words safe for any report: the validator's own messages (see
// [Localized]) quote the value; these do not.
func Message(k jsonschema.ErrorKind) string {
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
