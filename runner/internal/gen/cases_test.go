package gen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type caseSummary struct {
	Name, Property, Detail, Args string
}

func summarize(cases []Case) []caseSummary {
	out := make([]caseSummary, len(cases))
	for i, c := range cases {
		b, _ := json.Marshal(c.Arguments)
		out[i] = caseSummary{c.Name, c.Property, c.Detail, string(b)}
	}
	return out
}

func TestFuzzCases(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   []caseSummary
		note   string
	}{
		{
			name:   "echo",
			schema: `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}`,
			want: []caseSummary{
				{"valid", "", "schema-derived valid call", `{"message":"Please remember to water the plants on Friday."}`},
				{"missing-required", "message", `required property "message" removed`, `{}`},
				{"wrong-type", "message", "string → number", `{"message":12345}`},
			},
		},
		{
			name:   "sum",
			schema: `{"type":"object","properties":{"b":{"type":"number"},"a":{"type":"integer"},"on":{"type":"boolean"}},"required":["b","a"]}`,
			want: []caseSummary{
				{"valid", "", "schema-derived valid call", `{"a":9,"b":92,"on":false}`},
				{"missing-required", "a", `required property "a" removed`, `{"b":92,"on":false}`},
				{"missing-required", "b", `required property "b" removed`, `{"a":9,"on":false}`},
				{"wrong-type", "a", "integer → string", `{"a":"not-a-valid-value","b":92,"on":false}`},
				{"wrong-type", "b", "number → string", `{"a":9,"b":"not-a-valid-value","on":false}`},
				{"wrong-type", "on", "boolean → string", `{"a":9,"b":92,"on":"not-a-valid-value"}`},
			},
		},
		{
			name:   "other types",
			schema: `{"type":"object","properties":{"o":{"type":"object"},"l":{"type":"array"},"n":{"type":"null"},"sn":{"type":["string","number"]},"si":{"type":["string","integer"]},"ns":{"type":["null","string"]}}}`,
			want: []caseSummary{
				// Optional properties without a default: one per call (optional.go).
				{"valid", "", "schema-derived valid call", `{"l":["alpha"]}`},
				{"wrong-type", "l", "array → string", `{"l":"not-a-valid-value"}`},
				{"wrong-type", "n", "null → string", `{"l":["alpha"],"n":"not-a-valid-value"}`},
				{"wrong-type", "ns", "string → number", `{"l":["alpha"],"ns":12345}`},
				{"wrong-type", "o", "object → string", `{"l":["alpha"],"o":"not-a-valid-value"}`},
				{"wrong-type", "si", "string → boolean", `{"l":["alpha"],"si":true}`},
				{"wrong-type", "sn", "string → boolean", `{"l":["alpha"],"sn":true}`},
			},
		},
		{
			name:   "untyped skipped",
			schema: `{"type":"object","properties":{"x":{"description":"anything"}},"required":["x"]}`,
			want: []caseSummary{
				{"valid", "", "schema-derived valid call", `{"x":"harbor"}`},
				{"missing-required", "x", `required property "x" removed`, `{}`},
			},
			note: `/x: it declares no type; wrong-type case skipped`,
		},
		{
			name:   "anyOf skipped",
			schema: `{"type":"object","properties":{"x":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`,
			want: []caseSummary{
				{"valid", "", "schema-derived valid call", `{"x":"harbor"}`},
			},
			note: "ambiguous",
		},
		{
			name:   "types through ref and allOf",
			schema: `{"$defs":{"n":{"type":"integer"}},"type":"object","allOf":[{"properties":{"x":{"$ref":"#/$defs/n"}}},{"required":["x"]}]}`,
			want: []caseSummary{
				{"valid", "", "schema-derived valid call", `{"x":6}`},
				{"missing-required", "x", `required property "x" removed`, `{}`},
				{"wrong-type", "x", "integer → string", `{"x":"not-a-valid-value"}`},
			},
		},
		{
			name:   "refused",
			schema: `[`,
			want:   []caseSummary{{"valid", "", "schema-derived valid call", `{}`}},
			note:   noSchema,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sch, _ := compile([]byte(tt.schema))
			cases, notes := FuzzCases("tool", sch, NewValues(5))
			if diff := cmp.Diff(tt.want, summarize(cases)); diff != "" {
				t.Errorf("cases (-want +got):\n%s", diff)
			}
			if tt.note != "" && !strings.Contains(strings.Join(notes, "\n"), tt.note) {
				t.Errorf("notes %q lack %q", notes, tt.note)
			}
			if sch == nil {
				return
			}
			for _, c := range cases[1:] {
				if validate(sch, c.Arguments) == nil {
					t.Errorf("%s/%s is accepted", c.Name, c.Property)
				}
			}
		})
	}
}

func TestFuzzCasesShareNothing(t *testing.T) {
	raw := mustCompile(t, `{"type":"object","properties":{"p":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"r":{"type":"string"}},"required":["p","r"]}`)
	cases, _ := FuzzCases("t", raw, nil)
	cases[1].Arguments["r"] = "changed"
	if p, ok := cases[0].Arguments["p"].(map[string]any); ok {
		p["q"] = "changed"
	}
	for _, c := range cases[1:] {
		if p, ok := c.Arguments["p"].(map[string]any); ok && p["q"] == "changed" {
			t.Errorf("%s/%s shares nested values with the valid case", c.Name, c.Property)
		}
	}
	if cases[0].Arguments["r"] == "changed" {
		t.Error("cases share their top-level map")
	}
}

func TestFuzzCasesPeers(t *testing.T) {
	for file, tools := range loadPeers(t) {
		for _, tool := range tools {
			sch := mustCompile(t, string(tool.InputSchema))
			cases, notes := FuzzCases(tool.Name, sch, NewValues(1))
			if len(notes) > 0 {
				t.Errorf("%s/%s: notes %v", file, tool.Name, notes)
			}
			if err := validate(sch, cases[0].Arguments); err != nil {
				t.Errorf("%s/%s: valid case invalid: %v", file, tool.Name, err)
			}
			for _, c := range cases[1:] {
				if validate(sch, c.Arguments) == nil {
					t.Errorf("%s/%s: %s/%s accepted", file, tool.Name, c.Name, c.Property)
				}
			}
		}
	}
}
