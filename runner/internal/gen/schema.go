package gen

import (
	"encoding/json"
	"errors"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/go-openapi/jsonpointer"

	"github.com/mcpcheck/mcpcheck/internal/jsonx"
)

// Limits that keep every function total on hostile schemas. Real tool
// schemas come nowhere near them. Reaching one gives a note, unless the
// arguments validate all the same.
const (
	maxGenDepth  = 32      // nesting of generated values (objects in arrays in objects ...)
	maxRefHops   = 32      // $ref/allOf expansions while flattening one node
	maxEnum      = 1000    // enum members considered as candidates
	maxItemsGen  = 256     // array elements generated for one array
	maxProps     = 64      // optional properties considered for one object
	maxStringGen = 4096    // runes written from one pattern
	workBudget   = 200000  // generator steps and validations for one generation
	sizeBudget   = 1 << 20 // runes of strings plus container elements generated in one call
)

// Drafts, as [schema.Schema.Draft] numbers them.
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

// numberOf returns the exact value of a JSON number in any of the
// representations a caller may hand us.
func numberOf(v any) (*big.Rat, bool) {
	switch x := v.(type) {
	case json.Number:
		return jsonx.Rat(string(x))
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

// count reads a non-negative integer keyword (minLength, maxItems ...);
// ok is false when it is absent or malformed. Values beyond int32 are
// clamped, which makes them unsatisfiable for generation.
func count(m map[string]any, key string) (n int, ok bool) {
	r, isNum := numberOf(m[key])
	if !isNum || !r.IsInt() || r.Sign() < 0 {
		return 0, false
	}
	if r.Num().Cmp(big.NewInt(1<<31-1)) > 0 {
		return 1<<31 - 1, true
	}
	return int(r.Num().Int64()), true
}

// requiredOf returns the names a `required` keyword lists.
func requiredOf(m map[string]any) []string {
	arr, _ := m["required"].([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// sortedKeys returns a map's keys in order, so nothing depends on map
// iteration order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// pointerJoin appends one reference token to a JSON Pointer.
func pointerJoin(base, tok string) string {
	return base + "/" + jsonpointer.Escape(tok)
}

// index appends an array index to a JSON Pointer.
func index(base string, i int) string {
	return base + "/" + strconv.Itoa(i)
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
// keyword is absent, malformed or names an unknown type.
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
