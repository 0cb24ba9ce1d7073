package runner

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
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

func compileToolSchema(toolName, which string, raw []byte) (sch *jsonschema.Schema, err error) {
	// The validator library panics on some hostile schemas (a multipleOf
	// of 1e-999999999 makes it dereference a nil *big.Rat). A server's
	// schema is untrusted input: refuse it instead of crashing.
	defer func() {
		if p := recover(); p != nil {
			sch, err = nil, fmt.Errorf("%sSchema refused: the validator could not compile it (%v)", which, p)
		}
	}()
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
	if err := checkCost(doc); err != nil {
		return nil, fmt.Errorf("%sSchema refused: %v", which, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020) // MCP's default; a $schema in the document wins
	// Nothing is ever loaded: not from the network, not from disk.
	c.UseLoader(jsonschema.SchemeURLLoader{})
	loc := "mcp://tools/" + url.PathEscape(toolName) + "/" + which
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("%sSchema: %v", which, err)
	}
	sch, err = c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("%sSchema does not compile: %v", which, firstLine(err.Error()))
	}
	return sch, nil
}

// maxSchemaCost bounds how many subschemas a schema may expand to when its
// local references are followed (each reference followed anew, as a
// validator does; a reference back into its own path is a recursion bounded
// by the instance and counted once). The validator has no work limit of its
// own, so a few hundred bytes of $defs, each level referring twice to the
// next, would make one validation run for hours.
const maxSchemaCost = 200_000

// checkCost refuses schemas whose reference expansion exceeds maxSchemaCost.
func checkCost(doc any) error {
	budget := maxSchemaCost
	var walk func(v any, path map[string]bool) bool
	walk = func(v any, path map[string]bool) bool {
		budget--
		if budget < 0 {
			return false
		}
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				switch k {
				case "enum", "const", "default", "examples":
					continue
				case "$ref", "$dynamicRef", "$recursiveRef":
					ref, ok := e.(string)
					if !ok || path[ref] {
						continue
					}
					target, ok := localTarget(doc, ref)
					if !ok {
						continue
					}
					path[ref] = true
					ok = walk(target, path)
					delete(path, ref)
					if !ok {
						return false
					}
					continue
				}
				if !walk(e, path) {
					return false
				}
			}
		case []any:
			for _, e := range x {
				if !walk(e, path) {
					return false
				}
			}
		}
		return true
	}
	if !walk(doc, map[string]bool{}) {
		return fmt.Errorf("its references expand to more than %d subschemas, too many to validate safely", maxSchemaCost)
	}
	return nil
}

// localTarget resolves a "#/a/b" reference inside doc ("#" is the root).
func localTarget(doc any, ref string) (any, bool) {
	if ref == "#" {
		return doc, true
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false // anchors are not followed for costing
	}
	cur := doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
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
