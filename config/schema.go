package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-openapi/jsonpointer"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpcheck/mcpcheck/internal/schemacheck"
	"github.com/mcpcheck/mcpcheck/schemas"
)

// The schemas of the files config reads (the fixture, a baseline of
// expected failures) are the schemas package's, compiled once per process.
// Each one's own node tree is kept too, so that messages can list a place's allowed keys in
// the order the schema declares them.
type fileSchema struct {
	name string // for errors: "fixture schema"
	url  string
	doc  []byte

	once sync.Once
	sch  *jsonschema.Schema
	tree *node
	err  error
}

var (
	fixtureSchema  = &fileSchema{name: "fixture schema", url: schemas.FixtureURL, doc: schemas.Fixture}
	baselineSchema = &fileSchema{name: "expected-failures schema", url: schemas.ExpectedFailuresURL, doc: schemas.ExpectedFailures}
)

func compiledSchema() (*jsonschema.Schema, *node, error) { return fixtureSchema.compiled() }

func (fs *fileSchema) compiled() (*jsonschema.Schema, *node, error) {
	fs.once.Do(func() {
		sch, err := schemas.Compiled(fs.url)
		if err != nil {
			fs.err = fmt.Errorf("%s: %w", fs.name, err)
			return
		}
		var errs errList
		tree := parseJSON(fs.url, fs.doc, &errs)
		if err := errs.err(); err != nil {
			fs.err = fmt.Errorf("%s: %w", fs.name, err)
			return
		}
		fs.sch, fs.tree = sch, tree
	})
	return fs.sch, fs.tree, fs.err
}

// validate checks the document against the schema and records one message
// per problem, at the place it concerns.
func (fs *fileSchema) validate(root *node, errs *errList) error {
	sch, tree, err := fs.compiled()
	if err != nil {
		return err
	}
	verr := schemacheck.Validate(sch, toAny(root))
	if verr == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(verr, &ve) {
		return verr
	}
	for _, leaf := range schemacheck.Leaves(ve, true) {
		schemaProblem(root, tree, leaf, errs)
	}
	return nil
}

// locate follows an instance location from the root, returning the node and
// its path for messages.
func locate(root *node, loc []string) (*node, string) {
	n, path := root, ""
	for _, tok := range loc {
		switch n.kind {
		case objectNode:
			f := n.get(tok)
			if f == nil {
				return n, path
			}
			n, path = f.val, keyPath(path, tok)
		case arrayNode:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n.items) {
				return n, path
			}
			n, path = n.items[i], indexPath(path, i)
		default:
			return n, path
		}
	}
	return n, path
}

// schemaAt returns the schema object at a schema location such as
// ".../fixture.schema.json#/$defs/step", or nil.
func schemaAt(tree *node, schemaURL string) *node {
	_, frag, _ := strings.Cut(schemaURL, "#")
	p, err := jsonpointer.New(frag)
	if err != nil {
		return nil
	}
	n := tree
	for _, tok := range p.DecodedTokens() {
		if n = n.value(tok); n == nil {
			return nil
		}
	}
	return n
}

// nested are the top-level keys whose settings a user may write one level
// too high (failUnder for generate.failUnder).
var nested = []string{"generate", "client"}

// nestedKey is where key belongs when it is written at the top level but
// is a setting of one of the nested blocks ("generate.failUnder"); "" if
// it is none's, or path is not the top level.
func nestedKey(tree *node, path, key string) string {
	if path != "" {
		return ""
	}
	for _, block := range nested {
		def := tree.value("properties").value(block)
		if ref := strValue(def.value("$ref")); ref != "" {
			def = schemaAt(tree, ref)
		}
		if slices.Contains(allowedKeys(def), key) {
			return block + "." + key
		}
	}
	return ""
}

// allowedKeys lists the properties the schema object declares, in order.
func allowedKeys(sch *node) []string {
	var keys []string
	for _, f := range sch.value("properties").fieldsOrNil() {
		keys = append(keys, f.key)
	}
	return keys
}

func (n *node) fieldsOrNil() []field {
	if n == nil || n.kind != objectNode {
		return nil
	}
	return n.fields
}

// matcherDef is where the fixture schema defines a matcher.
const matcherDef = "/$defs/matcher"

// jsonText renders a schema value (from the fixture schema, not the
// fixture) as JSON.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func shortValue(arr *node, i int) string {
	if arr.kind != arrayNode || i >= len(arr.items) {
		return "the value"
	}
	it := arr.items[i]
	switch it.kind {
	case stringNode:
		return quote(it.str)
	case numberNode, boolNode, nullNode:
		return strings.TrimPrefix(describe(it), "number ")
	}
	return "the same value"
}

func article(typ string) string {
	switch typ {
	case "object", "array", "integer":
		return "an " + typ
	case "null":
		return "null"
	case "boolean":
		return "true or false"
	}
	return "a " + typ
}

// Suggest returns the allowed name closest to an unknown one, when it is
// close enough to be a likely typo ("" otherwise), as fixture errors
// suggest keys: at most two edits, and fewer than half the name's length
// (so "x" does not suggest "t").
func Suggest(name string, allowed []string) string {
	best, bestDist := "", 3
	n := utf8.RuneCountInString(name)
	for _, a := range allowed {
		d := editDistance(strings.ToLower(name), strings.ToLower(a))
		if d < bestDist && 2*d < n {
			best, bestDist = a, d
		}
	}
	return best
}

// editDistance counts the insertions, deletions, substitutions and swaps of
// adjacent characters that turn a into b (optimal string alignment).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		return 1 << 30 // too long to be a typo worth suggesting
	}
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
