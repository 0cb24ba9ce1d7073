// Package schema compiles the JSON Schemas a server sends (a tool's
// inputSchema and outputSchema) with santhosh-tekuri/jsonschema, and says
// where a value breaks one.
//
// A server's schema is untrusted input, so compiling it never makes mcpcheck
// fetch anything: every `$ref`, `$dynamicRef` and `$recursiveRef` must be a
// local fragment ("#...") and `$schema` must name a draft whose metaschema is
// built in. A schema that breaks those rules, nests too deep, would cost too
// much to validate, or makes the validator panic is refused with an error
// and nothing is loaded.
package schema

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/go-openapi/jsonpointer"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
)

// Schema is one compiled schema document. It is safe for concurrent use.
type Schema struct {
	doc  any
	root *jsonschema.Schema
	loc  string

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	subs     map[string]*jsonschema.Schema
	subErrs  map[string]error

	formatsOnce sync.Once
	formats     *Schema
	formatsErr  error
}

// Compile compiles a tool's schema; which is "input" or "output" and names
// the schema in errors. An empty raw (or JSON null) is no schema: nil, nil.
func Compile(toolName, which string, raw []byte) (s *Schema, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	// The validator panics on some hostile schemas (a multipleOf of
	// 1e-999999999 makes it dereference a nil *big.Rat): refuse them.
	defer func() {
		if p := recover(); p != nil {
			s, err = nil, fmt.Errorf("%sSchema refused: the validator could not compile it (%v)", which, p)
		}
	}()
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
	return compile(doc, "mcp://tools/"+url.PathEscape(toolName)+"/"+which, which+"Schema", false)
}

// compile compiles a document that passed the checks; name starts its
// errors.
func compile(doc any, loc, name string, assertFormat bool) (*Schema, error) {
	// 2020-12 is MCP's default too; nothing is ever loaded.
	c := schemacheck.NewCompiler(assertFormat)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	root, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("%s does not compile: %v", name, firstLine(err.Error()))
	}
	return &Schema{doc: doc, root: root, loc: loc, compiler: c}, nil
}

// WithFormats is the same schema with `format` asserted under every draft
// (2019-09 and 2020-12 only annotate it, unless their vocabulary says
// otherwise), compiled on first use. A value it accepts is one a strict
// validator accepts too: mcpcheck's generator checks what it proposes with
// it.
func (s *Schema) WithFormats() (*Schema, error) {
	s.formatsOnce.Do(func() {
		defer func() {
			if p := recover(); p != nil {
				s.formats, s.formatsErr = nil, fmt.Errorf("the validator could not compile the schema with formats asserted (%v)", p)
			}
		}()
		s.formats, s.formatsErr = compile(s.doc, s.loc, "the schema with formats asserted", true)
	})
	return s.formats, s.formatsErr
}

// Doc is the schema document as decoded (generic JSON, json.Number numbers).
// It is shared: read it, never change it.
func (s *Schema) Doc() any { return s.doc }

// Draft is the JSON Schema draft the document is judged by: 4, 6, 7, 2019
// (2019-09) or 2020 (2020-12), as its $schema says, else 2020.
func (s *Schema) Draft() int { return s.root.DraftVersion }

// Validate checks v (generic JSON) against the whole schema.
func (s *Schema) Validate(v any) error { return schemacheck.Validate(s.root, v) }

// ValidateAt checks v against the subschema at pointer (an RFC 6901 JSON
// Pointer into the document, "" for the root), compiling it on first use.
// The subschema is judged in its place: its references resolve as they do
// from the root.
func (s *Schema) ValidateAt(pointer string, v any) (err error) {
	sub, err := s.at(pointer)
	if err != nil {
		return err
	}
	return schemacheck.Validate(sub, v)
}

// Refs lists where the references of the subschema at pointer lead, as
// JSON Pointers into the document: its $ref, then the static targets of
// $dynamicRef and $recursiveRef. They are resolved by the validator, so
// anchors, the root's $id and nested $id scopes mean what they mean there.
// A subschema without references, or one that does not compile, has none.
func (s *Schema) Refs(pointer string) []string {
	sub, err := s.at(pointer)
	if err != nil {
		return nil
	}
	var out []string
	add := func(t *jsonschema.Schema) {
		if t == nil {
			return
		}
		frag, ok := strings.CutPrefix(t.Location, s.loc+"#")
		if !ok {
			return
		}
		if p, err := url.PathUnescape(frag); err == nil {
			out = append(out, p)
		}
	}
	add(sub.Ref)
	if sub.DynamicRef != nil {
		add(sub.DynamicRef.Ref)
	}
	add(sub.RecursiveRef)
	return out
}

func (s *Schema) at(pointer string) (sub *jsonschema.Schema, err error) {
	if pointer == "" {
		return s.root, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub, ok := s.subs[pointer]; ok {
		return sub, nil
	}
	if err, ok := s.subErrs[pointer]; ok {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			sub, err = nil, fmt.Errorf("the validator could not compile the schema at %s (%v)", pointer, p)
		}
		if err != nil {
			if s.subErrs == nil {
				s.subErrs = map[string]error{}
			}
			s.subErrs[pointer] = err
		}
	}()
	// A URI fragment is percent-encoded; the pointer itself is RFC 6901.
	frag := (&url.URL{Fragment: pointer}).EscapedFragment()
	sub, err = s.compiler.Compile(s.loc + "#" + frag)
	if err != nil {
		return nil, fmt.Errorf("the schema at %s does not compile: %v", pointer, firstLine(err.Error()))
	}
	if s.subs == nil {
		s.subs = map[string]*jsonschema.Schema{}
	}
	s.subs[pointer] = sub
	return sub, nil
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
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		return nil, false // anchors are not followed for costing
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, false
	}
	p, err := jsonpointer.New(frag)
	if err != nil {
		return nil, false
	}
	v, _, err := p.Get(doc)
	return v, err == nil
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
		for _, k := range slices.Sorted(maps.Keys(x)) {
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

// Violation says where a value breaks a schema: the JSON Pointer of the
// offending value and the keyword it broke (safe for the JSON report, which
// must not show argument or result values), and the validator's message
// (for the human report).
type Violation struct {
	Path    string
	Keyword string
	Message string
}

// Explain turns a validation error into a [Violation]: its first leaf
// cause, in the order of instance location (array indexes by value), then
// schema location, keyword and message. The validator lists causes in map
// order, so an error with several always explains the same way.
func Explain(err error) Violation {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return Violation{Message: err.Error()}
	}
	leaf := schemacheck.FirstLeaf(ve)
	ek := leaf.ErrorKind
	if ap, ok := ek.(*kind.AdditionalProperties); ok {
		ek = &kind.AdditionalProperties{Properties: slices.Sorted(slices.Values(ap.Properties))}
	}
	v := Violation{Message: schemacheck.Localized(ek), Path: schemacheck.Pointer(leaf.InstanceLocation)}
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
