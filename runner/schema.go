package runner

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// contract is a discovered tool's schemas, compiled once at discovery.
//
// Schemas come from the server, so compiling them must never make mcpcheck
// fetch anything: every `$ref`, `$dynamicRef` and `$recursiveRef` must be a
// local fragment ("#...") and `$schema` must name a draft whose metaschema is
// built in. A schema that breaks those rules is refused (nothing is loaded)
// and the refusal is a discovery warning; steps that call the tool with
// argument validation on end as input_rejected.
type contract struct {
	input, output       *jsonschema.Schema
	inputErr, outputErr error
}

// knownDrafts are the $schema values whose metaschemas are built into the
// validator, so naming them fetches nothing.
var knownDrafts = map[string]bool{}

func init() {
	for _, d := range []string{
		"json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema",
		"json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2020-12/schema",
	} {
		for _, scheme := range []string{"http://", "https://"} {
			knownDrafts[scheme+d] = true
			knownDrafts[scheme+d+"#"] = true
		}
	}
}

// maxSchemaDepth bounds how deep a server's schema may nest before it is
// refused rather than walked.
const maxSchemaDepth = 200

// compileContract compiles a tool's input and output schemas.
func compileContract(t tool) contract {
	var c contract
	c.input, c.inputErr = compileToolSchema(t.Name, "input", t.InputSchema)
	if len(bytes.TrimSpace(t.OutputSchema)) > 0 && !bytes.Equal(bytes.TrimSpace(t.OutputSchema), []byte("null")) {
		c.output, c.outputErr = compileToolSchema(t.Name, "output", t.OutputSchema)
	}
	return c
}

func compileToolSchema(toolName, which string, raw []byte) (*jsonschema.Schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%sSchema is not JSON: %v", which, err)
	}
	if err := checkRefs(doc, 0); err != nil {
		return nil, fmt.Errorf("%sSchema refused: %v; nothing was fetched", which, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020) // MCP's default; a $schema in the document wins
	// Nothing is ever loaded: not from the network, not from disk.
	c.UseLoader(jsonschema.SchemeURLLoader{})
	loc := "mcp://tools/" + url.PathEscape(toolName) + "/" + which
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("%sSchema: %v", which, err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("%sSchema does not compile: %v", which, firstLine(err.Error()))
	}
	return sch, nil
}

// checkRefs walks a schema document and refuses references that would make
// a validator load anything, and $schema values that are not built in.
// Values of data keywords (enum, const, default, examples) are data, not
// schema, and are not walked.
func checkRefs(v any, depth int) error {
	if depth > maxSchemaDepth {
		return fmt.Errorf("nested deeper than %d levels", maxSchemaDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := x[k]
			switch k {
			case "$ref", "$dynamicRef", "$recursiveRef":
				if s, ok := e.(string); ok && !strings.HasPrefix(s, "#") {
					return fmt.Errorf("%s %q is not a local reference", k, s)
				}
			case "$schema":
				if s, ok := e.(string); ok && !knownDrafts[s] {
					return fmt.Errorf("$schema %q is not a known draft", s)
				}
			case "enum", "const", "default", "examples":
				continue
			}
			if err := checkRefs(e, depth+1); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range x {
			if err := checkRefs(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

var printer = message.NewPrinter(language.English)

// schemaViolation summarises a validation error: the JSON Pointer of the
// offending value and the keyword it broke (safe for the JSON report, which
// must not show argument or result values), and the validator's full
// message (for the human report).
type schemaViolation struct {
	Path    string
	Keyword string
	Message string
}

func violation(err error) schemaViolation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return schemaViolation{Message: err.Error()}
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	v := schemaViolation{Path: pointerOf(leaf.InstanceLocation), Message: leaf.ErrorKind.LocalizedString(printer)}
	if kp := leaf.ErrorKind.KeywordPath(); len(kp) > 0 {
		v.Keyword = kp[len(kp)-1]
	}
	return v
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
