package schema

import (
	"slices"
	"testing"
)

func mustCompile(t *testing.T, raw string) *Schema {
	t.Helper()
	s, err := Compile("tool", "input", []byte(raw))
	if err != nil || s == nil {
		t.Fatalf("Compile(%s) = %v, %v", raw, s, err)
	}
	return s
}

func TestRefs(t *testing.T) {
	s := mustCompile(t, `{
		"$defs": {
			"s": {"$anchor": "str", "type": "string"},
			"a/b~c%d": {"type": "integer"},
			"meta": {"$dynamicAnchor": "meta", "type": "boolean"}
		},
		"properties": {
			"pointer": {"$ref": "#/$defs/s"},
			"escaped": {"$ref": "#/$defs/a~1b~0c%25d"},
			"anchor": {"$ref": "#str"},
			"nested": {"$id": "https://other.example/x.json", "$defs": {"s": {"type": "null"}}, "$ref": "#/$defs/s"},
			"dynamic": {"$dynamicRef": "#meta"},
			"none": {"type": "string"}
		}
	}`)
	tests := map[string][]string{
		"/properties/pointer": {"/$defs/s"},
		"/properties/escaped": {"/$defs/a~1b~0c%d"},
		"/properties/anchor":  {"/$defs/s"},
		"/properties/nested":  {"/properties/nested/$defs/s"},
		"/properties/dynamic": {"/$defs/meta"},
		"/properties/none":    nil,
		"/no/such/place":      nil,
	}
	for ptr, want := range tests {
		if got := s.Refs(ptr); !slices.Equal(got, want) {
			t.Errorf("Refs(%q) = %q, want %q", ptr, got, want)
		}
	}
}

func TestWithFormats(t *testing.T) {
	s := mustCompile(t, `{"type": "string", "format": "email"}`)
	if err := s.Validate("not an email"); err != nil {
		t.Fatalf("2020-12 annotates format, yet: %v", err)
	}
	strict, err := s.WithFormats()
	if err != nil {
		t.Fatal(err)
	}
	if strict.Validate("not an email") == nil {
		t.Error("WithFormats accepts a bad email")
	}
	if err := strict.ValidateAt("", "jane.doe@example.com"); err != nil {
		t.Error(err)
	}
	if again, _ := s.WithFormats(); again != strict {
		t.Error("WithFormats compiled twice")
	}
}

func TestDraft(t *testing.T) {
	for raw, want := range map[string]int{
		`{}`: 2020,
		`{"$schema": "http://json-schema.org/draft-07/schema#"}`:      7,
		`{"$schema": "https://json-schema.org/draft/2019-09/schema"}`: 2019,
		`{"$schema": "http://json-schema.org/draft-04/schema#"}`:      4,
	} {
		if got := mustCompile(t, raw).Draft(); got != want {
			t.Errorf("Draft of %s = %d, want %d", raw, got, want)
		}
	}
}

// TestExplainIsDeterministic: the validator reports the causes of an error
// in map order; Explain must pick the same one every time.
func TestExplainIsDeterministic(t *testing.T) {
	s := mustCompile(t, `{"properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"minimum": 5}},
		"additionalProperties": false, "dependentRequired": {"a": ["x"], "b": ["y"]}}`)
	v := map[string]any{"a": 1.0, "b": true, "c": 1.0, "z1": 1.0, "z2": 2.0, "z3": 3.0}
	want := Explain(s.Validate(v))
	if want.Path != "" || want.Keyword != "additionalProperties" || want.Message != "additional properties 'z1', 'z2', 'z3' not allowed" {
		t.Errorf("Explain = %+v", want)
	}
	for i := 0; i < 50; i++ {
		if got := Explain(s.Validate(v)); got != want {
			t.Fatalf("Explain = %+v, then %+v", want, got)
		}
	}
	items := mustCompile(t, `{"items": {"type": "string"}}`)
	if got := Explain(items.Validate([]any{"a", "b", 10.0, "c", "d", "e", "f", "g", "h", "i", 11.0})); got.Path != "/2" {
		t.Errorf("the first bad item is /2, Explain says %q", got.Path)
	}
}
