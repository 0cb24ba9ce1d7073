package report_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpcheck/mcpcheck/runner/report"
)

// TestArgumentKinds: the text view of a tool's arguments shows bounds,
// patterns and defaults, reads a union of types as one and lists richer
// alternatives, and resolves local $refs (a cycle stops).
func TestArgumentKinds(t *testing.T) {
	schema := `{"type":"object","$defs":{
		"Color":{"type":"string","enum":["red","blue"]},
		"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"}}},
		"Range":{"type":"integer","minimum":0,"maximum":9}},
	"properties":{
		"name":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[a-z]+$"},
		"tags":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":5},
		"limit":{"type":"integer","minimum":1,"default":10},
		"maybe":{"anyOf":[{"type":"string"},{"type":"null"}]},
		"either":{"oneOf":[{"type":"string","maxLength":3},{"type":"integer","minimum":5}]},
		"color":{"$ref":"#/$defs/Color"},
		"node":{"$ref":"#/$defs/Node"},
		"span":{"$ref":"#/$defs/Range"},
		"far":{"$ref":"https://example.com/s.json"}}}`
	want := map[string]string{
		"name":   "string, length 1..64, matching ^[a-z]+$",
		"tags":   "array of string, 1..5 items",
		"limit":  "integer >= 1, default 10",
		"maybe":  "string|null",
		"either": "one of: string, length <= 3 | integer >= 5",
		"color":  "string",
		"node":   "object",
		"span":   "integer 0..9",
		"far":    "ref https://example.com/s.json",
	}
	names, kinds := report.ArgumentKinds(json.RawMessage(schema))
	if len(names) != len(want) {
		t.Fatalf("%d arguments, want %d", len(names), len(want))
	}
	for i, name := range names {
		if kinds[i] != want[name] {
			t.Errorf("%s: %q, want %q", name, kinds[i], want[name])
		}
	}
}
