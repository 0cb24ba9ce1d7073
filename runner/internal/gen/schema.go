package gen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Limits that keep every function total on hostile schemas. Real tool
// schemas come nowhere near them.
const (
	maxGenDepth   = 32      // nesting of generated values (objects in arrays in objects ...)
	maxRefHops    = 32      // $ref/allOf expansions while flattening one node
	maxCheckDepth = 128     // recursion of the internal validator
	maxEnum       = 1000    // enum members considered as candidates
	maxItemsGen   = 256     // array elements generated for one array
	maxProps      = 64      // optional properties considered for one object
	maxStringGen  = 4096    // runes in a generated string
	maxNumDigits  = 1000    // digits in a number literal we do arithmetic on
	maxExponent   = 400     // |exponent| of a number literal we do arithmetic on
	workBudget    = 200000  // generator + validator steps for one generation
	sizeBudget    = 1 << 20 // runes of strings plus container elements generated in one call
)

// Draft identifiers, ordered by age.
const (
	draft4    = 4
	draft6    = 6
	draft7    = 7
	draft2019 = 2019
	draft2020 = 2020
)

// errBudget is returned (and turned into a note) when a schema needs more
// work than [workBudget] allows.
var errBudget = errors.New("schema too complex: work budget exhausted")

// document is a decoded input schema plus what is needed to resolve its
// local references.
type document struct {
	root    any
	rootPtr uintptr // identity of the root map, to tell it from nested $id scopes
	rootID  string  // the root's $id without fragment, so "that-id#/x" resolves locally
	draft   int
}

// decodeSchema decodes raw JSON with UseNumber and refuses trailing data.
func decodeSchema(raw json.RawMessage) (*document, error) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 {
		return nil, errors.New("inputSchema is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("inputSchema is not JSON: %v", err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("inputSchema has trailing data after the JSON value")
	}
	d := &document{root: v, draft: draft2020}
	if m, ok := v.(map[string]any); ok {
		d.rootPtr = mapPtr(m)
		if s, ok := m["$schema"].(string); ok {
			d.draft = draftOf(s)
		}
		idKey := "$id"
		if d.draft == draft4 {
			idKey = "id"
		}
		if id, ok := m[idKey].(string); ok {
			d.rootID, _, _ = strings.Cut(id, "#")
		}
	}
	return d, nil
}

// draftOf maps a $schema URI to a draft; unknown values get 2020-12, which
// is what MCP specifies when $schema is absent.
func draftOf(s string) int {
	switch {
	case strings.Contains(s, "draft-04"), strings.Contains(s, "draft-03"):
		return draft4
	case strings.Contains(s, "draft-06"):
		return draft6
	case strings.Contains(s, "draft-07"):
		return draft7
	case strings.Contains(s, "2019-09"):
		return draft2019
	default:
		return draft2020
	}
}

func mapPtr(m map[string]any) uintptr {
	return reflect.ValueOf(m).Pointer()
}

// opensScope reports whether schema object m starts a new base URI (a
// nested $id), under which "#/..." would not mean this document's root.
func (d *document) opensScope(m map[string]any) bool {
	if mapPtr(m) == d.rootPtr {
		return false
	}
	key := "$id"
	if d.draft == draft4 {
		key = "id"
	}
	id, ok := m[key].(string)
	return ok && !strings.HasPrefix(id, "#")
}

// resolve follows a local reference: "#", "#/json/pointer", or the root's
// own $id followed by one of those. Anything else is not resolved.
func (d *document) resolve(ref string) (any, error) {
	if d.rootID != "" && strings.HasPrefix(ref, d.rootID) {
		ref = ref[len(d.rootID):]
	}
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("$ref %q is not local; only #/... references are followed", clip(ref))
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, fmt.Errorf("$ref %q has a bad escape", clip(ref))
	}
	if frag == "" {
		return d.root, nil
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("$ref %q names an anchor; only JSON Pointer references are followed", clip(ref))
	}
	cur := d.root
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			next, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("$ref %q points at nothing", clip(ref))
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, fmt.Errorf("$ref %q points at nothing", clip(ref))
			}
			cur = x[i]
		default:
			return nil, fmt.Errorf("$ref %q points at nothing", clip(ref))
		}
	}
	return cur, nil
}

// clip shortens text quoted in notes.
func clip(s string) string {
	const n = 60
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// parseRat converts a JSON number literal to an exact rational. Literals
// with absurd exponents or lengths are refused rather than expanded.
func parseRat(s string) (*big.Rat, bool) {
	if s == "" || len(s) > maxNumDigits {
		return nil, false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
		if err != nil || e > maxExponent || e < -maxExponent {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// numberOf returns the exact value of a JSON number in any of the
// representations a caller may hand us.
func numberOf(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return parseRat(string(x))
	case float64:
		if x != x || x > 1e308 || x < -1e308 {
			return nil, false
		}
		r := new(big.Rat)
		if r.SetFloat64(x) == nil {
			return nil, false
		}
		return r, true
	case int:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	}
	return nil, false
}

// isNumber reports whether v is a JSON number in any representation.
func isNumber(v any) bool {
	switch v.(type) {
	case json.Number, float64, int, int64:
		return true
	}
	return false
}

// ratNumber renders an exact rational as a json.Number. Every rational the
// generator builds has a terminating decimal expansion.
func ratNumber(r *big.Rat) json.Number {
	if r.IsInt() {
		return json.Number(r.Num().String())
	}
	den := new(big.Int).Set(r.Denom())
	two, five := 0, 0
	for den.Bit(0) == 0 {
		den.Rsh(den, 1)
		two++
	}
	q, m := new(big.Int), new(big.Int)
	f := big.NewInt(5)
	for {
		q.QuoRem(den, f, m)
		if m.Sign() != 0 {
			break
		}
		den.Set(q)
		five++
	}
	digits := max(two, five)
	if den.Cmp(big.NewInt(1)) != 0 {
		digits = 17 // not representable exactly; the validator will notice
	}
	s := r.FloatString(digits)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return json.Number(s)
}

// keywordCount reads a non-negative integer keyword (minLength, maxItems ...).
// present reports the keyword exists; ok reports it is well formed. Values
// beyond int32 are clamped, which makes them unsatisfiable for generation.
func keywordCount(m map[string]any, key string) (n int, present, ok bool) {
	v, present := m[key]
	if !present {
		return 0, false, true
	}
	r, isNum := numberOf(v)
	if !isNum || !r.IsInt() || r.Sign() < 0 {
		return 0, true, false
	}
	if r.Num().Cmp(big.NewInt(1<<31-1)) > 0 {
		return 1<<31 - 1, true, true
	}
	return int(r.Num().Int64()), true, true
}

// requiredOf returns the well-formed part of a `required` keyword and
// whether it was well formed.
func requiredOf(m map[string]any) ([]string, bool) {
	v, present := m["required"]
	if !present {
		return nil, true
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	wellFormed := true
	for _, e := range arr {
		s, ok := e.(string)
		if !ok {
			wellFormed = false
			continue
		}
		out = append(out, s)
	}
	return out, wellFormed
}

// sortedKeys returns a map's keys in order, so nothing depends on map
// iteration order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// pointerJoin appends one reference token to a JSON Pointer.
func pointerJoin(base, tok string) string {
	tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
	return base + "/" + tok
}

// where renders a JSON Pointer for notes; the root is "(arguments)".
func where(path string) string {
	if path == "" {
		return "(arguments)"
	}
	return clip(path)
}

// JSON types as a bit set.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tObject
	tArray
	tNumber
	tInteger // integers are numbers too; see allows
	tString
	tAll = tNull | tBoolean | tObject | tArray | tNumber | tInteger | tString
)

var typeNames = map[string]typeSet{
	"null": tNull, "boolean": tBoolean, "object": tObject, "array": tArray,
	"number": tNumber, "integer": tInteger, "string": tString,
}

// typeOrder lists types in their declared order; ok is false when the
// keyword is malformed or names an unknown type.
func typeOrder(v any) (order []typeSet, ok bool) {
	switch x := v.(type) {
	case string:
		t, known := typeNames[x]
		if !known {
			return nil, false
		}
		return []typeSet{t}, true
	case []any:
		if len(x) == 0 {
			return nil, false
		}
		for _, e := range x {
			s, isStr := e.(string)
			t, known := typeNames[s]
			if !isStr || !known {
				return nil, false
			}
			order = append(order, t)
		}
		return order, true
	}
	return nil, false
}

// setOf folds declared types into a set; "number" admits integers.
func setOf(order []typeSet) typeSet {
	var s typeSet
	for _, t := range order {
		s |= t
		if t == tNumber {
			s |= tInteger
		}
	}
	return s
}

// typeOfValue is the most specific JSON type of a generic value.
func typeOfValue(v any) typeSet {
	switch x := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBoolean
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case string:
		return tString
	case json.Number:
		if isIntegerLiteral(string(x)) {
			return tInteger
		}
		return tNumber
	case float64:
		if x == float64(int64(x)) {
			return tInteger
		}
		return tNumber
	case int, int64:
		return tInteger
	}
	return 0
}

// isIntegerLiteral is deliberately strict: "1.0" is not treated as an
// integer (draft 4 validators disagree about it), so generated integers
// are always written without a fraction.
func isIntegerLiteral(s string) bool {
	if s == "" || strings.ContainsAny(s, ".eE") {
		return false
	}
	_, ok := parseRat(s)
	return ok
}

func typeName(t typeSet) string {
	switch t {
	case tNull:
		return "null"
	case tBoolean:
		return "boolean"
	case tObject:
		return "object"
	case tArray:
		return "array"
	case tNumber:
		return "number"
	case tInteger:
		return "integer"
	case tString:
		return "string"
	}
	return "unknown"
}
