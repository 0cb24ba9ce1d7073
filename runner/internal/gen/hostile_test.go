package gen

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

const hostileSchema = `{
  "type": "object",
  "additionalProperties": false,
  "required": ["city", "days"],
  "properties": {
    "city": {"type": "string", "minLength": 2, "maxLength": 40},
    "units": {"type": "string", "enum": ["metric", "imperial"]},
    "code": {"type": "string", "pattern": "^[A-Z]{3}$"},
    "days": {"type": "integer", "minimum": 1, "maximum": 14},
    "ratio": {"type": "number", "exclusiveMinimum": 0.5},
    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "filter": {"type": "object"},
    "note": {"type": ["string", "null"]}
  }
}`

// TestHostile: every kind of case the sharper fuzzer derives is there, with
// the value just outside each bound, and Forbidden says what the validator
// says; every case is JSON.
func TestHostile(t *testing.T) {
	in := mustCompile(t, hostileSchema)
	valid, notes := NewValues(1).Valid("weather", in)
	if len(notes) > 0 {
		t.Fatalf("valid: %v", notes)
	}
	cases := NewValues(1).Hostile("weather", in, valid, 1000)
	got := map[string]Case{}
	for _, c := range cases {
		got[c.Name+" "+c.Property] = c
		b, err := json.Marshal(c.Arguments)
		if err != nil {
			t.Errorf("%s %s: not JSON: %v", c.Name, c.Property, err)
		}
		if forbidden := validate(in, c.Arguments) != nil; forbidden != c.Forbidden {
			t.Errorf("%s %s: Forbidden %v, validator says %v (%s)", c.Name, c.Property, c.Forbidden, forbidden, clip(string(b)))
		}
	}
	for _, want := range []struct {
		key       string
		value     any
		forbidden bool
	}{
		{"below-minimum days", json.Number("0"), true},
		{"above-maximum days", json.Number("15"), true},
		{"below-minimum ratio", json.Number("0.5"), true},
		{"too-short city", "a", true},
		{"too-long city", strings.Repeat("a", 41), true},
		{"not-in-enum units", "mcpcheck-not-in-enum", true},
		{"pattern-violation code", "", true},
		{"null city", nil, true},
		{"empty-string city", "", true},
		{"huge-string city", strings.Repeat("x", 10<<10), true},
		{"too-few-items tags", []any{}, true},
		{"extra-property mcpcheck_unexpected", "x", true},
		{"nul-string city", "mcpcheck\x00nul", false},
		{"path-traversal city", "../../../../../../etc/passwd", false},
		{"sql-metacharacters city", "mcpcheck' OR '1'='1'; --", false},
	} {
		c, ok := got[want.key]
		if !ok {
			t.Errorf("no %s case", want.key)
			continue
		}
		prop := c.Property
		if !reflect.DeepEqual(c.Arguments[prop], want.value) || c.Forbidden != want.forbidden {
			t.Errorf("%s: value %v forbidden %v, want %v %v", want.key, clip(jsonText(c.Arguments[prop])), c.Forbidden, clip(jsonText(want.value)), want.forbidden)
		}
	}
	if c := got["huge-array tags"]; len(c.Arguments["tags"].([]any)) != 1000 {
		t.Errorf("huge-array: %d items", len(c.Arguments["tags"].([]any)))
	}
	depth := 0
	for v, ok := got["deep-object filter"].Arguments["filter"].(map[string]any); ok; v, ok = v["nested"].(map[string]any) {
		depth++
	}
	if depth != 100 {
		t.Errorf("deep-object: %d levels", depth)
	}
	for _, dup := range []string{"empty-array tags", "empty-string code"} {
		if _, ok := got[dup]; ok {
			t.Errorf("%s repeats an earlier case's arguments", dup)
		}
	}
	if _, ok := got["null note"]; ok {
		t.Error("null case for a property that allows null")
	}
	if _, ok := got["nul-string units"]; ok {
		t.Error("hostile strings for an enum property (they duplicate not-in-enum)")
	}
}

// TestHostileBudget: at most max cases, chosen by the seed, in the order
// of the full list, the same every time.
func TestHostileBudget(t *testing.T) {
	in := mustCompile(t, hostileSchema)
	valid, _ := NewValues(1).Valid("weather", in)
	all := NewValues(1).Hostile("weather", in, valid, 1000)
	if len(all) < 30 {
		t.Fatalf("only %d cases", len(all))
	}
	pick := func(seed int64) []string {
		var out []string
		for _, c := range NewValues(seed).Hostile("weather", in, valid, 10) {
			out = append(out, c.Name+" "+c.Property)
		}
		return out
	}
	a, b, other := pick(1), pick(1), pick(2)
	if len(a) != 10 || !reflect.DeepEqual(a, b) {
		t.Fatalf("seed 1 gave %v then %v", a, b)
	}
	if reflect.DeepEqual(a, other) {
		t.Errorf("seeds 1 and 2 chose the same cases: %v", a)
	}
	pos := map[string]int{}
	for i, c := range all {
		pos[c.Name+" "+c.Property] = i
	}
	for i := 1; i < len(a); i++ {
		if pos[a[i-1]] > pos[a[i]] {
			t.Errorf("order not kept: %v", a)
		}
	}
	if NewValues(1).Hostile("weather", in, valid, 0) != nil || NewValues(1).Hostile("weather", nil, valid, 5) != nil {
		t.Error("cases without a budget or a schema")
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
