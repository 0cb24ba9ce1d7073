package config

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The schema validator (santhosh-tekuri/jsonschema) needs the whole document
// as generic values and allocates as it walks them, which for a fixture of
// thousands of steps costs more than reading the file. Nearly every fixture
// that is loaded is valid, so a quick check walks the node tree first with
// the rules of schemas/fixture.schema.json, compiled from the schema itself,
// allocating nothing. When it accepts the document, that is the answer; when
// it does not, or is unsure (a number written 5.0 where an integer is
// wanted, say), the full validator runs and reports exactly as it always
// has. The quick check may therefore refuse too much but never accept what
// the schema refuses; FuzzQuickSchema holds it to that.
//
// It understands only the keywords the fixture schema uses. A schema with any
// other keyword is not compiled, and every document goes to the full
// validator.
//
// if/then/else needs more than "certainly valid": whether the if holds
// picks the rule that applies. When the quick check is sure either way
// (see invalid) it applies that rule; when it cannot tell, it demands both
// then and else, which is never less than the full validator demands.

// quickSchema is one compiled schema object.
type quickSchema struct {
	never                                         bool  // the schema false
	types                                         uint8 // bit set of jsonTypes; 0 means any type
	ref                                           *quickSchema
	props                                         map[string]*quickSchema
	closed                                        bool         // additionalProperties: false
	addl                                          *quickSchema // additionalProperties as a schema
	required                                      []string
	items                                         *quickSchema
	enum                                          []string // string enums only
	hasEnum                                       bool
	minimum, maximum                              int64
	hasMinimum, hasMaximum                        bool
	minItems, minLength, maxLength, minProperties int // -1 when absent
	pattern                                       *regexp.Regexp
	uniqueItems                                   bool
	propertyNames                                 *quickSchema
	ifS, thenS, elseS                             *quickSchema
}

const (
	typeNull uint8 = 1 << iota
	typeBoolean
	typeInteger
	typeNumber
	typeString
	typeArray
	typeObject
)

var typeBits = map[string]uint8{
	"null": typeNull, "boolean": typeBoolean, "integer": typeInteger, "number": typeNumber,
	"string": typeString, "array": typeArray, "object": typeObject,
}

// ignoredKeywords carry no rule (or, for $defs, only hold schemas reached
// through $ref).
var ignoredKeywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$comment": true,
	"title": true, "description": true, "default": true, "examples": true,
}

// quickCompiler turns the schema's node tree into quickSchemas. Schemas
// reached through $ref are compiled once, so recursive schemas work.
type quickCompiler struct {
	tree *node
	done map[*node]*quickSchema
}

func compileQuickSchema(tree *node) (*quickSchema, error) {
	c := &quickCompiler{tree: tree, done: map[*node]*quickSchema{}}
	return c.compile(tree, "#")
}

func (c *quickCompiler) compile(n *node, at string) (*quickSchema, error) {
	if q, ok := c.done[n]; ok {
		return q, nil
	}
	q := &quickSchema{minItems: -1, minLength: -1, maxLength: -1, minProperties: -1}
	c.done[n] = q
	switch n.kind {
	case boolNode:
		q.never = !n.b
		return q, nil
	case objectNode:
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at)
	}
	for _, f := range n.fields {
		where := at + "/" + f.key
		v := f.val
		var err error
		switch f.key {
		case "type":
			q.types, err = compileTypes(v)
		case "$ref":
			if v.kind != stringNode || !strings.HasPrefix(v.str, "#") {
				return nil, fmt.Errorf("%s: only local references are understood", where)
			}
			target := schemaAt(c.tree, v.str)
			if target == nil {
				return nil, fmt.Errorf("%s: %s not found", where, v.str)
			}
			q.ref, err = c.compile(target, v.str)
		case "properties":
			if v.kind != objectNode {
				return nil, fmt.Errorf("%s: not an object", where)
			}
			q.props = make(map[string]*quickSchema, len(v.fields))
			for _, p := range v.fields {
				if q.props[p.key], err = c.compile(p.val, where+"/"+p.key); err != nil {
					return nil, err
				}
			}
		case "additionalProperties":
			if v.kind == boolNode && !v.b {
				q.closed = true
			} else if !(v.kind == boolNode && v.b) {
				q.addl, err = c.compile(v, where)
			}
		case "required":
			q.required, err = compileStrings(v)
		case "items":
			q.items, err = c.compile(v, where)
		case "enum":
			q.enum, err = compileStrings(v)
			q.hasEnum = true
		case "minimum":
			q.minimum, err = compileInt(v)
			q.hasMinimum = true
		case "maximum":
			q.maximum, err = compileInt(v)
			q.hasMaximum = true
		case "minItems":
			q.minItems, err = compileCount(v)
		case "minLength":
			q.minLength, err = compileCount(v)
		case "maxLength":
			q.maxLength, err = compileCount(v)
		case "minProperties":
			q.minProperties, err = compileCount(v)
		case "pattern":
			if v.kind != stringNode {
				return nil, fmt.Errorf("%s: not a string", where)
			}
			// The full validator compiles patterns with the same package.
			q.pattern, err = regexp.Compile(v.str)
		case "uniqueItems":
			if v.kind != boolNode {
				return nil, fmt.Errorf("%s: not a boolean", where)
			}
			q.uniqueItems = v.b
		case "propertyNames":
			q.propertyNames, err = c.compile(v, where)
		case "if":
			q.ifS, err = c.compile(v, where)
		case "then":
			q.thenS, err = c.compile(v, where)
		case "else":
			q.elseS, err = c.compile(v, where)
		default:
			if !ignoredKeywords[f.key] {
				return nil, fmt.Errorf("%s: keyword not understood by the quick check", where)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
	}
	return q, nil
}

func compileTypes(v *node) (uint8, error) {
	names := []*node{v}
	if v.kind == arrayNode {
		names = v.items
	}
	var bits uint8
	for _, t := range names {
		b, ok := typeBits[t.str]
		if t.kind != stringNode || !ok {
			return 0, fmt.Errorf("unknown type")
		}
		bits |= b
	}
	if bits == 0 {
		return 0, fmt.Errorf("no type")
	}
	return bits, nil
}

func compileStrings(v *node) ([]string, error) {
	if v.kind != arrayNode {
		return nil, fmt.Errorf("not an array")
	}
	out := make([]string, len(v.items))
	for i, it := range v.items {
		if it.kind != stringNode {
			return nil, fmt.Errorf("only strings are understood")
		}
		out[i] = it.str
	}
	return out, nil
}

func compileInt(v *node) (int64, error) {
	if v.kind != numberNode {
		return 0, fmt.Errorf("not a number")
	}
	return strconv.ParseInt(v.str, 10, 64)
}

func compileCount(v *node) (int, error) {
	n, err := compileInt(v)
	if err != nil || n < 0 || n > 1<<30 {
		return 0, fmt.Errorf("not a count")
	}
	return int(n), nil
}

// valid reports whether n certainly satisfies the schema. False means it
// does not, or that the quick check cannot tell.
func (q *quickSchema) valid(n *node) bool {
	if q.never {
		return false
	}
	if q.ref != nil && !q.ref.valid(n) {
		return false
	}
	if q.types != 0 && !q.typeOK(n) {
		return false
	}
	if q.hasEnum && (n.kind != stringNode || !q.inEnum(n.str)) {
		return false
	}
	if q.ifS != nil && !q.validCond(n) {
		return false
	}
	switch n.kind {
	case objectNode:
		return q.validObject(n)
	case arrayNode:
		return q.validArray(n)
	case stringNode:
		return q.validString(n.str)
	case numberNode:
		return q.validNumber(n.str)
	}
	return true
}

func (q *quickSchema) typeOK(n *node) bool {
	switch n.kind {
	case nullNode:
		return q.types&typeNull != 0
	case boolNode:
		return q.types&typeBoolean != 0
	case stringNode:
		return q.types&typeString != 0
	case arrayNode:
		return q.types&typeArray != 0
	case objectNode:
		return q.types&typeObject != 0
	case numberNode:
		if q.types&typeNumber != 0 {
			return true
		}
		// 5.0 and 5e3 are integers too, but telling is the full
		// validator's job; plain digits certainly are.
		return q.types&typeInteger != 0 && plainInteger(n.str)
	}
	return false
}

// plainInteger reports whether a JSON number's text is an optional minus
// and digits only.
func plainInteger(text string) bool {
	digits := strings.TrimPrefix(text, "-")
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

func (q *quickSchema) inEnum(s string) bool {
	for _, e := range q.enum {
		if e == s {
			return true
		}
	}
	return false
}

func (q *quickSchema) validObject(n *node) bool {
	if q.minProperties >= 0 && len(n.fields) < q.minProperties {
		return false
	}
	for _, r := range q.required {
		if n.get(r) == nil {
			return false
		}
	}
	for _, f := range n.fields {
		if q.propertyNames != nil && !q.propertyNames.validName(f.key) {
			return false
		}
		if p, ok := q.props[f.key]; ok {
			if !p.valid(f.val) {
				return false
			}
		} else if q.closed || (q.addl != nil && !q.addl.valid(f.val)) {
			return false
		}
	}
	return true
}

func (q *quickSchema) validArray(n *node) bool {
	if q.minItems >= 0 && len(n.items) < q.minItems {
		return false
	}
	if q.items != nil {
		for _, it := range n.items {
			if !q.items.valid(it) {
				return false
			}
		}
	}
	if q.uniqueItems {
		// Only strings are compared here; equality of other values (1 and
		// 1.0 are equal) is left to the full validator.
		for i, it := range n.items {
			if it.kind != stringNode {
				return false
			}
			for _, prev := range n.items[:i] {
				if prev.str == it.str {
					return false
				}
			}
		}
	}
	return true
}

func (q *quickSchema) validString(s string) bool {
	if q.minLength >= 0 || q.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if q.minLength >= 0 && l < q.minLength || q.maxLength >= 0 && l > q.maxLength {
			return false
		}
	}
	return q.pattern == nil || q.pattern.MatchString(s)
}

func (q *quickSchema) validNumber(text string) bool {
	below, above, ok := q.outOfBounds(text)
	return ok && !below && !above
}

// outOfBounds compares a JSON number's text with minimum and maximum; ok is
// false when it cannot tell.
func (q *quickSchema) outOfBounds(text string) (below, above, ok bool) {
	if !q.hasMinimum && !q.hasMaximum {
		return false, false, true
	}
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return q.hasMinimum && v < q.minimum, q.hasMaximum && v > q.maximum, true
	}
	// 1.5, 1e3, or beyond int64 (a percentage of 99.5, say): exact
	// arithmetic, as the full validator does, on a literal short enough
	// for it to be cheap.
	if checkNumber(text) != "" {
		return false, false, false
	}
	r, good := new(big.Rat).SetString(text)
	if !good {
		return false, false, false
	}
	if q.hasMinimum && r.Cmp(new(big.Rat).SetInt64(q.minimum)) < 0 {
		below = true
	}
	if q.hasMaximum && r.Cmp(new(big.Rat).SetInt64(q.maximum)) > 0 {
		above = true
	}
	return below, above, true
}

// validCond applies if/then/else: the branch the if picks when the quick
// check is sure of it, and both branches when it is not.
func (q *quickSchema) validCond(n *node) bool {
	holds, fails := q.ifS.valid(n), q.ifS.invalid(n)
	if !fails && q.thenS != nil && !q.thenS.valid(n) {
		return false
	}
	if !holds && q.elseS != nil && !q.elseS.valid(n) {
		return false
	}
	return true
}

// invalid reports whether n certainly fails the schema. False means it
// satisfies it, or that the quick check cannot tell: only the keywords an
// if needs in the fixture schema (type, enum, required, minimum, maximum,
// properties, $ref) are looked at, and only where the answer is certain.
func (q *quickSchema) invalid(n *node) bool {
	if q.never {
		return true
	}
	if q.ref != nil && q.ref.invalid(n) {
		return true
	}
	if q.types != 0 && !q.typeOK(n) {
		// typeOK is unsure only of an integer written 5.0 or 5e3.
		if n.kind != numberNode || q.types&typeInteger == 0 || !strings.ContainsAny(n.str, ".eE") {
			return true
		}
	}
	if q.hasEnum && (n.kind != stringNode || !q.inEnum(n.str)) {
		return true // the enums compiled hold strings only
	}
	switch n.kind {
	case objectNode:
		for _, r := range q.required {
			if n.get(r) == nil {
				return true
			}
		}
		for _, f := range n.fields {
			if p, ok := q.props[f.key]; ok && p.invalid(f.val) {
				return true
			}
		}
	case numberNode:
		if below, above, ok := q.outOfBounds(n.str); ok && (below || above) {
			return true
		}
	}
	return false
}

// validName checks an object key against a propertyNames schema: the key is
// a string instance.
func (q *quickSchema) validName(key string) bool {
	if q.never || q.ref != nil && !q.ref.validName(key) {
		return false
	}
	if q.types != 0 && q.types&typeString == 0 || q.hasEnum && !q.inEnum(key) {
		return false
	}
	return q.validString(key)
}
