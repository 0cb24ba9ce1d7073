package gen

import (
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/mcpcheck/mcpcheck/runner/internal/schema"
)

// Case names of the sharper fuzzer ([Values.Hostile]), in the order it
// considers them for each property.
const (
	CaseBelowMinimum     = "below-minimum"
	CaseAboveMaximum     = "above-maximum"
	CaseTooShort         = "too-short"
	CaseTooLong          = "too-long"
	CaseTooFewItems      = "too-few-items"
	CaseNotInEnum        = "not-in-enum"
	CasePatternViolation = "pattern-violation"
	CaseNull             = "null"
	CaseEmptyString      = "empty-string"
	CaseEmptyArray       = "empty-array"
	CaseHugeString       = "huge-string"
	CaseHugeArray        = "huge-array"
	CaseDeepObject       = "deep-object"
	CaseNULString        = "nul-string"
	CaseRTLString        = "rtl-string"
	CaseEmojiString      = "emoji-string"
	CaseNewlineString    = "newline-string"
	CasePathTraversal    = "path-traversal"
	CaseShellString      = "shell-metacharacters"
	CaseSQLString        = "sql-metacharacters"
	CaseExtraProperty    = "extra-property"
)

// Sizes of the big inputs.
const (
	hugeStringBytes = 10 << 10
	hugeArrayItems  = 1000
	deepObjectLevel = 100
)

// hostileStrings are strings that break naive handlers: control and
// direction characters, emoji, line breaks, and text that means something
// to a file system, a shell or SQL. All of them are valid JSON strings.
var hostileStrings = []struct{ name, value string }{
	{CaseNULString, "mcpcheck\x00nul"},
	{CaseRTLString, "mcpcheck \u202Egnp.exe"},
	{CaseEmojiString, "mcpcheck 😀🎉👩‍👩‍👧"},
	{CaseNewlineString, "mcpcheck\nsecond line\r\nthird"},
	{CasePathTraversal, "../../../../../../etc/passwd"},
	{CaseShellString, "mcpcheck; echo x | cat && $(echo y) `echo z`"},
	{CaseSQLString, "mcpcheck' OR '1'='1'; --"},
}

// patternMisses are tried, in order, as a value that a property's pattern
// does not match; the validator decides.
var patternMisses = []string{"", " ", "mcpcheck does not match ☃", "0", "!"}

// extraProperty is the name of the property the extra-property case adds.
const extraProperty = "mcpcheck_unexpected"

// Hostile derives the sharper fuzzer's cases for a tool from its
// inputSchema, each the valid arguments with one change: a bound just
// outside (minimum−1, maximum+1, minLength−1, maxLength+1, minItems−1), a
// value outside an enum, a pattern violation, null for a property that
// does not allow it, an empty string or array, a 10 KB string, a
// 1,000-element array, a 100-level nested object, strings with NUL, RTL,
// emoji, line breaks, path traversal and shell or SQL metacharacters, and
// an extra property where the top level has additionalProperties: false.
// Only values JSON can carry (no NaN or infinities).
//
// Each case says whether the schema forbids it ([Case.Forbidden], decided
// by the validator): a hostile string a schema allows tests how a server
// copes, not whether it enforces its schema.
//
// At most max cases are returned (none for max <= 0); when there are more,
// which ones is decided by the seed and the tool name, and they keep their
// order. Properties are read as FuzzCases reads them (top level, through
// $ref and allOf).
func (v *Values) Hostile(toolName string, input *schema.Schema, valid map[string]any, max int) []Case {
	if input == nil || valid == nil || max <= 0 {
		return nil
	}
	g := newGen(input, v.seed, toolName)
	var fl flat
	g.expand(ent{s: input.Doc()}, &fl, 0, "")
	props := map[string]bool{}
	closed := false
	for _, o := range fl.objs {
		if pm, ok := o.m["properties"].(map[string]any); ok {
			for k := range pm {
				props[k] = true
			}
		}
		if ap, ok := o.m["additionalProperties"].(bool); ok && !ap {
			closed = true
		}
	}
	var out []Case
	seen := map[string]bool{mustJSON(valid): true}
	add := func(name, prop string, value any, detail string) {
		args := clone(valid)
		args[prop] = value
		b, err := json.Marshal(args)
		if err != nil || seen[string(b)] {
			return // not JSON, no change at all, or an earlier case's arguments
		}
		seen[string(b)] = true
		out = append(out, Case{Name: name, Property: prop, Arguments: args, Detail: detail, Forbidden: input.Validate(args) != nil})
	}
	for _, p := range sortedKeys(props) {
		var pf flat
		for _, e := range g.propertyEnts(fl.objs, p) {
			g.expand(e, &pf, 0, pointerJoin("", p))
		}
		k := keywordsOf(pf.objs)
		g.notes = nil
		if k.types&(tNumber|tInteger) != 0 {
			if lo, ok := k.num("minimum", "exclusiveMinimum", -1); ok {
				add(CaseBelowMinimum, p, lo, "just below the minimum")
			}
			if hi, ok := k.num("maximum", "exclusiveMaximum", +1); ok {
				add(CaseAboveMaximum, p, hi, "just above the maximum")
			}
		}
		if k.types&tString != 0 {
			if n, ok := k.int("minLength"); ok && n > 0 {
				add(CaseTooShort, p, strings.Repeat("a", int(n-1)), fmt.Sprintf("%d characters (minLength %d)", n-1, n))
			}
			if n, ok := k.int("maxLength"); ok && n < hugeStringBytes {
				add(CaseTooLong, p, strings.Repeat("a", int(n+1)), fmt.Sprintf("%d characters (maxLength %d)", n+1, n))
			}
			if len(k.enum) > 0 {
				add(CaseNotInEnum, p, "mcpcheck-not-in-enum", "a string the enum does not list")
			}
			if k.pattern {
				for _, s := range patternMisses {
					args := clone(valid)
					args[p] = s
					if input.Validate(args) != nil {
						add(CasePatternViolation, p, s, "a string the pattern does not match")
						break
					}
				}
			}
		}
		if !k.nullable() {
			add(CaseNull, p, nil, "null where the schema does not allow it")
		}
		if k.types&tString != 0 {
			add(CaseEmptyString, p, "", "the empty string")
			add(CaseHugeString, p, strings.Repeat("x", hugeStringBytes), "a 10 KB string")
			if len(k.enum) == 0 {
				for _, h := range hostileStrings {
					add(h.name, p, h.value, h.name)
				}
			}
		}
		if k.types&tArray != 0 {
			if n, ok := k.int("minItems"); ok && n > 0 {
				add(CaseTooFewItems, p, hugeList(valid[p], int(n-1)), fmt.Sprintf("%d items (minItems %d)", n-1, n))
			}
			add(CaseEmptyArray, p, []any{}, "the empty array")
			add(CaseHugeArray, p, hugeList(valid[p], hugeArrayItems), "a 1,000-element array")
		}
		if k.types&tObject != 0 {
			add(CaseDeepObject, p, deepObject(deepObjectLevel), "a 100-level nested object")
		}
	}
	if closed {
		add(CaseExtraProperty, extraProperty, "x", "a property the schema does not declare (additionalProperties: false)")
	}
	if len(out) <= max {
		return out
	}
	// A deterministic choice by seed and tool, in the original order.
	keys := make(map[int]uint64, len(out))
	idx := make([]int, len(out))
	for i := range out {
		idx[i] = i
		keys[i] = g.rnd(out[i].Property, 0, out[i].Name)
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case keys[a] < keys[b]:
			return -1
		case keys[a] > keys[b]:
			return 1
		}
		return a - b
	})
	idx = idx[:max]
	slices.Sort(idx)
	picked := make([]Case, len(idx))
	for i, j := range idx {
		picked[i] = out[j]
	}
	return picked
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// maxListBytes bounds the encoded size of a generated list: copies of a
// big element (a schema of nested minItems) would make one call huge.
const maxListBytes = 1 << 20

// hugeList is n copies of the first element of the valid value (an
// array), or of "x" when there is none or the copies would be too big.
func hugeList(valid any, n int) []any {
	var item any = "x"
	if arr, ok := valid.([]any); ok && len(arr) > 0 {
		if b, err := json.Marshal(arr[0]); err == nil && len(b)*n <= maxListBytes {
			item = arr[0]
		}
	}
	out := make([]any, n)
	for i := range out {
		out[i] = deepCopy(item)
	}
	return out
}

// deepObject is an object nested n levels deep.
func deepObject(n int) map[string]any {
	v := map[string]any{"depth": json.Number(fmt.Sprint(n))}
	for i := n - 1; i > 0; i-- {
		v = map[string]any{"nested": v}
	}
	return v
}

// keywords are the keywords of one property's schemas (a conjunction: each
// applies).
type keywords struct {
	types   typeSet
	typed   bool
	enum    []any
	pattern bool
	values  map[string][]any
}

func keywordsOf(objs []fobj) keywords {
	k := keywords{types: tAll, values: map[string][]any{}}
	for _, o := range objs {
		if order, ok := typeOrder(o.m["type"]); ok {
			k.types &= setOf(order)
			k.typed = true
		}
		if e, ok := o.m["enum"].([]any); ok {
			k.enum = e
		}
		if _, ok := o.m["pattern"].(string); ok {
			k.pattern = true
		}
		for _, key := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems"} {
			if v, ok := o.m[key]; ok {
				k.values[key] = append(k.values[key], v)
			}
		}
	}
	if !k.typed {
		k.types = 0 // no declared type: nothing type-specific is tried
	}
	return k
}

// nullable reports whether null may be valid: the type allows it, or
// nothing is declared.
func (k keywords) nullable() bool {
	if !k.typed {
		return true
	}
	if k.types&tNull != 0 {
		return true
	}
	return slices.Contains(k.enum, nil)
}

// num is the value just outside a bound: bound+delta of an inclusive one
// (minimum−1, maximum+1), or the exclusive bound itself; for an integer
// property the result is an integer. Draft 4's boolean exclusiveMinimum
// leaves minimum−1, which is outside either way.
func (k keywords) num(inclusive, exclusive string, delta int64) (json.Number, bool) {
	integer := k.types&tNumber == 0
	outside := func(r *big.Rat) json.Number {
		if integer && !r.IsInt() {
			if delta < 0 {
				r = new(big.Rat).SetInt(floorRat(r))
			} else {
				r = new(big.Rat).SetInt(ceilRat(r))
			}
		}
		return ratNumber(r)
	}
	for _, v := range k.values[exclusive] {
		if r, ok := numberOf(v); ok {
			return outside(r), true
		}
	}
	for _, v := range k.values[inclusive] {
		if r, ok := numberOf(v); ok {
			return outside(new(big.Rat).Add(r, big.NewRat(delta, 1))), true
		}
	}
	return "", false
}

// int reads an integer keyword (the strictest of the conjunction is not
// sought: the first that reads).
func (k keywords) int(key string) (int64, bool) {
	for _, v := range k.values[key] {
		if r, ok := numberOf(v); ok && r.IsInt() && r.Num().IsInt64() && r.Num().Int64() >= 0 && r.Num().Int64() <= 1<<20 {
			return r.Num().Int64(), true
		}
	}
	return 0, false
}
