package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
)

// JSONSchema is a JSON Schema written inline in a fixture
// (expect.structuredSchema, expect.result.schema), compiled when the
// fixture loads: 2020-12 unless its $schema names another draft, formats
// asserted (a test that writes format: date-time means it), and nothing
// ever loaded from the network or disk, so every $ref must be local.
type JSONSchema struct {
	// Doc is the schema as written (generic JSON, read-only, shared).
	Doc any
	Pos Pos
	// compiled is shared by the steps that write the same schema.
	compiled *inlineCompiled
}

type inlineCompiled struct {
	sch *jsonschema.Schema
	err error // why it does not compile, reported by checkExpect
}

// Validate checks v (generic JSON, json.Number numbers) against the schema.
// A violation is a *jsonschema.ValidationError; any other error means v
// could not be judged.
func (s *JSONSchema) Validate(v any) error {
	if s.compiled == nil || s.compiled.sch == nil {
		return errors.New("the schema did not compile")
	}
	return schemacheck.Validate(s.compiled.sch, v)
}

// inlineSchemaURL names every inline schema; each has a compiler of its
// own. A relative $ref resolves against it to a URL nothing serves.
const inlineSchemaURL = "mcpcheck://fixture/expect.schema.json"

// schema decodes an inline schema and compiles it, once for every schema
// written the same way.
func (d *decoder) schema(n *node) *JSONSchema {
	doc := d.value(n)
	s := &JSONSchema{Doc: doc, Pos: d.pos(n)}
	text, err := json.Marshal(doc)
	if err != nil { // generic JSON always marshals
		s.compiled = compileSchema(doc)
		return s
	}
	key := "schema:" + string(text)
	if c, ok := d.shared.byKey[key].(*inlineCompiled); ok {
		s.compiled = c
		return s
	}
	s.compiled = compileSchema(doc)
	if len(d.shared.byKey) < maxShared {
		if d.shared.byKey == nil {
			d.shared.byKey = make(map[string]any)
		}
		d.shared.byKey[key] = s.compiled
	}
	return s
}

func compileSchema(doc any) (c *inlineCompiled) {
	c = &inlineCompiled{}
	defer func() {
		if p := recover(); p != nil {
			c.sch, c.err = nil, fmt.Errorf("the validator could not compile it (%v)", p)
		}
	}()
	c.sch, c.err = schemacheck.Compile(inlineSchemaURL, doc, true)
	return c
}

// schemaError says why an inline schema does not compile, in one line.
func schemaError(err error) string {
	var sve *jsonschema.SchemaValidationError
	var lue *jsonschema.LoadURLError
	var ve *jsonschema.ValidationError
	switch {
	case errors.As(err, &sve) && errors.As(sve.Err, &ve):
		var parts []string
		for _, leaf := range schemacheck.Leaves(ve, true) {
			at := schemacheck.Pointer(leaf.InstanceLocation)
			if at == "" {
				at = "the root"
			}
			part := "at " + at + ": " + schemacheck.Localized(leaf.ErrorKind)
			if !slices.Contains(parts, part) {
				parts = append(parts, part)
			}
		}
		return "not a valid JSON Schema (" + strings.Join(parts, "; ") + ")"
	case errors.As(err, &lue):
		return fmt.Sprintf("refers to %s, which is never loaded: a schema in a fixture can only refer to its own parts (#...) and the drafts' metaschemas", quote(lue.URL))
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return "does not compile: " + msg
}
