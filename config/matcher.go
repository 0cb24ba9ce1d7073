package config

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// An expected value (structuredEquals, structuredIncludes, the values of
// structuredPaths, result, textJSON, await.params, notifications) is
// decoded like any other value, with two differences: an object whose only
// key names a matcher becomes a *Matcher, and a key written with a leading
// "$$" loses one "$" ({"$$ref": x} is the literal key "$ref"). The schema
// ($defs/expected and $defs/matcher) has refused malformed matchers, unknown
// "$" keys and bad regular expressions before anything is decoded, with
// their positions, so decoding cannot fail. A "$ref" key alone is data here
// ({"$ref": ...} is not resolved in an expectation), as it always was.

// MatcherOp names a matcher: the key of its object.
type MatcherOp string

// The matchers, in the order of the fixture schema's $defs/matcher.
const (
	MatchRegexp   MatcherOp = "$match"    // a string matching an RE2 expression
	MatchType     MatcherOp = "$type"     // a value of a JSON type
	MatchGT       MatcherOp = "$gt"       // a number greater than the bound
	MatchGTE      MatcherOp = "$gte"      // a number greater than or equal to the bound
	MatchLT       MatcherOp = "$lt"       // a number less than the bound
	MatchLTE      MatcherOp = "$lte"      // a number less than or equal to the bound
	MatchLen      MatcherOp = "$len"      // a string, array or object of a length
	MatchContains MatcherOp = "$contains" // a string with a substring, an array with an element
	MatchOneOf    MatcherOp = "$oneOf"    // a value matching one of several
	MatchAny      MatcherOp = "$any"      // any value that is there
	MatchAbsent   MatcherOp = "$absent"   // no value: the key or path is not there
)

// MatcherOps lists every matcher, in the order of the fixture schema.
var MatcherOps = []MatcherOp{
	MatchRegexp, MatchType, MatchGT, MatchGTE, MatchLT, MatchLTE,
	MatchLen, MatchContains, MatchOneOf, MatchAny, MatchAbsent,
}

// JSONType is a JSON type as $type names it; integer is a number without a
// fraction.
type JSONType string

// The types, in the order of the fixture schema's $type enum.
const (
	TypeString  JSONType = "string"
	TypeNumber  JSONType = "number"
	TypeInteger JSONType = "integer"
	TypeBoolean JSONType = "boolean"
	TypeObject  JSONType = "object"
	TypeArray   JSONType = "array"
	TypeNull    JSONType = "null"
)

// JSONTypes lists every type $type accepts, in the order of the schema.
var JSONTypes = []JSONType{TypeString, TypeNumber, TypeInteger, TypeBoolean, TypeObject, TypeArray, TypeNull}

// Matcher is an expected value that matches instead of comparing: written
// as an object whose only key is Op, it stands inside the decoded expected
// value wherever it was written (a map member, an array item, the whole
// value). Which field is set follows Op. A Matcher is read-only and may be
// shared by the expected values of several steps, like every decoded
// value.
type Matcher struct {
	Op MatcherOp
	// Pattern is $match's expression, compiled (RE2; it matches anywhere
	// in the string unless anchored).
	Pattern *regexp.Regexp
	// Type is $type's type.
	Type JSONType
	// Bound is the number of $gt, $gte, $lt and $lte, as written.
	Bound json.Number
	// Len is $len's length: a json.Number, or a *Matcher for it.
	Len any
	// Contains is $contains' operand: a string (a substring) or an
	// expected value (an array element), which may be or hold matchers.
	Contains any
	// OneOf are $oneOf's expected values.
	OneOf []any
}

// MarshalJSON writes the matcher as a fixture writes it, {"$gte": 1}, so
// that a report showing an expected value shows its matchers.
func (m *Matcher) MarshalJSON() ([]byte, error) {
	var arg any = true
	switch m.Op {
	case MatchRegexp:
		arg = ""
		if m.Pattern != nil {
			arg = m.Pattern.String()
		}
	case MatchType:
		arg = m.Type
	case MatchGT, MatchGTE, MatchLT, MatchLTE:
		arg = m.Bound
	case MatchLen:
		arg = m.Len
	case MatchContains:
		arg = m.Contains
	case MatchOneOf:
		arg = m.OneOf
	}
	return json.Marshal(map[string]any{string(m.Op): arg})
}

// String is the matcher as compact JSON, for messages.
func (m *Matcher) String() string {
	b, err := m.MarshalJSON()
	if err != nil {
		return string(m.Op)
	}
	return string(b)
}

// expectedTag starts the sharing key of an expected value, so that it is
// never taken for a plain value written the same ({"$type": "string"} is a
// matcher in an expectation and data in arguments).
const expectedTag = '='

// expected returns the expected value of n (see the comment at the top).
// A small value without matchers or "$$" keys is the plain value, shared
// with arguments and expectations written the same (see values.go); a
// small one with them is shared with expected values written the same.
func (d *decoder) expected(n *node) any {
	switch n.kind {
	case objectNode:
		if len(n.fields) == 0 {
			return d.value(n) // the one shared {}
		}
	case arrayNode:
	default:
		return toAny(n)
	}
	sv := &d.shared
	var small bool
	sv.buf, small = appendContent(append(sv.buf[:0], expectedTag), n)
	if small {
		if plain(n) {
			return d.value(n)
		}
		if v, hit := sv.byKey[string(sv.buf)]; hit {
			return v
		}
	}
	var v any
	switch op := matcherKey(n); {
	case n.kind == arrayNode:
		items := make([]any, len(n.items))
		for i, it := range n.items {
			items[i] = d.expected(it)
		}
		v = items
	case op != "":
		v = d.matcher(op, n.fields[0].val)
	default:
		m := make(map[string]any, len(n.fields))
		for _, f := range n.fields {
			m[unescapeKey(f.key)] = d.expected(f.val)
		}
		v = m
	}
	if small && len(sv.byKey) < maxShared {
		if sv.byKey == nil {
			sv.byKey = make(map[string]any)
		}
		// The children's calls have reused the buffer.
		sv.buf, _ = appendContent(append(sv.buf[:0], expectedTag), n)
		sv.byKey[string(sv.buf)] = v
	}
	return v
}

// plain reports whether n holds neither a matcher nor a "$$" key, so that
// its expected value is its plain value. It is asked of small values only.
func plain(n *node) bool {
	switch n.kind {
	case arrayNode:
		for _, it := range n.items {
			if !plain(it) {
				return false
			}
		}
	case objectNode:
		if matcherKey(n) != "" {
			return false
		}
		for _, f := range n.fields {
			if strings.HasPrefix(f.key, "$$") || !plain(f.val) {
				return false
			}
		}
	}
	return true
}

// matcherKey is the matcher an object node is written as, or "" when it is
// data: a matcher's object has one key, a known matcher's name. The schema
// refuses any other lone "$" key but "$ref".
func matcherKey(n *node) MatcherOp {
	if n.kind != objectNode || len(n.fields) != 1 {
		return ""
	}
	if op := MatcherOp(n.fields[0].key); slices.Contains(MatcherOps, op) {
		return op
	}
	return ""
}

// unescapeKey drops the first "$" of a key written with "$$".
func unescapeKey(k string) string {
	if strings.HasPrefix(k, "$$") {
		return k[1:]
	}
	return k
}

// matcher decodes the operand v of a matcher op.
func (d *decoder) matcher(op MatcherOp, v *node) *Matcher {
	m := &Matcher{Op: op}
	switch op {
	case MatchRegexp:
		m.Pattern = compileRE2(v.str)
	case MatchType:
		m.Type = JSONType(v.str)
	case MatchGT, MatchGTE, MatchLT, MatchLTE:
		m.Bound = json.Number(v.str)
	case MatchLen:
		m.Len = d.expected(v)
	case MatchContains:
		m.Contains = d.expected(v)
	case MatchOneOf:
		m.OneOf = make([]any, len(v.items))
		for i, it := range v.items {
			m.OneOf[i] = d.expected(it)
		}
	}
	return m
}

// matchNothing is what a pattern that does not compile becomes. The
// schema's regex format refuses such a pattern before anything is decoded;
// should one ever slip through, no check passes by mistake.
var matchNothing = regexp.MustCompile(`[^\x00-\x{10FFFF}]`)

// compileRE2 compiles a pattern the schema has accepted.
func compileRE2(s string) *regexp.Regexp {
	re, err := regexp.Compile(s)
	if err != nil {
		return matchNothing
	}
	return re
}
